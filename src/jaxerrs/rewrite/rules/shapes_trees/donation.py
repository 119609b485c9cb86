"""A donated buffer read after the call that donated it."""

from __future__ import annotations

from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import own_returns
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
from jaxerrs.rewrite.values import MISSING, literal, live_value

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


@rule("donated-reuse")
def donated_reuse(ctx: Context) -> Edit | None:
    """An array used after a jitted function donated it: rebind it to the output, or stop donating it."""
    stmt = _statement(ctx)
    if stmt is None or ctx.line is None:
        return None
    dead = {n.value for n in _expr_names(ctx, stmt) if not _lambda_param(ctx, n) and _deleted(live_value(ctx, n, attrs="instance-or-module"))}
    if len(dead) != 1:
        return None
    p = dead.pop()
    sites = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        fn = live_value(ctx, call.func, attrs="instance-or-module") if isinstance(call.func, cst.Name) else MISSING
        don = _donated_positions(fn) if fn is not MISSING else None
        if not don:
            continue
        hit = [i for i, a in enumerate(call.args) if a.keyword is None and i in don[0]
               and m.matches(a.value, m.Name(p))] + [a for a in call.args if a.keyword is not None
                                                     and a.keyword.value in don[1] and m.matches(a.value, m.Name(p))]
        if not hit:
            continue
        start = ctx.span(call)[0]
        loop = _loop_of(ctx, call)
        repeats = loop is not None and ctx.span(loop)[0] <= ctx.line <= ctx.span(loop)[1]
        if start < ctx.line or repeats:
            sites.append((call, fn, loop if repeats else None))
    if len(sites) != 1:
        return None
    call, fn, loop = sites[0]
    site = _line_of(ctx, call)
    small = _single(site)
    if small is None:
        return None
    # (a) the result was dropped: rebind the donated name to it
    if isinstance(small, cst.Expr) and small.value is call and _returns_one(ctx, fn):
        new = cst.Assign([cst.AssignTarget(cst.Name(p))], call)
        return Edit(ctx.replace(small, new), "review",
                    f"`{p}` is rebound to the result of `{ctx.code(call.func)}`, which consumed (donated) it; check "
                    f"that the function returns the new `{p}`.")
    # (b) a loop that computes the new value but keeps using the donated old one
    if (loop is not None and isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name) and _returns_one(ctx, fn)):
        q = small.targets[0].target.value
        assigned_p = m.findall(loop, m.AssignTarget(target=m.Name(p)) | m.AugAssign(target=m.Name(p)))
        reads_q = [n for n in _expr_names(ctx, loop) if n.value == q and not isinstance(ctx.parent(n), cst.AssignTarget)]
        # only when the new value is visibly the next state of the old one (params -> new_params)
        if not assigned_p and not reads_q and q != p and p.lower() in q.lower():
            rebind = cst.parse_statement(f"{p} = {q}\n")
            return Edit(ctx.replace(site, cst.FlattenSentinel([site, rebind])), "review",
                        f"the loop now carries `{p} = {q}` forward: `{ctx.code(call.func)}` donates `{p}`, so the "
                        f"old value is gone after each call; check that each step should start from the last one.")
    return _drop_donation(ctx, call, fn, p)


def _returns_one(ctx: Context, fn: Any) -> bool:
    """Whether the donating function visibly returns one value (not a tuple literal)."""
    name = getattr(fn, "__name__", "")
    node = ctx.function_named(name) if name else None
    rets = own_returns(node) if node is not None else None
    if rets is None:
        import inspect
        import textwrap

        try:
            src = textwrap.dedent(inspect.getsource(getattr(fn, "__wrapped__", fn)))
            tree = cst.parse_module(src)
        except Exception:  # noqa: BLE001
            return False
        defs = [d for d in m.findall(tree, m.FunctionDef(name=m.Name(name)))]
        if len(defs) != 1:
            return False
        rets = own_returns(defs[0])  # type: ignore[arg-type]
    return bool(rets) and all(r.value is not None and not isinstance(r.value, cst.Tuple) for r in rets)


def _drop_donation(ctx: Context, call: cst.Call, fn: Any, p: str) -> Edit | None:
    """Stop donating ``p``: edit the jit that donates it, or pass a copy at the call."""
    name = getattr(fn, "__name__", "")
    fnode = ctx.function_named(name) if name else None
    index = next((i for i, a in enumerate(call.args) if a.keyword is None and m.matches(a.value, m.Name(p))), None)
    jit_call = None
    if fnode is not None:
        for d in fnode.decorators:
            if isinstance(d.decorator, cst.Call) and _has_kw(d.decorator, "donate_argnums"):
                jit_call = d.decorator
    if jit_call is None and isinstance(call.func, cst.Name):
        a = _binding_before(ctx, ctx.module, call.func.value, ctx.span(call)[0])  # type: ignore[arg-type]
        if a is not None and isinstance(a.value, cst.Call) and _has_kw(a.value, "donate_argnums"):
            jit_call = a.value
    if jit_call is not None and index is not None:
        arg = next(a for a in jit_call.args if a.keyword is not None and a.keyword.value == "donate_argnums")
        v = arg.value
        nums = [literal(e.value) for e in v.elements] if isinstance(v, (cst.Tuple, cst.List)) else [literal(v)]
        if MISSING in nums or index not in nums:
            return None
        rest = [n for n in nums if n != index]
        args = list(jit_call.args)
        if rest:
            val = cst.parse_expression(str(rest[0]) if len(rest) == 1 else "(" + ", ".join(map(str, rest)) + ")")
            args[args.index(arg)] = arg.with_changes(value=val)
        else:
            args.remove(arg)
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new: cst.BaseExpression = jit_call.with_changes(args=args)
        if (len(args) == 1 and full_name(ctx, jit_call.func, modules=_PUBLIC, keep=True, methods=True) == "functools.partial"
                and full_name(ctx, args[0].value, modules=_PUBLIC, keep=True, methods=True) == "jax.jit"):
            new = args[0].value
        return Edit(ctx.replace(jit_call, new), "review",
                    f"`{name}` no longer donates `{p}`, so `{p}` stays usable after the call; this uses more memory "
                    "(input and output are both kept).")
    jnp_name, imp = ctx.need("jax.numpy", "jnp")
    arg_node = call.args[index].value if index is not None else None
    if arg_node is None:
        return None
    copy = cst.parse_expression(f"{jnp_name}.copy({p})")
    return Edit(ctx.replace(arg_node, copy, imports=[imp]), "review",
                f"`{name}` gets a copy of `{p}` to donate, so `{p}` itself stays usable; this uses more memory.")
