"""Traced values in ternaries, ``and``/``or``/``not``, builtin ``min``/``max`` and ``assert``."""

from __future__ import annotations

import builtins
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.control_flow.common import (
    _BOTH_BRANCHES,
    _array_cond,
    _boolish,
    _call,
    _const_value,
    _edit,
    _expr,
    _flows_to_math,
    _header,
    _jnp,
    _scalar_pred,
    _traced,
)
from jaxerrs.rewrite.values import lookup_dotted

# ---------------------------------------------------------------------------------------------- expressions


@rule("traced-ternary")
def traced_ternary(ctx: Context) -> Edit | None:
    """``a if cond else b`` with a traced condition -> ``jnp.where(cond, a, b)``."""
    head = _header(ctx)
    if head is None or head[0] != "stmt":
        return None
    found = [n for n in ctx.nodes(cst.IfExp) if head[2] in ctx.ancestors(n)]
    outer = [n for n in found if not any(isinstance(a, cst.IfExp) for a in ctx.ancestors(n))]
    traced = [n for n in outer if _traced(ctx, n.test) is not False]  # type: ignore[attr-defined]
    if not traced:
        return None
    jnp, imp = _jnp(ctx)
    elementwise = not _scalar_pred(ctx)
    mapping: dict[cst.CSTNode, Any] = {}
    for n in traced:
        new = _ternary(n, jnp, elementwise)  # type: ignore[arg-type]
        if new is None:
            return None
        mapping[n] = new.with_changes(lpar=n.lpar, rpar=n.rpar)  # type: ignore[attr-defined]
    extra = " The condition is element-wise." if elementwise else ""
    return Edit(_edit(ctx, mapping, [imp]), "review", f"the conditional expression became `where`: {_BOTH_BRANCHES}."
                + extra)


def _ternary(n: cst.IfExp, jnp: str, elementwise: bool) -> cst.BaseExpression | None:
    cond = _array_cond(n.test, jnp)
    body: cst.BaseExpression | None = n.body
    orelse: cst.BaseExpression | None = n.orelse
    if isinstance(orelse, cst.IfExp):
        orelse = _ternary(orelse, jnp, elementwise)
    if cond is None or body is None or orelse is None or _const_value(body) or _const_value(orelse):
        return None
    return _call(f"{jnp}.where", cond, body, orelse)


@rule("traced-assert")
def traced_assert(ctx: Context) -> Edit | None:
    """``assert cond, msg`` on a traced value -> ``jax.debug.callback(lambda ok: np.testing.assert_(ok, msg), cond)``,
    for every such ``assert`` of the function the failing one is in.

    The check is kept, not dropped: the callback receives the computed condition and raises the same
    ``AssertionError`` with the same message when it is false (``np.testing.assert_`` is ``if not ok: raise``),
    once per value under ``vmap``, under ``grad`` and ``jit`` too. What differs (``review``): it fires when the
    computation runs rather than while it is traced, under ``jit`` wrapped in a JaxRuntimeError, and it also
    runs under ``python -O``. A message computed from traced values is not offered (it would be formatted in
    the callback, from a tracer).
    """
    head = _header(ctx)
    if head is None or head[0] != "stmt":
        return None
    failing = [s for s in head[1].body if isinstance(s, cst.Assert)]  # type: ignore[attr-defined]
    if len(failing) != 1 or _traced(ctx, failing[0].test) is False:
        return None
    fn = ctx.enclosing(failing[0], cst.FunctionDef)
    scope = [n for n in ctx.nodes(cst.Assert) if fn is not None and fn in ctx.ancestors(n)] if fn else failing
    targets = [n for n in scope if n is failing[0] or _traced(ctx, n.test) is not False]  # type: ignore[attr-defined]
    if any(n.msg is not None and _traced(ctx, n.msg) is not False for n in targets):  # type: ignore[attr-defined]
        return None
    jax_name, jax_imp = ctx.need("jax", "jax")
    np_name, np_imp = ctx.need("numpy", "np")
    mapping: dict[cst.CSTNode, Any] = {}
    for n in targets:
        test = n.test.with_changes(lpar=[], rpar=[])  # type: ignore[attr-defined]
        check = (f"{np_name}.testing.assert_" if n.msg is None  # type: ignore[attr-defined]
                 else f"lambda ok: {np_name}.testing.assert_(ok, {ctx.code(n.msg)})")  # type: ignore[attr-defined]
        call = _expr(f"{jax_name}.debug.callback({check}, {ctx.code(test)})")
        mapping[n] = cst.Expr(call)
    more = f" ({len(targets)} asserts of this function)" if len(targets) > 1 else ""
    return Edit(_edit(ctx, mapping, [jax_imp, np_imp]), "review",
                f"the `assert` on a traced value{more} now runs through `jax.debug.callback`: it checks the computed "
                "value (each one under vmap) and raises the same AssertionError, when the computation runs (under "
                "jit inside a JaxRuntimeError), and also under `python -O`.")


