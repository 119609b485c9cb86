"""Functions that return ``(loss, aux)`` under ``grad``: ``has_aux=True`` and the pair it returns."""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import function_elsewhere
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import keyword_arg, positional_args
from jaxerrs.rewrite.rules.autodiff.common import (
    _AUX_GRADS,
    _JACS,
    _add_arg,
    _bare,
    _drop_arg,
    _edit,
    _grad_use,
    _is_true,
    _kw,
    _name_in_use,
    _ret_value,
    _returns,
    _rule,
    _stmt_of,
    _target_fn,
    _tuple,
    _unparen_tuple,
    _with_value,
)

# ---------------------------------------------------------------------------------------------- has_aux


def _pick_aux(ctx: Context, fn: cst.CSTNode, second: cst.BaseExpression) -> str | None:
    names = [second.value] if isinstance(second, cst.Name) and second.value not in ("self", "_") else []
    for cand in [*names, "aux", "aux_out", "aux_data"]:
        if not _name_in_use(ctx, cand, outside=fn):
            return cand
    return None


@_rule("grad-has-aux")
def grad_has_aux(ctx: Context) -> Edit | None:
    """A function returning ``(loss, aux)``: pass ``has_aux=True`` and unpack the extra output at the call site.

    The function may be defined in an earlier cell: only its returns are read there, the edit is in this one."""
    use = _grad_use(ctx, _AUX_GRADS)
    if use is None or _kw(use.make, "has_aux") is not None:
        return None
    fn_arg = positional_args(use.make)
    if not fn_arg:
        return None
    fn, name = _target_fn(ctx, fn_arg[0].value)
    if fn is None and (elsewhere := function_elsewhere(ctx, fn_arg[0].value)) is not None:
        fn, name = elsewhere[1].node, elsewhere[1].ref or name
    holders = _returns(fn) if fn is not None else None
    if fn is None or holders is None:
        return None
    values = [_ret_value(h) for h in holders]
    if not all(isinstance(v, cst.Tuple) and len(v.elements) == 2
               and not any(isinstance(e, cst.StarredElement) for e in v.elements) for v in values):
        return None
    aux = _pick_aux(ctx, fn, values[0].elements[1].value)  # type: ignore[attr-defined]
    if aux is None:
        return None
    new_make = _add_arg(use.make, keyword_arg("has_aux", cst.Name("True")))
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    if use.via is not None:
        pairs.append((use.make, new_make))
        new_apply: cst.BaseExpression = use.apply
    else:
        new_apply = use.apply.deep_replace(use.make, new_make)  # type: ignore[assignment]
    stmt = _stmt_of(ctx, use.apply)
    label = f"`{name}`" if name else "the function"
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0].target
        if use.kind == "grad":
            new_target: cst.BaseExpression = _tuple([_unparen_tuple(target), cst.Name(aux)], parens=False)
        elif isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 and not any(
                isinstance(e, cst.StarredElement) for e in target.elements):
            first = target.elements[0].value
            if isinstance(first, (cst.Tuple, cst.List)) and len(first.elements) == 2 and not any(
                    isinstance(e, cst.StarredElement) for e in first.elements):
                # `(loss, acc), grads = value_and_grad(f)(...)`: already unpacked as (value, aux), grads
                new_stmt = stmt.with_changes(value=new_apply)
                pairs.append((stmt, new_stmt))
                return Edit(_edit(ctx, pairs), "review",
                            f"{label} returns (value, aux): `has_aux=True` differentiates the value only; the "
                            f"call already unpacks `{ctx.code(first)}` as (value, aux).")
            new_first = _tuple([_unparen_tuple(first), cst.Name(aux)])
            new_target = target.with_changes(elements=[target.elements[0].with_changes(value=new_first),
                                                       target.elements[1]])
        else:
            return None
        new_stmt = stmt.with_changes(targets=[stmt.targets[0].with_changes(target=new_target)], value=new_apply)
        pairs.append((stmt, new_stmt))
        where = f"its second output is now bound to `{aux}`"
    elif use.kind == "grad":
        pairs.append((use.apply, cst.Subscript(new_apply, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])))
        where = "`[0]` keeps only the gradient"
    else:
        return None
    return Edit(_edit(ctx, pairs), "review",
                f"{label} returns (value, aux): `has_aux=True` differentiates the value only; {where}.")


