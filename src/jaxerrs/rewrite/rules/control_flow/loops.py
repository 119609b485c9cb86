"""``while`` and ``for range(...)`` on traced values -> ``lax.while_loop`` / ``lax.fori_loop``."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.control_flow.common import (
    _array_cond,
    _bare,
    _carry,
    _code,
    _def,
    _edit,
    _free_name,
    _function,
    _has_bool_syntax,
    _header,
    _jnp,
    _lax,
    _loads,
    _reads_after,
    _scalar_pred,
    _smalls,
    _stmts,
    _tuple_of,
)
from jaxerrs.rewrite.values import lookup_dotted

# ---------------------------------------------------------------------------------------------- loops


@rule("traced-while")
def traced_while(ctx: Context) -> Edit | None:
    """``while <traced>:`` whose body only rebinds names -> ``lax.while_loop`` over those names."""
    head = _header(ctx)
    if head is None or head[0] != "while":
        return None
    node = head[1]
    assert isinstance(node, cst.While)
    fn = _function(ctx, node)
    if node.orelse is not None or fn is None or not _scalar_pred(ctx):
        return None
    smalls = _smalls(_stmts(node.body))
    if not smalls:
        return None
    got = _carry(ctx, node, smalls)
    if got is None or not got[0]:
        return None
    carry, temps = got
    end = ctx.span(node)[1]
    if any(t in _loads(node.test) or _reads_after(ctx, fn, t, end) for t in temps):
        return None
    lax, imp = _lax(ctx)
    jnp, imp2 = _jnp(ctx)
    test = _array_cond(node.test, jnp)
    if test is None:
        return None
    state = _free_name(ctx, "state") if len(carry) > 1 else carry[0]
    unpack = [cst.parse_statement(f"{_tuple_of(carry)} = {state}\n")] if len(carry) > 1 else []
    cname, bname = _free_name(ctx, "cond_fun"), _free_name(ctx, "body_fun")
    cond_def = _def(cname, [state], [*unpack], _code(_bare(test)))
    body_def = _def(bname, [state], [*unpack, *_stmts(node.body)], _tuple_of(carry))
    init = carry[0] if len(carry) == 1 else f"({_tuple_of(carry)})"
    last = cst.parse_statement(f"{_tuple_of(carry)} = {lax}.while_loop({cname}, {bname}, {init})\n")
    cond_def = cond_def.with_changes(leading_lines=node.leading_lines)
    used_jnp = imp2 if _has_bool_syntax(node.test) else None
    names = ", ".join(f"`{c}`" for c in carry)
    source = _edit(ctx, {node: cst.FlattenSentinel([cond_def, body_def, last])}, [imp, used_jnp])
    source, ifs = _later_ifs(ctx, fn, carry, end, source)
    if source is None:
        return None
    also = f" The `if` after it on {ifs} now tests a traced value, so it was rewritten too." if ifs else ""
    return Edit(source, "review",
                f"the `while` became `lax.while_loop` carrying {names}: each must keep its shape and dtype "
                f"through the loop, and reverse-mode `grad` cannot go through it.{also}")


def _later_ifs(ctx: Context, fn: cst.FunctionDef, carry: list[str], end: int, source: str) -> tuple[str | None, str]:
    """The loop's carry is traced after ``lax.while_loop`` even where it was a Python number before (a step
    counter): an ``if`` after the loop that tests a carried name would raise the same error next. Each is
    rewritten by the ``if`` rule, reading the carried names as traced; (None, "") when one cannot be, or when a
    carried name is read after the loop by a call that needs a Python value."""
    from jaxerrs.rewrite.rules.control_flow.branches import _traced_if_one

    later = [n for n in ctx.nodes(cst.If) if ctx.span(n)[0] > end and _within_fn(ctx, n, fn)
             and not isinstance(ctx.parent(n), cst.If) and set(carry) & set(_loads(n.test))]  # type: ignore[attr-defined]
    for call in ctx.nodes(cst.Call):
        if ctx.span(call)[0] > end and _within_fn(ctx, call, fn) and m.matches(call.func, m.Name()) and \
                call.func.value in ("int", "float", "bool", "range") and set(carry) & set(_loads(call)):  # type: ignore[attr-defined]
            return None, ""
    if not later:
        return source, ""
    local = {k: v for k, v in (ctx.locals or {}).items() if k not in carry}
    tested = sorted({n for i in later for n in _loads(i.test) if n in carry})  # type: ignore[attr-defined]
    cur = replace(ctx.derive(ctx.restore(source)), locals=local)
    shift = len(cur.source.splitlines()) - len(ctx.source.splitlines())
    for i in reversed(later):  # bottom up: the lines above stay where they were
        line = ctx.span(i)[0] + shift
        one = _traced_if_one(replace(cur.derive(cur.source, line=line), locals=local))
        if one is None:
            return None, ""
        source = one.source
        cur = replace(cur.derive(cur.restore(source)), locals=local)
    return source, ", ".join(f"`{n}`" for n in tested)


def _within_fn(ctx: Context, node: cst.CSTNode, fn: cst.FunctionDef) -> bool:
    return ctx.enclosing(node, cst.FunctionDef) is fn


@rule("traced-for-range")
def traced_for_range(ctx: Context) -> Edit | None:
    """``for i in range(<traced>):`` whose body only rebinds names -> ``lax.fori_loop``."""
    head = _header(ctx)
    if head is None or head[0] != "for":
        return None
    node = head[1]
    assert isinstance(node, cst.For)
    fn = _function(ctx, node)
    it = node.iter
    if (node.orelse is not None or fn is None or not isinstance(node.target, cst.Name)
            or not m.matches(it, m.Call(func=m.Name("range"))) or lookup_dotted(ctx, "range") is not range):
        return None
    assert isinstance(it, cst.Call)
    if not 1 <= len(it.args) <= 2 or any(a.keyword or a.star for a in it.args):
        return None
    lo, hi = (("0", _code(it.args[0].value)) if len(it.args) == 1
              else (_code(it.args[0].value), _code(it.args[1].value)))
    smalls = _smalls(_stmts(node.body))
    if not smalls:
        return None
    var = node.target.value
    got = _carry(ctx, node, smalls, exclude=[var])
    if got is None or not got[0]:
        return None
    carry, temps = got
    end = ctx.span(node)[1]
    if any(_reads_after(ctx, fn, t, end) for t in [*temps, var]):
        return None
    lax, imp = _lax(ctx)
    state = _free_name(ctx, "state") if len(carry) > 1 else carry[0]
    unpack = [cst.parse_statement(f"{_tuple_of(carry)} = {state}\n")] if len(carry) > 1 else []
    bname = _free_name(ctx, "body_fun")
    body_def = _def(bname, [var, state], [*unpack, *_stmts(node.body)], _tuple_of(carry))
    body_def = body_def.with_changes(leading_lines=node.leading_lines)
    init = carry[0] if len(carry) == 1 else f"({_tuple_of(carry)})"
    last = cst.parse_statement(f"{_tuple_of(carry)} = {lax}.fori_loop({lo}, {hi}, {bname}, {init})\n")
    names = ", ".join(f"`{c}`" for c in carry)
    return Edit(_edit(ctx, {node: cst.FlattenSentinel([body_def, last])}, [imp]), "review",
                f"the loop became `lax.fori_loop` carrying {names}: each must keep its shape and dtype "
                "through the loop, and reverse-mode `grad` cannot go through a traced trip count.")
