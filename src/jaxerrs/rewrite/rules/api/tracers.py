"""NumPy functions called on tracers -> their ``jax.numpy`` twins."""

from __future__ import annotations

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.api.helpers import _expr, _lookup, _module_ref, _traced_reads
from jaxerrs.rewrite.values import MISSING, read_names

# ---------------------------------------------------------------------------------------------- NumPy on tracers

# NumPy functions whose jnp twin cannot run under jit with the same call (data-dependent output shapes)
_NP_EXCLUDE = {"unique", "nonzero", "argwhere", "flatnonzero", "extract", "compress", "setdiff1d", "union1d",
               "intersect1d", "setxor1d", "trim_zeros", "array_equal", "array_equiv"}


# NumPy functions whose jax.numpy twin is documented as the same function, with the same defaults, and
# computes the same values for every input (up to floating-point rounding): element-wise math, reductions,
# products, shape moves. Others (``take`` clamps out-of-range indices where NumPy raises, ``argsort``
# may order ties differently, ``linalg.pinv``'s cutoff, ``histogram``...) are ``review``.
_NP_SAME = {
    "abs", "absolute", "negative", "positive", "sign", "sqrt", "cbrt", "square", "reciprocal", "exp", "exp2",
    "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2",
    "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "hypot", "deg2rad", "rad2deg", "degrees",
    "radians", "floor", "ceil", "trunc", "rint", "clip", "maximum", "minimum", "fmax", "fmin", "add",
    "subtract", "multiply", "divide", "true_divide", "power", "float_power", "logaddexp", "logaddexp2",
    "isnan", "isinf", "isfinite", "signbit", "copysign", "heaviside", "where", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor",
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "std", "var",
    "cumsum", "cumprod", "nansum", "nanmean", "nanmax", "nanmin", "ptp", "count_nonzero", "average",
    "dot", "matmul", "vdot", "inner", "outer", "tensordot", "einsum", "trace", "kron", "cross", "linalg.norm",
    "array", "asarray", "zeros_like", "ones_like", "full_like", "reshape", "transpose", "swapaxes",
    "moveaxis", "expand_dims", "squeeze", "concatenate", "stack", "vstack", "hstack", "ravel", "flip", "roll",
    "tile", "broadcast_to", "diff", "sort", "tril", "triu", "diag", "diagonal", "round", "around", "mod",
    "remainder", "floor_divide", "fmod", "nan_to_num", "median", "linspace", "interp",
}


def _traced_names(ctx: Context, scope: cst.CSTNode) -> set[str]:
    """Names holding traced values in ``scope``: tracers among the failing frame's locals, and what they flow into."""
    import jax

    tainted: set[str] = set()
    if ctx.locals:
        for k, v in ctx.locals.items():
            try:
                leaves = jax.tree_util.tree_leaves(v)[:1000]
            except Exception:  # noqa: BLE001
                leaves = [v]
            if any(isinstance(x, jax.core.Tracer) for x in leaves):
                tainted.add(k)
    elif isinstance(scope, (cst.FunctionDef, cst.Lambda)):
        tainted = {p.name.value for p in scope.params.params}
    assigns: list[tuple[set[str], set[str]]] = []  # (targets, names read)

    class _V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            assigns.append(({x for t in n.targets for x in read_names(t.target)}, _traced_reads(n.value)))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            assigns.append((read_names(n.target), _traced_reads(n.value)))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            if n.value is not None:
                assigns.append((read_names(n.target), _traced_reads(n.value)))

        def visit_For(self, n: cst.For) -> None:
            assigns.append((read_names(n.target), _traced_reads(n.iter)))

        def visit_CompFor(self, n: cst.CompFor) -> None:
            assigns.append((read_names(n.target), _traced_reads(n.iter)))

        def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
            assigns.append((read_names(n.target), _traced_reads(n.value)))

    scope.visit(_V())
    grew = True
    while grew:
        grew = False
        for targets, reads in assigns:
            if reads & tainted and not targets <= tainted:
                tainted |= targets
                grew = True
    return tainted


# ``math`` functions (which convert their argument with ``float()``) -> the jnp function of the same math
_MATH_TWINS = {
    "sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log1p": "log1p", "log2": "log2", "log10": "log10",
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
    "atan2": "arctan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh", "fabs": "abs", "hypot": "hypot", "pow": "power", "degrees": "degrees",
    "radians": "radians", "copysign": "copysign", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
}


