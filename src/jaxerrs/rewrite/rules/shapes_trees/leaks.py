"""Tracers leaked out of a transformed function into globals or lists."""

from __future__ import annotations

from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
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
from jaxerrs.rewrite.values import MISSING, is_tracer, literal, live_value, lookup_dotted

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
    # a comprehension's loop variable over a leaked list holds its items: the list is the leak
    bound = {n.value for f in m.findall(stmt, m.CompFor()) for n in m.findall(f.target, m.Name())}  # type: ignore
    for n in _expr_names(ctx, stmt):
        if n.value in bound:
            continue
        v = live_value(ctx, n, attrs="instance-or-module") if not _lambda_param(ctx, n) else MISSING
        if is_tracer(v):
            out.add(("global", n.value))
        elif isinstance(v, list) and any(is_tracer(x) for x in v):
            out.add(("list", n.value))
        elif isinstance(v, dict) and any(is_tracer(x) for x in v.values()):
            out.add(("dict", n.value))
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
    names |= {t.target.value.value for t in ctx.nodes(cst.AssignTarget) if m.matches(  # type: ignore[attr-defined]
        t, m.AssignTarget(target=m.Subscript(value=m.Name()))) and _in_def(ctx, t)}
    for name in names:
        v = (ctx.namespace or {}).get(name, MISSING)
        if is_tracer(v):
            out.add(("global", name))
        elif isinstance(v, list) and any(is_tracer(x) for x in v):
            out.add(("list", name))
        elif isinstance(v, dict) and any(is_tracer(x) for x in v.values()):
            out.add(("dict", name))
    return out


def _fn_reads(ctx: Context, fn: cst.FunctionDef, name: str) -> list[cst.Name]:
    return [n for n in _expr_names(ctx, fn) if n.value == name]


def _list_appends(ctx: Context, name: str) -> list[cst.Call]:
    return [c for c in ctx.nodes(cst.Call) if isinstance(c, cst.Call) and m.matches(c, m.Call(func=m.Attribute(
        value=m.Name(name), attr=m.Name("append")))) and _in_def(ctx, c)]


def detect_leaked_list(ctx: Context, key: Any = None) -> Found | None:
    """With a key ``("list", name)``: the appends to that global list still inside the cell's functions."""
    if key is None or ctx.module is None or key[0] != "list":
        return None
    return Found(key, fixable=_list_appends(ctx, key[1]))


def siblings_leaked_list(ctx: Context) -> list[Any]:
    """The other global lists the same function appends to that hold tracers now (a second history list of
    the same scan body): each leaks the same way."""
    stmt = _statement(ctx)
    leaks = _leaks_on_line(ctx, stmt) if stmt is not None else set()
    if len(leaks) != 1 or next(iter(leaks))[0] != "list":
        return []
    name = next(iter(leaks))[1]
    fns = {id(ctx.enclosing(c, cst.FunctionDef)) for c in _list_appends(ctx, name)}
    return [("list", other) for kind, other in sorted(_leaks_in_namespace(ctx)) if kind == "list" and other != name
            and fns & {id(ctx.enclosing(c, cst.FunctionDef)) for c in _list_appends(ctx, other)}]


@rule("leaked-tracer", detect=detect_leaked_list, siblings=siblings_leaked_list)
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
    if kind == "dict":
        return _leak_dict(ctx, name)
    if kind == "attr":
        return _leak_attr(ctx, name)
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
    """A global list appended inside a transformed function: the value comes out through the function's
    outputs (a scan body's ``ys``, or an extra output of a jitted function) and the caller appends it."""
    appends = [c for c in ctx.nodes(cst.Call) if m.matches(c, m.Call(func=m.Attribute(
        value=m.Name(name), attr=m.Name("append")))) and _in_def(ctx, c)]
    if not appends:
        return None
    fns = {id(ctx.enclosing(a, cst.FunctionDef)): ctx.enclosing(a, cst.FunctionDef) for a in appends}
    if len(fns) != 1:
        return None
    fn = next(iter(fns.values()))
    assert isinstance(fn, cst.FunctionDef)
    scan = _scan_call(ctx, fn)
    if scan is not None:
        return _leak_list_scan(ctx, name, fn, appends, scan)
    if len(appends) == 1:
        edit = _leak_list_one(ctx, name, appends[0])
        if edit is not None:
            return edit
    return _leak_list_local(ctx, name, fn, appends)


