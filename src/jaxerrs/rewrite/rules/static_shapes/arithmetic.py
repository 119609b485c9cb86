"""``static-arithmetic``: a size computed with ``jnp`` from values that are static anyway -> Python arithmetic.

``n = jnp.add(x.size, 1)`` under ``jit`` is a traced array although ``x.size`` and ``1`` are known while
tracing; used as a shape (``jnp.zeros(n)``) it fails. The same computation in Python (``x.size + 1``)
gives the same number as a Python int, which a shape accepts. Offered only when every operand is static
(literals, ``.shape``/``.size``/``.ndim``, ``len()``, arithmetic of those, names bound once to them, module
integers) and every name the failing call reads for its sizes is static once the edit is made.
"""

from __future__ import annotations

import builtins
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import name_of
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.static_shapes.common import _body_assignments, _jnp_name, _within
from jaxerrs.rewrite.values import MISSING, lookup

# jnp function -> Python spelling ({0}, {1}: the operands); each gives the same number on Python ints
_BINARY = {"add": "{0} + {1}", "subtract": "{0} - {1}", "multiply": "{0} * {1}", "floor_divide": "{0} // {1}",
           "maximum": "max({0}, {1})", "minimum": "min({0}, {1})", "mod": "{0} % {1}", "remainder": "{0} % {1}"}
_UNARY = {"int32": "int({0})", "int64": "int({0})", "abs": "abs({0})", "negative": "-{0}", "absolute": "abs({0})"}
_STATIC_ATTRS = ("shape", "size", "ndim")


def _single_binding(fn: cst.FunctionDef | None, name: str) -> cst.BaseExpression | None:
    if fn is None:
        return None
    got = _body_assignments(fn, name)
    if len(got) != 1 or not isinstance(got[0], cst.Assign) or len(got[0].targets) != 1 \
            or not isinstance(got[0].targets[0].target, cst.Name):
        return None
    return got[0].value


def _static(ctx: Context, e: cst.BaseExpression, fn: cst.FunctionDef | None, fixed: set[str], depth: int = 0) -> bool:
    """Whether ``e`` is known while tracing: a Python number however the function is called."""
    if depth > 6:
        return False
    if isinstance(e, (cst.Integer, cst.Float)):
        return True
    if isinstance(e, cst.Attribute):
        return e.attr.value in _STATIC_ATTRS
    if isinstance(e, cst.Subscript):
        return isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape" and all(
            isinstance(s.slice, cst.Index) and _static(ctx, s.slice.value, fn, fixed, depth + 1) for s in e.slice)
    if isinstance(e, cst.BinaryOperation):
        return _static(ctx, e.left, fn, fixed, depth + 1) and _static(ctx, e.right, fn, fixed, depth + 1)
    if isinstance(e, cst.UnaryOperation):
        return _static(ctx, e.expression, fn, fixed, depth + 1)
    if isinstance(e, (cst.Tuple, cst.List)):
        return all(isinstance(el, cst.Element) and _static(ctx, el.value, fn, fixed, depth + 1) for el in e.elements)
    if isinstance(e, cst.Call) and name_of(e.func) in ("len", "int", "max", "min", "abs") and lookup(
            ctx, name_of(e.func)) in (MISSING, getattr(builtins, name_of(e.func))):
        return all(a.keyword is None and (name_of(e.func) == "len" or _static(ctx, a.value, fn, fixed, depth + 1))
                   for a in e.args)
    if isinstance(e, cst.Name):
        if e.value in fixed:
            return True
        bound = _single_binding(fn, e.value)
        if bound is not None:
            return _static(ctx, bound, fn, fixed, depth + 1)
        if fn is not None and e.value in {p.name.value for p in fn.params.params}:
            return False
        v = (ctx.namespace or {}).get(e.value, MISSING)
        return type(v) is int
    return False


