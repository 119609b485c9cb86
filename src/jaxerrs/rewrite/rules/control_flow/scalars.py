"""Traced values into Python: list indexes, ``int()``/``float()``, ``.item()``, ``.tolist()``."""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.control_flow.common import (
    _bare,
    _call,
    _dotted,
    _edit,
    _expr,
    _flows_to_math,
    _header,
    _is_array,
    _jnp,
    _lax,
    _paren,
    _traced,
)
from jaxerrs.rewrite.values import MISSING, lookup_dotted

# ---------------------------------------------------------------------------------------------- containers


@rule("traced-list-index")
def traced_list_index(ctx: Context) -> Edit | None:
    """``table[i]`` on a Python list/tuple with a traced ``i`` -> ``jnp.asarray(table)[i]``; ``fns[i](x)`` -> ``lax.switch``."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    found = []
    for sub in ctx.nodes(cst.Subscript):
        assert isinstance(sub, cst.Subscript)
        if region is not sub and region not in ctx.ancestors(sub):
            continue
        seq = lookup_dotted(ctx, _dotted(sub.value))
        if not isinstance(seq, (list, tuple)) or len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            continue
        if _traced(ctx, sub.slice[0].slice.value) is not True:
            continue
        found.append((sub, seq))
    if len(found) != 1:
        return None
    sub, seq = found[0]
    index = sub.slice[0].slice.value  # type: ignore[attr-defined]
    par = ctx.parent(sub)
    if isinstance(par, cst.AssignTarget) or (isinstance(par, (cst.AugAssign, cst.Del))):
        return None
    if seq and all(callable(f) and not _is_array(f) for f in seq):
        if not isinstance(par, cst.Call) or par.func is not sub or any(a.keyword or a.star for a in par.args):
            return None
        lax, imp = _lax(ctx)
        new: cst.BaseExpression = cst.Call(func=_expr(f"{lax}.switch"),
                                           args=[cst.Arg(_bare(index)), cst.Arg(sub.value), *par.args])
        return Edit(_edit(ctx, {par: new}, [imp]), "review",
                    "the function is chosen with `lax.switch`: an out-of-range index picks the first or last "
                    "function instead of raising, and every function must return the same shapes.")
    if not seq or not _uniform(seq):
        return None
    jnp, imp = _jnp(ctx)
    new = sub.with_changes(value=_call(f"{jnp}.asarray", sub.value))
    return Edit(_edit(ctx, {sub: new}, [imp]), "review",
                f"`{ctx.code(sub.value)}` is read as an array so a traced index can select from it: an out-of-range "
                "index is clamped instead of raising.")


def _uniform(seq: Sequence[Any]) -> bool:
    """Numbers only, or arrays of one shape and dtype: what ``jnp.asarray`` stacks into one array."""
    if all(isinstance(v, (int, float, bool)) for v in seq):
        return True
    if all(_is_array(v) for v in seq):
        return len({(tuple(v.shape), str(v.dtype)) for v in seq}) == 1
    return False


# ---------------------------------------------------------------------------------------------- scalar conversions


@rule("traced-scalar-conversion")
def traced_scalar_conversion(ctx: Context) -> Edit | None:
    """``float(x)``/``int(x)`` of a traced value that only feeds array math -> the array (cast with ``astype``)."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    wanted = ctx.values.get("function") or ""
    kinds = ("float", "int") if wanted not in ("float", "int") else (wanted,)
    calls = []
    for c in ctx.nodes(m.Call(func=m.Name("float") | m.Name("int"))):
        assert isinstance(c, cst.Call)
        if region is not c and region not in ctx.ancestors(c):
            continue
        if c.func.value not in kinds or len(c.args) != 1 or c.args[0].keyword or c.args[0].star:  # type: ignore
            continue
        if lookup_dotted(ctx, c.func.value) is not getattr(builtins, c.func.value):  # type: ignore[attr-defined]
            return None
        if _traced(ctx, c.args[0].value) is not True:
            continue
        calls.append(c)
    if not calls:
        return None
    mapping: dict[cst.CSTNode, Any] = {}
    for c in calls:
        if not _flows_to_math(ctx, c):
            return None
        fname = c.func.value  # type: ignore[attr-defined]
        arg = c.args[0].value
        dtype = _dtype_of(ctx, arg, len(calls) == 1)
        same = (fname == "float" and dtype.startswith(("float", "bfloat"))) or (
            fname == "int" and dtype.startswith(("int", "uint")))
        if same:
            par = ctx.parent(c)
            new = _paren(arg) if isinstance(par, (cst.BinaryOperation, cst.UnaryOperation)) else _bare(arg)
        else:
            new = cst.Call(func=cst.Attribute(value=_paren(arg), attr=cst.Name("astype")),
                           args=[cst.Arg(cst.Name(fname))])
        mapping[c] = new
    names = " / ".join(sorted({f"`{c.func.value}()`" for c in calls}))  # type: ignore[attr-defined]
    return Edit(_edit(ctx, mapping, []), "review",
                f"{names} on a traced value became array code (`astype` where the dtype changes): the result "
                "is a 0-d array, not a Python number; convert it after the transformed call if you need one.")


