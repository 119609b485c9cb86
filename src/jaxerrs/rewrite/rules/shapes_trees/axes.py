"""Shape mismatches in ``@``, broadcasting and ``concatenate``: transpose, new axis, the right axis."""

from __future__ import annotations

import math
from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.shapes_trees.common import (
    _BINARY_FUNCS,
    _COMMA,
    _ELEMENTWISE_OPS,
    _PUBLIC,
    Shape,
    _attr,
    _broadcast,
    _has_kw,
    _integer,
    _matmul_shape,
    _paren,
    _parse_shapes,
    _reduce_info,
    _shape,
    _shape_of,
    _statement,
)
from jaxerrs.rewrite.values import MISSING, literal, live_value

# ----------------------------------------------------------------------------- matmul-transpose


def _transposed(expr: cst.BaseExpression, ndim: int) -> cst.BaseExpression:
    if ndim == 2:
        return _attr(expr, "T")
    return cst.Call(func=_attr(expr, "swapaxes"), args=[
        cst.Arg(cst.UnaryOperation(cst.Minus(), cst.Integer("1")), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
        cst.Arg(cst.UnaryOperation(cst.Minus(), cst.Integer("2")))])


def _fits_t(a: Shape, b: Shape, which: str, batched: bool) -> bool:
    """Whether ``a @ b`` works once operand ``which`` has its last two axes swapped (non-square only)."""
    x = a if which == "a" else b
    if len(x) < 2 or x[-1] == x[-2] or (len(x) > 2 and not batched):
        return False
    xt = x[:-2] + (x[-1], x[-2])
    return _matmul_shape(xt, b) is not None if which == "a" else _matmul_shape(a, xt) is not None


@rule("matmul-transpose")
def matmul_transpose(ctx: Context) -> Edit | None:
    """``x @ W`` with W stored (out, in): transpose the one operand whose transpose makes the product fit."""
    stmt = _statement(ctx)
    if stmt is None:
        return None
    want = (_parse_shapes(ctx.values.get("lhs", "")), _parse_shapes(ctx.values.get("rhs", "")))
    found = []
    for node in m.findall(stmt, m.BinaryOperation(operator=m.MatrixMultiply()) | m.Call()):
        if isinstance(node, cst.BinaryOperation):
            a_node, b_node, batched = node.left, node.right, True
        else:
            full = full_name(ctx, node.func, modules=_PUBLIC, keep=True, methods=True)
            if full not in ("jax.numpy.dot", "jax.numpy.matmul") or len(node.args) != 2 or any(
                    x.keyword is not None or x.star for x in node.args):
                continue
            a_node, b_node = node.args[0].value, node.args[1].value
            batched = full.endswith("matmul")
        a, b = _shape(ctx, a_node), _shape(ctx, b_node)
        if a is None or b is None or not a or not b or _matmul_shape(a, b) is not None:
            continue
        if not batched and (len(a) > 2 or len(b) > 2):
            continue
        contract = ((a[-1],), (b[-2] if len(b) > 1 else b[0],))
        if want[0] and want[1] and (want[0][0], want[1][0]) != contract:
            continue
        found.append((node, a_node, b_node, a, b, batched))
    if len(found) != 1:
        return None
    node, a_node, b_node, a, b, batched = found[0]
    fit_a, fit_b = _fits_t(a, b, "a", batched), _fits_t(a, b, "b", batched)
    if fit_a == fit_b:
        return None  # neither or both: the intended orientation is not clear
    old, shape = (a_node, a) if fit_a else (b_node, b)
    new = _transposed(old, len(shape))
    name = ctx.code(old)
    return Edit(ctx.replace(old, new), "review",
                f"`{name}` is used transposed so its {shape[-1]}-long axis meets the other operand; check that "
                f"`{name}` is stored as {shape} = (out, in) and that the result has the shape you expect.")


# ----------------------------------------------------------------------------- broadcast-axis


def _binary_candidates(ctx: Context, stmt: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.BaseExpression,
                                                                          cst.BaseExpression]]:
    for node in m.findall(stmt, m.BinaryOperation() | m.Call()):
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, _ELEMENTWISE_OPS):
                yield node, node.left, node.right
        elif isinstance(node, cst.Call):
            full = full_name(ctx, node.func, modules=_PUBLIC, keep=True, methods=True)
            mod, _, fname = full.rpartition(".")
            if mod in ("jax.numpy", "jax.lax") and fname in _BINARY_FUNCS and len(node.args) == 2 and all(
                    a.keyword is None and not a.star for a in node.args):
                yield node, node.args[0].value, node.args[1].value