@rule("traced-bool-ops")
def traced_bool_ops(ctx: Context) -> Edit | None:
    """``a and b`` / ``a or b`` / ``not a`` / ``lo < x < hi`` on arrays -> ``jnp.logical_*`` (element-wise).

    ``safe`` only for scalar truth values: there ``logical_and(a, b)`` is the truth value of ``a and b``
    (both sides are truth values: ``_all_boolish``; evaluating the right side too changes nothing for a
    comparison), ``logical_not(a)`` that of ``not a``, and ``lo < x < hi`` reads ``x`` once as before (a
    name, never a call). Checked: the failing condition is a scalar (the message's shape is ``[]``) and
    every operand is one too (``_scalar``: its names' live values have shape ``()``, or it is a full
    reduction such as ``(x > 0).all()``). With an array operand Python's ``a and b`` gives ``b`` or ``a``
    whole, not element by element: ``review``.
    """
    head = _header(ctx)
    if head is None or head[0] != "stmt":
        return None
    stmt = head[1]
    assert isinstance(stmt, cst.SimpleStatementLine)
    if len(stmt.body) != 1 or not isinstance(stmt.body[0], (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return,
                                                            cst.Expr)):
        return None
    pat = m.BooleanOperation() | m.UnaryOperation(operator=m.Not()) | m.Comparison(comparisons=[m.AtLeastN(n=2)])
    found = [n for n in ctx.nodes(pat) if stmt in ctx.ancestors(n)]
    outer = [n for n in found if not any(a in found for a in ctx.ancestors(n))]
    if not outer or any(isinstance(a, (cst.IfExp, cst.Lambda)) for n in outer for a in ctx.ancestors(n)):
        return None
    jnp, imp = _jnp(ctx)
    mapping: dict[cst.CSTNode, Any] = {}
    for n in outer:
        if _traced(ctx, n) is False:
            continue
        if not _all_boolish(ctx, n):
            return None  # `x or default`: a value, not a truth value
        new = _array_cond(n, jnp)  # type: ignore[arg-type]
        if new is None:
            return None
        mapping[n] = new
    if not mapping:
        return None
    if _scalar_pred(ctx) and all(_scalar(ctx, n) for n in mapping):  # one truth value: the very same value
        return Edit(_edit(ctx, mapping, [imp]), "safe",
                    "`and`/`or`/`not` on traced truth values became `jnp.logical_*` (same result; both sides "
                    "are evaluated, which comparisons allow).")
    return Edit(_edit(ctx, mapping, [imp]), "review",
                "`and`/`or`/`not` became element-wise `jnp.logical_*`: check that you meant element by element, "
                "not `.all()`/`.any()`.")


_REDUCE = {"all", "any", "sum", "mean", "max", "min", "prod"}


def _scalar(ctx: Context, e: cst.CSTNode, depth: int = 0) -> bool:
    """Whether ``e`` provably computes one number: literals, names whose live values have shape ``()``,
    full reductions (``x.all()``, ``jnp.any(x)``), and operators on those."""
    if depth > 8:
        return False
    if isinstance(e, (cst.Integer, cst.Float)) or isinstance(e, cst.Name) and e.value in ("True", "False"):
        return True
    if isinstance(e, cst.Comparison):
        return _scalar(ctx, e.left, depth + 1) and all(_scalar(ctx, c.comparator, depth + 1) for c in e.comparisons)
    if isinstance(e, cst.BooleanOperation) or isinstance(e, cst.BinaryOperation):
        return _scalar(ctx, e.left, depth + 1) and _scalar(ctx, e.right, depth + 1)
    if isinstance(e, cst.UnaryOperation):
        return _scalar(ctx, e.expression, depth + 1)
    if isinstance(e, (cst.Name, cst.Attribute)):
        v = lookup_dotted(ctx, dotted_name(e))
        return isinstance(v, (bool, int, float)) or getattr(v, "shape", None) == ()
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value in _REDUCE:
        if not e.args:
            return True  # x.all(), (x > 0).any()
        mod = lookup_dotted(ctx, dotted_name(e.func.value))
        return getattr(mod, "__name__", "") in ("jax.numpy", "numpy") and len(e.args) == 1 and \
            e.args[0].keyword is None  # jnp.all(x)
    return False


def _all_boolish(ctx: Context, n: cst.CSTNode) -> bool:
    if isinstance(n, cst.BooleanOperation):
        return _all_boolish(ctx, n.left) and _all_boolish(ctx, n.right)
    if isinstance(n, cst.UnaryOperation) and isinstance(n.operator, cst.Not):
        return _boolish(ctx, n.expression) or _all_boolish(ctx, n.expression)
    return _boolish(ctx, n)  # type: ignore[arg-type]


@rule("traced-min-max")
def traced_min_max(ctx: Context) -> Edit | None:
    """Python ``min(a, b)``/``max(a, b)`` on traced values -> ``jnp.minimum``/``jnp.maximum``."""
    head = _header(ctx)
    if head is None or head[0] != "stmt":
        return None
    stmt = head[1]
    calls = [n for n in ctx.nodes(m.Call(func=m.Name("min") | m.Name("max"))) if stmt in ctx.ancestors(n)]
    if not calls:
        return None
    for name in ("min", "max"):
        if lookup_dotted(ctx, name) is not getattr(builtins, name):
            return None
    jnp, imp = _jnp(ctx)
    mapping: dict[cst.CSTNode, Any] = {}
    for c in calls:
        assert isinstance(c, cst.Call)
        if len(c.args) != 2 or any(a.keyword is not None or a.star for a in c.args) or not _flows_to_math(ctx, c):
            return None  # a size or a bound for Python (`range(min(n, k))`) must stay a Python number
        fn = "minimum" if c.func.value == "min" else "maximum"  # type: ignore[attr-defined]
        mapping[c] = lambda upd, fn=fn: upd.with_changes(func=_expr(f"{jnp}.{fn}"))
    return Edit(_edit(ctx, mapping, [imp]), "review",
                "Python `min`/`max` became element-wise `jnp.minimum`/`jnp.maximum` (they return an array; "
                "a NaN input gives NaN).")
