"""Why it was raised: the guarding check read from JAX's source, its values from the live frame, what it
accepts, "did you mean", and the public function the user called (issue #16), on real JAX errors."""

from __future__ import annotations

import ast
import json

import pytest
from tests.conftest import run

import jaxerrs
from jaxerrs.guards import guard_of, literal_bindings, words
from jaxerrs.why import describe


def _guard(src: str):
    """The guard of the only raise in ``src``, as the catalog computes it."""
    tree = ast.parse(src)
    chain: list[ast.AST] = []

    def find(node, path):
        path = [*path, node]
        if isinstance(node, ast.Raise):
            chain.extend(path)
            return True
        return any(find(c, path) for c in ast.iter_child_nodes(node))

    find(tree, [])
    fn = next(n for n in chain if isinstance(n, ast.FunctionDef))
    return guard_of(chain, {**literal_bindings(tree.body), **literal_bindings(
        [n for n in ast.walk(fn) if isinstance(n, ast.Assign)])})


@pytest.mark.parametrize("src, code, said, accepted", [
    ("def f(x):\n  if x.ndim != 2:\n    raise ValueError(x)\n", "x.ndim != 2", "`x.ndim` differs from `2`", ()),
    ("def f(x):\n  if x > 0:\n    pass\n  else:\n    raise ValueError(x)\n", "not (x > 0)", "`x` is not greater than `0`",
     ()),
    ("MODES = ('a', 'b')\ndef f(m):\n  if m not in MODES:\n    raise ValueError(m)\n", "m not in MODES",
     "`m` is not one of `MODES`", ("'a'", "'b'")),
    ("def f(m):\n  table = {'x': 1, 'y': 2}\n  try:\n    v = table[m]\n  except KeyError:\n    raise ValueError(m)\n",
     "m not in table", "`m` is not a key of `table`", ("'x'", "'y'")),
    ("def f(n):\n  if n == 'a':\n    return 1\n  elif n == 'b':\n    return 2\n  raise ValueError(n)\n",
     "(n != 'a') and (n != 'b')", "`n` does not equal `'a'`; and `n` does not equal `'b'`", ("'a'", "'b'")),
    ("def f(x, y):\n  if not isinstance(x, int) or y is None:\n    raise TypeError(x)\n",
     "not isinstance(x, int) or y is None", "`x` is not a `int` or `y` is None", ()),
])
def test_guard_code_words_and_accepted_values(src, code, said, accepted):
    g = _guard(src)
    assert (g.code, g.words, g.accepted) == (code, said, accepted)


def test_words_negate_with_de_morgan():
    test = ast.parse("a < 1 and b in c", mode="eval").body
    assert words(test, negate=True) == "`a` is not less than `1` or `b` is not one of `c`"


def test_a_raise_at_the_top_of_a_function_has_no_guard():
    assert _guard("def f(x):\n  raise NotImplementedError(x)\n") is None


class _Loud:
    def __repr__(self):  # a user's object: describing it must not run this
        raise AssertionError("repr ran")

    @property
    def shape(self):
        raise AssertionError("a user's property ran")


def test_values_are_described_without_running_user_code():
    import jax.numpy as jnp
    import numpy as np

    assert describe(_Loud()) == "<_Loud object>"
    assert describe("x" * 500).endswith("…")
    assert describe((2, 3)) == "(2, 3)"
    assert describe(jnp.ones((2, 3))).endswith("of shape (2, 3) and dtype float32")
    assert describe(np.dtype("float32")) == "float32"
    assert describe({"a": 1, "b": 2}) == "dict with 2 keys: 'a', 'b'"
    assert describe(list(range(50))) == "list of 50 items"


