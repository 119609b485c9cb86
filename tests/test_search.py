"""Search: relevance over tests/search_relevance.py, the empty/absurd cases, the JSON contract, filters,
`%jaxerr search` in a real InteractiveShell, and the result widget."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from search_relevance import CASES

search_mod = importlib.import_module("jaxerrs.search_index")
search = search_mod.search

ABSURD = ["asdfghjkl qwertyuiop", "banana smoothie recipe", "lorem ipsum dolor sit amet", "xyzzy plugh", "12345",
          "!!! ??? ...", "the of and"]


def _rank(query: str, expected: str) -> int | None:
    ids = [h.id for h in search(query, limit=10)]
    return ids.index(expected) + 1 if expected in ids else None


def test_relevance_set_is_well_formed():
    from jaxerrs.kb.records import all_records

    ids = set(all_records())
    assert len(CASES) >= 60
    assert {kind for _, _, kind in CASES} >= {"words", "message", "partial", "traceback", "class", "tag", "typo"}
    for query, expected, _ in CASES:
        assert expected in ids, f"{expected!r} (for {query[:40]!r}) is not a record id"


def test_relevance_mrr_and_top1():
    ranks = [(_rank(q, e), q, e, k) for q, e, k in CASES]
    rr = [1.0 / r if r else 0.0 for r, *_ in ranks]
    mrr = sum(rr) / len(rr)
    top1 = sum(r == 1 for r, *_ in ranks) / len(ranks)
    by_kind: dict[str, list[float]] = {}
    for (_r, _q, _e, k), x in zip(ranks, rr, strict=True):
        by_kind.setdefault(k, []).append(x)
    print(f"\nsearch relevance over {len(CASES)} queries: MRR {mrr:.3f}, top-1 {top1:.3f}")
    for k, xs in sorted(by_kind.items()):
        print(f"  {k:<10} n={len(xs):<3} MRR {sum(xs) / len(xs):.3f}")
    for r, q, e, k in ranks:
        if r != 1:
            print(f"  miss ({k}): {q[:60]!r} -> {e} at rank {r}")
    assert mrr >= 0.9


@pytest.mark.parametrize("query", ["", "   ", "\n\t", *ABSURD])
def test_empty_and_absurd_queries_find_nothing(query):
    assert search(query) == []


def test_limit():
    assert search("shapes", limit=0) == []
    assert len(search("shapes", limit=3)) == 3
    assert len(search("shapes", limit=50)) > 10


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxerrs", *args], capture_output=True, text=True, timeout=120)


def test_cli_nothing_found_exits_1():
    r = _cli("search", "asdfghjkl", "qwertyuiop")
    assert r.returncode == 1
    assert "nothing found" in r.stderr
    assert r.stdout == ""


def test_cli_text_results():
    r = _cli("search", "python", "if", "on", "traced", "value")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].split()[2] == "tracer-bool-conversion"


def test_cli_json_contract():
    r = _cli("search", "reshape", "size", "--format", "json", "--limit", "60")
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)
    assert hits and len(hits) <= 60
    for h in hits:
        assert set(h) == {"id", "title", "kind", "score"}
        assert isinstance(h["id"], str) and isinstance(h["title"], str) and isinstance(h["score"], float)
        assert h["kind"] in ("record", "site")
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert hits[0]["id"] == "reshape-size-mismatch"
    kinds = [h["kind"] for h in hits]
    assert "site" in kinds  # bare raise sites are searched too ...
    assert kinds == sorted(kinds, key=lambda k: k != "record")  # ... and come after every record


def test_cli_json_nothing_found():
    r = _cli("search", "banana", "smoothie", "--format", "json")
    assert r.returncode == 1
    assert json.loads(r.stdout) == []


@pytest.mark.parametrize("query", ["shape mismatch", "traced value", "pytree structure", "dtype", "sharding mesh"])
def test_records_rank_above_bare_sites(query):
    hits = search(query, limit=40)
    kinds = [h.kind for h in hits]
    assert "record" in kinds
    assert kinds == sorted(kinds, key=lambda k: k != "record"), kinds
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_pasted_traceback_leads_with_matcher_record_then_its_site():
    from search_relevance import TRACEBACK_IPYTHON

    hits = search(TRACEBACK_IPYTHON, limit=5)
    assert hits[0].id == "scan-carry-shape-mismatch" and hits[0].kind == "record"
    assert hits[1].kind == "site" and hits[1].id.startswith("jax/_src/lax/control_flow/loops.py:")


def test_tag_filter():
    hits = search("shapes", limit=20, tags=["concatenate"])
    assert hits and all(h.kind == "record" for h in hits)
    from jaxerrs.kb.records import find

    assert all("concatenate" in find(h.id).tags for h in hits)
    assert {h.id for h in hits} >= {"concatenate-rank-mismatch", "concatenate-shape-mismatch"}
    assert search("shapes", tags=["no-such-tag"]) == []


def test_class_filter():
    hits = search("traced", limit=20, error_class="ConcretizationTypeError")
    assert hits
    for h in hits:
        if h.kind == "record":
            from jaxerrs.kb.records import find

            assert find(h.id).class_name.rsplit(".", 1)[-1] == "ConcretizationTypeError"
        else:
            assert h.title.startswith("ConcretizationTypeError")
    # A full dotted name works as well; the filter applies to a pasted message's matched record too.
    assert [h.id for h in search("traced", limit=20, error_class="jax.errors.ConcretizationTypeError")] == \
        [h.id for h in hits]
    msg = "TypeError: cannot reshape array of shape (6,) (size 6) into shape (4, 2) (size 8)"
    assert search(msg, error_class="IndexError", limit=50) == [] or \
        all(h.id != "reshape-size-mismatch" for h in search(msg, error_class="IndexError", limit=50))


def test_magic_in_terminal_shell(shell):
    from IPython.utils.capture import capture_output

    shell.run_line_magic("load_ext", "jaxerrs")
    with capture_output() as cap:
        shell.run_line_magic("jaxerr", "search python if on traced value")
    first = cap.stdout.strip().splitlines()[0]
    assert "tracer-bool-conversion" in first
    with capture_output() as cap:
        shell.run_line_magic("jaxerr", "search shapes --tag concatenate --limit 2")
    lines = cap.stdout.strip().splitlines()
    assert len(lines) == 2 and all("concatenate" in ln for ln in lines)
    with capture_output() as cap:
        shell.run_line_magic("jaxerr", "search traced --class TracerBoolConversionError --limit 3")
    assert "tracer-bool-conversion" in cap.stdout
    with capture_output() as cap:
        shell.run_line_magic("jaxerr", "search asdfghjkl qwertyuiop")
    assert "nothing found" in cap.stdout


def test_widget_has_class_and_html_fallback():
    hits = search("python if on traced value", limit=5)
    w = search_mod.SearchResults("python if on traced value", hits).widget()
    assert "jaxerrs-search" in w._dom_classes
    bundle = w._repr_mimebundle_()
    assert "text/html" in bundle and 'class="jaxerrs-search"' in bundle["text/html"]
    assert "tracer-bool-conversion" in bundle["text/html"]
    assert "text/plain" in bundle
    empty = search_mod.SearchResults("banana", []).widget()
    assert "jaxerrs-search" in empty._dom_classes
    assert "Nothing found" in empty._repr_mimebundle_()["text/html"]
