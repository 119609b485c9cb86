"""The knowledge base: loading and validation, execution checks of every record, seed import."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from jaxerrs.kb import records as kb
from jaxerrs.kb.importer import import_path
from jaxerrs.kb.verify import check, check_record, table, undemonstrated

DATA = Path(__file__).parent / "data"
MODEL = kb.RECORDS_DIR / "tracer-bool-conversion.toml"


def test_all_records_load_cleanly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = kb.all_records(reload=True)
    assert kb.PROBLEMS == []
    curated = [r for r in records.values() if r.origin == "curated"]
    assert len(curated) >= 150
    for r in curated:
        assert r.reproducer or r.verified == "message", r.id
        assert r.fix.before and r.fix.after and r.solutions and r.explanation, r.id
        assert all(x in records for x in r.related), r.id
        assert all(u.startswith("https://") for u in r.references), r.id


def test_every_public_jax_errors_class_has_a_record():
    import jax.errors

    public = {n for n in dir(jax.errors) if isinstance(getattr(jax.errors, n), type)
              and issubclass(getattr(jax.errors, n), Exception)}
    covered = {r.class_name for r in kb.all_records().values()}
    # JAXTypeError / JAXIndexError are bases: covered through their subclasses' records.
    missing = public - covered - {"JAXTypeError", "JAXIndexError"}
    assert not missing, f"no record for {sorted(missing)}"


@pytest.fixture(scope="session")
def check_results(request):
    """kb check of the records whose tests were selected (``-k ID`` checks that record alone); the version
    matrix's row is reported only for a run over every record."""
    wanted = {item.callspec.params["record_id"] for item in request.session.items
              if item.originalname == "test_record_verifies_against_installed_jax"}
    curated = [r for r in kb.all_records().values() if r.origin == "curated" and r.id in wanted]
    results = check(curated)
    print("\n" + table(results))
    if len(results) == len(_curated_ids()):
        import jax_matrix

        jax_matrix.report_kb(kb.installed_jax(), results)  # the newest release's row of the version matrix
    return {r.id: r for r in results}


def _curated_ids() -> list[str]:
    return sorted(r.id for r in kb.all_records().values() if r.origin == "curated")


@pytest.mark.parametrize("record_id", _curated_ids())
def test_record_verifies_against_installed_jax(check_results, record_id):
    res = check_results[record_id]
    assert res.ok, "; ".join(res.failures)


def test_checker_reports_a_record_whose_reproducer_runs_clean():
    rec = kb.load_file(MODEL)
    broken = replace(rec, id="broken", reproducer="x = 1", fix=kb.Fix("y = 2", "raise ValueError('no')"))
    res = check_record(broken)  # in-process: worker processes look records up by id
    assert not res.ok
    assert res.checks["reproducer raises"] == "ran clean"
    assert res.checks["fix.before raises"] == "ran clean"
    assert res.checks["fix.after runs clean"].startswith("raised ValueError")
    assert "FAIL" in table([res])


def test_a_snippets_frames_keep_their_own_lines_after_later_snippets_run():
    """kb check runs hundreds of snippets in one process, and frames of earlier ones reach later tracebacks:
    checkify raises one module-level exception object for every unfunctionalized check, so its traceback gathers
    the frames of each snippet that raised it. IPython's formatter reads a frame's lines from ``linecache`` by its
    file name: each snippet has a name of its own, as each notebook cell has, so every frame shows its own line.
    (Under one shared name the earlier frames showed the later snippet's lines, or the formatter raised.)"""
    import re

    from jaxerrs.kb.verify import _run, ipython_text

    code = ("import jax\nfrom jax.experimental import checkify\n\n@jax.jit\ndef f(x):\n"
            "    checkify.check(x > 0, 'x must be positive')\n    return x\n\nf(1.0)\n")
    assert _run(code) is not None
    later = _run("\n\n\n" + code)  # the same code, three lines lower
    assert later is not None
    text = ipython_text(later)
    frames = re.findall(r"^File (<reproducer-\d+>):(\d+)(, in f\(\))?\n(?:.*\n)*?-+> (\d+) (.*)$", text, re.M)
    assert len({name for name, *_ in frames}) >= 2, text  # frames of both snippets
    for _name, line, in_f, arrow, source in frames:
        assert arrow == line, text
        assert ("checkify.check(x > 0" in source) if in_f else (source.strip() == "f(1.0)"), text