def _leak_list_one(ctx: Context, name: str, app: cst.Call) -> Edit | None:
    """One append as a statement of the jitted function's own body: return the appended value."""
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


# ----------------------------------------------------------------------------- a list appended in a scan body


def _scan_call(ctx: Context, fn: cst.FunctionDef) -> cst.Call | None:
    """The one ``jax.lax.scan(fn, ...)`` of the cell when that is the only use of ``fn`` (a scan body)."""
    uses = [n for n in _expr_names(ctx, ctx.module) if n.value == fn.name.value]  # type: ignore[arg-type]
    scans = []
    for n in uses:
        p = ctx.parent(n)
        if isinstance(p, cst.FunctionDef) and p.name is n:
            continue
        call = ctx.parent(p) if isinstance(p, cst.Arg) else None
        if isinstance(call, cst.Call) and call.args and call.args[0] is p and p.keyword is None and \
                full_name(ctx, call.func, modules=_PUBLIC, keep=True) == "jax.lax.scan":
            scans.append(call)
        else:
            return None
    return scans[0] if len(scans) == 1 and not fn.decorators else None


def _rebound_after(body: list[cst.CSTNode], stmt: cst.CSTNode, name: str) -> bool:
    later = body[body.index(stmt) + 1:]
    return any(m.findall(s, m.AssignTarget(target=m.Name(name)) | m.AugAssign(target=m.Name(name))
                         | m.For(target=m.Name(name))) for s in later)


def _leak_list_scan(ctx: Context, name: str, fn: cst.FunctionDef, appends: list[cst.Call],
                    scan: cst.Call) -> Edit | None:
    """``body`` appends one value per step to a global list and is scanned: the value becomes part of the
    body's per-step output (``ys``), and after the scan the list is extended with the stacked values, one
    entry per step: what the list would hold if the body ran as a Python loop. Review: the scan's second
    output changes (None → the values, or ys → (ys, values))."""
    if len(appends) != 1 or _in_def(ctx, scan) or ctx.enclosing(fn, cst.FunctionDef) is not None:
        return None
    app = appends[0]
    line = _line_of(ctx, app)
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    if line is None or line not in body or len(app.args) != 1 or app.args[0].star or \
            not isinstance(_single(line), cst.Expr) or _single(line).value is not app:  # type: ignore[union-attr]
        return None
    if [n for n in _fn_reads(ctx, fn, name) if n is not app.func.value]:  # type: ignore[attr-defined]
        return None
    held = (ctx.namespace or {}).get(name, MISSING)
    if not isinstance(held, list) or not all(is_tracer(x) for x in held[-1:]):
        return None  # the appended value is a pytree (ys would be a tree of stacks): not one entry per step
    ret = _final_return(fn)
    if ret is None or not isinstance(ret.value, cst.Tuple) or len(ret.value.elements) != 2:
        return None
    parent = ctx.parent(scan)
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Tuple)
            and len(parent.targets[0].target.elements) == 2):
        return None
    site = _line_of(ctx, scan)
    if site is None or _single(site) is not parent:
        return None
    carry_t, ys_t = (e.value for e in parent.targets[0].target.elements)
    ys = ret.value.elements[1].value
    value = app.args[0].value
    pairs: list[tuple[cst.CSTNode, Any]] = []
    if isinstance(value, cst.Name) and not _rebound_after(body, line, value.value):
        local: cst.BaseExpression = value
        pairs.append((line, cst.RemovalSentinel.REMOVE))
    else:
        inner = _free_name_in(fn, [f"{name.rstrip('s') or name}_t", f"{name}_entry", f"new_{name}"])
        if inner is None:
            return None
        local = cst.Name(inner)
        pairs.append((line, line.with_changes(body=[cst.Assign([cst.AssignTarget(local)], value)])))
    ys_none = m.matches(ys, m.Name("None"))
    if ys_none and not (m.matches(ys_t, m.Name("_")) or isinstance(ys_t, cst.Name) and not [
            n for n in _expr_names(ctx, ctx.module) if n.value == ys_t.value  # type: ignore[arg-type]
            and not isinstance(ctx.parent(n), cst.AssignTarget | cst.Element)]):
        return None  # the scan's None output is read somewhere: leave it
    outer_name = _free_name(ctx, [f"{name}_steps", f"new_{name}", f"{name}_ys"])
    if outer_name is None:
        return None
    outer = cst.Name(outer_name)
    new_ys = local if ys_none else _tuple([ys, local], parens=True)
    elems = list(ret.value.elements)
    elems[1] = elems[1].with_changes(value=new_ys)
    pairs.append((ret, ret.with_changes(value=ret.value.with_changes(elements=elems))))
    new_t = outer if ys_none else _tuple([ys_t, outer], parens=True)  # type: ignore[list-item]
    tgt = parent.targets[0].target
    telems = list(tgt.elements)
    telems[1] = telems[1].with_changes(value=new_t)
    push = cst.parse_statement(f"{name}.extend({outer_name})\n")
    new_site = site.with_changes(body=[parent.with_changes(targets=[parent.targets[0].with_changes(
        target=tgt.with_changes(elements=telems))])])
    pairs.append((site, cst.FlattenSentinel([new_site, push])))
    return Edit(ctx.replace_many(pairs), "review",
                f"`{fn.name.value}` returns the value it appended to `{name}` as its per-step output of the scan "
                f"(stacked over steps), and `{name}` is extended with it after the scan, one entry per step; "
                "check the code that reads the scan's second output.")