def _python_form(ctx: Context, call: cst.Call, fn: cst.FunctionDef | None, fixed: set[str]) -> str | None:
    """The Python spelling of a ``jnp`` call on static operands, or None."""
    op = _jnp_name(ctx, call.func)
    args = [a.value for a in call.args]
    if any(a.keyword is not None or a.star for a in call.args):
        return None
    form = _BINARY.get(op) if len(args) == 2 else _UNARY.get(op) if len(args) == 1 else None
    if form is None or not all(_static(ctx, a, fn, fixed) for a in args):
        return None
    builtin = form.split("(", 1)[0]
    if builtin in ("max", "min", "abs", "int") and lookup(ctx, builtin) not in (MISSING, getattr(builtins, builtin)):
        return None  # the name is the user's own here
    wrap = (cst.BinaryOperation, cst.UnaryOperation, cst.IfExp, cst.Lambda)
    return form.format(*(f"({ctx.code(a)})" if isinstance(a, wrap) and "(" not in form else ctx.code(a)
                         for a in args))


@rule("static-arithmetic")
def static_arithmetic(ctx: Context) -> Edit | None:
    """``jnp`` arithmetic on static values that feeds a shape -> the same arithmetic in Python (see module).

    Safe: on Python ints, ``a + b``, ``a - b``, ``a * b``, ``a // b``, ``a % b``, ``max``, ``min``, ``abs``,
    ``-a``, ``int(a)`` give the numbers ``jnp.add``… give (sizes are far below int32 overflow), and the
    result is used where a number is read.
    """
    stmt = ctx.statement()
    if stmt is None:
        return None
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    calls = [c for c in ctx.nodes(cst.Call) if _within(ctx, c, stmt) and _jnp_name(ctx, c.func)]  # type: ignore[arg-type]
    pairs: list[tuple[cst.CSTNode, cst.BaseExpression]] = []
    fixed: set[str] = set()
    inline = [c for c in calls if _python_form(ctx, c, fn, fixed) is not None]
    for c in inline:
        pairs.append((c, cst.parse_expression(_python_form(ctx, c, fn, fixed) or "")))
    # every such binding of the function, also those feeding later shapes (one pass per link of a chain)
    binds = [a for a in ctx.nodes(cst.Assign) if fn is not None and _within(ctx, a, fn)
             and len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name)
             and isinstance(a.value, cst.Call) and _jnp_name(ctx, a.value.func)]  # type: ignore[attr-defined]
    changed = True
    while changed:
        changed = False
        for a in binds:
            name = a.targets[0].target.value  # type: ignore[attr-defined]
            if name in fixed or _single_binding(fn, name) is not a.value:  # type: ignore[attr-defined]
                continue
            form = _python_form(ctx, a.value, fn, fixed)  # type: ignore[attr-defined, arg-type]
            if form is not None:
                pairs.append((a.value, cst.parse_expression(form)))  # type: ignore[attr-defined]
                fixed.add(name)
                changed = True
    if not pairs:
        return None
    # every size the failing call reads must be static now (arrays passed as data are not sizes)
    for c in calls:
        if c in inline or any(_within(ctx, c, p) for p, _ in pairs):
            continue
        for a in c.args:
            if a.keyword is not None and a.keyword.value == "dtype":
                continue
            if not _static(ctx, a.value, fn, fixed) and not _is_data(ctx, a.value, fn, fixed):
                return None
    what = ", ".join(f"`{ctx.code(old)}`" for old, _ in pairs)
    return Edit(ctx.replace_many(pairs), "safe",
                f"{what} {'is' if len(pairs) == 1 else 'are'} computed in Python: the operands are known while "
                "tracing, so the size is a Python int, as a shape needs; the numbers are the same.")


def _names(e: cst.CSTNode) -> list[cst.Name]:
    """Names read in ``e`` (not attribute names)."""
    out: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

        def visit_Name(self, n: cst.Name) -> None:
            out.append(n)

    e.visit(_V())
    return out


def _is_data(ctx: Context, e: cst.BaseExpression, fn: cst.FunctionDef | None, fixed: set[str]) -> bool:
    """Whether an argument is array data rather than a size: a tuple of statics counts as a size, an
    expression with a name that is neither static nor a parameter is unknown (False)."""
    if isinstance(e, (cst.Tuple, cst.List)):
        return False  # a shape: it must be static
    if isinstance(e, cst.Call):
        return _jnp_name(ctx, e.func) != ""  # its own arguments are checked as a call of the line
    names = _names(e)
    params = {p.name.value for p in fn.params.params} if fn is not None else set()
    return bool(names) and all(n.value in params or _array_name(ctx, n.value) for n in names)


def _array_name(ctx: Context, name: str) -> bool:
    v: Any = lookup(ctx, name)
    return v is not MISSING and hasattr(v, "shape")