@_rule("grad-aux-pair")
def grad_aux_pair(ctx: Context) -> Edit | None:
    """``has_aux=True`` with 3+ outputs: group the extras into one aux tuple; with a single output: drop has_aux.

    Only dropping ``has_aux`` can be ``safe``: the function returns one scalar (checked: no return is a
    tuple, list or dict, and the message's tangent type is a scalar), so ``grad(f)`` differentiates that
    same value, and the aux slot of the unpacking was ``_`` (nothing read it). With a named aux slot the
    name is no longer bound, and grouping outputs changes what other callers receive: ``review``.
    """
    use = _grad_use(ctx, {**_AUX_GRADS, **_JACS})
    if use is None:
        return None
    kw = _kw(use.make, "has_aux")
    fn_arg = positional_args(use.make)
    if kw is None or not _is_true(kw.value) or not fn_arg:
        return None
    fn, name = _target_fn(ctx, fn_arg[0].value)
    holders = _returns(fn) if fn is not None else None
    if fn is None or holders is None:
        return None
    values = [_ret_value(h) for h in holders]
    stmt = _stmt_of(ctx, use.apply)
    target = stmt.targets[0].target if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 else None
    label = f"`{name}`" if name else "the function"
    sizes = {len(v.elements) if isinstance(v, cst.Tuple) else 0 for v in values}
    if len(sizes) == 1 and min(sizes) >= 3 and all(
            not any(isinstance(e, cst.StarredElement) for e in v.elements) for v in values):  # type: ignore[attr-defined]
        n = min(sizes)
        pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        for h, v in zip(holders, values, strict=True):
            els = [e.value for e in v.elements]  # type: ignore[attr-defined]
            pairs.append((h, _with_value(h, v.with_changes(elements=[  # type: ignore[attr-defined]
                cst.Element(els[0]), cst.Element(_tuple(els[1:]))]))))
        flat = None
        if use.kind != "value_and_grad":
            flat = target if isinstance(target, cst.Tuple) and len(target.elements) == n else None
        elif isinstance(target, cst.Tuple) and len(target.elements) == 2:
            first = target.elements[0].value
            flat = first if isinstance(first, cst.Tuple) and len(first.elements) == n else None
        if flat is not None:
            if any(isinstance(e, cst.StarredElement) for e in flat.elements):
                return None
            ts = [e.value for e in flat.elements]
            pairs.append((flat, flat.with_changes(elements=[cst.Element(ts[0]), cst.Element(_tuple(ts[1:]))])))
        return Edit(_edit(ctx, pairs), "review",
                    f"{label} now returns (value, ({', '.join(['…'] * (n - 1))})): the extra outputs are grouped "
                    "as one aux tuple; other callers of it see the new grouping.")
    if sizes != {0} or any(isinstance(v, (cst.List, cst.Dict)) for v in values) or "tuple" in ctx.values.get(
            "type", "") or "list" in ctx.values.get("type", ""):
        return None
    # a single output: there is no aux; drop has_aux and the aux slot of the unpacking
    dims = re.search(r"typeof\(tangent\)=\w+\[([^\]]*)\]", ctx.values.get("ans", "") or ctx.message)
    if dims is None or dims.group(1).strip():
        return None  # not a plain scalar: perhaps value and aux packed into one array
    new_make = _drop_arg(use.make, kw)
    aux_t: cst.BaseExpression | None = None
    if use.kind != "value_and_grad" and isinstance(target, cst.Tuple) and len(target.elements) == 2:
        new_target: cst.BaseExpression = _bare(target.elements[0].value)
        aux_t = target.elements[1].value
    elif use.kind == "value_and_grad" and isinstance(target, cst.Tuple) and len(target.elements) == 2 and \
            isinstance(target.elements[0].value, cst.Tuple) and len(target.elements[0].value.elements) == 2:
        inner = target.elements[0].value
        aux_t = inner.elements[1].value
        new_target = target.with_changes(elements=[target.elements[0].with_changes(value=inner.elements[0].value),
                                                   target.elements[1]])
    else:
        return None
    if not isinstance(aux_t, cst.Name) or (aux_t.value != "_" and len(ctx.nodes(m.Name(aux_t.value))) > 1):
        return None  # the aux value is used: the function must return it, which only its author knows
    assert isinstance(stmt, cst.Assign)
    new_apply = use.apply if use.via is not None else use.apply.deep_replace(use.make, new_make)
    pairs = [(stmt, stmt.with_changes(targets=[stmt.targets[0].with_changes(target=new_target)], value=new_apply))]
    if use.via is not None:
        pairs.append((use.make, new_make))
    safety = "safe" if aux_t.value == "_" else "review"
    extra = "" if aux_t.value == "_" else f"; `{aux_t.value}` is no longer bound"
    return Edit(_edit(ctx, pairs), safety,
                f"{label} returns no aux output, so `has_aux=True` is dropped with the unused aux slot{extra}.")
