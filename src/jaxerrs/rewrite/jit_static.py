"""Make a parameter static on the user's own ``jit``: the one implementation every rule family uses.

A count, a flag, a size or a loop bound that jit traces becomes a Python value again when its parameter
is static. The jit can be written ``@jax.jit``, ``@jit``, ``@jax.jit(...)``, ``@partial(jax.jit, ...)``,
``f = jax.jit(g, ...)`` or ``jax.jit(g)(...)``; existing ``static_argnums``/``static_argnames`` are
extended consistently (with both keywords JAX maps neither onto the other, so both list everything).
Which parameters to make static, and when not to, stays with each rule.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxerrs.rewrite.cst_tools import keyword_arg
from jaxerrs.rewrite.names import full_name

if TYPE_CHECKING:
    from jaxerrs.rewrite.context import Context

NOPE: Any = object()  # an expression that is not a Python literal


@dataclass
class JitSite:
    """Where the user's function is jitted and how it is called."""

    fn: cst.FunctionDef
    node: cst.BaseExpression  # what to replace: the decorator expression or the ``jax.jit(g, ...)`` call
    call: cst.Call | None  # the call that carries the keywords (None for a bare ``@jax.jit``)
    jit_ref: cst.BaseExpression  # ``jax.jit`` / ``jit`` as the cell spells it
    names: list[str] = field(default_factory=list)  # names the jitted function is called by
    inline: cst.Call | None = None  # ``jax.jit(g)(...)``
    method: bool = False  # the call sites are ``obj.name(...)``
    decorator: cst.Decorator | None = None  # the decorator, for a decorated function
    direct: bool = True  # ``jax.jit(g)`` itself, not ``jax.jit(grad(g))``


def is_jit(ctx: Context, node: cst.CSTNode) -> bool:
    return full_name(ctx, node, keep=True) == "jax.jit"


def is_partial(ctx: Context, node: cst.CSTNode) -> bool:
    return full_name(ctx, node, keep=True) == "functools.partial"


def deco_kind(ctx: Context, e: cst.BaseExpression) -> tuple[cst.Call | None, cst.BaseExpression] | None:
    """(the call that carries the keywords, the jit expression) for a jit decorator; None for others.

    ``@jax.jit`` gives (None, ``jax.jit``); ``@jax.jit(...)`` and ``@partial(jax.jit, ...)`` give the call.
    """
    if is_jit(ctx, e):
        return None, e
    if isinstance(e, cst.Call):
        pos = [a for a in e.args if a.keyword is None]
        if is_jit(ctx, e.func) and not pos and all(a.star == "" for a in e.args):
            return e, e.func
        if is_partial(ctx, e.func) and len(pos) == 1 and e.args[0] is pos[0] and is_jit(ctx, pos[0].value) \
                and all(a.star == "" for a in e.args):
            return e, pos[0].value
    return None


def name_of(e: cst.CSTNode) -> str:
    return e.value if isinstance(e, cst.Name) else ""


def find_jit(ctx: Context, fn: cst.FunctionDef, others: bool = False, anywhere: bool = False,
             reaches: Callable[[cst.BaseExpression], bool] | None = None) -> JitSite | None:
    """The single place where ``fn`` is jitted in the cell, or None (not jitted, jitted twice, unusual).

    ``others``: other decorators may sit beside the jit, and a ``jax.jit(fn)`` call is looked for even
    then; ``anywhere``: a ``jax.jit(fn, ...)`` call counts wherever it stands (not only assigned to a name
    or called at once); ``reaches``: what counts as ``fn`` in ``jax.jit(X)`` (``grad(fn)``, an alias).
    """
    decos = list(fn.decorators)
    jits = [(d, k) for d, k in ((d, deco_kind(ctx, d.decorator)) for d in decos) if k is not None]
    name = fn.name.value
    in_class = isinstance(ctx.parent(ctx.parent(fn) or fn), cst.ClassDef)
    found: list[JitSite] = []
    if jits:
        if len(jits) != 1 or (len(decos) != 1 and not others):
            return None
        d, (call, ref) = jits[0]
        found.append(JitSite(fn, d.decorator, call, ref, [name], method=in_class, decorator=d))
        if not others:
            return found[0]
    elif (decos or in_class) and not others:
        return None
    target = reaches or (lambda e: name_of(e) == name)
    calls = [c for c in ctx.nodes(cst.Call) if is_jit(ctx, c.func) and c.args  # type: ignore[attr-defined]
             and c.args[0].keyword is None and not c.args[0].star and target(c.args[0].value)]  # type: ignore
    for call in calls:
        assert isinstance(call, cst.Call)
        if any(a.keyword is None or a.star for a in call.args[1:]):
            return None
        direct = name_of(call.args[0].value) == name
        parent = ctx.parent(call)
        if isinstance(parent, cst.Call) and parent.func is call:
            found.append(JitSite(fn, call, call, call.func, [], inline=parent, direct=direct))
        elif isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(
                parent.targets[0].target, cst.Name):
            found.append(JitSite(fn, call, call, call.func, [parent.targets[0].target.value], direct=direct))
        elif anywhere:
            found.append(JitSite(fn, call, call, call.func, [], direct=direct))
        else:
            return None
    return found[0] if len(found) == 1 else None


def param_names(fn: cst.FunctionDef) -> tuple[list[str], list[str]]:
    """(positional parameter names in order, keyword-only names)."""
    pos = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    return pos, [p.name.value for p in fn.params.kwonly_params]


def py_literal(e: cst.BaseExpression) -> Any:
    """The Python value of a literal expression (numbers, strings, tuples, lists...), or NOPE."""
    try:
        return ast.literal_eval(cst.Module([]).code_for_node(e))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NOPE


def static_kw(call: cst.Call | None, kw: str) -> tuple[list[Any], cst.Arg | None] | None:
    """``static_argnums``/``static_argnames`` on ``call`` (values as a list, its Arg); None if unreadable."""
    if call is None:
        return [], None
    for a in call.args:
        if a.keyword is not None and a.keyword.value == kw:
            v = py_literal(a.value)
            if v is NOPE:
                return None
            if v is None:
                return [], a
            vals = list(v) if isinstance(v, (tuple, list)) else [v]
            if kw.endswith("nums") and not all(isinstance(x, int) for x in vals):
                return None
            if kw.endswith("names") and not all(isinstance(x, str) for x in vals):
                return None
            return vals, a
    return [], None


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