# ----------------------------------------------------------------------------- appends collected in a local list


def _leak_list_local(ctx: Context, name: str, fn: cst.FunctionDef, appends: list[cst.Call]) -> Edit | None:
    """Appends inside a jitted function (in a Python loop, or several): they go to a list of the function's
    own, which it returns as an extra output; each caller extends the global list with it. The function
    then does on every call what its trace did once: the Python loop that ran while tracing runs the same
    appends in the same order. Review: the function's output gains an element."""
    if not _transformed(ctx, fn) or ctx.enclosing(fn, cst.FunctionDef) is not None:
        return None
    for app in appends:
        line = _line_of(ctx, app)
        if (line is None or len(app.args) != 1 or app.args[0].star or not isinstance(_single(line), cst.Expr)
                or _single(line).value is not app  # type: ignore[union-attr]
                or any(isinstance(a, cst.Lambda) for a in ctx.ancestors(app)[:ctx.ancestors(app).index(fn)])):
            return None
    receivers = [a.func.value for a in appends]  # type: ignore[attr-defined]
    if [n for n in _fn_reads(ctx, fn, name) if not any(n is r for r in receivers)]:
        return None
    ret = _final_return(fn)
    if ret is None or ret.value is None or not isinstance(fn.body, cst.IndentedBlock):
        return None
    calls = _call_sites(ctx, fn)
    if not calls:
        return None
    inner = _free_name_in(fn, [f"new_{name}", f"{name}_here", f"local_{name}"])
    outer = _free_name(ctx, [f"new_{name}", f"{name}_step", f"{name}_out"])
    if inner is None or outer is None:
        return None
    pairs: list[tuple[cst.CSTNode, Any]] = [(r, cst.Name(inner)) for r in receivers]
    pairs.append((ret, lambda r: r.with_changes(value=_tuple([r.value, cst.Name(inner)]))))
    body = list(fn.body.body)
    at = 0
    while at < len(body) and (isinstance(_single(body[at]), cst.Global) or at == 0 and m.matches(
            body[at], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())]))):
        at += 1
    first = body[at]
    start = cst.parse_statement(f"{inner} = []\n")
    pairs.append((first, lambda f: cst.FlattenSentinel([start, f])))
    for call in calls:
        bound = _bind_extra(ctx, call, cst.Name(outer))
        site = _line_of(ctx, call)
        if bound is None or site is None or _single(site) is None:
            return None
        old_t, new_t = bound
        small = _single(site)
        new_small = small.deep_replace(old_t, new_t) if small is not old_t else new_t  # type: ignore[union-attr]
        push = cst.parse_statement(f"{name}.extend({outer})\n")
        pairs.append((site, cst.FlattenSentinel([site.with_changes(body=[new_small]), push])))
    return Edit(ctx.replace_many(pairs), "review",
                f"`{fn.name.value}` collects what it appended to `{name}` in a list of its own and returns it as an "
                f"extra output; each caller extends `{name}` with it; check the callers that unpack its result.")


