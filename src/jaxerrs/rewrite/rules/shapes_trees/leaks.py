"""Tracers leaked out of a transformed function into globals or lists."""

from __future__ import annotations

from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.shapes_trees.common import (
    _PUBLIC,
    _expr_names,
    _final_return,
    _free_name,
    _in_def,
    _lambda_param,
    _line_of,
    _single,
    _statement,
    _transformed,
    _tuple,
)
from jaxerrs.rewrite.values import MISSING, is_tracer, live_value

# ----------------------------------------------------------------------------- leaked-tracer


def _call_sites(ctx: Context, fn: cst.FunctionDef) -> list[cst.Call] | None:
    """Every call of ``fn`` (directly, or through ``g = jax.jit(fn)``); None if ``fn`` is used otherwise."""
    names = {fn.name.value}
    for a in ctx.nodes(cst.Assign):
        assert isinstance(a, cst.Assign)
        if (isinstance(a.value, cst.Call) and len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name)
                and any(isinstance(x.value, cst.Name) and x.value.value == fn.name.value for x in a.value.args)):
            names.add(a.targets[0].target.value)
    calls = []
    for n in _expr_names(ctx, ctx.module):  # type: ignore[arg-type]
        if n.value not in names or ctx.enclosing(n, cst.FunctionDef) is fn:
            continue
        p = ctx.parent(n)
        if isinstance(p, cst.Call) and p.func is n:
            calls.append(p)
        elif isinstance(p, cst.Arg) and isinstance(ctx.parent(p), cst.Call):
            outer = ctx.parent(p)
            assert isinstance(outer, cst.Call)
            if not full_name(ctx, outer.func, modules=_PUBLIC, keep=True, methods=True).endswith("jit"):
                return None
            gp = ctx.parent(outer)
            if isinstance(gp, cst.Call) and gp.func is outer:
                calls.append(gp)
            elif not (isinstance(gp, cst.Assign) and len(gp.targets) == 1):
                return None
        elif isinstance(p, (cst.Decorator, cst.AssignTarget)):
            continue
        elif not (isinstance(p, cst.FunctionDef) and p is fn):
            return None
    return calls


def _leaks_on_line(ctx: Context, stmt: cst.CSTNode) -> set[tuple[str, str]]:
    out = set()
    for n in _expr_names(ctx, stmt):
        v = live_value(ctx, n, attrs="instance-or-module") if not _lambda_param(ctx, n) else MISSING
        if is_tracer(v):
            out.add(("global", n.value))
        elif isinstance(v, list) and any(is_tracer(x) for x in v):
            out.add(("list", n.value))
    for a in m.findall(stmt, m.Attribute(value=m.Name())):
        assert isinstance(a, cst.Attribute)
        if is_tracer(live_value(ctx, a, attrs="instance-or-module")):
            out.add(("attr", f"{ctx.code(a.value)}.{a.attr.value}"))
    return out


def _leaks_in_namespace(ctx: Context) -> set[tuple[str, str]]:
    """Globals of the cell's functions (``global x`` or ``x.append``) that now hold tracers."""
    out = set()
    names = {n.name.value for g in ctx.nodes(cst.Global) for n in g.names}  # type: ignore[attr-defined]
    names |= {c.func.value.value for c in ctx.nodes(cst.Call) if m.matches(  # type: ignore[attr-defined]
        c, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("append"))))}
    for name in names:
        v = (ctx.namespace or {}).get(name, MISSING)
        if is_tracer(v):
            out.add(("global", name))
        elif isinstance(v, list) and any(is_tracer(x) for x in v):
            out.add(("list", name))
    return out


def _fn_reads(ctx: Context, fn: cst.FunctionDef, name: str) -> list[cst.Name]:
    return [n for n in _expr_names(ctx, fn) if n.value == name]


@rule("leaked-tracer")
def leaked_tracer(ctx: Context) -> Edit | None:
    """A traced value kept in a global or a global list: return it from the function, store it at the call."""
    stmt = _statement(ctx)
    if stmt is None:
        return None
    leaks = _leaks_on_line(ctx, stmt)
    if not leaks and ctx.record_id == "tracer-leak-checker":
        leaks = _leaks_in_namespace(ctx)  # the checker fails at the call, before the leak is used
    if len(leaks) != 1:
        return None
    kind, name = leaks.pop()
    if kind == "global":
        return _leak_global(ctx, name)
    if kind == "list":
        return _leak_list(ctx, name)
    return None


