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


def _jax_twin(ctx: Context, full: str, call: cst.Call) -> str | None:
    """'jax.numpy.sin' for 'numpy.sin', 'jax.scipy.special.expit' for 'scipy.special.expit', when it exists."""
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
    """NumPy (or SciPy) calls on traced values in the failing function become their ``jax.numpy`` twins."""
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
    on_line = blocked = scipy = False
    done: list[str] = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if scope not in ctx.ancestors(call):
            continue
        full = full_name(ctx, call.func)
        if not full.startswith(("numpy.", "scipy.")):
            continue
        reads = set().union(*[_traced_reads(a.value) for a in call.args]) if call.args else set()
        if not reads & tainted:
            continue
        here = lo <= ctx.span(call)[0] <= hi
        on_line = on_line or here
        new = _jax_twin(ctx, full, call)
        if new is None:
            blocked = True  # no twin: a rewrite would only move the error
            continue
        if new.startswith("jax.numpy."):
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
    if not on_line:
        return False
    if blocked:
        return None
    fname = scope.name.value if isinstance(scope, cst.FunctionDef) else "the lambda"
    listed = ", ".join(dict.fromkeys(done))
    if scipy:
        return Edit(ctx.replace_many(pairs, imports), "review",
                    f"Traced values in `{fname}` go through JAX, not NumPy/SciPy: {listed}; check the jax.scipy "
                    "function supports the arguments you pass.")
    return Edit(ctx.replace_many(pairs, imports), "safe",
                f"NumPy cannot compute on traced values in `{fname}`: {listed} (same functions in jax.numpy).")
