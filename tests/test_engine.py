"""The diagnosis engine against the labelled corpus (``tests/corpus.py``), in every form an error reaches us.

For every corpus case a worker process (``tests/engine_worker.py``, one per device count, so that
``XLA_FLAGS`` is set before jax is imported) raises the error with ``JAX_TRACEBACK_FILTERING=tracebackhide``
and diagnoses it six ways: the live exception; the traceback as a real IPython shell renders it
(``InteractiveTB.structured_traceback`` + ``stb2text``) without and with ANSI colours; the plain Python
traceback (``traceback.format_exception``); and the final ``Class: message`` line alone, as IPython prints
it (short class name) and as plain Python prints it (qualified name).

Done-when figures (asserted below, printed by ``test_figures``):

* live: site (path and function) and ``is_jax`` right for every case;
* full traceback text (IPython with/without colours, plain): right site top-1 >= 98% of JAX errors;
* final line alone: right site top-1 >= 90%, top-3 (among ``candidates`` sites) >= 97%;
* zero false positives: every negative case is ``is_jax`` False in every form.

Also: a sample through the CLI's JSON (``jaxerrs explain - --format json``) and bad CLI input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from corpus import CASES, NO_JAX_TEXT  # noqa: E402
from corpus_harness import _child_env  # noqa: E402
from engine_worker import FORMS, MARKER  # noqa: E402

BY_NAME = {c.name: c for c in CASES}
POSITIVES = [c for c in CASES if c.is_jax]
NEGATIVES = [c for c in CASES if not c.is_jax]
FULL_FORMS = ("ipython", "ipython_color", "plain")
FINAL_FORMS = ("final_short", "final_qual")
TEXT_FORMS = FULL_FORMS + FINAL_FORMS

FULL_TOP1 = 0.98
FINAL_TOP1 = 0.90
FINAL_TOP3 = 0.97


def _env(devices: int) -> dict[str, str]:
    env = _child_env(devices)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join([src] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTHONWARNINGS"] = "ignore"
    return env


@pytest.fixture(scope="session")
def engine_results() -> dict[str, dict]:
    """name -> {"forms": {form: summary}, "texts": {form: text}}, every device group run concurrently."""
    procs = {}
    for devices in sorted({c.devices for c in CASES}):
        cmd = [sys.executable, str(HERE / "engine_worker.py"), "--devices", str(devices)]
        procs[devices] = subprocess.Popen(cmd, env=_env(devices), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, cwd=str(ROOT))
    results: dict[str, dict] = {}
    for devices, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0 and MARKER in out, f"worker devices={devices} failed:\n{err[-4000:]}"
        for r in json.loads(out[out.rindex(MARKER) + len(MARKER):]):
            results[r["name"]] = r
    missing = sorted(set(BY_NAME) - set(results))
    assert not missing, f"worker returned no result for {missing}"
    return results


def _site(summary: dict) -> tuple[str, str] | None:
    return tuple(summary["site"]) if summary.get("site") else None


def _right(case, summary: dict, top: int = 1) -> bool:
    """JAX error: called JAX's, with the labelled site first (top=1) or among the first ``top`` candidate sites."""
    if "error" in summary or not summary.get("is_jax"):
        return False
    want = (case.path, case.function)
    if _site(summary) == want:
        return True
    return top > 1 and want in [tuple(s) for s in summary.get("candidates", [])[:top]]


def figures(results: dict[str, dict]) -> dict[str, dict]:
    """Per form: top-1 and top-3 share of JAX errors, false positives, and the misses."""
    out = {}
    for form in FORMS:
        top1 = [c.name for c in POSITIVES if _right(c, results[c.name]["forms"][form])]
        top3 = [c.name for c in POSITIVES if _right(c, results[c.name]["forms"][form], top=3)]
        fps = [c.name for c in NEGATIVES if results[c.name]["forms"][form].get("is_jax") is not False]
        out[form] = {
            "top1": len(top1) / len(POSITIVES),
            "top3": len(top3) / len(POSITIVES),
            "false_positives": fps,
            "misses": [c.name for c in POSITIVES if c.name not in top1],
            "misses3": [c.name for c in POSITIVES if c.name not in top3],
        }
    return out


