"""Fix my cell, end to end outside the browser: the handler's panels, %jaxerr fix, the CLI, the engine's nevers."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

import jaxerrs
from jaxerrs.rewrite import Rewrite, apply_rules
from jaxerrs.rewrite.context import Context

SETITEM = "scores = jnp.zeros(3)\n# bump the winner\nscores[1] += 2.5\n"


def _last_exc(ip, cell: str) -> BaseException:
    result = ip.run_cell(cell)
    assert result.error_in_exec is not None
    return result.error_in_exec


def test_terminal_panel_shows_the_diff_and_fix_fills_the_next_input(shell, run_cell):
    run_cell(shell, "%load_ext jaxerrs")
    run_cell(shell, "import jax.numpy as jnp")
    cap, _ = run_cell(shell, SETITEM)
    assert "Your cell, fixed (safe)" in cap.stdout
    assert "-scores[1] += 2.5" in cap.stdout and "+scores = scores.at[1].add(2.5)" in cap.stdout
    shell.rl_next_input = None
    cap, _ = run_cell(shell, "%jaxerr fix")
    assert "fixed (safe)" in cap.stdout
    nxt = shell.rl_next_input
    assert nxt.startswith("# jaxerrs: Cell In[") and "scores = scores.at[1].add(2.5)" in nxt
    assert "# bump the winner" in nxt


def test_to_dict_carries_rewrite_and_user_frame(shell, run_cell):
    run_cell(shell, "import jax.numpy as jnp")
    with pytest.MonkeyPatch.context():
        from IPython.utils.capture import capture_output

        with capture_output():
            exc = _last_exc(shell, SETITEM)
    d = jaxerrs.diagnose(exc).to_dict()
    assert d["user_frame"]["line"] == 3 and d["user_frame"]["code"] == "scores[1] += 2.5"
    assert d["user_frame"]["file"].startswith(("Cell In[", "<ipython-input-"))
    assert d["ecosystem"] is None
    rw = d["rewrite"]
    assert set(rw) == {"cell", "diff", "safety", "summary", "rule"}
    assert rw["rule"] == "at-set" and rw["safety"] == "safe"
    assert rw["cell"] == "scores = jnp.zeros(3)\n# bump the winner\nscores = scores.at[1].add(2.5)\n"
    assert "-scores[1] += 2.5\n+scores = scores.at[1].add(2.5)\n" in rw["diff"]


def test_no_rewrite_for_non_jax_errors(shell, run_cell):
    from IPython.utils.capture import capture_output

    with capture_output():
        shell.run_cell("import jax.numpy as jnp")
        exc = _last_exc(shell, "xs = [1, 2]\nxs[5] = 3\n")
    d = jaxerrs.diagnose(exc).to_dict()
    assert not d["is_jax"] and d["rewrite"] is None


def _panel_for(shell, cell: str):
    from IPython.utils.capture import capture_output

    from jaxerrs.panel import Panel

    with capture_output():
        shell.run_cell("import jax.numpy as jnp")
        exc = _last_exc(shell, cell)
    return jaxerrs.diagnose(exc), Panel


def test_panel_bundle_carries_the_rewrite(shell):
    d, Panel = _panel_for(shell, SETITEM)
    panel = Panel(d, cell_id="c-1")
    bundle = panel._repr_mimebundle_()
    data = bundle["application/vnd.jaxerrs.panel+json"]
    assert data["fix_kind"] == "rewrite" and data["cell_id"] == "c-1" and data["record"] == d.record.id
    assert data["fix"].startswith("# jaxerrs: ") and ".at[1].add(2.5)" in data["fix"]
    html = bundle["text/html"]
    assert "Your cell, fixed" in html and "jaxerrs-diff-add" in html
    assert "Example fix" in html  # collapsed, below
    # The buttons carry the same fixed cell, escaped, and the script that wires them names only the panel's id.
    assert f'data-jaxerrs-uid="{panel.uid}"' in html and f'wireInline("{panel.uid}")' in html
    assert "jaxerrs-fixed-cell" in html and "Your cell, fixed (safe)" in bundle["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" not in bundle  # nothing that needs a live kernel to show


def test_panel_waits_for_the_rewrite(shell, monkeypatch):
    """A rewrite still being computed (LibCST loading on a busy machine) delays the panel; it never races Insert."""
    d, Panel = _panel_for(shell, SETITEM)
    started, release = threading.Event(), threading.Event()
    original = type(d).rewrite

    def slow(self):
        started.set()
        release.wait(30)
        return original.fget(self)

    monkeypatch.setattr(type(d), "rewrite", property(slow))
    made: list = []
    t = threading.Thread(target=lambda: made.append(Panel(d)))
    t.start()
    assert started.wait(30)
    assert not made  # not shown before the rewrite is known
    release.set()
    t.join(30)
    data = made[0].data()
    assert data["fix_kind"] == "rewrite" and ".at[1].add(2.5)" in data["fix"]


def test_rewrite_html_escapes_the_users_code():
    hostile = 'x = jnp.zeros(2)\nx[0] = "<script>alert(1)</script>"\n'
    rw = apply_rules(Context(source=hostile, line=2), ["at-set"])
    assert rw is not None
    from jaxerrs.views import rewrite_html

    out = rewrite_html(rw)
    assert "<script>" not in out and "&lt;script&gt;" in out


def test_magics_in_the_cell_are_kept():
    src = "%%time\nx = jnp.zeros(3)\n!echo hi\nx[0] = 1.0\n"
    rw = apply_rules(Context(source=src, line=4), ["at-set"])
    assert rw is not None and rw.cell == "%%time\nx = jnp.zeros(3)\n!echo hi\nx = x.at[0].set(1.0)\n"


@pytest.mark.parametrize("source,line", [
    ("x[0][1] = 2\n", 1),  # nested target: the array to rebind is not a plain name
    ("x = jnp.zeros(3)\ny = 1\n", 2),  # nothing to fix on the failing line
    ("def broken(:\n", 1),  # not Python
    ("x[0] = 1\n", None),  # no failing line known
])
def test_no_rewrite_when_not_sure(source, line):
    assert apply_rules(Context(source=source, line=line), ["at-set"]) is None


def test_a_rule_that_breaks_offers_nothing(monkeypatch):
    from jaxerrs.rewrite.rules import RULES

    def boom(ctx):
        raise RuntimeError("rule bug")

    monkeypatch.setitem(RULES, "boom", boom)
    assert apply_rules(Context(source="x[0] = 1\n", line=1), ["boom", "at-set"]).rule == "at-set"


def test_insertable_names_the_source_and_what_to_check():
    rw = Rewrite("y = 1\n", "", "review", "both branches now run", "traced-if", "Cell In[7]")
    assert rw.insertable() == ("# jaxerrs: Cell In[7], fixed (traced-if, review)\n"
                               "# review: both branches now run\ny = 1\n")


TRACEBACK = """\
---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
Cell In[4], line 3
      1 scores = jnp.zeros(3)
      2 # bump the winner
