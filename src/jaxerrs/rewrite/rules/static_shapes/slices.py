"""``x[i:i + k]`` with a traced start and a static length -> ``lax.dynamic_slice_in_dim``."""

from __future__ import annotations

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import (
    kwarg,
)
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.rules.static_shapes.common import _lookup, _names_in, _within
from jaxerrs.rewrite.values import is_tracer

# ---------------------------------------------------------------------------------------------- dynamic-slice


def _linear(e: cst.BaseExpression) -> dict[str, int] | None:
    """``e`` as a sum of atoms with integer coefficients ('' is the constant), for simple index arithmetic."""
    if isinstance(e, cst.Integer):
        return {"": int(e.evaluated_value)}
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
        inner = _linear(e.expression)
        return None if inner is None else {k: -v for k, v in inner.items()}
    if isinstance(e, cst.BinaryOperation):
        a, b = _linear(e.left), _linear(e.right)
        if a is None or b is None:
            return None
        if isinstance(e.operator, (cst.Add, cst.Subtract)):
            sign = 1 if isinstance(e.operator, cst.Add) else -1
            out = dict(a)
            for k, v in b.items():
                out[k] = out.get(k, 0) + sign * v
            return {k: v for k, v in out.items() if v != 0}
        if isinstance(e.operator, cst.Multiply):
            if set(a) <= {""} or set(b) <= {""}:
                c, other = (a.get("", 0), b) if set(a) <= {""} else (b.get("", 0), a)
                return {k: c * v for k, v in other.items() if c * v != 0}
            if len(a) == 1 and len(b) == 1:
                (ka, va), (kb, vb) = next(iter(a.items())), next(iter(b.items()))
                return {"*".join(sorted([ka, kb])): va * vb}
            # distribute (i + 1) * k
            out2: dict[str, int] = {}
            for ka, va in a.items():
                for kb, vb in b.items():
                    key = "*".join(sorted(x for x in (ka, kb) if x))
                    out2[key] = out2.get(key, 0) + va * vb
            return {k: v for k, v in out2.items() if v != 0}
        return None
    code = cst.Module([]).code_for_node(e.with_changes(lpar=[], rpar=[]) if hasattr(e, "lpar") else e)
    return {code: 1}


def _static_atom(ctx: Context, code: str) -> cst.BaseExpression | None:
    """An expression for a static length named ``code`` (a Python int in scope, or a ``.shape`` entry)."""
    try:
        e = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return None
    if isinstance(e, cst.Name):
        v = _lookup(ctx, e.value)
        return e if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name):
        # ``self.context``: read the instance's own __dict__ only (no properties run)
        owner = _lookup(ctx, e.value.value)
        v = getattr(owner, "__dict__", {}).get(e.attr.value) if owner is not None else None
        return e if isinstance(v, int) and not isinstance(v, bool) and not is_tracer(owner) else None
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape":
        return e
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "len":
        return e
    return None


def _traced_bounds(ctx: Context, s: cst.BaseSlice) -> bool:
    """Whether a bound of the slice ``s`` reads a name whose live value is a tracer."""
    return isinstance(s, cst.Slice) and any(b is not None and any(is_tracer(_lookup(ctx, n)) for n in _names_in(b))
                                            for b in (s.lower, s.upper, s.step))


def _traced_slice(ctx: Context, sub: cst.Subscript) -> bool:
    return any(_traced_bounds(ctx, el.slice) for el in sub.slice)


def detect_traced_slice(ctx: Context, key: object = None) -> Found | None:
    """With a key ``("slice", code)``: where the cell still slices that way."""
    if key is None or ctx.module is None:
        return None
    return Found(key, fixable=[s for s in ctx.nodes(cst.Subscript) if ctx.code(s) == key[1]])  # type: ignore[index]


def siblings_traced_slice(ctx: Context) -> list[object]:
    """The failing function's other slices by the same traced values (``yw = y[i:i + w]`` beside
    ``xw = x[i:i + w]``): the frame is theirs too, so their bounds are tracers there as well."""
    stmt = ctx.statement()
    fn = ctx.enclosing(stmt, cst.FunctionDef) if stmt is not None else None
    if fn is None:
        return []
    return list(dict.fromkeys(("slice", ctx.code(s)) for s in ctx.nodes(cst.Subscript) if isinstance(s, cst.Subscript)
                              and ctx.enclosing(s, cst.FunctionDef) is fn and not _within(ctx, s, stmt)
                              and _traced_slice(ctx, s)))


@rule("dynamic-slice", detect=detect_traced_slice, siblings=siblings_traced_slice)
def dynamic_slice(ctx: Context) -> Edit | None:
    """``x[i:i + k]`` (traced ``i``, static ``k``) -> ``lax.dynamic_slice_in_dim(x, i, k)``.

    Always ``review``: the two agree only while ``0 <= i`` and ``i + k <= len(x)``, which depends on the
    traced value. Past the end Python's slice is shorter, the dynamic slice is moved back to fit.
    """
    stmt = ctx.statement()
    if stmt is None:
        return None
    found = []
    for sub in ctx.nodes(cst.Subscript):
        assert isinstance(sub, cst.Subscript)
        if not _within(ctx, sub, stmt):
            continue
        for i, el in enumerate(sub.slice):
            if _traced_bounds(ctx, el.slice):
                found.append((sub, i))
    if len(found) != 1:
        return None
    sub, axis = found[0]
    s = sub.slice[axis].slice
    assert isinstance(s, cst.Slice)
    if s.lower is None or s.upper is None or s.step is not None:
        return None
    for j, el in enumerate(sub.slice):
        o = el.slice
        if j != axis and not (isinstance(o, cst.Slice) and o.lower is None and o.upper is None and o.step is None):
            return None
    lo, hi = _linear(s.lower), _linear(s.upper)
    if lo is None or hi is None:
        return None
    diff = dict(hi)
    for k, v in lo.items():
        diff[k] = diff.get(k, 0) - v
    diff = {k: v for k, v in diff.items() if v != 0}
    size: cst.BaseExpression | None
    if set(diff) == {""} and diff[""] > 0:
        size = cst.Integer(str(diff[""]))
    elif len(diff) == 1 and next(iter(diff.values())) == 1:
        size = _static_atom(ctx, next(iter(diff)))
    else:
        size = None
    if size is None:
        return None
    lax, imp = ctx.need("jax.lax", "lax")
    args = [cst.Arg(sub.value), cst.Arg(s.lower.with_changes(lpar=[], rpar=[]) if isinstance(
        s.lower, cst.BinaryOperation) else s.lower), cst.Arg(size)]
    if axis:
        args.append(kwarg("axis", str(axis)))
    new = cst.Call(func=cst.parse_expression(f"{lax}.dynamic_slice_in_dim"), args=args)
    base, start, k = ctx.code(sub.value), ctx.code(s.lower), cst.Module([]).code_for_node(size)
    return Edit(ctx.replace(sub, new, imports=[imp]), "review",
                f"`{base}[{start}:...]` became `dynamic_slice_in_dim`: a window of static length {k} "
                f"at a traced start; check that `{start}` stays within [0, len - {k}] (a start too close to the "
                "end is moved back so the window fits, where the slice would be shorter).")