# ----------------------------------------------------------------------------- one test per case


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_case_live(engine_results, name):
    """Live exception: site path, function and is_jax exactly right, for every case."""
    case = BY_NAME[name]
    live = engine_results[name]["forms"]["live"]
    assert "error" not in live, live["error"]
    assert live["is_jax"] is case.is_jax
    if case.is_jax:
        assert _site(live) == (case.path, case.function)
    else:
        assert live["site"] is None


@pytest.mark.parametrize("name", [c.name for c in NEGATIVES])
def test_negative_case_never_jax(engine_results, name):
    """A non-JAX error is non-JAX in every form: live, full tracebacks and final line alone."""
    forms = engine_results[name]["forms"]
    wrong = {f: s.get("error") or s.get("site") for f, s in forms.items() if s.get("is_jax") is not False}
    assert not wrong, f"called a JAX error in forms {wrong}"


# ----------------------------------------------------------------------------- aggregate figures


def test_figures(engine_results, capsys):
    """Print accuracy per form (shown also without -s)."""
    figs = figures(engine_results)
    lines = [f"engine accuracy over {len(POSITIVES)} JAX errors and {len(NEGATIVES)} negatives:"]
    for form, f in figs.items():
        lines.append(f"  {form:<14} top-1 {f['top1']:6.1%}  top-3 {f['top3']:6.1%}  "
                     f"false positives {len(f['false_positives'])}  misses {', '.join(f['misses']) or '-'}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert set(figs) == set(FORMS)


@pytest.mark.parametrize("form", FULL_FORMS)
def test_full_traceback_accuracy(engine_results, form):
    f = figures(engine_results)[form]
    assert f["top1"] >= FULL_TOP1, f"{form}: top-1 {f['top1']:.1%} < {FULL_TOP1:.0%}; misses {f['misses']}"
    assert not f["false_positives"]


@pytest.mark.parametrize("form", FINAL_FORMS)
def test_final_line_accuracy(engine_results, form):
    f = figures(engine_results)[form]
    assert not f["false_positives"]
    # Errors whose final line holds none of JAX's words cannot be found from it: reported, not counted.
    counted = [c for c in POSITIVES if c.name not in NO_JAX_TEXT]
    f["top1"] = sum(c.name not in f["misses"] for c in counted) / len(counted)
    f["top3"] = sum(c.name not in f["misses3"] for c in counted) / len(counted)
    print(f"\n{form}: over {len(counted)} errors whose final line has JAX's words: top-1 {f['top1']:.1%}, "
          f"top-3 {f['top3']:.1%} ({len(NO_JAX_TEXT)} more have none)")
    assert f["top1"] >= FINAL_TOP1, f"{form}: top-1 {f['top1']:.1%} < {FINAL_TOP1:.0%}; misses {f['misses']}"
    assert f["top3"] >= FINAL_TOP3, f"{form}: top-3 {f['top3']:.1%} < {FINAL_TOP3:.0%}; misses {f.get('misses3')}"


def test_live_accuracy_is_total(engine_results):
    f = figures(engine_results)["live"]
    assert f["top1"] == 1.0 and not f["false_positives"], f


# ----------------------------------------------------------------------------- python -m jaxerrs explain


# Python's own messages: never JAX's, from text alone either.
PYTHON_MESSAGES = [
    "ZeroDivisionError: division by zero",
    "TypeError: 'str' object is not callable",
    "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
    "IndexError: list index out of range",
    "KeyError: 'params'",
    "ValueError: too many values to unpack (expected 2)",
    "AttributeError: 'NoneType' object has no attribute 'shape'",
    "NameError: name 'jnp' is not defined",
    "ModuleNotFoundError: No module named 'flax'",
    "ValueError: operands could not be broadcast together with shapes (2,3) (4,)",
    "ValueError: cannot reshape array of size 6 into shape (4,2)",
    "TypeError: f() missing 1 required positional argument: 'x'",
    "RecursionError: maximum recursion depth exceeded",
    "AssertionError",
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
]


@pytest.mark.parametrize("line", PYTHON_MESSAGES)
def test_python_messages_are_not_jax(line):
    import jaxerrs

    d = jaxerrs.diagnose_text(line)
    assert d.is_jax is False, d.to_dict()


def _cli(args: list[str], stdin: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return subprocess.run([sys.executable, "-m", "jaxerrs", *args], input=stdin, capture_output=True,
                          env=env, timeout=timeout, cwd=str(ROOT))


# A handful of cases through the CLI, each in a different text form.
CLI_SAMPLE = [
    ("jit.bool_conversion", "ipython_color"),
    ("jnp.dot_mismatch", "plain"),
    ("pytree.map_structure_mismatch", "final_short"),
    ("random.float_seed", "final_qual"),
    ("neg.user_raise_in_jit", "plain"),
    ("neg.numpy_reshape", "ipython"),
]


def test_cli_json_sample(engine_results):
    for name, form in CLI_SAMPLE:
        case = BY_NAME[name]
        text = engine_results[name]["texts"][form]
        proc = _cli(["explain", "-", "--format", "json"], stdin=text.encode())
        assert proc.returncode == (0 if case.is_jax else 1), (name, form, proc.stderr.decode()[-2000:])
        out = json.loads(proc.stdout)
        assert set(out) >= {"is_jax", "error", "site", "record", "confidence", "candidates"}
        assert out["is_jax"] is case.is_jax, (name, form)
        # The CLI says what the library says for the same text.
        lib = engine_results[name]["forms"][form]
        assert out["is_jax"] == lib["is_jax"]
        got = (out["site"]["path"], out["site"]["function"]) if out["site"] else None
        assert got == _site(lib), (name, form, got, lib["site"])
        if case.is_jax and form in FULL_FORMS:
            assert got == (case.path, case.function)


def _assert_one_line_error(proc: subprocess.CompletedProcess, code: int, *words: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == code, (proc.returncode, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("jaxerrs:"), err
    for w in words:
        assert w in lines[0], lines[0]


def test_cli_bad_input(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    _assert_one_line_error(_cli(["explain", str(empty)]), 2, "empty")
    blank = tmp_path / "blank.txt"
    blank.write_text("\n \n\t\n")
    _assert_one_line_error(_cli(["explain", str(blank)]), 2, "empty")

    binary = tmp_path / "core.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    _assert_one_line_error(_cli(["explain", str(binary)]), 2, "binary")

    _assert_one_line_error(_cli(["explain", str(tmp_path)]), 2, "directory")
    _assert_one_line_error(_cli(["explain", str(tmp_path / "nope.txt")]), 2, "no such file")
    _assert_one_line_error(_cli(["explain", "-"], stdin=b""), 2, "empty")


def test_cli_nothing_found_and_non_jax(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("".join(f"2024-05-01 12:00:{i % 60:02d} INFO step {i} loss 0.{i:04d}\n" for i in range(2000)))
    _assert_one_line_error(_cli(["explain", str(log)]), 1, "no error")
    non_jax = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    x = {}['a']\nKeyError: 'a'\n"
    proc = _cli(["explain", "-", "--format", "json"], stdin=non_jax.encode())
    assert proc.returncode == 1, proc.stderr.decode()
    assert json.loads(proc.stdout)["is_jax"] is False


def test_cli_50mb_log(engine_results, tmp_path):
    """A 50 MB log with the JAX traceback at its end: found, right site, no traceback of our own."""
    name = "jit.bool_conversion"
    case = BY_NAME[name]
    tb = engine_results[name]["texts"]["plain"]
    row = "2024-05-01 12:00:00 INFO step 123456 loss 0.123456 lr 0.0003 grad_norm 1.2345 tokens/s 98765\n"
    big = tmp_path / "big.log"
    with big.open("w") as fh:
        fh.write(row * ((50 * 1024 * 1024) // len(row)))
        fh.write(tb)
    assert big.stat().st_size >= 50 * 1024 * 1024
    proc = _cli(["explain", str(big), "--format", "json"])
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert "Traceback" not in proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["is_jax"] is True
    assert (out["site"]["path"], out["site"]["function"]) == (case.path, case.function)

    # The same 50 MB without any error: "nothing found", exit 1, one line.
    quiet = tmp_path / "quiet.log"
    with quiet.open("w") as fh:
        fh.write(row * ((50 * 1024 * 1024) // len(row)))
    _assert_one_line_error(_cli(["explain", str(quiet)]), 1, "no error")