----> 3 scores[1] += 2.5

TypeError: JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html
"""


def test_cli_explain_with_cell(tmp_path):
    cell = tmp_path / "cell.py"
    cell.write_text(SETITEM)
    r = subprocess.run([sys.executable, "-m", "jaxerrs", "explain", "-", "--cell", str(cell), "--format", "json"],
                       input=TRACEBACK, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["record"]["id"] == "jax-array-immutable-setitem"
    assert out["user_frame"] == {"file": "Cell In[4]", "line": 3, "function": "<module>", "code": "scores[1] += 2.5"}
    assert out["rewrite"]["cell"].endswith("scores = scores.at[1].add(2.5)\n")
    text = subprocess.run([sys.executable, "-m", "jaxerrs", "explain", "-", "--cell", str(cell)],
                          input=TRACEBACK, capture_output=True, text=True, timeout=300)
    assert "Your cell, fixed (safe)" in text.stdout
    bad = subprocess.run([sys.executable, "-m", "jaxerrs", "explain", "-", "--cell", str(tmp_path / "nope.py")],
                         input=TRACEBACK, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "--cell" in bad.stderr and "Traceback" not in bad.stderr


def test_records_name_registered_rules_and_every_rule_serves_a_record():
    from jaxerrs.kb.records import all_records
    from jaxerrs.rewrite.rules import RULES

    named = {name: rid for rid, rec in all_records().items() for name in rec.rewrite}
    unknown = {rid: name for name, rid in named.items() if name not in RULES}
    assert not unknown, f"records name rules that do not exist: {unknown}"
    orphans = set(RULES) - set(named)
    assert not orphans, f"rules no record names: {sorted(orphans)}"


FLAX_TRACEBACK = '''Traceback (most recent call last):
  File "/home/me/train.py", line 12, in <module>
    y = model(x)
  File "/usr/lib/python3.11/site-packages/flax/nnx/nn/linear.py", line 422, in __call__
    y = self.dot_general(inputs, kernel, (((inputs.ndim - 1,), (0,)), ((), ())), precision=self.precision)
  File "/usr/lib/python3.11/site-packages/jax/_src/lax/lax.py", line 2600, in dot_general
    raise TypeError(msg)
TypeError: dot_general requires contracting dimensions to have the same shape, got (16,) and (8,).
'''


def test_user_frame_is_never_a_library_and_ecosystem_names_it():
    d = jaxerrs.diagnose_text(FLAX_TRACEBACK).to_dict()
    assert d["user_frame"] == {"file": "/home/me/train.py", "line": 12, "function": "<module>", "code": "y = model(x)"}
    assert d["ecosystem"] == "flax"
    # Raised inside nnx.Linear: the Flax record (in_features) beats the JAX one with the same words.
    assert d["record"]["id"] == "flax-nnx-linear-in-features"
    bare = jaxerrs.diagnose_text(FLAX_TRACEBACK.rsplit("\n", 2)[-2]).to_dict()
    assert bare["record"]["id"] == "dot-general-contracting-mismatch" and bare["ecosystem"] is None


# ---------------------------------------------------------------------------------------------- the cause, not the line


def test_post_condition_rejects_an_edit_that_leaves_the_cause():
    """An edit after which the rule's own detection still finds the cause is not offered (issue #17)."""
    from jaxerrs.rewrite import Edit
    from jaxerrs.rewrite.rules import RULES
    from jaxerrs.rewrite.rules.immutable import detect_at_set

    src = "x = jnp.zeros(3)\nx[0] = 1.0\nx[1] = 2.0\n"
    ctx = Context(source=src, line=2)
    one_line = "x = jnp.zeros(3)\nx = x.at[0].set(1.0)\nx[1] = 2.0\n"  # what fixing the line alone gives
    RULES["_test-one-line"] = lambda c: Edit(one_line, "safe", "one line", cause=detect_at_set(c).key)
    from jaxerrs.rewrite.rules import DETECTORS

    DETECTORS["_test-one-line"] = detect_at_set
    try:
        assert apply_rules(ctx, ["_test-one-line"]) is None
        rw = apply_rules(Context(source=src, line=2), ["at-set"])
        assert rw is not None and rw.cell == "x = jnp.zeros(3)\nx = x.at[0].set(1.0)\nx = x.at[1].set(2.0)\n"
        assert rw.safety == "safe"
    finally:
        RULES.pop("_test-one-line")
        DETECTORS.pop("_test-one-line")