def _jax_twin(ctx: Context, full: str, call: cst.Call) -> str | None:
    """'jax.numpy.sin' for 'numpy.sin' (and 'math.sin'; 'jax.numpy.arcsin' for 'math.asin'),
    'jax.scipy.special.expit' for 'scipy.special.expit', when it exists."""
    if full.startswith("math."):
        rest = "log" if full == "math.log" and len(call.args) == 1 else _MATH_TWINS.get(full[len("math."):])
        if rest is None or any(a.keyword is not None or a.star for a in call.args):
            return None
        full = f"numpy.{rest}"
    if full.startswith("numpy."):
        rest = full[len("numpy."):]
        if rest.split(".")[0] in ("random", "testing", "ma", "char", "rec", "lib", "polynomial") or \
                rest in _NP_EXCLUDE or (rest == "where" and len(call.args) == 1):
            return None
        new = f"jax.numpy.{rest}"
    elif full.startswith("scipy."):
        new = f"jax.{full}"
    else:
        return None
    obj = _lookup(new)
    return new if obj is not MISSING and callable(obj) else None


@rule("numpy-to-jnp")
def numpy_to_jnp(ctx: Context) -> Edit | None:
    """NumPy (or SciPy) calls on traced values in the failing function become their ``jax.numpy`` twins.

    Why the same values: ``jnp.<f>`` implements NumPy's ``<f>`` with its signature and defaults, so on
    the values the tracer stands for it computes what NumPy computes on the concrete array (up to
    floating-point rounding; in JAX's dtypes). That is documented and exact for the functions in
    ``_NP_SAME``; a rewrite touching any other function (or SciPy) is ``review``. Every NumPy call on a
    traced value in the function is rewritten, or none (one without a twin blocks the rewrite).
    """
    for scope in ctx.at_line((cst.FunctionDef, cst.Lambda)):
        edit = _numpy_to_jnp_in(ctx, scope)
        if edit is not False:
            return edit  # type: ignore[return-value]
    return None


def _numpy_to_jnp_in(ctx: Context, scope: cst.CSTNode) -> Edit | None | bool:
    """The edit for one function (or lambda); False when no NumPy call of the failing line is in it."""
    tainted = _traced_names(ctx, scope)
    stmt = ctx.statement(cst.If, cst.While, cst.For, cst.With, cst.Return)
    lo, hi = ctx.span(stmt) if stmt is not None else (ctx.line or 0, ctx.line or 0)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    on_line = blocked = scipy = mathy = math_here = False
    done: list[str] = []
    other: list[str] = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if scope not in ctx.ancestors(call):
            continue
        full = full_name(ctx, call.func)
        if not full.startswith(("numpy.", "scipy.", "math.")):
            continue
        mathy = mathy or full.startswith("math.")
        reads = set().union(*[_traced_reads(a.value) for a in call.args]) if call.args else set()
        if not reads & tainted:
            continue
        here = lo <= ctx.span(call)[0] <= hi
        on_line = on_line or here
        math_here = math_here or here and full.startswith("math.")
        new = _jax_twin(ctx, full, call)
        if new is None:
            blocked = True  # no twin: a rewrite would only move the error
            continue
        if new.startswith("jax.numpy."):
            if new[len("jax.numpy."):] not in _NP_SAME:
                other.append(new[len("jax.numpy."):])
            jnp, stmt_ = _module_ref(ctx, "jax.numpy", "jnp")
            expr = f"{jnp}.{new[len('jax.numpy.'):]}"
        else:
            scipy = True
            mod = new.rsplit(".", 1)[0]
            jax_ref, stmt_ = _module_ref(ctx, "jax", "jax")
            expr = f"{jax_ref}{mod[len('jax'):]}.{new.rsplit('.', 1)[1]}"
            if not any(v == mod or v.startswith(mod + ".") for v in ctx.imports.values()):
                imports.append(f"import {mod}")
        imports.append(stmt_)
        pairs.append((call.func, _expr(expr)))
        done.append(f"`{ctx.code(call.func)}` -> `{expr}`")
    if not on_line or ctx.record_id == "concretization-python-scalar-conversion" and not math_here:
        return False  # a Python-number conversion is fixed here only when `math` made it on this line
    if blocked:
        return None
    fname = scope.name.value if isinstance(scope, cst.FunctionDef) else "the lambda"
    listed = ", ".join(dict.fromkeys(done))
    if scipy:
        return Edit(ctx.replace_many(pairs, imports), "review",
                    f"Traced values in `{fname}` go through JAX, not NumPy/SciPy: {listed}; check the jax.scipy "
                    "function supports the arguments you pass.")
    if mathy:
        return Edit(ctx.replace_many(pairs, imports), "review",
                    f"`math` (and NumPy) cannot compute on traced values in `{fname}`: {listed}; the results are "
                    "JAX arrays (float32 by default, not Python floats), and where `math` raises (`sqrt` of a "
                    "negative number) `jnp` gives nan: check nothing relies on either.")
    if other:
        return Edit(ctx.replace_many(pairs, imports), "review",
                    f"NumPy cannot compute on traced values in `{fname}`: {listed}; check that "
                    + ", ".join(f"`jnp.{o}`" for o in dict.fromkeys(other))
                    + " treats your arguments as NumPy does (defaults, out-of-range indices, ties).")
    return Edit(ctx.replace_many(pairs, imports), "safe",
                f"NumPy cannot compute on traced values in `{fname}`: {listed} (same functions in jax.numpy).")