def _diagnosed(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the subject
        return jaxerrs.diagnose(e).to_dict()
    raise AssertionError("did not raise")


def test_pad_mode_names_check_values_nearest_mode_and_api():
    import jax.numpy as jnp

    d = _diagnosed(lambda: jnp.pad(jnp.ones(3), 1, mode="reflekt"))
    chk, api = d["check"], d["api"]
    assert chk["code"] == "mode not in allowed_kwargs"
    assert chk["values"]["mode"] == "'reflekt'"
    assert {"'reflect'", "'constant'", "'symmetric'", "'wrap'"} <= set(chk["accepted"])
    assert chk["did_you_mean"] == "'reflect'"
    assert api["name"] == "jax.numpy.pad" and api["signature"].startswith("pad(array")
    assert api["url"] == "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.pad.html"
    json.dumps(d)  # the contract is JSON


def test_values_come_from_the_raising_frame():
    import jax.numpy as jnp

    d = _diagnosed(lambda: jnp.linalg.inv(jnp.ones((2, 3))))
    assert d["check"]["values"]["arr.shape"] == "(2, 3)"
    assert d["api"]["name"] == "jax.numpy.linalg.inv"
    d = _diagnosed(lambda: jnp.fft.fft(jnp.ones(4), norm="orth"))
    assert d["check"]["accepted"] == ["'backward'", "'ortho'", "'forward'"]
    assert d["check"]["did_you_mean"] == "'ortho'"


def _site_guards(src: str) -> list:
    from jaxerrs.catalog import extract_source

    guards: dict = {}
    extract_source(src, "mod.py", guards)
    return list(guards.values())


def test_the_check_is_the_code_as_written_with_class_literals_and_conjunctions():
    [g] = _site_guards('def f(side):\n  if side not in ["left",\n                  "right"]:\n    raise ValueError(side)\n')
    assert g.code == 'side not in ["left", "right"]' and g.accepted == ("'left'", "'right'")
    [g] = _site_guards("def f(bs):\n  if all(callable(b) for b in bs):\n    pass\n  else:\n    raise TypeError(bs)\n")
    assert g.code == "not all(callable(b) for b in bs)"
    [g] = _site_guards("class S:\n  valid = ('scan', 'sort')\n  def f(self, method):\n"
                       "    if method not in self.valid:\n      raise ValueError(method)\n")
    assert (g.subject, g.accepted) == ("method", ("'scan'", "'sort'"))
    [g] = _site_guards("def f(scale):\n  if scale is not None and scale not in ('sqrtn', 'n'):\n"
                       "    raise ValueError(scale)\n")
    assert (g.subject, g.accepted) == ("scale", ("'sqrtn'", "'n'"))
    [g] = _site_guards("def f(a, b):\n  if a or b not in ('x', 'y'):\n    raise ValueError(b)\n")
    assert g.accepted == ()  # `a` alone may have raised: `b` is not known to be outside the set


def test_the_api_is_what_the_user_called_closures_methods_constructors_and_every_public_module():
    import jax
    import jax.numpy as jnp
    import jax.scipy.fft

    assert _diagnosed(lambda: jax.vmap(lambda: 1.0)())["api"]["name"] == "jax.vmap"  # vmap's inner vmap_f
    assert _diagnosed(lambda: "a" in jnp.ones(3))["api"]["name"] == "jax.Array.__contains__"
    assert _diagnosed(lambda: jax.scipy.fft.dct(jnp.ones(4), norm="forward"))["api"]["name"] == "jax.scipy.fft.dct"

    def subclass():
        class MySpec(jax.sharding.PartitionSpec):  # its __init_subclass__ (a classmethod) raises
            pass

    assert _diagnosed(subclass)["api"]["name"] in ("jax.P", "jax.sharding.PartitionSpec")


def test_from_text_the_values_are_the_messages():
    d = jaxerrs.diagnose_text("NotImplementedError: Unimplemented padding mode 'reflekt' for np.pad.").to_dict()
    assert d["check"]["code"] == "mode not in allowed_kwargs"
    assert d["check"]["did_you_mean"] == "'reflect'"
    assert d["api"] is None  # no frames to read the call from


def test_the_panel_shows_why_it_was_raised_escaped(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    shell.run_cell("import jax.numpy as jnp\nfrom jax import lax")
    from jaxerrs.extension import get_state
    from jaxerrs.panel import Panel

    _cap, result = run(shell, 'jnp.pad(jnp.ones(3), 1, mode="<b>reflekt</b>")')  # curated: the section folds
    assert not result.success
    html = Panel(get_state(shell).last)._repr_mimebundle_()["text/html"]
    assert "Why it was raised" in html and "<code>mode not in allowed_kwargs</code>" in html
    assert "&lt;b&gt;reflekt&lt;/b&gt;" in html and "<b>reflekt</b>" not in html
    _cap, result = run(shell, 'lax.conv(jnp.ones((1, 1, 5, 5)), jnp.ones((1, 1, 3, 3)), (1, 1), "<b>x</b>")')
    assert not result.success  # no record: the section is the answer, in the text panel too
    bundle = Panel(get_state(shell).last)._repr_mimebundle_()
    html, text = bundle["text/html"], bundle["text/plain"]
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert "check: padding.upper() not in PaddingType" in text and "you called jax.lax.conv" in text


def test_a_curated_record_folds_the_section_under_its_explanation():
    import jax.numpy as jnp
    from jax import lax

    def diagnosed(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            return jaxerrs.diagnose(e)
        raise AssertionError("did not raise")

    d = diagnosed(lambda: lax.conv(jnp.ones((1, 1, 5, 5)), jnp.ones((1, 1, 3, 3)), (1, 1), "bogus"))
    assert d.record is None and d.check is not None  # no record covers lax's padding-type lookup
    assert '<h4>Why it was raised</h4>' in jaxerrs.render_html(d)  # no record: the section is the answer, open
    d = diagnosed(lambda: jnp.pad(jnp.ones(3), 1, mode="reflekt"))
    assert d.record is not None and d.record.id == "jnp-pad-unknown-mode" and d.check is not None
    assert "<summary>Why it was raised</summary>" in jaxerrs.render_html(d)  # under a record's explanation it folds


def _jaxerrs(*args, stdin: str | None = None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "jaxerrs", *map(str, args)], input=stdin, capture_output=True,
                          text=True, timeout=600)


def test_draft_gives_a_record_skeleton_that_loads_and_says_what_to_write(tmp_path):
    import tomllib

    from jaxerrs.kb.records import from_dict
    from jaxerrs.kb.verify import prose_checks

    cell = tmp_path / "cell.py"
    cell.write_text('import jax.numpy as jnp\nfrom jax import lax\n'
                    'lax.conv(jnp.ones((1, 1, 5, 5)), jnp.ones((1, 1, 3, 3)), (1, 1), "bogus")\n')
    p = _jaxerrs("draft", "-", "--cell", cell, stdin="RuntimeError: Unrecognized padding type: expected 'VALID', "
                 "'SAME', or 'SAME_LOWER', got bogus.\n")
    assert p.returncode == 0, p.stderr
    rec = from_dict(tomllib.loads(p.stdout), "draft.toml")  # passes the form checks
    assert prose_checks(rec) == {"prose": "ok"}
    assert rec.patterns == ["Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}."]
    assert [(s.path, s.function) for s in rec.sites] == [("jax/_src/lax/lax.py", "padtype_to_pads")]
    assert rec.reproducer == rec.cases[0] == cell.read_text().strip()
    assert "`padding.upper()` is not a key of `PaddingType`" in rec.explanation  # the `except KeyError` lookup
    assert all(s.startswith("TO WRITE") for s in rec.solutions)
    curated = _jaxerrs("draft", "-", stdin="TypeError: Gradient only defined for scalar-output functions. "
                       "Output had shape: (3,).\n")
    assert curated.returncode == 1 and "grad-non-scalar-output already explains" in curated.stderr


def test_jaxerr_draft_magic_writes_the_skeleton_of_the_last_error(shell, tmp_path):
    import tomllib

    from jaxerrs.kb.records import from_dict

    shell.run_line_magic("load_ext", "jaxerrs")
    run(shell, "import jax.numpy as jnp")
    _cap, result = run(shell, 'jnp.fft.fft(jnp.ones(4), norm="orth")')
    assert not result.success
    out = tmp_path / "draft.toml"
    cap, _ = run(shell, f"%jaxerr draft --write {out}")
    assert "record skeleton written" in cap.stdout
    rec = from_dict(tomllib.loads(out.read_text()), "draft.toml")
    assert 'norm="orth"' in rec.reproducer and rec.sites[0].function == "_fft_norm"
    assert "`norm` does not equal `'backward'`" in rec.explanation


def test_a_wrapper_another_module_imported_is_not_the_api(shell):
    """Orbax imports ``jax.experimental.colocated_python.func``, which imports ``api_boundary`` for its own use:
    the wrapper whose closure every JAX API's frames run through in a notebook. The API named is still the one
    the user called (it was ``…colocated_python.func.api_boundary`` once such a module was imported)."""
    pytest.importorskip("jax.experimental.colocated_python.func")
    shell.run_cell("import jax.experimental.colocated_python.func\nimport jax.numpy as jnp\nimport jaxerrs")
    shell.run_cell("try:\n    jnp.linalg.inv(jnp.ones((2, 3)))\nexcept Exception as e:\n"
                   "    _api = jaxerrs.diagnose(e).to_dict()['api']")
    assert shell.user_ns["_api"]["name"] == "jax.numpy.linalg.inv"
