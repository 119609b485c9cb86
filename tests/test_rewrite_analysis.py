"""The shared analysis of a cell (jaxerrs.rewrite.analysis): names, jits, functions, on cells as written.

These read cells only (no frame): what the rules key on must not depend on how the user spelled it.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxerrs.rewrite.analysis import find_jit, full_name, function_of, jit_kind, shadowed
from jaxerrs.rewrite.context import Context


def _ctx(code: str, namespace: dict | None = None) -> Context:
    return Context(source=textwrap.dedent(code).lstrip("\n"), line=None, namespace=namespace)


def _calls(ctx: Context, text: str) -> list[cst.Call]:
    return [c for c in ctx.nodes(cst.Call) if ctx.code(c.func) == text]  # type: ignore[attr-defined]


@pytest.mark.parametrize("imports, spelled, full", [
    ("from jax import numpy as np", "np.where", "jax.numpy.where"),
    ("import jax.lax as L", "L.cond", "jax.lax.cond"),
    ("import jax as J", "J.jit", "jax.jit"),
    ("import jax.numpy as jnp", "jnp.zeros", "jax.numpy.zeros"),
    ("from jax import lax", "lax.scan", "jax.lax.scan"),
    ("from flax import nnx", "nnx.jit", "flax.nnx.jit"),
])
def test_aliases_resolve_to_full_names(imports, spelled, full):
    ctx = _ctx(f"{imports}\ny = {spelled}(1)\n")
    (call,) = _calls(ctx, spelled)
    assert full_name(ctx, call.func) == full


def test_a_parameter_shadowing_an_import_is_not_the_import():
    ctx = _ctx("""
        import jax.numpy as np

        def f(x, np):
            return np.sum(x)

        def g(x):
            return np.sum(x)
        """)
    inner, outer = _calls(ctx, "np.sum")
    assert shadowed(ctx, inner.func) and full_name(ctx, inner.func) == ""
    assert not shadowed(ctx, outer.func) and full_name(ctx, outer.func) == "jax.numpy.sum"


def test_names_an_earlier_cell_imported_come_from_the_namespace():
    import functools
    import types

    ns = {"np": types.ModuleType("jax.numpy"), "partial": functools.partial}
    ctx = _ctx("y = np.zeros(3)\nf = partial(g, 1)\n", ns)
    (zeros,) = _calls(ctx, "np.zeros")
    (part,) = _calls(ctx, "partial")
    assert full_name(ctx, zeros.func) == "jax.numpy.zeros"
    assert full_name(ctx, part.func) == "functools.partial"


@pytest.mark.parametrize("code, kind, names", [
    ("import jax\n@jax.jit\ndef f(x, n):\n    return x\n", "jax.jit", ["f"]),
    ("from functools import partial\nimport jax\n@partial(jax.jit, static_argnums=1)\ndef f(x, n):\n    return x\n",
     "jax.jit", ["f"]),
    ("from jax import jit\ndef f(x, n):\n    return x\nfj = jit(f)\n", "jax.jit", ["fj"]),
    ("import jax\ndef f(x, n):\n    return x\ny = jax.jit(f)(1, 2)\n", "jax.jit", []),
    ("from flax import nnx\n@nnx.jit\ndef f(x, n):\n    return x\n", "flax.nnx.jit", ["f"]),
    ("from functools import partial\nfrom flax import nnx\n@partial(nnx.jit, static_argnames='n')\n"
     "def f(x, n):\n    return x\n", "flax.nnx.jit", ["f"]),
])
def test_how_a_function_is_jitted(code, kind, names):
    ctx = _ctx(code)
    fn = ctx.function_named("f")
    site = find_jit(ctx, fn)
    assert site is not None and site.kind == kind and site.names == names


def test_statics_of_a_jit_and_filter_jit_kind():
    ctx = _ctx("""
        from functools import partial
        import jax
        import equinox as eqx

        @partial(jax.jit, static_argnums=(1,), static_argnames=("mode",))
        def f(x, n, mode="a"):
            return x

        g = eqx.filter_jit(f)
        """)
    site = find_jit(ctx, ctx.function_named("f"), others=True)
    assert site is not None and site.statics() == {"n", "mode"}
    (filt,) = _calls(ctx, "eqx.filter_jit")
    assert jit_kind(ctx, filt.func) == "equinox.filter_jit"


def test_a_method_is_found_through_self():
    ctx = _ctx("""
        from jax import lax

        class Acc:
            def step(self, c, x):
                return c + x

            def total(self, xs):
                return lax.scan(self.step, 0.0, xs)
        """)
    (scan,) = _calls(ctx, "lax.scan")
    got = function_of(ctx, scan.args[0].value)
    assert got is not None and got.node.name.value == "step" and got.params == ["c", "x"] and got.method


def test_a_partial_binds_leading_parameters_and_keywords():
    ctx = _ctx("""
        from functools import partial
        from jax import lax

        def step(decay, c, x, *, scale=1.0):
            return decay * c + x

        out = lax.scan(partial(step, 0.9, scale=2.0), 0.0, xs)
        """)
    (scan,) = _calls(ctx, "lax.scan")
    got = function_of(ctx, scan.args[0].value)
    assert got is not None and got.node.name.value == "step" and got.params == ["c", "x"]


def test_nested_defs_of_the_same_name_resolve_by_scope():
    ctx = _ctx("""
        from jax import lax

        def a(x):
            def body(c, x):
                return c + x
            return lax.scan(body, 0.0, x)

        def b(x):
            def body(c, x):
                return c * x
            return lax.scan(body, 1.0, x)
        """)
    first, second = _calls(ctx, "lax.scan")
    got_a, got_b = function_of(ctx, first.args[0].value), function_of(ctx, second.args[0].value)
    assert got_a is not None and got_b is not None and got_a.node is not got_b.node
    assert ctx.code(got_b.node).strip().endswith("return c * x")


def test_an_earlier_cells_definition_is_rewritten_there_and_says_so():
    """The failing function was defined in an earlier cell and called from this one: the rewrite is of that
    earlier cell, its label names it, and the panel heading and the inserted text say it is an earlier cell."""
    pytest.importorskip("jax")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    import jaxerrs

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "jaxerrs")
    try:
        with capture_output():
            ip.run_cell("import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef pad(x, n):\n"
                        "    return jnp.zeros(n).at[: x.shape[0]].set(x)\n", store_history=True)
            defined = ip.execution_count - 1
            result = ip.run_cell("out = pad(jnp.ones(2), 4)\n", store_history=True)
        rw = jaxerrs.diagnose(result.error_in_exec).rewrite
        assert rw is not None and rw.label == f"Cell In[{defined}]" and rw.ran == f"Cell In[{defined + 1}]"
        assert "def pad" in rw.cell and "static_argnames" in rw.cell
        assert "earlier cell" in rw.where and rw.ran in rw.where
        assert "earlier cell" in rw.insertable().splitlines()[1]
        assert "earlier cell" in jaxerrs.render_html(jaxerrs.diagnose(result.error_in_exec))
    finally:
        ip.run_line_magic("unload_ext", "jaxerrs")


def test_shapes_of_arguments_built_in_the_call():
    from jaxerrs.rewrite.analysis import shape_of

    ctx = _ctx("import jax.numpy as jnp\ny = f(jnp.arange(15.0).reshape(5, 3), jnp.zeros(2), jnp.full((3, 2), 0.5), "
               "jnp.eye(4), jnp.array([[1, 2], [3, 4]]), 2.0, g(3))\n")
    (call,) = _calls(ctx, "f")
    assert [shape_of(ctx, a.value) for a in call.args] == [(5, 3), (2,), (3, 2), (4, 4), (2, 2), (), None]