@pytest.mark.parametrize("source,line,safety", [
    ("def f():\n    G[0] = 1.0\n", 2, None),  # a global mutated from a function: `G = ...` would make it local
    ("def f(x):\n    x[0] = 1.0\n    def g():\n        x[1] = 2.0\n    return x\n", 2, None),  # and a closure
    ("x = jnp.zeros(3)\nx[0] = 1.0\nx[1:][0] = 2.0\n", 2, None),  # one store the rule cannot rewrite
    ("def f(x):\n    x[0] = 1.0\n", 2, "review"),  # mutated for the caller: the caller's array is not changed
    ("def f(x):\n    x[0] = 1.0\n    return x\n", 2, "review"),  # its callers are not in view
    ("def f(x):\n    x[0] = 1.0\n    return x\n\ny = f(jnp.zeros(3))\n", 2, "safe"),  # a fresh array
    ("def f(x):\n    x[0] = 1.0\n    return x\n\na = jnp.ones(3)\ny = f(a)\nprint(a)\n", 2, "review"),
    ("x = jnp.zeros(3)\nv = x[1:]\nx[0] = 1.0\n", 3, "review"),  # NumPy's view would see the store
    ("x = jnp.zeros(3)\nbuf = [x]\nx[0] = 1.0\n", 3, "review"),  # a list holds the old array
    ("x = jnp.zeros(3)\nhist = []\nhist.append(x)\nx[0] = 1.0\n", 4, "review"),
    ("x = jnp.zeros(3)\nx[idx] += 1\n", 2, "review"),  # an index array may repeat a position
    ("x = np.zeros(3)\nx[0] = 1\nx = jnp.asarray(x)\nx[1] = 2\n", 4, None),  # the name is NumPy's too
])
def test_at_set_scope_and_safety(source, line, safety):
    rw = apply_rules(Context(source=source, line=line), ["at-set"])
    assert (rw.safety if rw else None) == safety, rw and rw.cell


def test_nearest_accepted_value_reads_the_accepted_values_from_the_check_or_the_message():
    """`precision=` lists its names in the message (no literal check to read): the nearest one replaces the
    misspelled literal, labelled review; a value near none of them gets nothing."""
    import jax.numpy as jnp

    import jaxerrs
    from jaxerrs.rewrite import rewrite_for

    def fixed(value: str):
        cell = f'import jax.numpy as jnp\na = jnp.ones((2, 3))\nc = jnp.dot(a, a.T, precision="{value}")\n'
        try:
            jnp.dot(jnp.ones((2, 3)), jnp.ones((3, 2)), precision=value)
        except ValueError as e:
            return rewrite_for(jaxerrs.diagnose(e), cell, 3, e)
        raise AssertionError("did not raise")

    rw = fixed("highets")
    assert rw is not None and rw.rule == "nearest-accepted-value" and rw.safety == "review"
    assert 'precision="highest"' in rw.cell and "'highets' to 'highest'" in rw.summary
    assert fixed("zzzz") is None
