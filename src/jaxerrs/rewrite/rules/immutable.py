"""``x[i] = v`` on a JAX array -> ``x = x.at[i].set(v)`` (and ``+=``, ``-=``, ``*=``, ``/=``, ``**=``)."""

from __future__ import annotations

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.rules import rule

_AUG = {cst.AddAssign: "add", cst.MultiplyAssign: "multiply", cst.DivideAssign: "divide",
        cst.PowerAssign: "power", cst.SubtractAssign: "add"}


def _at(target: cst.Subscript, method: str, value: cst.BaseExpression) -> cst.Call:
    """``<base>.at[<slice>].<method>(value)``."""
    at = cst.Subscript(value=cst.Attribute(value=target.value, attr=cst.Name("at")), slice=target.slice)
    return cst.Call(func=cst.Attribute(value=at, attr=cst.Name(method)), args=[cst.Arg(value)])


@rule("at-set")
def at_set(ctx: Context) -> Edit | None:
    """Item assignment on the failing line becomes a functional ``.at[...]`` update bound to the same name."""
    lines = ctx.at_line(cst.SimpleStatementLine)
    if not lines:
        return None
    stmt = lines[0]
    assert isinstance(stmt, cst.SimpleStatementLine)
    if len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign):
        if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Subscript):
            return None
        target = small.targets[0].target
        call = _at(target, "set", small.value)
    elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Subscript):
        method = _AUG.get(type(small.operator))
        if method is None:
            return None
        target = small.target
        value = small.value
        if isinstance(small.operator, cst.SubtractAssign):
            value = cst.UnaryOperation(cst.Minus(), _paren(value))
        call = _at(target, method, value)
    else:
        return None
    base = target.value
    if not isinstance(base, (cst.Name, cst.Attribute)):
        return None  # x[i][j] = v or f()[i] = v: the array to rebind is not a plain name
    new = cst.Assign(targets=[cst.AssignTarget(base)], value=call)
    return Edit(ctx.replace(small, new), "safe",
                f"`{ctx.code(base)}` is rebound to an updated copy: JAX arrays are never changed in place.")


def _paren(value: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Call, cst.Subscript)):
        return value
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