def test_a_record_that_kills_its_worker_fails_alone():
    """check() hands records out one at a time: a worker that dies fails its record, and a new one checks the
    rest. Here the worker dies on an id it cannot look up (a record this process made, not in its files)."""
    model = kb.load_file(MODEL)
    res = {r.id: r for r in check([replace(model, id="a-not-in-the-workers-records"), model], jobs=1)}
    assert res["a-not-in-the-workers-records"].checks == {
        "worker": "its worker died: KeyError: 'a-not-in-the-workers-records'"}
    assert res["tracer-bool-conversion"].ok, res["tracer-bool-conversion"].failures


def _write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


def test_bad_record_files_are_skipped_with_a_clear_message(tmp_path):
    good = MODEL.read_text(encoding="utf-8")
    shutil.copy(MODEL, tmp_path / MODEL.name)
    _write(tmp_path, "broken-toml.toml", "id = \n[[[")
    _write(tmp_path, "no-title.toml", good.replace('title = "', 'titel = "').replace(
        'id = "tracer-bool-conversion"', 'id = "no-title"'))
    _write(tmp_path, "bad-type.toml", good.replace('id = "tracer-bool-conversion"', 'id = "bad-type"').replace(
        'tags = ["tracing"', 'tags = "tracing" #'))
    _write(tmp_path, "bad-template.toml", good.replace('id = "tracer-bool-conversion"', 'id = "bad-template"')
           .replace("shape {shape}.", "shape {shape."))
    _write(tmp_path, "other-name.toml", good)  # id differs from the file name
    problems: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = kb.load_dir(tmp_path, problems)
    assert list(loaded) == ["tracer-bool-conversion"]
    text = "\n".join(problems)
    assert "broken-toml.toml: not valid TOML" in text
    assert "no-title.toml: missing required field 'title'" in text
    assert "bad-type.toml: field 'tags' must be list" in text
    assert "bad-template.toml: pattern 0 does not compile" in text
    assert "other-name.toml: field 'id' is 'tracer-bool-conversion' but the file is named 'other-name'" in text
    assert len(caught) == len(problems) == 5


def test_seed_000_imports_and_reports_its_new_line():
    problems: list[str] = []
    [rec] = import_path(DATA / "seed_000.json", problems)
    assert problems == []
    assert rec.id == "8d902cb9abe58737" and rec.origin == "imported"
    assert [(s.path, s.function) for s in rec.sites] == [("jax/_src/custom_derivatives.py", "_remat_opt_transpose")]
    stale = [f for f in rec.flags if f.startswith("line number stale")]
    assert stale and "custom_derivatives.py:1822" in stale[0] and ":1885" in stale[0]
    assert not any("does not describe" in f or "unknown to JAX" in f for f in rec.flags)
    assert rec.fix.before.startswith("loss = jax.checkpoint") and "grad" in rec.fix.after


def test_seed_003_is_flagged_as_inconsistent():
    problems: list[str] = []
    [rec] = import_path(DATA / "seed_003.json", problems)
    flags = " | ".join(rec.flags)
    assert "explanation does not describe this error" in flags
    assert "PyTreeRegistry" in flags or "PyTreeDefs" in flags


