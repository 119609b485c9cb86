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


def _conversion_calls(ctx: Context, region: cst.CSTNode) -> list[cst.Call] | None:
    """``float(x)``/``int(x)``/``x.item()`` of traced values in the function the failing line is in (every
    statement of it: converting one and leaving the next fails again), else in ``region``; None when a
    ``float``/``int`` there is not the builtin."""
    from jaxerrs.rewrite.rules.api.helpers import _traced_reads
    from jaxerrs.rewrite.rules.api.tracers import _traced_names

    fn = ctx.function_at_line()
    scope: cst.CSTNode = fn if fn is not None else region
    tainted = _traced_names(ctx, fn) if fn is not None else set()

    def traced(e: cst.BaseExpression) -> bool:
        return _traced(ctx, e) is True or bool(_traced_reads(e) & tainted)

    out: list[cst.Call] = []
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if scope is not c and scope not in ctx.ancestors(c):
            continue
        f = c.func
        if isinstance(f, cst.Name) and f.value in ("float", "int") and len(c.args) == 1 and not c.args[0].keyword \
                and not c.args[0].star and traced(c.args[0].value):
            if lookup_dotted(ctx, f.value) is not getattr(builtins, f.value):
                return None
            out.append(c)
        elif isinstance(f, cst.Attribute) and f.attr.value == "item" and not c.args and traced(f.value):
            out.append(c)
    return out