# ----------------------------------------------------------------------------- a global dict written inside jit


def _leak_dict(ctx: Context, name: str) -> Edit | None:
    """``cache["k"] = v`` inside a jitted function, read after the call: ``v`` becomes an extra output and
    each call stores it, ``out, cache["k"] = f(x)``: the dict then holds, after every call, the value the
    function computed in that call. Declined when the function reads the dict (a memo: whether it computes
    depends on what the dict held at trace time) or stores under a key that is not a constant."""
    stores = [t for t in ctx.nodes(cst.AssignTarget) if m.matches(t, m.AssignTarget(
        target=m.Subscript(value=m.Name(name)))) and _in_def(ctx, t)]
    if not stores:
        return None
    fns = {id(ctx.enclosing(t, cst.FunctionDef)): ctx.enclosing(t, cst.FunctionDef) for t in stores}
    if len(fns) != 1:
        return None
    fn = next(iter(fns.values()))
    assert isinstance(fn, cst.FunctionDef)
    if not _transformed(ctx, fn) or ctx.enclosing(fn, cst.FunctionDef) is not None:
        return None
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    lines, keys = [], []
    for t in stores:
        line = _line_of(ctx, t)
        a = _single(line)
        sub = t.target
        assert isinstance(sub, cst.Subscript)
        if line not in body or not isinstance(a, cst.Assign) or len(a.targets) != 1 or len(sub.slice) != 1 \
                or not isinstance(sub.slice[0].slice, cst.Index) or literal(sub.slice[0].slice.value) is MISSING:
            return None
        lines.append((line, a, sub))
        keys.append(literal(sub.slice[0].slice.value))
    if len(set(keys)) != len(keys):
        return None
    targets = {id(sub.value) for _l, _a, sub in lines}
    if [n for n in _fn_reads(ctx, fn, name) if id(n) not in targets]:
        return None
    ret = _final_return(fn)
    calls = _call_sites(ctx, fn)
    if ret is None or ret.value is None or not calls:
        return None
    pairs: list[tuple[cst.CSTNode, Any]] = []
    values: list[cst.BaseExpression] = []
    used = {n.value for n in m.findall(fn, m.Name())}  # type: ignore[attr-defined]
    for (line, a, _sub), key in zip(lines, keys, strict=True):
        if isinstance(a.value, cst.Name) and not _rebound_after(body, line, a.value.value):
            values.append(a.value)
            pairs.append((line, cst.RemovalSentinel.REMOVE))
            continue
        base = f"{key}" if isinstance(key, str) and key.isidentifier() else f"{name}_value"
        local = next((c for c in (base, f"{base}_value", f"{name}_{base}") if c not in used), None)
        if local is None:
            return None
        used.add(local)
        values.append(cst.Name(local))
        pairs.append((line, line.with_changes(body=[a.with_changes(targets=[cst.AssignTarget(cst.Name(local))])])))
    extra_out = values[0] if len(values) == 1 else _tuple(values, parens=True)
    pairs.append((ret, ret.with_changes(value=_tuple([ret.value, extra_out]))))
    subs = [sub.deep_clone() for _l, _a, sub in lines]
    extra_t = subs[0] if len(subs) == 1 else _tuple(subs, parens=True)  # type: ignore[arg-type]
    for call in calls:
        bound = _bind_extra(ctx, call, extra_t)  # type: ignore[arg-type]
        if bound is None:
            return None
        pairs.append(bound)
    shown = ", ".join(f"`{ctx.code(sub)}`" for _l, _a, sub in lines)
    return Edit(ctx.replace_many(pairs), "review",
                f"`{fn.name.value}` returns what it stored in {shown} as an extra output and each call stores "
                f"{'it' if len(lines) == 1 else 'them'} there, instead of writing the dict while it is traced; check "
                "the callers that unpack its result.")


