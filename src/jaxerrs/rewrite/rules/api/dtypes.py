"""Dtype casts for ``lax`` operands and strict dtype promotion."""

from __future__ import annotations

import re

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.api.helpers import _calls_on_line, _expr, _is_array, _module_ref, _paren
from jaxerrs.rewrite.values import live_value

# ---------------------------------------------------------------------------------------------- dtypes

_DTYPES = re.compile(r"[a-z]+\d*")


def _promoted(a: str, b: str) -> str | None:
    try:
        import jax.numpy as jnp

        return str(jnp.promote_types(a, b))
    except Exception:  # noqa: BLE001
        return None


def _cast(ctx: Context, operand: cst.BaseExpression, other: cst.BaseExpression, dtype: str,
          imports: list[str | None]) -> cst.BaseExpression:
    """``operand`` converted to ``dtype`` (spelled ``other.dtype`` when ``other`` is a plain array name)."""
    if isinstance(operand, cst.Integer) and dtype.startswith(("float", "bfloat", "complex")):
        return cst.Float(operand.value + ".0")
    if _is_array(live_value(ctx, other, attrs="getattr", scoped=True)) and isinstance(other, (cst.Name, cst.Attribute)):
        target = f"{ctx.code(other)}.dtype"
    else:
        jnp, stmt = _module_ref(ctx, "jax.numpy", "jnp")
        imports.append(stmt)
        target = f"{jnp}.{dtype}"
    v = live_value(ctx, operand, attrs="getattr", scoped=True)
    if _is_array(v) or isinstance(operand, cst.Call) and full_name(ctx, operand.func).startswith("jax."):
        return cst.Call(func=cst.Attribute(_paren(operand), cst.Name("astype")), args=[cst.Arg(_expr(target))])
    jnp, stmt = _module_ref(ctx, "jax.numpy", "jnp")
    imports.append(stmt)
    return _expr(f"{jnp}.asarray(a, {target})").with_changes(args=[
        cst.Arg(operand, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(_expr(target))])


@rule("lax-dtype-cast")
def lax_dtype_cast(ctx: Context) -> Edit | None:
    """``lax.add(int_x, float_y)`` -> the operand of the narrower dtype cast to the other's dtype."""
    op = ctx.values.get("op") or ctx.values.get("name", "")
    dts = _DTYPES.findall(ctx.values.get("dtypes", ""))
    if len(dts) != 2 or not op:
        return None
    found = [c for c in _calls_on_line(ctx) if full_name(ctx, c.func) == f"jax.lax.{op}"]
    if len(found) != 1:
        return None
    call = found[0]
    pos = [a for a in call.args if a.keyword is None and not a.star]
    if len(pos) != 2 or len(call.args) != 2:
        return None
    target = _promoted(*dts)
    if target is None or target not in dts or dts[0] == dts[1]:
        return None
    i = 0 if dts[1] == target else 1  # the operand to convert
    imports: list[str | None] = []
    new_val = _cast(ctx, pos[i].value, pos[1 - i].value, target, imports)
    return Edit(ctx.replace(pos[i].value, new_val, imports), "review",
                f"`{ctx.code(pos[i].value)}` ({dts[i]}) is cast to {target} to match the other operand of "
                f"`lax.{op}`; check {target} is the precision you want (or use the jnp function, which promotes).")


@rule("strict-dtype-cast")
def strict_dtype_cast(ctx: Context) -> Edit | None:
    """Under strict promotion, ``a * b`` of two dtypes -> the narrower operand cast to the wider dtype."""
    dts = re.findall(r"'(\w+)'", ctx.values.get("dtypes", ""))
    if len(dts) != 2 or dts[0] == dts[1]:
        return None
    target = _promoted(*dts)
    if target is None or target not in dts:
        return None
    stmt = ctx.statement(cst.If, cst.While, cst.For, cst.With, cst.Return)
    if stmt is None:
        return None
    lo, hi = ctx.span(stmt)
    cands: list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]] = []
    for node in ctx.nodes(cst.BinaryOperation):
        assert isinstance(node, cst.BinaryOperation)
        if lo <= ctx.span(node)[0] <= hi:
            cands.append((node, node.left, node.right))
    for call in _calls_on_line(ctx):
        pos = [a for a in call.args if a.keyword is None and not a.star]
        if full_name(ctx, call.func).startswith("jax.numpy.") and len(pos) == 2:
            cands.append((call, pos[0].value, pos[1].value))
    hits = []
    for node, a, b in cands:
        va, vb = live_value(ctx, a, attrs="getattr", scoped=True), live_value(ctx, b, attrs="getattr", scoped=True)
        if _is_array(va) and _is_array(vb) and {str(va.dtype), str(vb.dtype)} == set(dts):
            hits.append((node, a, b, str(va.dtype)))
    if not hits:
        return _into_library_call(ctx, dts)
    if len(hits) != 1:
        return None
    _, a, b, da = hits[0]
    operand, other = (a, b) if da != target else (b, a)
    imports: list[str | None] = []
    new = _cast(ctx, operand, other, target, imports)
    src = ctx.code(operand)
    return Edit(ctx.replace(operand, new, imports), "review",
                f"`{src}` is cast to {target} explicitly, as strict promotion requires; check {target} is the "
                "dtype you want the result in.")


def _into_library_call(ctx: Context, dts: list[str]) -> Edit | None:
    """The mismatch is inside a library call on the line (``layer(x)``, ``model.apply(v, x)``): the one array
    argument of one of the two dtypes, where no argument has the other (it comes from the library's own
    arrays, a layer's parameters), is cast to the other dtype: the input is given in the library's dtype.

    Not for ``jax``/``jax.numpy`` calls (their operands are the user's; the promotion path handles them) nor
    for functions defined in the cell (the cast belongs where the mismatch is).
    """
    hits = []
    for call in _calls_on_line(ctx):
        full = full_name(ctx, call.func)
        if full.startswith("jax.") or isinstance(call.func, cst.Name) and ctx.function_named(call.func.value):
            continue
        arrays = [(a, str(v.dtype)) for a in call.args
                  if _is_array(v := live_value(ctx, a.value, attrs="getattr", scoped=True))]
        mine = [(a, d) for a, d in arrays if d in dts]
        if len(mine) == 1 and not any(d != mine[0][1] and d in dts for _, d in arrays):
            hits.append((call, mine[0][0], mine[0][1]))
    if len(hits) != 1:
        return None
    call, arg, dtype = hits[0]
    target = dts[1] if dtype == dts[0] else dts[0]
    imports: list[str | None] = []
    new = _cast(ctx, arg.value, call, target, imports)
    src, fn = ctx.code(arg.value), ctx.code(call.func)
    return Edit(ctx.replace(arg.value, new, imports), "review",
                f"`{src}` ({dtype}) is cast to {target}, the dtype `{fn}` computes in (its own arrays are {target}), "
                f"as strict promotion requires; the result is {target}: check that is the precision you want.")