def _leak_global(ctx: Context, name: str) -> Edit | None:
    fns = [f for f in ctx.nodes(cst.FunctionDef) if any(
        isinstance(g, cst.Global) and any(n.name.value == name for n in g.names)
        for g in m.findall(f, m.Global()))]
    if len(fns) != 1:
        return None
    fn = fns[0]
    assert isinstance(fn, cst.FunctionDef)
    if not _transformed(ctx, fn) or ctx.enclosing(fn, cst.FunctionDef) is not None:
        return None
    ret = _final_return(fn)
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    globals_ = [s for s in body if isinstance(_single(s), cst.Global)
                and any(n.name.value == name for n in _single(s).names)]  # type: ignore[union-attr]
    assigns = [s for s in body if isinstance(_single(s), cst.Assign) and len(_single(s).targets) == 1  # type: ignore[union-attr]
               and m.matches(_single(s).targets[0].target, m.Name(name))]  # type: ignore[union-attr]
    if ret is None or ret.value is None or len(globals_) != 1 or len(assigns) != 1:
        return None
    writes = m.findall(fn, m.AssignTarget(target=m.Name(name)) | m.AugAssign(target=m.Name(name))
                       | m.AnnAssign(target=m.Name(name)))
    reads = [n for n in _fn_reads(ctx, fn, name) if not isinstance(ctx.parent(n), (cst.AssignTarget, cst.NameItem))]
    if len(writes) != 1 or reads:
        return None
    calls = _call_sites(ctx, fn)
    if not calls:
        return None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    gstmt = globals_[0]
    g = _single(gstmt)
    assert isinstance(g, cst.Global)
    if len(g.names) == 1:
        pairs.append((gstmt, cst.RemovalSentinel.REMOVE))  # type: ignore[arg-type]
    else:
        kept = [n for n in g.names if n.name.value != name]
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        pairs.append((g, g.with_changes(names=kept)))
    pairs.append((ret, ret.with_changes(value=_tuple([ret.value, cst.Name(name)]))))
    for call in calls:
        edit = _bind_extra(ctx, call, cst.Name(name))
        if edit is None:
            return None
        pairs.append(edit)
    return Edit(ctx.replace_many(pairs), "review",
                f"`{fn.name.value}` returns `{name}` as an extra output instead of writing the global from inside "
                f"the transformation, and each call stores it; check the callers that unpack its result.")


def _bind_extra(ctx: Context, call: cst.Call, extra: cst.BaseAssignTargetExpression) -> tuple[cst.CSTNode,
                                                                                             cst.CSTNode] | None:
    """``t = f(...)`` -> ``t, extra = f(...)`` (or ``_, extra = f(...)`` for a bare call), at module level."""
    if _in_def(ctx, call):
        return None
    p = ctx.parent(call)
    if isinstance(p, cst.Assign) and len(p.targets) == 1:
        t = p.targets[0]
        return t, t.with_changes(target=_tuple([t.target, extra]))
    if isinstance(p, cst.Expr):
        return p, cst.Assign(targets=[cst.AssignTarget(_tuple([cst.Name("_"), extra]))], value=call)
    return None


def _leak_list(ctx: Context, name: str) -> Edit | None:
    appends = [c for c in ctx.nodes(cst.Call) if m.matches(c, m.Call(func=m.Attribute(
        value=m.Name(name), attr=m.Name("append")))) and _in_def(ctx, c)]
    if len(appends) != 1:
        return None
    app = appends[0]
    assert isinstance(app, cst.Call)
    fn = ctx.enclosing(app, cst.FunctionDef)
    line = _line_of(ctx, app)
    if fn is None or line is None or len(app.args) != 1 or not isinstance(_single(line), cst.Expr):
        return None
    assert isinstance(fn, cst.FunctionDef)
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    if line not in body or not _transformed(ctx, fn) or ctx.enclosing(fn, cst.FunctionDef) is not None:
        return None
    if [n for n in _fn_reads(ctx, fn, name) if n is not getattr(app.func, "value", None)]:
        return None
    ret = _final_return(fn)
    if ret is None or ret.value is None:
        return None
    value = app.args[0].value
    calls = _call_sites(ctx, fn)
    if not calls:
        return None
    base = value.value if isinstance(value, cst.Name) else name.rstrip("s") or "entry"
    local = cst.Name(base) if isinstance(value, cst.Name) else None
    if local is not None:
        later = body[body.index(line) + 1:]
        if any(m.findall(s, m.AssignTarget(target=m.Name(base))) or m.findall(s, m.AugAssign(target=m.Name(base)))
               for s in later):
            local = None
    pairs: list[tuple[cst.CSTNode, Any]] = []
    if local is None:
        inner = _free_name_in(fn, [f"{name}_entry", f"new_{name}"])
        if inner is None:
            return None
        local = cst.Name(inner)
        pairs.append((line, line.with_changes(body=[cst.Assign([cst.AssignTarget(local)], value)])))
    else:
        pairs.append((line, cst.RemovalSentinel.REMOVE))
    outer = _free_name(ctx, [local.value, f"{local.value}_value", f"{name}_entry"])
    if outer is None:
        return None
    pairs.append((ret, ret.with_changes(value=_tuple([ret.value, local]))))
    for call in calls:
        bound = _bind_extra(ctx, call, cst.Name(outer))
        site = _line_of(ctx, call)
        if bound is None or site is None or _single(site) is None:
            return None
        old_t, new_t = bound
        small = _single(site)
        new_small = small.deep_replace(old_t, new_t) if small is not old_t else new_t  # type: ignore[union-attr]
        push = cst.parse_statement(f"{name}.append({outer})\n")
        pairs.append((site, cst.FlattenSentinel([site.with_changes(body=[new_small]), push])))
    return Edit(ctx.replace_many(pairs), "review",
                f"`{fn.name.value}` returns the value it used to append to `{name}` as an extra output; the caller "
                f"appends it after each call; check the callers that unpack its result.")


def _free_name_in(fn: cst.FunctionDef, candidates: list[str]) -> str | None:
    used = {n.value for n in m.findall(fn, m.Name())}  # type: ignore[attr-defined]
    return next((c for c in candidates if c not in used), None)
