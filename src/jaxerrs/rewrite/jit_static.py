"""Make a parameter static on the user's own ``jit``: the one implementation every rule family uses.

A count, a flag, a size or a loop bound that jit traces becomes a Python value again when its parameter
is static. Where and how a function is jitted is read by the shared analysis (:func:`find_jit`, re-exported
here): ``@jax.jit``, ``@jit``, ``@jax.jit(...)``, ``@partial(jax.jit, ...)``, ``f = jax.jit(g, ...)``,
``jax.jit(g)(...)``, and ``nnx.jit`` in each of those forms. Existing ``static_argnums``/``static_argnames`` are
extended consistently (with both keywords JAX maps neither onto the other, so both list everything).
Which parameters to make static, and when not to, stays with each rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxerrs.rewrite.analysis import (  # noqa: F401 - re-exported: rules import them from here
    JITS,
    NOPE,
    STATIC_JITS,
    JitSite,
    deco_kind,
    find_jit,
    is_jit,
    is_partial,
    jit_kind,
    name_of,
    param_names,
    py_literal,
    static_kw,
)
from jaxerrs.rewrite.cst_tools import keyword_arg

if TYPE_CHECKING:
    from jaxerrs.rewrite.context import Context


def tuple_code(vals: list[Any]) -> str:
    if len(vals) == 1 and isinstance(vals[0], int):
        return str(vals[0])
    body = ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in vals)
    return f"({body},)" if len(vals) == 1 else f"({body})"


def kwarg(name: str, code: str) -> cst.Arg:
    """``name=code`` as a call argument, spaced as keywords are (no spaces around ``=``)."""
    return keyword_arg(name, cst.parse_expression(code))


def set_kwargs(call: cst.Call, updates: dict[str, str]) -> cst.Call:
    """``call`` with each keyword of ``updates`` set to its code (replaced where present, else appended)."""
    args = list(call.args)
    for kw, code in updates.items():
        for i, a in enumerate(args):
            if a.keyword is not None and a.keyword.value == kw:
                args[i] = a.with_changes(value=cst.parse_expression(code))
                break
        else:
            args.append(kwarg(kw, code))
    return call.with_changes(args=args)


def make_static(ctx: Context, site: JitSite, add: list[str], prefer_nums: bool = False
                ) -> tuple[cst.BaseExpression, cst.BaseExpression, list[str | None]] | None:
    """(old node, new node, imports) that make the parameters ``add`` of ``site.fn`` static."""
    pos, kwonly = param_names(site.fn)
    if any(p not in pos and p not in kwonly for p in add):
        return None
    nums_r = static_kw(site.call, "static_argnums")
    names_r = static_kw(site.call, "static_argnames")
    if nums_r is None or names_r is None:
        return None
    nums, nums_arg = nums_r
    names, names_arg = names_r
    already = set(names) | {pos[i] for i in nums if -len(pos) <= i < len(pos)}
    new = [p for p in add if p not in already]
    if not new:
        return None
    updates: dict[str, str] = {}
    if nums_arg is not None or (prefer_nums and names_arg is None):
        # with both keywords JAX infers neither from the other: list every static parameter in both
        kw_new = [p for p in new if p not in pos]
        both = bool(kw_new) or names_arg is not None
        more = [pos.index(p) for p in new if p in pos]
        if both:
            more += [pos.index(p) for p in names if p in pos and pos.index(p) not in nums + more]
        updates["static_argnums"] = tuple_code(sorted(set(nums + more)))
        if both:
            named = names + [pos[i] for i in nums + more if -len(pos) <= i < len(pos) and pos[i] not in names]
            updates["static_argnames"] = tuple_code(named + [p for p in kw_new if p not in named])
    else:
        updates["static_argnames"] = tuple_code(names + new)
    if site.call is not None:
        return site.call, set_kwargs(site.call, updates), []
    part, imp = ctx.need("functools.partial", "partial")
    new_call = cst.Call(func=cst.parse_expression(part), args=[cst.Arg(site.jit_ref)])
    return site.node, set_kwargs(new_call, updates), [imp]
