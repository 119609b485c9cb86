"""Property tests of the ``safe`` rewrites: the rewritten cell computes what the original meant, on many
random instances of each rule's pattern.

Each test draws instances with a seeded ``numpy.random.RandomState`` (the seeds are pytest parameters, so a
failure names the instance), runs the failing cell for real in one IPython ``InteractiveShell`` with
``%load_ext jaxerrs`` (a real JAX error is raised), takes the rewrite the extension computed for its panel
(the same as ``jaxerrs.diagnose(exc).to_dict()["rewrite"]``; tests/test_rewrite.py checks they agree),
asserts it is the expected rule labelled ``safe``, runs the
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
    """One InteractiveShell with jaxerrs loaded; each run starts from the namespace the shell started with
    (the names a run binds are dropped: cheaper than ``reset``, whose garbage collection dominates)."""

    def __init__(self, ip) -> None:
        from jaxerrs.extension import get_state

        self.ip = ip
        self.state = get_state(ip)
        self.base = set(ip.user_ns)

    def _run(self, setup: str, cell: str, data: dict | None):
        from IPython.utils.capture import capture_output

        ns = self.ip.user_ns
        for name in [n for n in ns if n not in self.base]:
            del ns[name]
        self.state.last = None
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
        diagnosis = self.state.last if self.state.last is not None else jaxerrs.diagnose(exc)
        assert diagnosis.is_jax, f"{type(exc).__name__}: {exc}"
        rw = diagnosis.rewrite
        return rw.to_dict() if rw is not None else None

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
        call = "x = update(x)" if form == "rebind" else f"x = update({{m}}.ones({shape}, dtype={{m}}.{dtype}))"
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


# ---------------------------------------------------------------------------------------------- renamed-api

# removed name as the cell writes it -> the original semantics, as NumPy / jax.tree_util compute it
_RENAMED = [
    ("jnp.product(a, axis={ax})", lambda ns, p: np.prod(ns["a"], axis=p["ax"])),
    ("jnp.cumproduct(a, axis={ax})", lambda ns, p: np.cumprod(ns["a"], axis=p["ax"])),
    ("jnp.round_(a * 7.3, {d})", lambda ns, p: np.round(ns["a"] * np.float32(7.3), p["d"])),
    ("jnp.alltrue(a > {t})", lambda ns, p: np.all(ns["a"] > p["t"])),
    ("jnp.sometrue(a > {t})", lambda ns, p: np.any(ns["a"] > p["t"])),
    ("jnp.row_stack([a, a * 2])", lambda ns, p: np.vstack([ns["a"], ns["a"] * 2])),
    ("jnp.trapz(a, dx={dx})", lambda ns, p: np.trapezoid(ns["a"], dx=p["dx"], axis=-1)),
    ("jnp.fix(a * {k})", lambda ns, p: np.fix(ns["a"] * np.float32(p["k"]))),
    ("jnp.where(a > {t}, a, jnp.NaN)", lambda ns, p: np.where(ns["a"] > p["t"], ns["a"], np.nan)),
    ("jnp.minimum(a, jnp.Inf)", lambda ns, p: np.minimum(ns["a"], np.inf)),
    ("jnp.maximum(a, jnp.NINF)", lambda ns, p: np.maximum(ns["a"], -np.inf)),
    ("jnp.NINF ** 2 + a", lambda ns, p: (-np.inf) ** 2 + ns["a"]),
    ("a * 0 + jnp.infty", lambda ns, p: ns["a"] * 0 + np.inf),
    ("jax.tree_map(lambda v: v * {k}, params)",
     lambda ns, p: jax_tree_util().tree_map(lambda v: v * p["k"], ns["params"])),
    ("jax.tree_util.tree_multimap(lambda u, v: u - {k} * v, params, params)",
     lambda ns, p: jax_tree_util().tree_map(lambda u, v: u - p["k"] * v, ns["params"], ns["params"])),
    ("sum(x.sum() for x in jax.tree_leaves(params))",
     lambda ns, p: sum(x.sum() for x in jax_tree_util().tree_leaves(ns["params"]))),
    ("jax.tree_unflatten(jax.tree_structure(params), [l * {k} for l in jax.tree_flatten(params)[0]])",
     lambda ns, p: jax_tree_util().tree_map(lambda v: v * p["k"], ns["params"])),
    ("jax.tree_reduce(lambda s, v: s + v.sum(), params, 0.0)",
     lambda ns, p: jax_tree_util().tree_reduce(lambda s, v: s + v.sum(), ns["params"], 0.0)),
    ("jax.core.get_aval(a).shape", lambda ns, p: ns["a"].shape),
]


def jax_tree_util():
    import jax.tree_util

    return jax.tree_util


def _leaves(tree) -> list:
    import jax

    return jax.tree_util.tree_leaves(tree)


@pytest.mark.parametrize("seed", SEEDS)
def test_renamed_api_same_values(cells, seed):
    rng = np.random.RandomState(seed)
    order = rng.permutation(len(_RENAMED))
    for chunk in np.array_split(order, 3):  # several removed names in one cell: all of them renamed
        n = rng.randint(2, 6)
        data = {"a": rng.randn(n, 3).astype(np.float32),
                "params": {"w": rng.randn(3, 2).astype(np.float32), "b": rng.randn(2).astype(np.float32)}}
        lines, refs = [], []
        for j, i in enumerate(chunk):
            template, ref = _RENAMED[i]
            p = {"ax": int(rng.randint(0, 2)), "d": int(rng.randint(0, 3)), "t": round(float(rng.randn()), 2),
                 "dx": round(float(rng.uniform(0.1, 2)), 2), "k": round(float(rng.uniform(-3, 3)), 2)}
            lines.append(f"r{j} = " + template.format(**p))
            refs.append((f"r{j}", ref, p))
        cell = "a = jnp.asarray(a_np)\nparams = jax.tree_util.tree_map(jnp.asarray, params_np)\n" + "\n".join(lines)
        feed = {"a_np": data["a"], "params_np": data["params"]}
        fixed = cells.fixed(cell, "renamed-api", data=feed)
        ns = cells.run(fixed, data=feed)
        for name, ref, p in refs:
            want = ref(data, p)
            got = ns[name]
            if isinstance(want, tuple):
                assert tuple(got) == want
                continue
            for g, w in zip(_leaves(got), _leaves(want), strict=True):
                close(g, w)


# ---------------------------------------------------------------------------------------------- lists

_LIST_CALLS = [  # a jnp call on a Python list -> NumPy on the same list
    ("jnp.mean({L})", lambda L: np.mean(np.asarray(L, np.float32))),
    ("jnp.std({L})", lambda L: np.std(np.asarray(L, np.float32))),
    ("jnp.sum({L}) / 2", lambda L: np.sum(np.asarray(L, np.float32)) / 2),
    ("jnp.linalg.norm({L})", lambda L: np.linalg.norm(np.asarray(L, np.float32))),
    ("jnp.maximum({L}, 0.5)", lambda L: np.maximum(np.asarray(L, np.float32), 0.5)),
    ("jnp.clip(a, {L}, {L2})", None),
    ("jnp.cumsum({L})", lambda L: np.cumsum(np.asarray(L, np.float32))),
    ("jnp.exp({L})", lambda L: np.exp(np.asarray(L, np.float32))),
]


@pytest.mark.parametrize("seed", SEEDS)
def test_list_to_array_same_values_as_numpy(cells, seed):
    rng = np.random.RandomState(seed)
    for template, ref in [_LIST_CALLS[i] for i in rng.permutation(len(_LIST_CALLS))[:4]]:
        n = rng.randint(2, 6)
        values = [round(float(v), 2) for v in rng.randn(n)]
        lo = [round(float(v) - 1, 2) for v in rng.rand(n)]
        hi = [round(float(v) + 1, 2) for v in rng.rand(n)]
        a = rng.randn(n).astype(np.float32)
        cell = "a = jnp.asarray(a_np)\nout = " + template.format(L=values, L2=hi if "L2" in template else "")
        if "L2" in template:
            cell = cell.replace(str(values), str(lo), 1)
            want = np.clip(a, np.asarray(lo, np.float32), np.asarray(hi, np.float32))
        else:
            want = ref(values)
        fixed = cells.fixed(cell, "list-to-array", data={"a_np": a})
        close(cells.run(fixed, data={"a_np": a})["out"], want)


@pytest.mark.parametrize("seed", SEEDS)
def test_list_index_to_array_same_values_as_numpy(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(3):
        shape = (rng.randint(3, 6), rng.randint(2, 5))
        x = rng.randn(*shape).astype(np.float32)
        if rng.rand() < 0.5:  # a list of positions: one index array
            idx = [int(i) for i in rng.randint(-shape[0], shape[0], size=rng.randint(1, 5))]
            want = x[np.asarray(idx)]
            lit = repr(idx)
        else:  # a list with a slice or None: one index per axis
            a = int(rng.randint(0, shape[0] - 1))
            items = [f"slice({a}, {shape[0]})", str(int(rng.randint(0, shape[1])))]
            if rng.rand() < 0.5:
                items = [str(int(rng.randint(0, shape[0]))), "slice(None)", "None"]
            lit = "[" + ", ".join(items) + "]"
            want = x[tuple(eval(lit))]
        form = rng.choice(["inline", "name", "jit"])
        if form == "inline":
            cell = f"x = jnp.asarray(x_np)\nout = x[{lit}]\n"
        elif form == "name":
            cell = f"x = jnp.asarray(x_np)\nidx = {lit}\nout = x[idx]\n"
        else:
            cell = f"@jax.jit\ndef pick(x):\n    return x[{lit}] * 2\n\nout = pick(jnp.asarray(x_np)) / 2\n"
        fixed = cells.fixed(cell, "list-index-to-array", data={"x_np": x})
        close(cells.run(fixed, data={"x_np": x})["out"], want)


def test_list_index_of_lists_is_review(cells):
    # NumPy before 1.23 read this as x[[0, 1], [1, 0]] (two elements), NumPy since as rows [[0, 1], [1, 0]]
    cells.not_safe("x = jnp.arange(12.0).reshape(4, 3)\nout = x[[[0, 1], [1, 0]]]\n")


# ---------------------------------------------------------------------------------------------- keys


@pytest.mark.parametrize("seed", SEEDS)
def test_wrap_key_data_same_random_numbers(cells, seed):
    import jax

    rng = np.random.RandomState(seed)
    for _ in range(2):
        n = rng.randint(2, 5)
        seeds = [int(s) for s in rng.randint(0, 10_000, size=n)]
        typed = list(rng.rand(n) < 0.5)
        typed[0], typed[1] = True, False  # at least one of each
        perm = rng.permutation(n)
        lines = [f"k{i} = jax.random.{'key' if typed[i] else 'PRNGKey'}({seeds[i]})" for i in perm]
        names = ", ".join(f"k{i}" for i in range(n))
        combine = rng.choice(["stack", "array"])
        lines.append(f"keys = jnp.{combine}([{names}])")
        lines.append("samples = jax.vmap(lambda k: jax.random.normal(k, (3,)))(keys)")
        fixed = cells.fixed("\n".join(lines) + "\n", "wrap-key-data")
        got = cells.run(fixed)["samples"]
        old = jax.numpy.stack([jax.random.PRNGKey(s) for s in seeds])  # the raw keys of before
        want = jax.vmap(lambda k: jax.random.normal(k, (3,)))(old)
        close(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_typed_raw_key_comparison_compares_bits(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        s1 = int(rng.randint(0, 50))
        s2 = s1 if rng.rand() < 0.5 else int(rng.randint(0, 50))
        left, right = ("jax.random.key", "jax.random.PRNGKey")[:: 1 if rng.rand() < 0.5 else -1]
        cell = f"a = {left}({s1})\nb = {right}({s2})\nsame = bool(jnp.all(a == b))\n"
        fixed = cells.fixed(cell, "key-fold-in")
        assert cells.run(fixed)["same"] is (s1 == s2)


# ---------------------------------------------------------------------------------------------- numpy-to-jnp

_NP_EXPRS = ["np.tanh(x) * w", "np.sum(x ** 2)", "np.mean(np.exp(-x))", "np.dot(x, w)", "np.maximum(x, 0.0)",
             "np.linalg.norm(x)", "np.sqrt(np.abs(x)) + np.sin(w)", "np.clip(x, -0.5, 0.5)", "np.log1p(x * x)",
             "np.where(x > 0, x, w)", "np.cumsum(x)", "np.arctan2(x, w) * np.cos(x)"]


@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_to_jnp_same_values_as_numpy_on_arrays(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(3):
        n = rng.randint(2, 6)
        x, w = rng.randn(n).astype(np.float32), rng.randn(n).astype(np.float32)
        exprs = [_NP_EXPRS[i] for i in rng.choice(len(_NP_EXPRS), size=rng.randint(1, 4), replace=False)]
        body = "".join(f"    t{i} = {e}\n" for i, e in enumerate(exprs))
        total = " + ".join(f"np.sum(t{i})" for i in range(len(exprs)))
        src = f"def f(x, w):\n{body}    return {total}\n"
        if rng.rand() < 0.5:
            cell = "@jax.jit\n" + src + "\nout = f(jnp.asarray(x_np), jnp.asarray(w_np))\n"
        else:
            cell = src + "\nout = jax.jit(f)(jnp.asarray(x_np), jnp.asarray(w_np))\n"
        data = {"x_np": x, "w_np": w}
        fixed = cells.fixed(cell, "numpy-to-jnp", data=data)
        got = cells.run(fixed, data=data)["out"]
        ns: dict = {"np": np}
        exec(src, ns)  # the original function, unjitted, on NumPy arrays
        close(got, ns["f"](x, w), rtol=2e-5, atol=1e-5)


def test_numpy_to_jnp_outside_the_same_functions_is_review(cells):
    # argsort may order ties differently; percentile's interpolation is not in the proven list
    for expr in ("np.argsort(x)[0] + np.sort(x)[0]", "np.percentile(x, 50.0)"):
        rw = cells.not_safe(f"@jax.jit\ndef f(x):\n    return {expr}\n\nout = f(jnp.ones(3))\n")
        assert rw is not None and rw["rule"] == "numpy-to-jnp"


# ---------------------------------------------------------------------------------------------- autodiff


def _poly(rng: np.random.RandomState) -> tuple[str, list[float]]:
    """A random cubic ``c3 * x ** 3 + c2 * x ** 2 + c1 * x`` (as code) and its coefficients."""
    c = [round(float(v), 2) for v in rng.uniform(-2, 2, size=3)]
    return f"{c[2]} * x ** 3 + {c[1]} * x ** 2 + {c[0]} * x", c


def _dpoly(c: list[float], x) -> np.ndarray:
    x = np.asarray(x, np.float64)
    return 3 * c[2] * x ** 2 + 2 * c[1] * x + c[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_grad_float_input_differentiates_at_the_same_points(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(3):
        expr, c = _poly(rng)
        form = rng.choice(["literal", "name", "array", "array-name", "arange"])
        if form == "literal":
            v = int(rng.randint(-9, 10))
            call, point, body = f"jax.grad(f)({v})", v, expr
        elif form == "name":
            v = int(rng.randint(-9, 10))
            call, point, body = "jax.grad(f)(x0)", v, expr
        else:
            pts = [int(p) for p in rng.randint(-6, 7, size=rng.randint(2, 5))]
            body = f"jnp.sum({expr})"
            if form == "array":
                call, point = f"jax.grad(f)(jnp.array({pts}))", pts
            elif form == "array-name":
                call, point = "jax.grad(f)(x0)", pts
            else:
                lo = int(rng.randint(-5, 2))
                pts = list(range(lo, lo + int(rng.randint(2, 6))))
                call, point = f"jax.grad(f)(jnp.arange({pts[0]}, {pts[-1] + 1}))", pts
        x0 = (f"x0 = {v}\n" if form == "name" else f"x0 = jnp.array({point})\n" if form == "array-name" else "")
        cell = f"def f(x):\n    return {body}\n\n{x0}g = {call}\n"
        fixed = cells.fixed(cell, "grad-float-input")
        close(cells.run(fixed)["g"], _dpoly(c, point), rtol=1e-5, atol=1e-4)


def test_grad_float_input_not_safe_beyond_float_precision(cells):
    cells.not_safe("def f(x):\n    return x ** 2\n\ng = jax.grad(f)(16777217)\n")


@pytest.mark.parametrize("seed", SEEDS)
def test_grad_without_aux_drops_has_aux(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        n = rng.randint(2, 6)
        xs, ys = rng.randn(n).astype(np.float32), rng.randn(n).astype(np.float32)
        w0 = round(float(rng.randn()), 2)
        loss = "def loss(w):\n    return jnp.sum((w * xs - ys) ** 2)\n\n"
        if rng.rand() < 0.5:
            call, name = f"g, _ = jax.grad(loss, has_aux=True)({w0})\n", "g"
        else:
            call, name = f"(l, _), g = jax.value_and_grad(loss, has_aux=True)({w0})\n", "g"
        data = {"xs": xs, "ys": ys}
        fixed = cells.fixed(loss + call, "grad-aux-pair", data=data)
        want = np.sum(2 * (w0 * xs.astype(np.float64) - ys) * xs)
        close(cells.run(fixed, data=data)[name], want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("seed", SEEDS)
def test_custom_vjp_bwd_tuple_same_cotangents(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        k = round(float(rng.uniform(0.5, 3)), 2)
        xs = rng.randn(rng.randint(1, 5)).astype(np.float32)
        if rng.rand() < 0.5:  # a bare cotangent for a one-argument function
            cell = (f"@jax.custom_vjp\ndef f(x):\n    return jnp.sin(x) * {k}\n\n"
                    "def f_fwd(x):\n    return f(x), jnp.cos(x)\n\n"
                    f"def f_bwd(c, g):\n    return g * c * {k}\n\n"
                    "f.defvjp(f_fwd, f_bwd)\nd = jax.grad(lambda v: jnp.sum(f(v)))(jnp.asarray(xs))\n")
            want = k * np.cos(xs.astype(np.float64))
        else:  # an entry for the nondiff argument
            n = int(rng.randint(2, 5))
            cell = ("@partial(jax.custom_vjp, nondiff_argnums=(0,))\ndef f(n, x):\n    return x ** n\n\n"
                    "def f_fwd(n, x):\n    return x ** n, x\n\n"
                    "def f_bwd(n, x, g):\n    return (None, g * n * x ** (n - 1))\n\n"
                    f"f.defvjp(f_fwd, f_bwd)\nd = jax.grad(lambda v: jnp.sum(f({n}, v) * {k}))(jnp.asarray(xs))\n")
            want = k * n * xs.astype(np.float64) ** (n - 1)
        fixed = cells.fixed(cell, "custom-vjp-bwd-tuple", data={"xs": xs})
        close(cells.run(fixed, data={"xs": xs})["d"], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_custom_vjp_fwd_pair_groups_residuals(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        xs = rng.randn(rng.randint(1, 5)).astype(np.float32)
        names = ["s", "c", "e"][: rng.randint(2, 4)]
        saved = {"s": "jnp.sin(x)", "c": "jnp.cos(x)", "e": "jnp.exp(x)"}
        value = {"s": np.sin, "c": np.cos, "e": np.exp}  # what each saved residual holds
        weights = {n: round(float(rng.uniform(-2, 2)), 2) for n in names}
        used = " + ".join(f"{weights[n]} * {n}" for n in names)
        cell = ("@jax.custom_vjp\ndef f(x):\n    return x * 1.0\n\n"
                "def f_fwd(x):\n    return x * 1.0, " + ", ".join(saved[n] for n in names) + "\n\n"
                f"def f_bwd(res, g):\n    {', '.join(names)} = res\n    return (g * ({used}),)\n\n"
                "f.defvjp(f_fwd, f_bwd)\nd = jax.grad(lambda v: jnp.sum(f(v)))(jnp.asarray(xs))\n")
        fixed = cells.fixed(cell, "custom-vjp-fwd-pair", data={"xs": xs})
        want = sum(weights[n] * value[n](xs.astype(np.float64)) for n in names)  # bwd's own formula
        close(cells.run(fixed, data={"xs": xs})["d"], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_grad_argnums_positional_same_gradient(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        n = rng.randint(2, 5)
        X = rng.randn(4, n).astype(np.float32)
        y = rng.randn(4).astype(np.float32)
        w = rng.randn(n).astype(np.float32)
        b = round(float(rng.randn()), 2)
        three = rng.rand() < 0.5
        if three:
            loss = "def loss(x, w, b):\n    return jnp.mean((x @ w + b - y) ** 2)\n\n"
            argnums = rng.choice(["1", "(1, 2)", "2"])
            kw = ["w=w", f"b={b}"]
            if rng.rand() < 0.5:
                kw.reverse()
            call = f"gw = jax.grad(loss, argnums={argnums})(X, {', '.join(kw)})\n"
        else:
            loss = "def loss(x, w):\n    return jnp.mean((x @ w - y) ** 2)\n\n"
            argnums, call = "1", "gw = jax.grad(loss, argnums=1)(X, w=w)\n"
        data = {"X": X, "y": y, "w": w}
        fixed = cells.fixed(loss + call, "grad-argnums-positional", data=data)
        got = cells.run(fixed, data=data)["gw"]
        Xd = X.astype(np.float64)
        r = Xd @ w + (b if three else 0.0) - y
        gw, gb = 2 * Xd.T @ r / 4, 2 * r.mean()
        want = {"1": gw, "2": gb, "(1, 2)": (gw, gb)}[argnums]
        for g_, w_ in zip(_leaves(got), _leaves(want), strict=True):
            close(g_, w_, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------------- ecosystem

OPTAX = SETUP + "import optax\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_optax_pass_params_same_updates_as_the_formula(cells, seed):
    rng = np.random.RandomState(seed)
    n, steps = rng.randint(1, 5), rng.randint(1, 4)
    lr, wd = round(float(rng.uniform(0.01, 0.5)), 3), round(float(rng.uniform(0.01, 0.5)), 3)
    p0, target = rng.randn(n).astype(np.float32), rng.randn(n).astype(np.float32)
    adamw = rng.rand() < 0.5
    tx = f"optax.adamw({lr}, weight_decay={wd})" if adamw else \
        f"optax.chain(optax.add_decayed_weights({wd}), optax.sgd({lr}))"
    loss = "def loss(p):\n    return jnp.sum((p - target) ** 2)\n\n"
    if rng.rand() < 0.5:
        cell = (f"{loss}tx = {tx}\nparams = jnp.asarray(p0)\nstate = tx.init(params)\nfor _ in range({steps}):\n"
                "    grads = jax.grad(loss)(params)\n    updates, state = tx.update(grads, state)\n"
                "    params = optax.apply_updates(params, updates)\n")
    else:
        cell = (f"{loss}tx = {tx}\n\n@jax.jit\ndef step(params, state):\n    grads = jax.grad(loss)(params)\n"
                "    updates, state = tx.update(grads, state)\n    return optax.apply_updates(params, updates), state\n\n"
                f"params = jnp.asarray(p0)\nstate = tx.init(params)\nfor _ in range({steps}):\n"
                "    params, state = step(params, state)\n")
    data = {"p0": p0, "target": target}
    fixed = cells.fixed(cell, "optax-pass-params", setup=OPTAX, data=data)
    got = cells.run(fixed, setup=OPTAX, data=data)["params"]
    p, m, v = p0.astype(np.float64), np.zeros(n), np.zeros(n)
    for t in range(1, steps + 1):  # AdamW (Loshchilov & Hutter) / SGD with decoupled weight decay
        g = 2 * (p - target)
        if adamw:
            m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
            p = p - lr * ((m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8) + wd * p)
        else:
            p = p - lr * (g + wd * p)
    close(got, p, rtol=1e-4, atol=1e-5)


def test_optax_params_from_elsewhere_is_review(cells):
    # the update is for `p`, the loop's parameters; `params` (what init saw) is stale
    cells.not_safe("tx = optax.adamw(0.1, weight_decay=0.1)\nparams = jnp.ones(2)\nstate = tx.init(params)\np = params\n"
                   "for _ in range(2):\n    updates, state = tx.update(2 * p, state)\n"
                   "    p = optax.apply_updates(p, updates)\n", setup=OPTAX)


LINEN = SETUP + "import flax.linen as nn\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_flax_variables_dict_same_outputs(cells, seed):
    rng = np.random.RandomState(seed)
    for wrapped in (False, True):
        n_in, n_out, rows = rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 4)
        x = rng.randn(rows, n_in).astype(np.float32)
        init = f"model = nn.Dense({n_out})\nvariables = model.init(jax.random.key({seed}), jnp.ones((1, {n_in})))\n"
        if wrapped:  # an extra {'params': ...} around what init returned
            cell, rule = init + "y = model.apply({'params': variables}, jnp.asarray(x))\n", "flax-unwrap-variables"
        else:  # the params collection without its {'params': ...}
            cell = init + "params = variables['params']\ny = model.apply(params, jnp.asarray(x))\n"
            rule = "flax-wrap-params"
        fixed = cells.fixed(cell, rule, setup=LINEN, data={"x": x})
        ns = cells.run(fixed, setup=LINEN, data={"x": x})
        k, b = (np.asarray(ns["variables"]["params"][name]) for name in ("kernel", "bias"))
        close(ns["y"], x @ k + b)


NNX = SETUP + "import optax\nfrom flax import nnx\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_nnx_optimizer_same_sgd_step(cells, seed):
    rng = np.random.RandomState(seed)
    for rule in ("nnx-optimizer-update-model", "nnx-optimizer-wrt"):
        n_in, n_out, rows = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
        lr = round(float(rng.uniform(0.05, 1.0)), 2)
        x = rng.randn(rows, n_in).astype(np.float32)
        wrt = ", wrt=nnx.Param" if rule != "nnx-optimizer-wrt" else ""
        update = "optimizer.update(grads)" if rule != "nnx-optimizer-wrt" else "optimizer.update(model, grads)"
        head = (f"model = nnx.Linear({n_in}, {n_out}, rngs=nnx.Rngs({seed}))\n"
                f"optimizer = nnx.Optimizer(model, optax.sgd({lr}){wrt})\n"
                "k0, b0 = np.asarray(model.kernel[...]).copy(), np.asarray(model.bias[...]).copy()\n")
        if rng.rand() < 0.5 or rule == "nnx-optimizer-wrt":
            cell = head + f"grads = nnx.grad(lambda m: jnp.sum(m(jnp.asarray(x))))(model)\n{update}\n"
        else:
            cell = head + ("\ndef train_step(model, optimizer, x):\n"
                           "    grads = nnx.grad(lambda m: jnp.sum(m(x)))(model)\n"
                           f"    {update}\n\ntrain_step(model, optimizer, jnp.asarray(x))\n")
        fixed = cells.fixed(cell, rule, setup=NNX, data={"x": x})
        ns = cells.run(fixed, setup=NNX, data={"x": x})
        # d/dW sum(x @ W + b) = x.T @ ones, d/db = rows
        close(ns["model"].kernel[...], ns["k0"] - lr * x.sum(0)[:, None] * np.ones(n_out), rtol=1e-5)
        close(ns["model"].bias[...], ns["b0"] - lr * rows, rtol=1e-5)


# ---------------------------------------------------------------------------------------------- static shapes


@pytest.mark.parametrize("seed", SEEDS)
def test_boolean_mask_update_equals_numpy_masked_store(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(3):
        shape = (rng.randint(2, 6),) if rng.rand() < 0.5 else (rng.randint(2, 4), rng.randint(2, 4))
        x, y = rng.randn(*shape).astype(np.float32), rng.randn(*shape).astype(np.float32)
        t = round(float(rng.randn() * 0.5), 2)
        op = rng.choice(["set", "add", "multiply"])
        if rng.rand() < 0.5:
            v = num(rng)
            update, np_update = f"x.at[x > {t}].{op}({v})", {"set": "x[m] = {v}", "add": "x[m] += {v}",
                                                              "multiply": "x[m] *= {v}"}[op].format(v=v)
        else:
            update = f"x.at[x > {t}].{op}(y[x > {t}])"
            np_update = {"set": "x[m] = y[m]", "add": "x[m] += y[m]", "multiply": "x[m] *= y[m]"}[op]
        cell = f"@jax.jit\ndef f(x, y):\n    return {update}\n\nout = f(jnp.asarray(x0), jnp.asarray(y0))\n"
        data = {"x0": x, "y0": y}
        fixed = cells.fixed(cell, "boolean-mask", data=data)
        want = x.copy()
        ns = {"x": want, "y": y, "m": x > t}
        exec(np_update, ns)
        close(cells.run(fixed, data=data)["out"], want)


def test_boolean_mask_other_dtype_is_review(cells):
    # .at[] casts y to bfloat16, jnp.where would promote to float32: not the same array
    cells.not_safe("@jax.jit\ndef f(x, y):\n    return x.at[x > 0].set(y[x > 0])\n\n"
                   "out = f(jnp.ones(3, jnp.bfloat16), jnp.ones(3, jnp.float32))\n")


_SHAPE_BODIES = [  # (body using n and k, NumPy twin)
    ("jnp.zeros(n) + x.sum()", "np.zeros(n) + x.sum()"),
    ("jnp.arange(n) * x[0]", "np.arange(n) * x[0]"),
    ("x[:n] * 2", "x[:n] * 2"),
    ("jnp.ones((n, k)) * x.mean()", "np.ones((n, k)) * x.mean()"),
    ("jnp.full((n,), x[1])", "np.full((n,), x[1])"),
    ("jnp.sum(x.reshape(n, -1), axis=1)", "np.sum(x.reshape(n, -1), axis=1)"),
]


@pytest.mark.parametrize("seed", SEEDS)
def test_static_argnames_equals_the_unjitted_function(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        picks = rng.choice(len(_SHAPE_BODIES), size=rng.randint(1, 3), replace=False)
        n, k = int(rng.randint(1, 4)), int(rng.randint(1, 4))
        x = rng.randn(n * k * 2).astype(np.float32)
        jbody = " + ".join(f"jnp.sum({_SHAPE_BODIES[i][0]})" for i in picks)
        nbody = " + ".join(f"np.sum({_SHAPE_BODIES[i][1]})" for i in picks)
        call = f"f(jnp.asarray(x0), {n}, {k})" if rng.rand() < 0.5 else f"f(jnp.asarray(x0), n={n}, k={k})"
        cell = f"@jax.jit\ndef f(x, n, k):\n    return {jbody}\n\nout = {call}\n"
        fixed = cells.fixed(cell, "static-argnames", data={"x0": x})
        ns: dict = {"np": np}
        exec(f"def f(x, n, k):\n    return {nbody}\n", ns)
        close(cells.run(fixed, data={"x0": x})["out"], ns["f"](x, n, k), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("seed", SEEDS)
def test_static_argnames_typo_equals_the_unjitted_function(cells, seed):
    rng = np.random.RandomState(seed)
    name = ["size", "length", "count", "num_rows"][seed % 4]
    typo = {"size": "sise", "length": "lenght", "count": "coutn", "num_rows": "num_row"}[name]
    n = int(rng.randint(1, 6))
    x = rng.randn(8).astype(np.float32)
    cell = (f"@partial(jax.jit, static_argnames=('{typo}',))\ndef f(x, {name}):\n"
            f"    return jnp.zeros({name}) + x[:{name}].sum()\n\nout = f(jnp.asarray(x0), {n})\n")
    fixed = cells.fixed(cell, "static-argnames-typo", data={"x0": x})
    close(cells.run(fixed, data={"x0": x})["out"], np.zeros(n) + x[:n].sum())


_TUPLE_USES = [  # (jitted body reading a static sequence `s`, NumPy twin)
    ("x.reshape(s) * 2", lambda x, s: x.reshape(s) * 2, lambda rng, x: [2, x.size // 2]),
    ("jnp.transpose(x.reshape(2, -1), s)", lambda x, s: np.transpose(x.reshape(2, -1), s), lambda rng, x: [1, 0]),
    ("jnp.zeros(s) + x[0]", lambda x, s: np.zeros(s) + x[0], lambda rng, x: [int(rng.randint(1, 4)), 2]),
    ("sum(x[i] for i in s)", lambda x, s: sum(x[i] for i in s),
     lambda rng, x: [int(i) for i in rng.randint(0, x.size, size=3)]),
]


@pytest.mark.parametrize("seed", SEEDS)
def test_static_list_as_tuple_equals_the_unjitted_function(cells, seed):
    rng = np.random.RandomState(seed)
    for i in rng.permutation(len(_TUPLE_USES))[:3]:
        body, ref, make = _TUPLE_USES[i]
        x = rng.randn(2 * int(rng.randint(1, 4))).astype(np.float32)
        s = make(rng, x)
        cell = (f"@partial(jax.jit, static_argnames=('s',))\ndef f(x, s):\n    return {body}\n\n"
                f"out = f(jnp.asarray(x0), s={s})\n")
        fixed = cells.fixed(cell, "static-arg-hashable", data={"x0": x})
        close(cells.run(fixed, data={"x0": x})["out"], ref(x, s))


def test_static_list_handed_to_other_code_is_review(cells):
    cells.not_safe("@partial(jax.jit, static_argnames=('s',))\ndef f(x, s):\n    return x * len('{}'.format(s))\n\n"
                   "out = f(jnp.ones(2), s=[1, 2])\n")


def test_dynamic_slice_is_review(cells):
    # past the end, x[i:i + 3] is shorter and dynamic_slice_in_dim is moved back: not the same values
    rw = cells.not_safe("@jax.jit\ndef window(x, i):\n    return x[i:i + 3]\n\nout = window(jnp.arange(5.0), 1)\n")
    assert rw is not None and rw["rule"] == "dynamic-slice"


# ---------------------------------------------------------------------------------------------- transforms


def _per_example(fn, batched: list, shared: list, size: int) -> np.ndarray:
    """What vmap means: the function once per example, the batched arguments sliced, the shared ones whole."""
    return np.stack([fn(*[b[i] for b in batched], *shared) for i in range(size)])


@pytest.mark.parametrize("seed", SEEDS)
def test_vmap_in_axes_keyword_passed_positionally(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        b, d = rng.randint(2, 5), rng.randint(1, 4)
        xs, w = rng.randn(b, d).astype(np.float32), rng.randn(d).astype(np.float32)
        c = round(float(rng.randn()), 2)
        three = rng.rand() < 0.5
        if three:
            fn = "def predict(x, w, c):\n    return jnp.tanh(x @ w) + c\n\n"
            kws = ["w=w", f"c={c}"]
            if rng.rand() < 0.5:
                kws.reverse()
            call = f"preds = jax.vmap(predict, in_axes=(0, None, None))(xs, {', '.join(kws)})\n"
            want = _per_example(lambda x, w_, c_: np.tanh(x @ w_) + c_, [xs], [w, c], b)
        else:
            fn = "def predict(x, w):\n    return jnp.tanh(x @ w)\n\n"
            call = "preds = jax.vmap(predict, in_axes=(0, None))(xs, w=w)\n"
            want = _per_example(lambda x, w_: np.tanh(x @ w_), [xs], [w], b)
        data = {"xs": xs, "w": w}
        fixed = cells.fixed(fn + call, "vmap-in-axes", data=data)
        close(cells.run(fixed, data=data)["preds"], want)


def test_vmap_in_axes_reordered_calls_are_review(cells):
    cells.not_safe("def f(x, a, b):\n    return x * a + b\n\ndef one():\n    return 1.0\n\n"
                   "out = jax.vmap(f, in_axes=(0, None, None))(jnp.ones(3), b=one(), a=one())\n")


@pytest.mark.parametrize("seed", SEEDS)
def test_vmap_in_axes_single_tuple_and_container_type(cells, seed):
    rng = np.random.RandomState(seed)
    b, d = rng.randint(2, 5), rng.randint(1, 4)
    feats, tmpl = rng.randn(b, d).astype(np.float32), rng.randn(d).astype(np.float32)
    bias = rng.randn(d).astype(np.float32)
    data = {"feats": feats, "tmpl": tmpl, "bias": bias}
    # the entries of one tuple argument written as if they were arguments
    cell = ("def score(inputs):\n    f, t = inputs\n    return jnp.dot(f, t)\n\n"
            "scores = jax.vmap(score, in_axes=(0, None))((feats, tmpl))\n")
    fixed = cells.fixed(cell, "vmap-in-axes", data=data)
    close(cells.run(fixed, data=data)["scores"], feats @ tmpl)
    # a list entry for a tuple argument
    mats = np.eye(d, dtype=np.float32) * float(rng.uniform(0.5, 2))
    data["mats"] = mats
    cell = ("def layer(params, x):\n    W, c = params\n    return x @ W + c\n\n"
            "ys = jax.vmap(layer, in_axes=([None, None], 0))((mats, bias), feats)\n")
    fixed = cells.fixed(cell, "vmap-in-axes", data=data)
    close(cells.run(fixed, data=data)["ys"], feats @ mats + bias)


@pytest.mark.parametrize("seed", SEEDS)
def test_vmap_in_axes_uniform_entry_for_another_container(cells, seed):
    """A tuple or list of one axis written for a dict argument: every leaf gets that axis, as vmap means it."""
    rng = np.random.RandomState(seed)
    b, d = rng.randint(2, 5), rng.randint(1, 4)
    xs, w, c = (rng.randn(b, d).astype(np.float32), rng.randn(d).astype(np.float32),
                rng.randn(d).astype(np.float32))
    data = {"xs": xs, "w": w, "c": c}
    entry = "(None, None)" if rng.rand() < 0.5 else "[None, None]"
    cell = ('params = {"w": jnp.asarray(w), "c": jnp.asarray(c)}\n\n'
            'def layer(p, x):\n    return jnp.tanh(x * p["w"]) + p["c"]\n\n'
            f"ys = jax.vmap(layer, in_axes=({entry}, 0))(params, xs)\n")
    fixed = cells.fixed(cell, "vmap-in-axes", data=data)
    close(cells.run(fixed, data=data)["ys"], _per_example(lambda x, w_, c_: np.tanh(x * w_) + c_, [xs], [w, c], b))
    # every leaf mapped: one ensemble member per example
    ws, cs = rng.randn(b, d).astype(np.float32), rng.randn(b, d).astype(np.float32)
    data = {"xs": xs, "ws": ws, "cs": cs}
    cell = ('ensemble = {"w": jnp.asarray(ws), "c": jnp.asarray(cs)}\n\n'
            'def layer(p, x):\n    return jnp.tanh(x * p["w"]) + p["c"]\n\n'
            "ys = jax.vmap(layer, in_axes=((0, 0), 0))(ensemble, xs)\n")
    fixed = cells.fixed(cell, "vmap-in-axes", data=data)
    close(cells.run(fixed, data=data)["ys"], np.tanh(xs * ws) + cs)


def test_vmap_in_axes_uniform_entry_of_another_count_is_review(cells):
    cells.not_safe('p = {"w": jnp.ones(3), "b": jnp.zeros(3), "s": jnp.ones(())}\n\n'
                   'def f(p, x):\n    return x * p["w"] + p["b"] * p["s"]\n\n'
                   "out = jax.vmap(f, in_axes=((None, None), 0))(p, jnp.ones((4, 3)))\n")


@pytest.mark.parametrize("seed", SEEDS)
def test_branch_dtype_literal_same_values_as_python_if(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(3):
        lit = int(rng.randint(-3, 4))
        scale = num(rng)
        x = float(rng.choice([-1, 1]) * rng.uniform(0.1, 3))
        dtype = rng.choice(["float32", "float16"])
        if rng.rand() < 0.5:
            cell = (f"@jax.jit\ndef f(x):\n    return lax.cond(x > 0, lambda v: v * {scale}, lambda v: {lit}, x)\n\n"
                    f"out = f(jnp.{dtype}({x}))\n")
            want = x * float(scale) if x > 0 else lit
        else:
            i = int(rng.randint(0, 3))
            cell = (f"@jax.jit\ndef f(i, x):\n    return lax.switch(i, [lambda v: v * {scale}, lambda v: {lit}, "
                    f"lambda v: v - 1.0], x)\n\nout = f({i}, jnp.{dtype}({x}))\n")
            want = [x * float(scale), lit, x - 1.0][i]
        fixed = cells.fixed(cell, "branch-dtype")
        got = cells.run(fixed)["out"]
        assert str(got.dtype) == dtype
        close(got, np.asarray(want, dtype), rtol=2e-3, atol=2e-3)


def test_branch_dtype_literal_the_dtype_cannot_hold_is_not_safe(cells):
    cells.not_safe("@jax.jit\ndef f(x):\n    return lax.cond(x > 0, lambda v: v, lambda v: 100000, x)\n\n"
                   "out = f(jnp.float16(1.0))\n")


@pytest.mark.parametrize("seed", SEEDS)
def test_carry_container_same_state_as_a_python_loop(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        n, a0, b0 = int(rng.randint(1, 7)), num(rng), num(rng)
        k = num(rng, 0.5, 1.5)
        if rng.rand() < 0.5:
            cell = (f"out = lax.fori_loop(0, {n}, lambda i, s: [s[0] + i * {k}, s[1] * {k}], "
                    f"(jnp.float32({a0}), jnp.float32({b0})))\n")
        else:
            cell = (f"def body(i, s):\n    a, b = s\n    return [a + i * {k}, b * {k}]\n\n"
                    f"out = lax.fori_loop(0, {n}, body, (jnp.float32({a0}), jnp.float32({b0})))\n")
        fixed = cells.fixed(cell, "carry-container")
        a, b = float(a0), float(b0)
        for i in range(n):
            a, b = a + i * float(k), b * float(k)
        got = cells.run(fixed)["out"]
        assert isinstance(got, tuple)
        close(got[0], a, rtol=1e-5)
        close(got[1], b, rtol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_fori_float_bound_same_loop(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        lo, hi = int(rng.randint(0, 3)), int(rng.randint(3, 8))
        k = num(rng, 0.5, 1.5)
        lower, upper = (f"{lo}.0", str(hi)) if rng.rand() < 0.5 else (str(lo), f"{hi}.0")
        cell = f"out = lax.fori_loop({lower}, {upper}, lambda i, s: s * {k} + i, jnp.float32(1.0))\n"
        fixed = cells.fixed(cell, "fori-bounds-int")
        s = 1.0
        for i in range(lo, hi):
            s = s * float(k) + i
        close(cells.run(fixed)["out"], s, rtol=1e-5)


# ---------------------------------------------------------------------------------------------- control flow


@pytest.mark.parametrize("seed", SEEDS)
def test_traced_bool_ops_on_scalars_same_truth_values(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(3):
        lo, hi = sorted(round(float(v), 2) for v in rng.uniform(-1, 1, size=2))
        form = rng.choice(["and", "or", "not", "chain"])
        expr = {"and": f"(v > {lo}) and (v < {hi})", "or": f"(v < {lo}) or (v > {hi})",
                "not": f"not (v > {hi})", "chain": f"{lo} < v < {hi}"}[form]
        fn = f"def inside(v):\n    ok = {expr}\n    return jnp.where(ok, 1.0, 0.0)\n\n"
        vs = rng.uniform(-1.5, 1.5, size=rng.randint(2, 7)).astype(np.float32)
        how = rng.choice(["vmap", "jit"])
        call = ("out = jax.vmap(inside)(jnp.asarray(vs))\n" if how == "vmap" else
                "out = jnp.stack([jax.jit(inside)(v) for v in jnp.asarray(vs)])\n")
        fixed = cells.fixed(fn + call, "traced-bool-ops", data={"vs": vs})
        want = [1.0 if eval(expr, {"v": float(v)}) else 0.0 for v in vs]  # the condition on Python floats
        close(cells.run(fixed, data={"vs": vs})["out"], want)


def test_traced_bool_ops_with_an_array_operand_is_review(cells):
    # Python's `a and b` gives all of b when a is true: not element by element
    cells.not_safe("@jax.jit\ndef f(x, mask):\n    return jnp.where((x.sum() > 0) and (mask > 0), 1.0, 0.0)\n\n"
                   "out = f(jnp.ones(3), jnp.array([1.0, -1.0, 1.0]))\n")


# ---------------------------------------------------------------------------------------------- pytrees


@pytest.mark.parametrize("seed", SEEDS)
def test_tree_map_container_conversion_same_leaves(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(2):
        k = rng.randint(2, 5)
        params = tuple(rng.randn(rng.randint(1, 4)).astype(np.float32) for _ in range(k))
        raw = tuple(rng.randn(p.size).astype(np.float32) for p in params)
        lr = num(rng, 0.05, 1.0)
        cell = ("params = tuple(jnp.asarray(p) for p in params_np)\n"
                "grads = [jnp.asarray(g) * 0.5 for g in raw_np]\n"
                f"params = jax.tree.map(lambda p, g: p - {lr} * g, params, grads)\n")
        data = {"params_np": params, "raw_np": raw}
        fixed = cells.fixed(cell, "tree-structure", data=data)
        got = cells.run(fixed, data=data)["params"]
        assert isinstance(got, tuple) and len(got) == k
        for g_, p, r in zip(got, params, raw, strict=True):
            close(g_, p - float(lr) * r * 0.5)


# ---------------------------------------------------------------------------------------------- static-arithmetic

_ARITH = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
          "floor_divide": lambda a, b: a // b, "maximum": max, "minimum": min, "mod": lambda a, b: a % b}


def _arith_program(rng: np.random.RandomState) -> tuple[str, tuple[int, int], list[int]]:
    """(a jitted cell whose sizes come from jnp arithmetic on shapes, x's shape, the sizes in Python)."""
    shape = (int(rng.randint(2, 6)), int(rng.randint(2, 6)))
    operands = {"x.shape[0]": shape[0], "x.shape[1]": shape[1], "x.size": shape[0] * shape[1], "x.ndim": 2}
    lines, sizes = [], []
    for j in range(int(rng.randint(1, 3))):  # one or two sizes, the second maybe from the first
        while True:
            op = str(rng.choice(sorted(_ARITH)))
            pool = {**operands, **{f"n{k}": sizes[k] for k in range(j)}}
            a = str(rng.choice(sorted(pool)))
            b_lit = int(rng.randint(1, 4))
            b, bv = (str(b_lit), b_lit) if rng.rand() < 0.6 else (lambda k: (k, pool[k]))(str(rng.choice(sorted(pool))))
            v = _ARITH[op](pool[a], bv)
            if 0 < v <= 64:
                break
        lines.append(f"n{j} = jnp.{op}({a}, {b})")
        sizes.append(v)
    uses = " + ".join(f"jnp.arange(n{j}).sum() + jnp.zeros((n{j}, 2)).sum()" for j in range(len(sizes)))
    body = "\n".join(lines)
    cell = f"@jax.jit\ndef f(x):\n{textwrap.indent(body, '    ')}\n    return x.sum() + {uses}\n\nout = f(x)\n"
    return cell, shape, sizes


@pytest.mark.parametrize("seed", SEEDS)
def test_static_arithmetic_same_sizes_as_python(cells, seed):
    """jnp arithmetic on shapes -> Python arithmetic: the same sizes, so the same result as NumPy."""
    rng = np.random.RandomState(seed)
    for _ in range(3):
        cell, shape, sizes = _arith_program(rng)
        x = rng.randn(*shape).astype(np.float32)
        fixed = cells.fixed(cell, "static-arithmetic", data={"x": x})
        want = float(x.sum()) + sum(n * (n - 1) / 2 for n in sizes)
        close(cells.run(fixed, data={"x": x})["out"], want, rtol=1e-5, atol=1e-4)
