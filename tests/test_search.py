"""Search: relevance over tests/search_relevance.py (the records' words) and tests/search_relevance_users.py
(users' words: titles of public threads), the empty/absurd cases, the JSON contract, filters,
`%jaxerr search` in a real InteractiveShell, and the result widget."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys

import pytest

import search_relevance_users
from search_metrics import measure
from search_relevance import CASES

search_mod = importlib.import_module("jaxerrs.search_index")
search = search_mod.search

ABSURD = ["asdfghjkl qwertyuiop", "banana smoothie recipe", "lorem ipsum dolor sit amet", "xyzzy plugh", "12345",
          "!!! ??? ...", "the of and"]


def test_relevance_set_is_well_formed():
    from jaxerrs.kb.records import all_records

    ids = set(all_records())
    assert len(CASES) >= 60
    assert {kind for _, _, kind in CASES} >= {"words", "message", "partial", "traceback", "class", "tag", "typo"}
    for query, expected, _ in CASES:
        assert expected in ids, f"{expected!r} (for {query[:40]!r}) is not a record id"


def test_relevance_mrr_and_top1():
    rep = measure(CASES)
    by_kind: dict[str, list[float]] = {}
    for r in rep.results:
        by_kind.setdefault(r.extra[0], []).append(r.rr)
    print("\nsearch relevance, " + rep.line("records' words"))
    for k, xs in sorted(by_kind.items()):
        print(f"  {k:<10} n={len(xs):<3} MRR {sum(xs) / len(xs):.3f}")
    for r in rep.misses:
        print(f"  miss ({r.extra[0]}): {r.query[:60]!r} -> {r.expected} at rank {r.rank}")
    assert rep.mrr >= 0.9


USERS = search_relevance_users.CASES
USERS_TARGET = 0.9  # issue #9: MRR >= 0.9 on users' own words (0.901 when last measured; held-out half 0.889)


def test_users_relevance_set_is_well_formed():
    from jaxerrs.kb.records import all_records

    ids = set(all_records())
    assert len(USERS) >= 100
    assert len({e for _, e, _ in USERS}) >= 50  # many records, not the top few
    assert len({q for q, _, _ in USERS}) == len(USERS)
    cite = re.compile(r"^([\w.-]+/[\w.-]+#\d+|https?://\S+)$")
    for query, expected, source in USERS:
        assert expected in ids, f"{expected!r} (for {query[:40]!r}) is not a record id"
        assert cite.match(source), f"{source!r} (for {query[:40]!r}) is not owner/repo#N or an address"
    assert len(search_relevance_users.TUNE) + len(search_relevance_users.HELD_OUT) == len(USERS)


def _users_report():
    rep = measure(USERS)
    print("\nsearch relevance, " + rep.line("users' words"))
    print("  " + measure(search_relevance_users.TUNE).line("tune (even entries)"))
    print("  " + measure(search_relevance_users.HELD_OUT).line("held out (odd entries)"))
    for r in rep.misses:
        print(f"  miss: {r.query[:60]!r} -> {r.expected} at rank {r.rank}")
    return rep


def test_users_relevance_mrr():
    assert _users_report().mrr >= USERS_TARGET


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
    # a limit above the number of records that use these words (60 on 2026-12-05), so raise sites show too
    r = _cli("search", "reshape", "size", "--format", "json", "--limit", "200")
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)
    assert hits and len(hits) <= 200
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


def test_frequency_file_names_records():
    """kb/frequency.txt (the popularity prior) names existing records with positive counts."""
    from jaxerrs.kb.records import all_records

    freq = search_mod.frequency()
    assert len(freq) >= 40
    assert set(freq) <= set(all_records()), set(freq) - set(all_records())
    assert all(n > 0 for n in freq.values())