def _drop_conversions(ctx: Context, own: tuple[str, ...]) -> tuple[str, list[cst.Call], list[str]] | None:
    """The cell with every Python-number conversion of a traced value in the failing function dropped
    (each must only feed array math or a return), and the conversions; None when one feeds anything else
    or the failing statement has none of the rule's ``own`` kinds."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    calls = _conversion_calls(ctx, region)
    if not calls:
        return None
    kind = lambda c: c.func.value if isinstance(c.func, cst.Name) else "item"  # noqa: E731
    here = [c for c in calls if region is c or region in ctx.ancestors(c)]
    if not any(kind(c) in own for c in here):
        return None  # the failing statement's conversion is another kind (or none): another rule's cause
    mapping: dict[cst.CSTNode, Any] = {}
    for c in calls:
        if not _flows_to_math(ctx, c):
            return None
        if kind(c) == "item":
            if c.lpar:  # `((a + b).item())` keeps the outer parentheses; the base keeps its own
                mapping[c] = lambda upd: upd.func.value.with_changes(
                    lpar=[*upd.lpar, *upd.func.value.lpar], rpar=[*upd.func.value.rpar, *upd.rpar])
            else:
                mapping[c] = lambda upd: upd.func.value
            continue
        fname = kind(c)
        dtype = _dtype_of(ctx, c.args[0].value, len(calls) == 1)
        same = (fname == "float" and dtype.startswith(("float", "bfloat"))) or (
            fname == "int" and dtype.startswith(("int", "uint")))
        par = ctx.parent(c)
        if same:
            keep_paren = isinstance(par, (cst.BinaryOperation, cst.UnaryOperation))
            mapping[c] = (lambda upd: _paren(upd.args[0].value)) if keep_paren else (
                lambda upd: _bare(upd.args[0].value))
        else:
            mapping[c] = lambda upd, fname=fname: cst.Call(
                func=cst.Attribute(value=_paren(upd.args[0].value), attr=cst.Name("astype")),
                args=[cst.Arg(cst.Name(fname))])
    after = _convert_after_calls(ctx, calls, mapping)
    return _edit(ctx, mapping, []), calls, after


def _returned_at(ctx: Context, fn: cst.FunctionDef, c: cst.Call) -> int | None | bool:
    """Where ``c`` stands in ``fn``'s only return: its index in a returned tuple, None for the whole value,
    False when it is not returned as it is."""
    from jaxerrs.rewrite.cst_tools import own_returns

    rets = own_returns(fn)
    if len(rets) != 1 or rets[0].value is None:
        return False
    value = rets[0].value
    if value is c:
        return None
    if isinstance(value, cst.Tuple):
        for i, el in enumerate(value.elements):
            if el.value is c and not isinstance(el, cst.StarredElement):
                return i
    return False


def _convert_after_calls(ctx: Context, calls: list[cst.Call], mapping: dict[cst.CSTNode, Any]) -> list[str]:
    """Where a dropped conversion was returned as it is (``return w, float(loss)``) and the cell unpacks the
    call into names at the top level or in a plain loop (``w, loss = step(w, x)``), convert the name right
    after the call (``loss = float(loss)``): the value outside is the Python number it was."""
    from jaxerrs.rewrite.rules.static_shapes.common import _transformed

    fn = ctx.function_at_line()
    done: list[str] = []
    if fn is None:
        return done
    wanted: dict[int | None, str] = {}
    for c in calls:
        at = _returned_at(ctx, fn, c)
        if at is False:
            continue
        wanted[at] = c.func.value if isinstance(c.func, cst.Name) else "item"  # type: ignore[index]
    if not wanted:
        return done
    names = {fn.name.value}
    for a in ctx.nodes(cst.Assign):  # f = jax.jit(step)
        assert isinstance(a, cst.Assign)
        if isinstance(a.value, cst.Call) and a.value.args and m.matches(a.value.args[0].value, m.Name(fn.name.value)) \
                and len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name):
            names.add(a.targets[0].target.value)
    for a in ctx.nodes(cst.Assign):
        assert isinstance(a, cst.Assign)
        if not (isinstance(a.value, cst.Call) and isinstance(a.value.func, cst.Name) and a.value.func.value in names):
            continue
        line = ctx.parent(a)
        caller = ctx.enclosing(a, cst.FunctionDef)
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or len(a.targets) != 1 or (
                caller is not None and (caller is fn or _transformed(ctx, caller))):  # type: ignore[arg-type]
            continue
        target = a.targets[0].target
        bound: dict[int | None, str] = {}
        if isinstance(target, cst.Name) and None in wanted:
            bound[None] = target.value
        elif isinstance(target, (cst.Tuple, cst.List)) and None not in wanted:
            for i, el in enumerate(target.elements):
                if i in wanted and isinstance(el.value, cst.Name) and not isinstance(el, cst.StarredElement):
                    bound[i] = el.value.value
        if not bound:
            continue
        extra = []
        for i, name in bound.items():
            how = wanted[i]
            code = f"{name} = {name}.item()" if how == "item" else f"{name} = {how}({name})"
            extra.append(cst.parse_statement(code + "\n"))
            done.append(code)
        mapping[line] = lambda upd, extra=extra: cst.FlattenSentinel([upd, *extra])
    return done


def _after_note(after: list[str]) -> str:
    if after:
        return "converted back after the call (" + ", ".join(f"`{a}`" for a in dict.fromkeys(after)) + ")."
    return "convert it after the transformed call if you need a Python number."


def _what(calls: list[cst.Call]) -> str:
    names = sorted({f"`{c.func.value}()`" if isinstance(c.func, cst.Name) else "`.item()`" for c in calls})
    where = f" ({len(calls)} places)" if len(calls) > 1 else ""
    return " / ".join(names) + where


@rule("traced-scalar-conversion")
def traced_scalar_conversion(ctx: Context) -> Edit | None:
    """``float(x)``/``int(x)`` of a traced value that only feeds array math -> the array (cast with ``astype``).

    Every such conversion in the failing function is dropped (``.item()`` ones too), or none is."""
    wanted = ctx.values.get("function") or ""
    kinds = ("float", "int") if wanted not in ("float", "int") else (wanted,)
    got = _drop_conversions(ctx, kinds)
    if got is None:
        return None
    source, calls, after = got
    return Edit(source, "review",
                f"{_what(calls)} on traced values became array code (`astype` where the dtype changes): the "
                "result is a 0-d array, not a Python number; " + _after_note(after))


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
    """``x.item()`` inside a transformed function whose result only feeds array math or a return -> ``x``.

    Every such conversion in the failing function is dropped (``float()``/``int()`` ones too), or none is."""
    got = _drop_conversions(ctx, ("item",))
    if got is None:
        return None
    source, calls, after = got
    return Edit(source, "review",
                f"{_what(calls)} dropped: the values stay 0-d arrays inside the transformed function; "
                + _after_note(after))


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
