"""Property tests of the ``safe`` rewrites: the rewritten cell computes what the original meant, on many
random instances of each rule's pattern.

Each test draws instances with a seeded ``numpy.random.RandomState`` (the seeds are pytest parameters, so a
failure names the instance), runs the failing cell for real in one IPython ``InteractiveShell`` with
``%load_ext jaxerrs`` (a real JAX error is raised), takes the rewrite from
``jaxerrs.diagnose(exc).to_dict()["rewrite"]``, asserts it is the expected rule labelled ``safe``, runs the
rewritten cell in the same shell and compares what it computed with the original semantics computed
another way: the same statements on NumPy arrays (in-place assignment), the unjitted function, the removed
name's documented equivalent, or a hand-written reference. Instances that break a rule's precondition
must come back ``review`` (or with no rewrite). docs/rewrite-safety.md lists which test covers which rule.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import jaxerrs

SEEDS = range(3)
SETUP = "import numpy as np\nimport jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom functools import partial\n"


class Cells:
    """One InteractiveShell with jaxerrs loaded; each run starts from an empty namespace."""

    def __init__(self, ip) -> None:
        self.ip = ip

    def _run(self, setup: str, cell: str, data: dict | None):
        from IPython.utils.capture import capture_output

        self.ip.reset(new_session=False)
        with capture_output():
            ok = self.ip.run_cell(setup)
            assert ok.success, ok.error_in_exec
            if data:
                self.ip.push(data)
            return self.ip.run_cell(textwrap.dedent(cell))

    def rewrite(self, cell: str, setup: str = SETUP, data: dict | None = None) -> dict | None:
        """The rewrite jaxerrs offers for ``cell``, which must fail with a JAX error when run."""
        result = self._run(setup, cell, data)
        exc = result.error_in_exec
        assert exc is not None, f"the cell did not fail:\n{cell}"
        d = jaxerrs.diagnose(exc).to_dict()
        assert d["is_jax"], f"{type(exc).__name__}: {exc}"
        return d["rewrite"]

    def fixed(self, cell: str, rule: str, setup: str = SETUP, data: dict | None = None) -> str:
        """The rewritten cell, which must come from ``rule`` and be labelled safe."""
        rw = self.rewrite(cell, setup, data)
        assert rw is not None, f"no rewrite for:\n{textwrap.dedent(cell)}"
        assert rw["rule"] == rule, (rw["rule"], rw["summary"])
        assert rw["safety"] == "safe", f"{rw['summary']}\n{rw['cell']}"
        return rw["cell"]

    def run(self, cell: str, setup: str = SETUP, data: dict | None = None) -> dict:
        """The namespace after running ``cell`` (which must succeed)."""
        result = self._run(setup, cell, data)
        assert result.error_in_exec is None, f"{result.error_in_exec!r}\n{cell}"
        return self.ip.user_ns

    def not_safe(self, cell: str, setup: str = SETUP, data: dict | None = None) -> dict | None:
        """The rewrite of a cell that breaks a precondition: none, or one labelled review."""
        rw = self.rewrite(cell, setup, data)
        assert rw is None or rw["safety"] == "review", f"labelled safe: {rw['summary']}\n{rw['cell']}"
        return rw


@pytest.fixture(scope="module")
def cells(_ipython):
    ip = _ipython
    if "jaxerrs" not in ip.extension_manager.loaded:
        ip.run_line_magic("load_ext", "jaxerrs")
    yield Cells(ip)
    ip.run_line_magic("unload_ext", "jaxerrs")
    ip.set_custom_exc((), None)
    ip.reset(new_session=False)


def close(a, b, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def num(rng: np.random.RandomState, lo: float = -3.0, hi: float = 3.0) -> str:
    """A float literal with two decimals (exact enough in float32 to compare)."""
    return repr(round(float(rng.uniform(lo, hi)), 2))


# ---------------------------------------------------------------------------------------------- at-set


def _stores(rng: np.random.RandomState, shape: tuple[int, ...], integer: bool) -> list[str]:
    """Random in-place stores into ``x``: scalar and slice indices, ``=``, ``+=``, ``-=``, ``*=``."""
    out = []
    for _ in range(rng.randint(1, 5)):
        idx = []
        for d in shape:
            if rng.rand() < 0.3:
                a = rng.randint(0, d)
                idx.append(f"{a}:{rng.randint(a + 1, d + 1)}")
            else:
                idx.append(str(rng.randint(-d, d)))
        op = rng.choice(["=", "+=", "-=", "*="])
        value = str(rng.randint(-4, 5)) if integer else num(rng)
        out.append(f"x[{', '.join(idx)}] {op} {value}")
    if len(shape) == 2 and rng.rand() < 0.6:  # a loop over the rows, as in a transition matrix
        value = "i" if integer else f"{num(rng)} * i"
        out.append(f"for i in range({shape[0]}):\n    x[i, (i + 1) % {shape[1]}] += {value}")
    return out


def _at_set_program(rng: np.random.RandomState) -> tuple[str, str, str]:
    """(failing JAX cell, the same cell on NumPy arrays, where the result is) for one random instance."""
    shape = (rng.randint(2, 7),) if rng.rand() < 0.5 else (rng.randint(2, 5), rng.randint(2, 5))
    integer = rng.rand() < 0.25
    dtype = "int32" if integer else "float32"
    stores = "\n".join(_stores(rng, shape, integer))
    start = "x = {m}.arange({n}, dtype={m}.{dt}).reshape({shape})".format(
        m="{m}", n=int(np.prod(shape)), dt=dtype, shape=shape)
    form = rng.choice(["cell", "function", "jit", "rebind"])
    if form == "cell":
        body = f"{start}\n{stores}\n"
    else:
        deco = "@jax.jit\n" if form == "jit" else ""
        call = "x = update(x)" if form == "rebind" else "x = update({m}.ones(%s, dtype={m}.%s))" % (shape, dtype)
        body = (f"{start}\n{deco}def update(x):\n" + textwrap.indent(stores, "    ") + "\n    return x\n\n"
                f"{call}\n")
        if form != "rebind":
            body = body.replace(f"{start}\n", "")
    jax_cell = body.replace("{m}", "jnp")
    np_cell = body.replace("{m}", "np").replace("@jax.jit\n", "")
    return jax_cell, np_cell, "x"


@pytest.mark.parametrize("seed", SEEDS)
def test_at_set_equals_numpy_in_place(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(3):
        jax_cell, np_cell, out = _at_set_program(rng)
        fixed = cells.fixed(jax_cell, "at-set")
        got = cells.run(fixed)[out]
        ns: dict = {"np": np}
        exec(np_cell, ns)
        assert np.asarray(got).dtype == ns[out].dtype
        close(got, ns[out])


_AT_SET_NOT_SAFE = [
    # another name for the array, bound before the store (NumPy's `y` would change too)
    "x = jnp.zeros(4)\ny = x\nx[0] = 1.0\n",
    # a NumPy view of it, taken before the store
    "x = jnp.zeros((3, 3))\nrow = x[0]\nx[0, 1] = 1.0\n",
    "x = jnp.zeros((2, 3))\nxt = x.T\nx[1, 2] = 5.0\n",
    # the caller keeps reading the array it passed
    "def reset(x):\n    x[0] = 0.0\n    return x\n\na = jnp.ones(3)\nb = reset(a)\ntotal = a.sum()\n",
    # the function is passed on: its callers are not in view
    "def reset(x):\n    x[0] = 0.0\n    return x\n\nf = jax.jit(reset)\nb = f(jnp.ones(3))\n",
    # an index array may repeat a position
    "x = jnp.zeros(4)\nidx = jnp.array([1, 1, 2])\nx[idx] += 1.0\n",
    # a fractional value added into an integer array
    "x = jnp.zeros(4, dtype=jnp.int32)\nx[1] += 0.5\n",
]


@pytest.mark.parametrize("cell", _AT_SET_NOT_SAFE)
def test_at_set_not_safe_when_a_precondition_fails(cells, cell):
    rw = cells.not_safe(cell)
    assert rw is not None and rw["rule"] == "at-set"
