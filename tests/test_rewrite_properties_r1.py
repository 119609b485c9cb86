"""Property tests of the ``safe`` rewrites for removed imports and for options of jitted/vmapped functions.

As in ``test_rewrite_properties.py``: each instance is drawn with a seeded ``numpy.random.RandomState``, the
failing cell runs for real in an IPython shell with jaxerrs loaded, the rewrite must come from the expected
rule labelled ``safe``, and what the rewritten cell computes is compared with the original semantics
computed another way (the unjitted function, a Python loop over the examples, the object the removed name
was documented to be).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import jaxerrs

SEEDS = range(3)
SETUP = "import numpy as np\nimport jax\nimport jax.numpy as jnp\nfrom functools import partial\n"


class Cells:
    """One InteractiveShell with jaxerrs loaded; each run starts from an empty namespace."""

    def __init__(self, ip) -> None:
        self.ip = ip

    def _run(self, cell: str, data: dict | None):
        from IPython.utils.capture import capture_output

        self.ip.reset(new_session=False)
        with capture_output():
            ok = self.ip.run_cell(SETUP)
            assert ok.success, ok.error_in_exec
            if data:
                self.ip.push(data)
            return self.ip.run_cell(textwrap.dedent(cell))

    def fixed(self, cell: str, rule: str, data: dict | None = None) -> str:
        result = self._run(cell, data)
        exc = result.error_in_exec
        assert exc is not None, f"the cell did not fail:\n{cell}"
        rw = jaxerrs.diagnose(exc).to_dict()["rewrite"]
        assert rw is not None, f"no rewrite for:\n{textwrap.dedent(cell)}"
        assert rw["rule"] == rule and rw["safety"] == "safe", (rw["rule"], rw["safety"], rw["summary"])
        return rw["cell"]

    def run(self, cell: str, data: dict | None = None) -> dict:
        result = self._run(cell, data)
        assert result.error_in_exec is None, f"{result.error_in_exec!r}\n{cell}"
        return self.ip.user_ns


@pytest.fixture(scope="module")
def cells(_ipython):
    ip = _ipython
    if "jaxerrs" not in ip.extension_manager.loaded:
        ip.run_line_magic("load_ext", "jaxerrs")
    yield Cells(ip)
    ip.run_line_magic("unload_ext", "jaxerrs")


_JITS = {
    "decorator": ("@jax.jit\ndef layer({sig}):", "out = layer(x, w, {call})"),
    "partial": ("@partial(jax.jit, static_argnames=('scale',))\ndef layer({sig}):", "out = layer(x, w, {call})"),
    "assigned": ("def layer({sig}):", "fast = jax.jit(layer)\nout = fast(x, w, {call})"),
}
_ACTS = {"relu": np.vectorize(lambda v: max(v, 0.0)), "tanh": np.tanh, "linear": lambda v: v}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("form", sorted(_JITS))
def test_non_array_static_same_values_as_unjitted(cells, seed, form):
    rs = np.random.RandomState(seed)
    act = sorted(_ACTS)[rs.randint(len(_ACTS))]
    kwonly = bool(rs.randint(2))
    flag = bool(rs.randint(2))
    x = rs.randn(3, 4).astype(np.float32)
    w = rs.randn(4, 2).astype(np.float32)
    head, tail = _JITS[form]
    sig = "x, w, " + ("*, " if kwonly else "") + "activation='relu', center=False" + (
        ", scale=2" if form == "partial" else "")
    call = f"activation={act!r}, center={flag}" if kwonly or rs.randint(2) else f"{act!r}, {flag}"
    body = """
        h = x @ w
        if center:
            h = h - h.mean()
        if activation == "relu":
            return jax.nn.relu(h)
        if activation == "tanh":
            return jnp.tanh(h)
        return h
    """
    cell = head.format(sig=sig) + textwrap.indent(textwrap.dedent(body), "    ") + tail.format(call=call) + "\n"
    fixed = cells.fixed(cell, "non-array-static", {"x": x, "w": w})
    out = np.asarray(cells.run(fixed, {"x": x, "w": w})["out"])
    h = x.astype(np.float64) @ w
    if flag:
        h = h - h.mean()
    np.testing.assert_allclose(out, _ACTS[act](h), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_vmap_option_unmapped_same_values_as_a_loop(cells, seed):
    rs = np.random.RandomState(seed)
    n, d = 2 + rs.randint(4), 1 + rs.randint(3)
    a = rs.randn(n, d).astype(np.float32)
    b = rs.randn(n, d).astype(np.float32)
    metric = ["l1", "l2", "max"][rs.randint(3)]
    decorated = bool(rs.randint(2))
    fn = """
    def dist(a, b, metric):
        d = a - b
        if metric == "l2":
            return jnp.sqrt(jnp.sum(d ** 2))
        if metric == "l1":
            return jnp.sum(jnp.abs(d))
        return jnp.max(jnp.abs(d))
    """
    if decorated:
        cell = "@jax.vmap" + textwrap.dedent(fn) + f"out = dist(a, b, {metric!r})\n"
    else:
        cell = textwrap.dedent(fn) + f"out = jax.vmap(dist)(a, b, {metric!r})\n"
    fixed = cells.fixed(cell, "vmap-option-unmapped", {"a": a, "b": b})
    out = np.asarray(cells.run(fixed, {"a": a, "b": b})["out"])
    diff = a.astype(np.float64) - b
    ref = {"l2": np.sqrt((diff ** 2).sum(1)), "l1": np.abs(diff).sum(1), "max": np.abs(diff).max(1)}[metric]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


# removed import -> (what the cell computes with it, the documented equivalent computed the current way)
_REMOVED = [
    ("from jax import tree_map", "out = tree_map(lambda a, b: 2 * a + b, tree, tree)",
     lambda tree: {k: 3 * v for k, v in tree.items()}),
    ("from jax.tree_util import tree_multimap", "out = tree_multimap(lambda a, b: a - b, tree, tree)",
     lambda tree: {k: 0 * v for k, v in tree.items()}),
    ("from jax import tree_leaves, tree_structure",
     "out = {str(i): leaf for i, leaf in enumerate(tree_leaves(tree))}\nassert tree_structure(tree).num_leaves == 2",
     lambda tree: {str(i): tree[k] for i, k in enumerate(sorted(tree))}),
    ("from jax.experimental import optimizers",
     "init, update, get = optimizers.sgd(0.5)\nout = get(update(0, tree, init(tree)))",
     lambda tree: {k: 0.5 * v for k, v in tree.items()}),
    ("import jax.experimental.stax as stax",
     "_, apply = stax.Relu\nout = {k: apply((), v) for k, v in tree.items()}",
     lambda tree: {k: np.maximum(v, 0) for k, v in tree.items()}),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("which", range(len(_REMOVED)))
def test_removed_import_same_values_as_current_api(cells, seed, which):
    rs = np.random.RandomState(seed)
    tree = {"a": rs.randn(2 + rs.randint(3)).astype(np.float32), "b": rs.randn(3).astype(np.float32)}
    imp, use, ref = _REMOVED[which]
    fixed = cells.fixed(imp + "\n" + use + "\n", "removed-import", {"tree": tree})
    out = cells.run(fixed, {"tree": tree})["out"]
    want = ref(tree)
    assert sorted(out) == sorted(want)
    for k in want:
        np.testing.assert_allclose(np.asarray(out[k]), want[k], rtol=1e-6)


def test_removed_import_binds_the_documented_objects(cells):
    """The moved names are the very objects the old ones re-exported (checked live, not by behaviour)."""
    import jax
    import jax._src.config
    import jax._src.mesh
    import jax.example_libraries.optimizers
    import jax.sharding

    cell = textwrap.dedent("""
        from jax.config import config
        from jax.experimental.maps import Mesh
        from jax.experimental import optimizers as opt
        from jax import tree_flatten
        from jax.experimental.pjit import PartitionSpec
    """)
    ns = cells.run(cells.fixed(cell, "removed-import"))
    assert ns["config"] is jax._src.config.config
    assert ns["Mesh"] is jax._src.mesh.Mesh is jax.sharding.Mesh
    assert ns["opt"] is jax.example_libraries.optimizers
    assert ns["tree_flatten"] is jax.tree_util.tree_flatten
    assert ns["PartitionSpec"] is jax.sharding.PartitionSpec


@pytest.mark.parametrize("seed", SEEDS)
def test_bool_flags_static_same_values_as_unjitted(cells, seed):
    """A traced bool flag in a Python ``if`` (TracerBoolConversionError): every flag becomes static at once."""
    rs = np.random.RandomState(seed)
    flags = [bool(rs.randint(2)) for _ in range(3)]
    x = rs.randn(5).astype(np.float32)
    cell = textwrap.dedent(f"""
        @jax.jit
        def f(x, square=False, negate=False, shift=False):
            if square:
                x = x * x
            if negate:
                x = -x
            if shift:
                x = x + 1.0
            return x

        out = f(x, square={flags[0]}, negate={flags[1]}, shift={flags[2]})
    """)
    fixed = cells.fixed(cell, "non-array-static", {"x": x})
    out = np.asarray(cells.run(fixed, {"x": x})["out"])
    ref = x.astype(np.float64)
    ref = ref * ref if flags[0] else ref
    ref = -ref if flags[1] else ref
    ref = ref + 1.0 if flags[2] else ref
    np.testing.assert_allclose(out, ref, rtol=1e-6)