def test_import_formats_and_bad_files(tmp_path):
    item = json.loads((DATA / "seed_000.json").read_text())["record"]
    _write(tmp_path, "list.json", json.dumps([item, dict(item, id="second")]))
    _write(tmp_path, "bare.json", json.dumps(dict(item, id="third")))
    _write(tmp_path, "bad.json", "{not json")
    _write(tmp_path, "v1.json", json.dumps(dict(item, id="old", schemaVersion=1)))
    problems: list[str] = []
    recs = import_path(tmp_path, problems)
    assert sorted(r.id for r in recs) == ["8d902cb9abe58737", "second", "third"]
    assert any("bad.json: not a JSON record file" in p for p in problems)
    assert any("schemaVersion must be 2" in p for p in problems)


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "jaxerrs", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def test_kb_path_loads_imported_records_and_show_prints_flags():
    env = {"JAXERRS_KB_PATH": str(DATA / "seed_003.json")}
    out = _cli("show", "effects-not-supported-in-partial-eval-of-checkpoint-ae3f5e", "--format", "json", env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["origin"] == "imported" and any("does not describe" in f for f in data["flags"])
    assert data["patterns"] == ["Effects not supported in partial-eval of `checkpoint`/`remat`: {disallowed_effects}"]
    assert data["sites"] == [{"path": "jax/_src/ad_checkpoint.py", "function": "remat_partial_eval"}]
    html = _cli("show", "ae3f5e76cfaa5db9", "--format", "html", env=env)
    assert "does not describe this error" in html.stdout


def test_kb_stats_and_import_cli():
    out = _cli("kb", "stats", "--format", "json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert stats["records"] >= 150 and stats["stale"] == []
    out = _cli("kb", "import", str(DATA / "seed_000.json"), str(DATA / "seed_003.json"))
    assert out.returncode == 0 and "explanation does not describe this error" in out.stdout
    bad = _cli("kb", "import", "/nonexistent.json")
    assert bad.returncode == 2 and "no such file" in bad.stdout


def test_review_log_covers_every_record():
    """docs/review/ holds a section per curated record (issue: knowledge you can trust)."""
    import re

    log = Path(__file__).resolve().parent.parent / "docs" / "review"
    sections = {m.group(1) for f in log.glob("*.md") for m in re.finditer(r"^## (\S+)", f.read_text(), re.M)}
    curated = {r.id for r in kb.all_records().values() if r.origin == "curated"}
    assert not curated - sections, f"no review-log section for {sorted(curated - sections)}"
    unreviewed = sorted(r.id for r in kb.all_records().values() if r.origin == "curated" and not r.reviewed)
    assert not unreviewed, f"not reviewed: {unreviewed}"


def test_needs_skips_a_record_whose_code_cannot_run_here():
    """``needs``: a package a record's code needs installed (or missing) on some releases. kb check skips the
    record where that is not so and says why; the JAX releases it names scope it."""
    rec = kb.load_file(MODEL)
    version = kb.installed_jax()
    assert replace(rec, needs=[kb.Need("jaxerrs-no-such-dist")]).unmet_needs(version) == [
        "needs jaxerrs-no-such-dist"]
    assert replace(rec, needs=[kb.Need("jaxerrs-no-such-dist", jax="<0.1")]).unmet_needs(version) == []
    assert replace(rec, needs=[kb.Need("jax", jax=f"=={version}")]).unmet_needs(version) == []
    res = check_record(replace(rec, id="needs-jax-missing", needs=[kb.Need("jax", installed=False)]))
    assert res.ok and res.skipped == "needs jax not installed"
    assert res.checks["needs"] == "skipped: needs jax not installed"
    assert "skip" in table([res]) and "1 skipped" in table([res])


@pytest.mark.parametrize("needs, field", [
    ([{"package": "absl-py", "jax": "<<0.6"}], "needs[0].jax"),
    ([{"pkg": "absl-py"}], "needs[0]"),
    ([{"package": "absl-py", "installed": "no"}], "needs[0].installed"),
    ([{"package": "absl-py", "when": "<0.6"}], "needs[0]"),
    ("absl-py", "needs"),
])
def test_bad_needs_is_reported_with_its_field(needs, field):
    import re
    import tomllib

    data = tomllib.loads(MODEL.read_text(encoding="utf-8"))
    with pytest.raises(kb.RecordError, match=re.escape(f"field '{field}'")):
        kb.from_dict({**data, "needs": needs}, MODEL.name)


def test_records_that_import_jax_export_need_absl_py_before_0_6_2():
    """JAX 0.4.38-0.6.1 import absl in jax.export (and, from 0.5.3, in Pallas) without installing it: a record
    whose code imports them says so, and kb check skips it there without absl-py."""
    import re

    uses = re.compile(r"jax\.export|from jax import export|jax\.experimental import pallas|jax\.experimental\.pallas")
    found = []
    for r in kb.all_records().values():
        if r.origin != "curated" or r.id == "export-needs-absl-py":
            continue
        if uses.search("\n".join([r.reproducer, *r.cases, r.fix.before, r.fix.after, r.fix.check])):
            found.append(r.id)
            assert any(n.package == "absl-py" and n.jax == "<0.6.2" and n.installed for n in r.needs), r.id
    assert len(found) >= 9
    gap = kb.all_records()["export-needs-absl-py"]
    assert gap.jax_versions == ">=0.4.38,<0.6.2" and [(n.package, n.installed) for n in gap.needs] == [
        ("absl-py", False)]


# JAX 0.4.38's own traceback when jax.export cannot import absl (a script, JAX's default filtering).
_ABSL_IN_JAX = '''Traceback (most recent call last):
  File "/home/me/export_model.py", line 2, in <module>
    from jax import export
  File "/home/me/.venv/lib/python3.11/site-packages/jax/export.py", line 23, in <module>
    from jax._src.export._export import (
  File "/home/me/.venv/lib/python3.11/site-packages/jax/_src/export/_export.py", line 30, in <module>
    from absl import logging
ModuleNotFoundError: No module named 'absl'
'''


def test_absl_missing_inside_jax_export_is_explained():
    import jaxerrs

    for text in (_ABSL_IN_JAX, "ModuleNotFoundError: No module named 'absl'"):
        d = jaxerrs.diagnose_text(text)
        assert d.is_jax and d.record is not None and d.record.id == "export-needs-absl-py", d.to_dict()


# The user's own absl import failing: Python's import system, nothing of JAX's (the final line alone cannot
# tell the two apart, and is explained as the JAX case above).
_ABSL_IN_USER_CODE = [
    '''Traceback (most recent call last):
  File "/home/me/train.py", line 3, in <module>
    from absl import app
ModuleNotFoundError: No module named 'absl'
''',
    '''---------------------------------------------------------------------------
ModuleNotFoundError                       Traceback (most recent call last)
Cell In[2], line 2
      1 import jax
----> 2 import absl.flags

ModuleNotFoundError: No module named 'absl'
''',
]


@pytest.mark.parametrize("text", _ABSL_IN_USER_CODE, ids=["script", "ipython"])
def test_users_own_absl_import_is_not_a_jax_error(text):
    import jaxerrs

    d = jaxerrs.diagnose_text(text)
    assert d.is_jax is False and d.record is None, d.to_dict()


RELU_FIXED = """
import jax
import jax.numpy as jnp

@jax.jit
def relu(x):
    return jnp.where(x > 0, x, 0.0)

out = relu(1.0), relu(-2.0)
"""


def test_demos_run_and_every_case_and_code_solution_needs_one():
    """``demos``: each runs clean and passes its check; a case that no demo fixes and a solution that shows
    code without a demo fail the record, also when it has no demos at all."""
    rec = kb.load_file(MODEL)
    good = kb.Demo(1, 1, RELU_FIXED, "assert float(out[0]) == 1.0 and float(out[1]) == 0.0")
    res = check_record(replace(rec, id="demo-partial", demos=[good]))
    assert res.checks["demo 1 (solution 1 on case 1)"] == "ok"
    assert res.checks["every case fixed by a demo"] == f"no demo fixes case(s) {list(range(2, len(rec.cases) + 1))}"
    assert res.checks["every code solution demonstrated"].startswith("solution(s) [2, 3, 4")
    assert not res.ok
    wrong = kb.Demo(1, 1, RELU_FIXED, "assert float(out[1]) == -2.0")  # a check the fix does not pass
    raises = kb.Demo(1, 1, rec.cases[0], "pass")  # the case itself, not fixed
    res = check_record(replace(rec, id="demo-bad", demos=[wrong, raises]))
    assert res.checks["demo 1 (solution 1 on case 1)"].startswith("check failed: AssertionError")
    assert res.checks["demo 2 (solution 1 on case 1)"].startswith("raised TracerBoolConversionError")
    assert not res.ok
    bare = check_record(replace(rec, id="no-demos", demos=[]))
    assert bare.checks["every case fixed by a demo"].startswith("no demo fixes case(s) [1, 2")
    assert not bare.ok


def test_near_misses_must_land_where_they_say():
    rec = kb.load_file(MODEL)
    other = "import jax.numpy as jnp\nbool(jnp.array([1, 2]))"  # not a tracer: the ambiguous truth value
    res = check_record(replace(rec, id="nm", near_misses=[
        kb.NearMiss(other, "truth-value-ambiguous"), kb.NearMiss(other, ""), kb.NearMiss("x = 1", ""),
        kb.NearMiss(rec.reproducer, "truth-value-ambiguous")]))
    assert res.checks["near miss 1 (truth-value-ambiguous)"] == "ok"
    assert res.checks["near miss 2 (no record)"].startswith("lands on truth-value-ambiguous")
    assert res.checks["near miss 3 (no record)"] == "ran clean: a near miss must raise"
    assert res.checks["near miss 4 (truth-value-ambiguous)"].startswith("lands on tracer-bool-conversion")


@pytest.mark.parametrize("entry, field", [
    ({"demos": [{"solution": 9, "case": 1, "code": "x = 1", "check": "pass"}]}, "demos[0].solution"),
    ({"demos": [{"solution": 1, "case": 99, "code": "x = 1", "check": "pass"}]}, "demos[0].case"),
    ({"demos": [{"solution": 1, "case": 1, "code": "", "check": "pass"}]}, "demos[0].code"),
    ({"demos": [{"solution": 1, "case": 1, "code": "x = 1", "check": "pass", "when": "x"}]}, "demos[0]"),
    ({"demos": [{"solution": 1, "case": 1, "code": "x = 1", "check": "pass", "jax": "<<1"}]}, "demos[0].jax"),
    ({"near_misses": [{"code": "x = 1", "record": "tracer-bool-conversion"}]}, "near_misses[0].record"),
    ({"near_misses": [{"code": "x = 1"}]}, "near_misses[0].record"),
])
def test_bad_demos_and_near_misses_are_reported_with_their_field(entry, field):
    import re
    import tomllib

    data = tomllib.loads(MODEL.read_text(encoding="utf-8"))
    with pytest.raises(kb.RecordError, match=re.escape(f"field '{field}'")):
        kb.from_dict({**data, **entry}, MODEL.name)


def test_demos_and_near_misses_for_other_releases_are_left_out():
    import tomllib

    data = tomllib.loads(MODEL.read_text(encoding="utf-8"))
    demo = {"solution": 1, "case": 1, "code": RELU_FIXED, "check": "pass"}
    rec = kb.from_dict({**data, "demos": [demo, {**demo, "jax": "<0.1"}],
                        "near_misses": [{"code": "x = 1", "record": "", "jax": "<0.1"}]}, MODEL.name)
    assert len(rec.demos) == 1 and rec.near_misses == []
    assert rec.to_dict()["demos"][0]["solution"] == 1
    # a solution demonstrated only for other releases is not reported as undemonstrated on this one
    other = kb.from_dict({**data, "demos": [demo, {**demo, "solution": 2, "jax": "<0.1"}]}, MODEL.name)
    assert other.demoed_elsewhere == [2] and 2 not in undemonstrated(other)[1]
