"""A donated buffer read after the call that donated it."""

from __future__ import annotations

import re
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import own_returns
from jaxerrs.rewrite.jit_static import NOPE, is_jit, py_literal
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.shapes_trees.common import (
    _PUBLIC,
    _binding_before,
    _expr_names,
    _has_kw,
    _lambda_param,
    _line_of,
    _single,
    _statement,
)
from jaxerrs.rewrite.values import MISSING, live_value

# ----------------------------------------------------------------------------- donated-reuse


def _deleted(v: Any) -> bool:
    """Whether ``v`` (an array or a pytree of them) holds a deleted or donated buffer."""
    import jax

    try:
        leaves = jax.tree.leaves(v)
    except Exception:  # noqa: BLE001
        return False
    for leaf in leaves[:1000]:
        try:
            if isinstance(leaf, jax.Array) and leaf.is_deleted():
                return True
        except Exception:  # noqa: BLE001
            continue
    return False


def _donated_positions(fn: Any) -> tuple[set[int], set[str]] | None:
    info = getattr(fn, "_jit_info", None)
    if info is None:
        return None
    return set(getattr(info, "donate_argnums", ()) or ()), set(getattr(info, "donate_argnames", ()) or ())


def _loop_of(ctx: Context, node: cst.CSTNode) -> cst.CSTNode | None:
    for a in ctx.ancestors(node):
        if isinstance(a, (cst.For, cst.While)):
            return a
        if isinstance(a, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return None
    return None


def _donation_of(ctx: Context, call: cst.Call) -> tuple[Any, set[int], set[str], cst.Call | None] | None:
    """(the jitted function or MISSING, donated positions, donated names, the ``jax.jit(...)`` call when it is
    the callee itself) for a call of a donating jitted function; None for other calls."""
    if isinstance(call.func, cst.Name):
        fn = live_value(ctx, call.func, attrs="instance-or-module")
        don = _donated_positions(fn) if fn is not MISSING else None
        return (fn, *don, None) if don and (don[0] or don[1]) else None
    if isinstance(call.func, cst.Call) and is_jit(ctx, call.func.func):
        nums: set[int] = set()
        names: set[str] = set()
        for a in call.func.args:
            if a.keyword is None or a.keyword.value not in ("donate_argnums", "donate_argnames"):
                continue
            v = py_literal(a.value)
            vals = list(v) if isinstance(v, (tuple, list)) else [v]
            if a.keyword.value == "donate_argnums" and all(isinstance(x, int) for x in vals):
                nums |= set(vals)
            elif a.keyword.value == "donate_argnames" and all(isinstance(x, str) for x in vals):
                names |= set(vals)
            else:
                return None
        return (MISSING, nums, names, call.func) if nums or names else None
    return None


def _fn_name(fn: Any, jit_call: cst.Call | None) -> str:
    if jit_call is not None and jit_call.args and isinstance(jit_call.args[0].value, cst.Name):
        return jit_call.args[0].value.value
    return getattr(fn, "__name__", "")


@rule("donated-reuse")
def donated_reuse(ctx: Context) -> Edit | None:
    """An array used after a jitted function donated it: rebind it to the output, or stop donating it.

    Every dead name of the failing line must be donated by the same call. In a loop that binds the outputs
    to new names (``new_w, new_v = step(w, v)``) and never carries them, the donated names are rebound to
    the outputs named after them; elsewhere the donation of those names stops.
    """
    stmt = _statement(ctx)
    if stmt is None or ctx.line is None:
        return None
    dead = {n.value for n in _expr_names(ctx, stmt) if not _lambda_param(ctx, n) and _deleted(live_value(ctx, n, attrs="instance-or-module"))}
    if not dead:
        return None
    sites = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        don = _donation_of(ctx, call)
        if don is None:
            continue
        fn, nums, names, jit_call = don
        hit = {a.value.value for i, a in enumerate(call.args) if isinstance(a.value, cst.Name) and a.value.value in dead
               and (a.keyword is None and i in nums or a.keyword is not None and a.keyword.value in names)}
        if not hit:
            continue
        start = ctx.span(call)[0]
        loop = _loop_of(ctx, call)
        repeats = loop is not None and ctx.span(loop)[0] <= ctx.line <= ctx.span(loop)[1]
        if start < ctx.line or repeats:
            sites.append((call, fn, loop if repeats else None, hit, jit_call))
    if len(sites) != 1:
        return None
    call, fn, loop, hit, jit_call = sites[0]
    if hit != dead:
        return None  # a dead name this call does not explain
    site = _line_of(ctx, call)
    small = _single(site)
    if small is None:
        return None
    name = _fn_name(fn, jit_call)
    if len(dead) == 1:
        p = next(iter(dead))
        # (a) the result was dropped: rebind the donated name to it
        if isinstance(small, cst.Expr) and small.value is call and _returns_n(ctx, fn, name) == 1:
            new = cst.Assign([cst.AssignTarget(cst.Name(p))], call)
            return Edit(ctx.replace(small, new), "review",
                        f"`{p}` is rebound to the result of `{ctx.code(call.func)}`, which consumed (donated) it; check "
                        f"that the function returns the new `{p}`.")
    # (b) a loop that computes the new values but keeps using the donated old ones
    if loop is not None and isinstance(small, cst.Assign) and small.value is call:
        edit = _carry_in_loop(ctx, loop, site, small, fn, name, sorted(dead))
        if edit is not None:
            return edit
    return _drop_donation(ctx, call, fn, sorted(dead), jit_call)


def _carry_in_loop(ctx: Context, loop: cst.CSTNode, site: cst.SimpleStatementLine, small: cst.Assign, fn: Any,
                   name: str, dead: list[str]) -> Edit | None:
    """``new_p = f(p)`` (or ``new_p, new_q = f(p, q)``) in a loop, never carried: ``p = new_p`` after it.

    Only when each new value is visibly the next state of the old one (its name contains the old one's), the
    old names are not assigned in the loop nor read there except by the donating call, and the new names are
    not read before the call in the loop body.
    """
    if len(small.targets) != 1:
        return None
    t = small.targets[0].target
    outs = [t] if isinstance(t, cst.Name) else [e.value for e in t.elements] if isinstance(t, cst.Tuple) else []
    if not outs or not all(isinstance(o, cst.Name) for o in outs) or _returns_n(ctx, fn, name) != (
            1 if isinstance(t, cst.Name) else len(outs)):
        return None
    qs = [o.value for o in outs]  # type: ignore[attr-defined]
    pairs = []
    call_start, call_end = ctx.span(small)
    for p in dead:
        match = [q for q in qs if q != p and re.search(rf"(^|_){re.escape(p.lower())}(_|$)", q.lower())]
        if not match:  # "newparams", "paramsNew": the name somewhere in it
            match = [q for q in qs if q != p and p.lower() in q.lower()]
        if len(match) != 1:
            return None
        q = match[0]
        if m.findall(loop, m.AssignTarget(target=m.Name(p)) | m.AugAssign(target=m.Name(p))
                     | m.For(target=m.Name(p))) or any(
                isinstance(e, cst.Element) and m.matches(e.value, m.Name(p)) for e in m.findall(loop, m.Element())
                if isinstance(ctx.parent(e), cst.Tuple) and isinstance(ctx.parent(ctx.parent(e)), cst.AssignTarget)):
            return None
        reads_p = [n for n in _expr_names(ctx, loop) if n.value == p and not call_start <= ctx.span(n)[0] <= call_end]
        reads_q = [n for n in _expr_names(ctx, loop) if n.value == q and ctx.span(n)[0] < call_start
                   and not isinstance(ctx.parent(n), cst.AssignTarget)]
        if reads_p or reads_q:
            return None
        pairs.append((p, q))
    pairs.sort(key=lambda pq: qs.index(pq[1]))
    lhs = ", ".join(p for p, _ in pairs)
    rhs = ", ".join(q for _, q in pairs)
    rebind = cst.parse_statement(f"{lhs} = {rhs}\n")
    what = ", ".join(f"`{p}`" for p, _ in pairs)
    return Edit(ctx.replace(site, cst.FlattenSentinel([site, rebind])), "review",
                f"the loop now carries `{lhs} = {rhs}` forward: `{name or ctx.code(small.value.func)}` donates "  # type: ignore[attr-defined]
                f"{what}, so the old value is gone after each call; check that each step should start from the "
                "last one.")


def _returns_n(ctx: Context, fn: Any, name: str) -> int | None:
    """How many values the donating function visibly returns: 1 (not a tuple literal), n (a tuple literal
    of n items in every return), None when unknown or mixed."""
    node = ctx.function_named(name) if name else None
    rets = own_returns(node) if node is not None else None
    if rets is None:
        import inspect
        import textwrap

        try:
            src = textwrap.dedent(inspect.getsource(getattr(fn, "__wrapped__", fn)))
            tree = cst.parse_module(src)
        except Exception:  # noqa: BLE001
            return None
        defs = [d for d in m.findall(tree, m.FunctionDef(name=m.Name(name)))]
        if len(defs) != 1:
            return None
        rets = own_returns(defs[0])  # type: ignore[arg-type]
    if not rets or any(r.value is None for r in rets):
        return None
    counts = {len(r.value.elements) if isinstance(r.value, cst.Tuple) else 1 for r in rets}  # type: ignore[union-attr]
    return counts.pop() if len(counts) == 1 else None


def _returns_one(ctx: Context, fn: Any) -> bool:
    """Whether the donating function visibly returns one value (not a tuple literal)."""
    return _returns_n(ctx, fn, getattr(fn, "__name__", "")) == 1


def _signature_params(ctx: Context, fn: Any, name: str) -> list[str] | None:
    node = ctx.function_named(name) if name else None
    if node is not None:
        return [q.name.value for q in (*node.params.posonly_params, *node.params.params)]
    sig = getattr(getattr(fn, "_jit_info", None), "fun_signature", None)
    if sig is None:
        return None
    return [q.name for q in sig.parameters.values() if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]


def _donating_jit(ctx: Context, call: cst.Call, name: str, jit_call: cst.Call | None) -> cst.Call | None:
    """The ``jax.jit(...)``/``partial(jax.jit, ...)`` call in the cell that sets the donation of ``call``'s callee."""
    if jit_call is not None:
        return jit_call
    fnode = ctx.function_named(name) if name else None
    found = None
    if fnode is not None:
        for d in fnode.decorators:
            if isinstance(d.decorator, cst.Call) and (_has_kw(d.decorator, "donate_argnums")
                                                     or _has_kw(d.decorator, "donate_argnames")):
                found = d.decorator
    if found is None and isinstance(call.func, cst.Name):
        a = _binding_before(ctx, ctx.module, call.func.value, ctx.span(call)[0])  # type: ignore[arg-type]
        if a is not None and isinstance(a.value, cst.Call) and (_has_kw(a.value, "donate_argnums")
                                                                or _has_kw(a.value, "donate_argnames")):
            found = a.value
    return found


def _drop_donation(ctx: Context, call: cst.Call, fn: Any, dead: list[str], jit_call: cst.Call | None = None
                   ) -> Edit | None:
    """Stop donating the ``dead`` arguments: edit the jit that donates them, or pass copies at the call.

    A parameter is donated when its position is in ``donate_argnums`` or its name in ``donate_argnames``
    (JAX maps each onto the other through the signature), so it is removed from whichever the cell wrote.
    """
    name = _fn_name(fn, jit_call)
    params = _signature_params(ctx, fn, name)
    where: dict[str, tuple[int | None, str | None]] = {}  # dead name -> (position, parameter)
    for i, a in enumerate(call.args):
        if a.star or not isinstance(a.value, cst.Name) or a.value.value not in dead:
            continue
        if a.keyword is None:
            where[a.value.value] = (i, params[i] if params is not None and i < len(params) else None)
        else:
            kw = a.keyword.value
            where[a.value.value] = (params.index(kw) if params is not None and kw in params else None, kw)
    if set(where) != set(dead):
        return None
    jc = _donating_jit(ctx, call, name, jit_call)
    if jc is not None:
        args = list(jc.args)
        kept: dict[str, list[Any]] = {}
        for kw in ("donate_argnums", "donate_argnames"):
            arg = next((a for a in args if a.keyword is not None and a.keyword.value == kw), None)
            if arg is None:
                kept[kw] = []
                continue
            v = py_literal(arg.value)
            if v is NOPE:
                return None
            vals = list(v) if isinstance(v, (tuple, list)) else [v]
            drop = {pos for pos, _ in where.values()} if kw == "donate_argnums" else {q for _, q in where.values()}
            rest = [x for x in vals if x not in drop]
            kept[kw] = rest
            if rest == vals:
                continue
            if rest:
                code = repr(rest[0]) if len(rest) == 1 else "(" + ", ".join(map(repr, rest)) + ")"
                args[args.index(arg)] = arg.with_changes(value=cst.parse_expression(code))
            else:
                args.remove(arg)
        for pos, q in where.values():  # every dead argument must be donated by neither keyword now
            if pos is None and q is None or pos in kept["donate_argnums"] or q in kept["donate_argnames"]:
                return None
            if params is None and (kept["donate_argnums"] and q is not None and pos is None
                                   or kept["donate_argnames"] and pos is not None and q is None):
                return None  # without the signature one keyword cannot be read through the other
        if args == list(jc.args):
            return None
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new: cst.BaseExpression = jc.with_changes(args=args)
        if (len(args) == 1 and full_name(ctx, jc.func, modules=_PUBLIC, keep=True, methods=True) == "functools.partial"
                and full_name(ctx, args[0].value, modules=_PUBLIC, keep=True, methods=True) == "jax.jit"):
            new = args[0].value
        shown = ", ".join(f"`{p}`" for p in dead)
        one = len(dead) == 1
        return Edit(ctx.replace(jc, new), "review",
                    f"`{name}` no longer donates {shown}, so {'it stays' if one else 'they stay'} usable after the "
                    "call; this uses more memory (input and output are both kept).")
    jnp_name, imp = ctx.need("jax.numpy", "jnp")
    pairs = [(a.value, cst.parse_expression(f"{jnp_name}.copy({a.value.value})")) for a in call.args
             if isinstance(a.value, cst.Name) and a.value.value in dead]
    shown = ", ".join(f"`{p}`" for p in dead)
    return Edit(ctx.replace_many(pairs, imports=[imp]), "review",
                f"`{name}` gets a copy of {shown} to donate, so the original stays usable; this uses more memory.")
