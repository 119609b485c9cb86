"""Boolean masks under jit: the reduction's ``where=``, ``jnp.where`` for masked updates."""

from __future__ import annotations

import re

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import (
    kwarg,
    py_literal,
)
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.static_shapes.common import (
    _ELEMENTWISE,
    _dtype_kind,
    _jnp_name,
    _lookup,
    _shape,
    _within,
)

# ---------------------------------------------------------------------------------------------- boolean-mask


def _is_mask(ctx: Context, e: cst.BaseExpression) -> bool:
    if isinstance(e, cst.Comparison):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.BitInvert):
        return _is_mask(ctx, e.expression)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _is_mask(ctx, e.left) and _is_mask(ctx, e.right)
    if isinstance(e, cst.Call) and _jnp_name(ctx, e.func) in ("isnan", "isfinite", "isinf", "logical_not",
                                                                "logical_and", "logical_or", "logical_xor"):
        return True
    if isinstance(e, (cst.Name, cst.Subscript)):
        v = _lookup(ctx, e.value) if isinstance(e, cst.Name) else None
        if isinstance(e, cst.Subscript):
            shape = _shape(ctx, e)
            return shape is not None and _subscript_dtype(ctx, e) == "b"
        return getattr(getattr(v, "dtype", None), "kind", "") == "b"
    return False


def _subscript_dtype(ctx: Context, e: cst.Subscript) -> str:
    if isinstance(e.value, cst.Name) and len(e.slice) == 1:
        key = e.slice[0].slice
        d = _lookup(ctx, e.value.value)
        if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString) and isinstance(d, dict):
            return getattr(getattr(d.get(key.value.evaluated_value), "dtype", None), "kind", "")
    return ""


def _mask_subscripts(ctx: Context, stmt: cst.CSTNode) -> list[cst.Subscript]:
    out = []
    for s in ctx.nodes(cst.Subscript):
        assert isinstance(s, cst.Subscript)
        if _within(ctx, s, stmt) and len(s.slice) == 1 and isinstance(s.slice[0].slice, cst.Index) \
                and _is_mask(ctx, s.slice[0].slice.value):
            out.append(s)
    return out


def _mask_of(s: cst.Subscript) -> cst.BaseExpression:
    idx = s.slice[0].slice
    assert isinstance(idx, cst.Index)
    return idx.value


_REDUCTIONS = {"sum", "mean", "prod", "max", "min", "any", "all", "var", "std", "nansum", "nanmean", "amax", "amin"}


def _reduction_of(ctx: Context, node: cst.CSTNode) -> tuple[cst.Call, cst.BaseExpression, str] | None:
    """The reduction call that consumes ``node`` through elementwise operations: (call, its operand, name)."""
    cur = node
    while True:
        p = ctx.parent(cur)
        if isinstance(p, (cst.BinaryOperation, cst.UnaryOperation)):
            if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, (cst.MatrixMultiply, cst.FloorDivide)):
                return None
            cur = p
            continue
        if isinstance(p, cst.Arg):
            call = ctx.parent(p)
            if not isinstance(call, cst.Call):
                return None
            name = _jnp_name(ctx, call.func)
            if name in _ELEMENTWISE and all(a.keyword is None for a in call.args):
                cur = call
                continue
            if name in _REDUCTIONS and call.args[0] is p and len(call.args) == 1:
                return call, p.value, name
            return None
        if isinstance(p, cst.Attribute) and p.value is cur and p.attr.value in _REDUCTIONS:
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and call.func is p and not call.args:
                return call, cur, p.attr.value  # type: ignore[return-value]
            return None
        return None


def _where_mask(ctx: Context, bases: list[cst.BaseExpression], mask: cst.BaseExpression,
                mshape: tuple[int, ...] | None) -> cst.BaseExpression | None:
    """``mask`` (or ``mask[:, None]``) so that it lines up with every base; None when shapes are unknown/odd."""
    shapes = {_shape(ctx, b) for b in bases}
    if len(shapes) != 1:
        return None
    shape = shapes.pop()
    if shape is None or mshape is None:
        return None
    if shape == mshape:
        return mask
    if len(shape) > len(mshape) and shape[:len(mshape)] == mshape:
        idx = ", ".join([":"] * len(mshape) + ["None"] * (len(shape) - len(mshape)))
        return cst.parse_expression(f"({cst.Module([]).code_for_node(mask)})[{idx}]") if not isinstance(
            mask, cst.Name) else cst.parse_expression(f"{mask.value}[{idx}]")
    return None


def _strip_masks(expr: cst.BaseExpression, subs: list[cst.Subscript]) -> cst.BaseExpression:
    mapping = {id(s): s.value for s in subs}

    class _T(cst.CSTTransformer):
        def leave_Subscript(self, original: cst.Subscript, updated: cst.BaseExpression) -> cst.BaseExpression:
            got = mapping.get(id(original))
            if got is None:
                return updated
            return got.with_changes(lpar=original.lpar, rpar=original.rpar) if hasattr(got, "lpar") else got

    out = expr.visit(_T())
    assert isinstance(out, cst.BaseExpression)
    return out