def _offsets(big: Shape, small: Shape) -> list[int]:
    return [k for k in range(len(big) - len(small) + 1) if big[k:k + len(small)] == small]


def _expand(expr: cst.BaseExpression, ndim: int, count: int) -> cst.Subscript:
    """``v[:, None]`` (1-D) or ``v[..., None, None]``: ``count`` new trailing axes."""
    first = cst.Slice(lower=None, upper=None) if ndim == 1 else cst.Index(cst.Ellipsis())
    elems = [cst.SubscriptElement(first)] + [cst.SubscriptElement(cst.Index(cst.Name("None")))] * count
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elems = [e.with_changes(comma=comma) for e in elems[:-1]] + elems[-1:]
    return cst.Subscript(value=_paren(expr), slice=elems)


@rule("broadcast-axis")
def broadcast_axis(ctx: Context) -> Edit | None:
    """A statistic or vector meant per row (not per column): ``keepdims=True``, ``v[:, None]`` or ``w.T``."""
    stmt = _statement(ctx)
    shapes = _parse_shapes(ctx.values.get("shapes", ""))
    if stmt is None or not shapes or len(shapes) != 2:
        return None
    found = []
    for _node, a_node, b_node in _binary_candidates(ctx, stmt):
        a, b = _shape(ctx, a_node), _shape(ctx, b_node)
        if a is None or b is None or _broadcast(a, b) is not None:
            continue
        if sorted([a, b]) == sorted(shapes):
            found.append((a_node, b_node, a, b))
    if len(found) != 1:
        return None
    a_node, b_node, a, b = found[0]
    if len(a) == len(b):
        # same rank: a 2-D operand stored the other way round (w of shape (m, n) against x of shape (n, m))
        if len(a) != 2:
            return None
        opts = [(b_node, a_node, b[::-1])] if _broadcast(a, b[::-1]) == a else []
        if _broadcast(a[::-1], b) == b and math.prod(a) < math.prod(b):
            opts.append((a_node, b_node, a[::-1]))
        if len(opts) != 1:
            return None
        node, other, new_shape = opts[0]
        return Edit(ctx.replace(node, _attr(node, "T")), "review",
                    f"`{ctx.code(node)}` is transposed to {new_shape} to line up with `{ctx.code(other)}`; check that "
                    "it is stored the other way round rather than holding different data.")
    (big_node, big), (small_node, small) = sorted([(a_node, a), (b_node, b)], key=lambda t: -len(t[1]))
    if not small or _integer(ctx, small_node):
        return None  # integer labels against float scores usually want one-hot encoding, not a new axis
    red = _reduce_info(ctx, small_node)
    if red is not None and red[1] not in (None, MISSING) and not _has_kw(small_node, "keepdims"):
        src = _shape(ctx, red[0])
        axis = red[1]
        if src is not None and len(src) == len(big):
            axes = {x % len(src) for x in (axis if isinstance(axis, tuple) else (axis,))}
            kept = tuple(1 if i in axes else d for i, d in enumerate(src))
            if _broadcast(kept, big) == big:
                assert isinstance(small_node, cst.Call)
                args = list(small_node.args)
                last = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                kw = cst.Arg(cst.Name("True"), keyword=cst.Name("keepdims"),
                             equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
                new = small_node.with_changes(args=[*args[:-1], last, kw])
                return Edit(ctx.replace(small_node, new), "review",
                            f"`{ctx.code(small_node)}` keeps the reduced axis (keepdims=True) so it lines up with "
                            f"`{ctx.code(big_node)}` {big} per row; check that this is the axis you meant.")
        return None  # a reduction over the wrong axis: not ours to guess
    ks = [k for k in _offsets(big, small) if k + len(small) < len(big)]
    if len(ks) != 1 or big.count(small[-1]) != 1 and len(small) == 1:
        return None
    count = len(big) - ks[0] - len(small)
    new = _expand(small_node, len(small), count)
    axes = f"axis {ks[0]}" if len(small) == 1 else f"axes {ks[0]}..{ks[0] + len(small) - 1}"
    return Edit(ctx.replace(small_node, new), "review",
                f"`{ctx.code(small_node)}` {small} becomes `{ctx.code(new)}` so it lines up with {axes} of "
                f"`{ctx.code(big_node)}` {big} instead of its last axes; check that this is the axis it describes.")


# ----------------------------------------------------------------------------- concat-axis


@rule("concat-axis")
def concat_axis(ctx: Context) -> Edit | None:
    """``jnp.concatenate([a, b])`` whose pieces differ along exactly one other axis: join along that one."""
    stmt = _statement(ctx)
    msg_shapes = _parse_shapes(ctx.values.get("shapes", ""))
    if stmt is None or not msg_shapes:
        return None
    found = []
    for call in m.findall(stmt, m.Call()):
        assert isinstance(call, cst.Call)
        if full_name(ctx, call.func, modules=_PUBLIC, keep=True, methods=True) != "jax.numpy.concatenate" or not call.args or call.args[0].keyword:
            continue
        args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "axis")]
        if len(args) > 1:
            continue  # an axis given positionally or other arguments: leave it
        axis_arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == "axis"), None)
        dim = 0 if axis_arg is None else literal(axis_arg.value)
        if not isinstance(dim, int):
            continue
        seq = call.args[0].value
        if isinstance(seq, (cst.List, cst.Tuple)):
            got = [_shape(ctx, e.value) for e in seq.elements if isinstance(e, cst.Element)]
        else:
            v = live_value(ctx, seq, attrs="instance-or-module")
            got = [_shape_of(x) for x in v] if isinstance(v, (list, tuple)) else [None]
        # under vmap the message shows batched shapes; the code's own (per-example) shapes come first
        shapes = got if all(g is not None for g in got) else msg_shapes
        if len(got) != len(msg_shapes) or len({len(x) for x in shapes}) != 1 or not shapes[0]:  # type: ignore[arg-type]
            continue
        if shapes is msg_shapes and any(g is not None and g != x for g, x in zip(got, shapes, strict=True)):
            continue
        nd = len(shapes[0])  # type: ignore[arg-type]
        differ = [k for k in range(nd) if len({x[k] for x in shapes}) > 1]  # type: ignore[index]
        if len(differ) == 1 and differ[0] != dim % nd:
            found.append((call, args[0], differ[0], nd, shapes, dim))
    if len(found) != 1:
        return None
    call, first, k, nd, shapes, dim = found[0]
    axis = -1 if k == nd - 1 else k
    kw = cst.Arg(cst.parse_expression(str(axis)), keyword=cst.Name("axis"),
                 equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
    new = call.with_changes(args=[first.with_changes(comma=_COMMA), kw])
    joined = list(shapes[0])
    joined[k] = sum(x[k] for x in shapes)
    return Edit(ctx.replace(call, new), "review",
                f"the pieces are joined along axis {axis} (where their sizes differ), giving {tuple(joined)} instead "
                f"of along axis {dim}; check that this is the axis you meant.")