def _dtype_of(ctx: Context, e: cst.BaseExpression, only: bool) -> str:
    """The dtype of ``e``: from the failing frame when it is a name, else from the message's aval when
    ``e`` is the only value converted on the line; '' when unknown."""
    v = lookup_dotted(ctx, _dotted(e))
    if v is not MISSING and _is_array(v):
        return str(v.dtype)
    aval = ctx.values.get("aval", "")
    if only and " shape " in aval:
        return aval.rsplit(" ", 1)[-1].split("[")[0]
    return ""


@rule("drop-item")
def drop_item(ctx: Context) -> Edit | None:
    """``x.item()`` inside a transformed function whose result only feeds array math or a return -> ``x``."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    calls = [c for c in ctx.nodes(m.Call(func=m.Attribute(attr=m.Name("item")), args=[]))
             if region is c or region in ctx.ancestors(c)]
    if not calls:
        return None
    mapping: dict[cst.CSTNode, Any] = {}
    for c in calls:
        assert isinstance(c, cst.Call)
        if not _flows_to_math(ctx, c):
            return None
        base = c.func.value  # type: ignore[attr-defined]
        if c.lpar:  # `((a + b).item())` keeps the outer parentheses; the base keeps its own
            base = base.with_changes(lpar=[*c.lpar, *base.lpar], rpar=[*base.rpar, *c.rpar])
        mapping[c] = base
    return Edit(_edit(ctx, mapping, []), "review",
                "`.item()` was dropped: the value stays a 0-d array inside the transformed function; call "
                "`.item()` on the result after the call if you need a Python number.")


_TOLIST_REDUCE = {"sum": "sum", "max": "max", "min": "min", "sorted": "sort"}


@rule("drop-tolist")
def drop_tolist(ctx: Context) -> Edit | None:
    """``x.tolist()`` inside a transformed function -> ``x`` (iterated, returned) or ``jnp.sum/max/min/sort(x)``."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    calls = [c for c in ctx.nodes(m.Call(func=m.Attribute(attr=m.Name("tolist")), args=[]))
             if region is c or region in ctx.ancestors(c)]
    if len(calls) != 1:
        return None
    c = calls[0]
    assert isinstance(c, cst.Call)
    base = c.func.value  # type: ignore[attr-defined]
    par = ctx.parent(c)
    imports: list[str | None] = []
    if isinstance(par, cst.For) and par.iter is c:
        target: cst.CSTNode = c
        new: cst.BaseExpression = base
        what = "the loop now runs over the array's rows (unrolled while tracing)"
    elif isinstance(par, cst.Return) or (isinstance(par, cst.Arg) and m.matches(ctx.parent(par), m.Call(
            func=m.Name("zip") | m.Name("enumerate")))):
        target, new = c, base
        what = "the value stays an array; call `.tolist()` on the result after the call if you need a list"
    elif isinstance(par, cst.Arg) and par.keyword is None and isinstance(ctx.parent(par), cst.Call):
        outer = ctx.parent(par)
        assert isinstance(outer, cst.Call)
        fname = outer.func.value if isinstance(outer.func, cst.Name) else ""
        if fname not in _TOLIST_REDUCE or len(outer.args) != 1 or lookup_dotted(ctx, fname) is not getattr(builtins, fname):
            return None
        if not re.search(r"\[\d+\]$", ctx.values.get("shape", "")):
            return None  # of a list of rows, sum/max/min/sorted are not the array's reduction
        jnp, imp = _jnp(ctx)
        imports.append(imp)
        target, new = outer, _call(f"{jnp}.{_TOLIST_REDUCE[fname]}", base)
        what = f"`{fname}(... .tolist())` became `jnp.{_TOLIST_REDUCE[fname]}`, which works on traced arrays"
    else:
        return None
    return Edit(_edit(ctx, {target: new}, imports), "review", f"`.tolist()` was dropped: {what}.")