def _operands_ok(ctx: Context, operand: cst.BaseExpression, subs: list[cst.Subscript]) -> bool:
    """Every name in the operand outside the masked subscripts is a scalar."""
    sub_ids = {id(s) for s in subs}
    ok = True

    class _V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> bool:
            nonlocal ok
            if id(n) in sub_ids:
                return False
            ok = False
            return False

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            if full_name(ctx, n, keep=True).startswith("jax.numpy."):
                return False
            nonlocal ok
            ok = False
            return False

        def visit_Name(self, n: cst.Name) -> None:
            nonlocal ok
            if full_name(ctx, n, keep=True).startswith("jax.numpy"):
                return
            if _shape(ctx, n) != ():
                ok = False

    operand.visit(_V())
    return ok


def _mask_shape(ctx: Context) -> tuple[int, ...] | None:
    """The mask's shape from the message: the record's pattern holds ``{aval}`` or ``bool[{shape}]``."""
    aval = ctx.values.get("aval") or (f"bool[{ctx.values['shape']}]" if "shape" in ctx.values else "")
    mt = re.match(r"bool\[([\d,\s]*)\]$", aval.strip())
    if mt is None:
        return None
    return tuple(int(x) for x in mt.group(1).split(",") if x.strip())


def _reduction_edit(ctx: Context, red: tuple[cst.Call, cst.BaseExpression, str], subs: list[cst.Subscript],
                    where: cst.BaseExpression) -> cst.Call | None:
    call, operand, name = red
    jnp, _ = ctx.need("jax.numpy", "jnp")
    new_operand = _strip_masks(operand, subs)
    kws = [kwarg("where", "0")]
    kws[0] = kws[0].with_changes(value=where)
    if name in ("max", "min", "amax", "amin"):
        if not all(_dtype_kind(ctx, s.value) == "f" for s in subs):
            return None
        kws.append(kwarg("initial", f"-{jnp}.inf" if name in ("max", "amax") else f"{jnp}.inf"))
    if isinstance(call.func, cst.Attribute) and call.func.value is operand:
        return call.with_changes(func=call.func.with_changes(value=new_operand), args=kws)
    return call.with_changes(args=[call.args[0].with_changes(value=new_operand), *kws])


@rule("boolean-mask")
def boolean_mask(ctx: Context) -> Edit | None:
    """Boolean-mask indexing under jit: ``x.at[mask].set(v)`` -> ``jnp.where``; in a function, every
    selection of it followed to its reductions and counts (:mod:`.selections`); in a lambda, the failing
    line's reductions take ``where=mask``."""
    stmt = ctx.statement()
    if stmt is None:
        return None
    subs = _mask_subscripts(ctx, stmt)
    if not subs:
        return None
    mshape = _mask_shape(ctx)
    at = [s for s in subs if isinstance(s.value, cst.Attribute) and s.value.attr.value == "at"]
    if at:
        return _at_mask(ctx, subs, mshape) if len(at) == 1 else None
    if ctx.enclosing(stmt, cst.FunctionDef) is not None:
        from jaxerrs.rewrite.rules.static_shapes.selections import plan_selections

        return plan_selections(ctx)
    got = _reduction_pairs(ctx, subs, mshape)
    if got is None:
        return None
    pairs, names, mask_codes = got
    mask_code = ", ".join(f"`where={c}`" for c in sorted(mask_codes))
    extra = " (an all-False mask now gives -inf/inf instead of an error)" if {"max", "min", "amax", "amin"} & set(
        names) else ""
    return Edit(ctx.replace_many(pairs), "review",
                f"the masked entries are skipped with {mask_code} instead of being gathered (the shape "
                f"stays static){extra}; check that the mask lines up with the array it filters.")


def _reduction_pairs(ctx: Context, subs: list[cst.Subscript], mshape: tuple[int, ...] | None
                     ) -> tuple[list[tuple[cst.CSTNode, cst.CSTNode]], list[str], set[str]] | None:
    """Every masked subscript of ``subs`` inside a reduction, rewritten with ``where=``; None if any is not."""
    if any(isinstance(s.value, cst.Attribute) and s.value.attr.value == "at" for s in subs):
        return None
    groups: dict[int, tuple[tuple[cst.Call, cst.BaseExpression, str], list[cst.Subscript]]] = {}
    for s in subs:
        red = _reduction_of(ctx, s)
        if red is None:
            return None
        groups.setdefault(id(red[0]), (red, []))[1].append(s)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    names: list[str] = []
    masks: set[str] = set()
    for red, gsubs in groups.values():
        if len({ctx.code(_mask_of(s)) for s in gsubs}) != 1 or not _operands_ok(ctx, red[1], gsubs):
            return None
        mask = _mask_of(gsubs[0])
        shape = _shape(ctx, mask)
        shape = mshape if shape is None else shape
        where = _where_mask(ctx, [s.value for s in gsubs], mask, shape)
        if where is None:
            return None
        new = _reduction_edit(ctx, red, gsubs, where)
        if new is None:
            return None
        pairs.append((red[0], new))
        names.append(red[2])
        masks.add(ctx.code(where))
    return pairs, names, masks