# ----------------------------------------------------------------------------- an attribute set inside a jitted method


def _leak_attr(ctx: Context, dotted: str) -> Edit | None:
    """``self.last = v`` inside a jitted method, read from the object after the call: ``v`` becomes an extra
    output of the method and each call stores it, ``out, obj.last = obj.method(x)``, so the attribute holds
    after every call what that call computed. Declined when the method reads the attribute (state carried
    from call to call: ``self.total = self.total + x`` needs the state passed in and out), when the class
    calls the method itself, or when a call of it is not a statement of the cell's top level.
    """
    obj_code, _, attr = dotted.rpartition(".")
    obj = lookup_dotted(ctx, obj_code)
    if obj is MISSING:
        return None
    classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == type(obj).__name__]  # type: ignore[attr-defined]
    if len(classes) != 1:
        return None
    cls = classes[0]
    assert isinstance(cls, cst.ClassDef)
    stores = []
    for t in m.findall(cls, m.AssignTarget(target=m.Attribute(value=m.Name(), attr=m.Name(attr)))):
        fn = ctx.enclosing(t, cst.FunctionDef)
        assert isinstance(t, cst.AssignTarget) and isinstance(t.target, cst.Attribute)
        if isinstance(fn, cst.FunctionDef) and fn.params.params and isinstance(t.target.value, cst.Name) and \
                t.target.value.value == fn.params.params[0].name.value and fn.name.value != "__init__":
            stores.append((fn, t))
    if len(stores) != 1:
        return None
    fn, t = stores[0]
    me = fn.params.params[0].name.value
    line = _line_of(ctx, t)
    a = _single(line)
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    if line not in body or not isinstance(a, cst.Assign) or len(a.targets) != 1 or not any(
            "jit" in ctx.code(d.decorator) for d in fn.decorators):
        return None
    reads = [x for x in m.findall(cls, m.Attribute(value=m.Name(me), attr=m.Name(attr)))
             if ctx.enclosing(x, cst.FunctionDef) is fn and x is not t.target]
    calls_inside = m.findall(cls, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name(fn.name.value))))
    if reads or calls_inside:
        return None
    ret = _final_return(fn)
    if ret is None or ret.value is None:
        return None
    method = fn.name.value
    calls = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        f = call.func
        if method == "__call__" and isinstance(f, cst.Name | cst.Attribute) and live_value(
                ctx, f, attrs="instance-or-module") is obj:
            calls.append(call)
        elif isinstance(f, cst.Attribute) and f.attr.value == method and live_value(
                ctx, f.value, attrs="instance-or-module") is obj:
            calls.append(call)
    if not calls:
        return None
    pairs: list[tuple[cst.CSTNode, Any]] = []
    if isinstance(a.value, cst.Name) and not _rebound_after(body, line, a.value.value):
        value: cst.BaseExpression = a.value
        pairs.append((line, cst.RemovalSentinel.REMOVE))
    else:
        local = _free_name_in(fn, [attr.lstrip("_") or "value", f"{attr.lstrip('_')}_value"])
        if local is None:
            return None
        value = cst.Name(local)
        pairs.append((line, line.with_changes(body=[a.with_changes(targets=[cst.AssignTarget(value)])])))
    pairs.append((ret, ret.with_changes(value=_tuple([ret.value, value]))))
    for call in calls:
        bound = _bind_extra(ctx, call, cst.parse_expression(f"{obj_code}.{attr}"))  # type: ignore[arg-type]
        if bound is None:
            return None
        pairs.append(bound)
    return Edit(ctx.replace_many(pairs), "review",
                f"`{method}` returns what it stored in `{me}.{attr}` as an extra output and each call stores it on "
                f"`{obj_code}`, instead of setting the attribute while the method is traced; check every caller "
                "of the method (they now get a pair).")