def _dtype(ctx: Context, e: cst.CSTNode) -> str:
    """The dtype of a name's live value ('float32'), '' when unknown."""
    return str(getattr(_lookup(ctx, e.value), "dtype", "")) if isinstance(e, cst.Name) else ""


def _holds(lit: object, dtype: str) -> bool:
    """Whether the number ``lit`` is a value of ``dtype`` (no -1 in uint8, no 300 in int8)."""
    import numpy as np

    try:
        info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else np.finfo(dtype)
    except (TypeError, ValueError):
        return dtype == "bfloat16" and isinstance(lit, (int, float))
    return bool(info.min <= lit <= info.max)  # type: ignore[operator]


def _at_mask(ctx: Context, subs: list[cst.Subscript], mshape: tuple[int, ...] | None) -> Edit | None:
    """``x.at[mask].set(v)`` / ``.add(v)`` / ``.multiply(v)`` -> ``jnp.where(mask, ..., x)``.

    Why the same values: with a mask shaped like ``x``, ``x.at[mask].op(v)`` changes exactly the entries
    where the mask is True, once each, to ``x op v`` there; ``jnp.where(mask, x op v, x)`` is that array.
    It is ``safe`` when nothing else can differ (checked): the mask has ``x``'s shape; the new value is a
    number literal ``x``'s dtype holds (a float only into a float array), or ``y[mask]`` with ``y`` of
    ``x``'s shape and very dtype (``.at`` casts to ``x``'s dtype, ``where`` would promote); the op is
    ``set``/``add``/``multiply``/``subtract``. Other forms are ``review``.
    """
    at = next(s for s in subs if isinstance(s.value, cst.Attribute) and s.value.attr.value == "at")
    assert isinstance(at.value, cst.Attribute)
    base = at.value.value
    mask = _mask_of(at)
    meth = ctx.parent(at)
    call = ctx.parent(meth) if meth is not None else None
    if not isinstance(meth, cst.Attribute) or not isinstance(call, cst.Call) or call.func is not meth:
        return None
    if len(call.args) != 1 or call.args[0].keyword is not None:
        return None
    op = meth.attr.value
    v = call.args[0].value
    others = [s for s in subs if s is not at]
    bshape = _shape(ctx, base)
    if bshape is None or bshape != mshape:
        return None
    if others:  # x.at[mask].set(y[mask]), x.at[mask].add(-lr * g[mask])
        if any(ctx.code(_mask_of(o)) != ctx.code(mask) or _shape(ctx, o.value) != bshape
               or not _elementwise_path(ctx, o, v) for o in others) or not _operands_ok(ctx, v, others):
            return None
        value: cst.BaseExpression = _strip_masks(v, others)
        dtypes = {_dtype(ctx, o.value) for o in others}
        scalar_ok = dtypes == {_dtype(ctx, base)} != {""} and isinstance(v, cst.Subscript)
    else:
        if _shape(ctx, v) != ():
            return None
        value = v
        lit = py_literal(v)
        kind = _dtype_kind(ctx, base)
        scalar_ok = ((isinstance(lit, float) and kind == "f") or (isinstance(lit, int) and not isinstance(lit, bool)
                     and kind in "fiu" and kind != "")) and _holds(lit, _dtype(ctx, base))
    jnp, imp = ctx.need("jax.numpy", "jnp")
    b = ctx.code(base)
    val = cst.Module([]).code_for_node(value)
    ops = {"set": "{v}", "add": "{b} + {v}", "multiply": "{b} * {v}", "subtract": "{b} - {v}",
           "divide": "{b} / {v}", "min": f"{jnp}.minimum({{b}}, {{v}})", "max": f"{jnp}.maximum({{b}}, {{v}})"}
    if op not in ops:
        return None
    vv = val if isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Subscript)) else f"({val})"
    new_val = ops[op].format(b=b, v=vv)
    new = cst.parse_expression(f"{jnp}.where({ctx.code(mask)}, {new_val}, {b})")
    safe = scalar_ok and op in ("set", "add", "multiply", "subtract")
    return Edit(ctx.replace(call, new, imports=[imp]), "safe" if safe else "review",
                f"`{b}.at[mask].{op}(...)` became `jnp.where(mask, ..., {b})`: same values, without a "
                f"data-dependent index" + ("." if safe else "; check the dtype and shape of the new values."))


def _elementwise_path(ctx: Context, node: cst.CSTNode, root: cst.CSTNode) -> bool:
    """Whether ``node`` reaches ``root`` through elementwise operations only (so its shape carries through)."""
    cur = node
    while cur is not root:
        p = ctx.parent(cur)
        if isinstance(p, (cst.BinaryOperation, cst.UnaryOperation)) and not isinstance(
                getattr(p, "operator", None), cst.MatrixMultiply):
            cur = p
        elif isinstance(p, cst.Arg) and isinstance(ctx.parent(p), cst.Call) and _jnp_name(
                ctx, ctx.parent(p).func) in _ELEMENTWISE:  # type: ignore[union-attr]
            cur = ctx.parent(p)  # type: ignore[assignment]
        else:
            return False
    return True

