"""A size, shape, count or axis traced as a parameter of the user's jitted function -> static."""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import (
    JitSite,
    find_jit,
    make_static,
    param_names,
)
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.static_shapes.common import (
    _ARGS,
    _IDENT,
    _ORIGIN,
    _arg_for,
    _body_assignments,
    _call_sites,
    _lookup,
    _names_in,
    _py_value,
    _transformed,
    _within,
)
from jaxerrs.rewrite.values import is_tracer

# ---------------------------------------------------------------------------------------------- static-argnames


def _function(ctx: Context, name: str, line: int) -> cst.FunctionDef | None:
    found = [f for f in ctx.nodes(cst.FunctionDef) if f.name.value == name]  # type: ignore[attr-defined]
    if len(found) > 1:
        found = [f for f in found if _first_line(ctx, f) <= line <= ctx.span(f)[0]]  # type: ignore[arg-type]
    return found[0] if len(found) == 1 else None  # type: ignore[return-value]


def _first_line(ctx: Context, fn: cst.FunctionDef) -> int:
    return min([ctx.span(d)[0] for d in fn.decorators] + [ctx.span(fn)[0]])


def _split_args(text: str) -> list[str] | None:
    parts = [p.strip() for p in re.split(r",\s*and\s+|,\s*|\s+and\s+", text) if p.strip()]
    return parts if parts and all(_IDENT.match(p) for p in parts) else None


def _to_params(ctx: Context, fn: cst.FunctionDef, name: str, depth: int = 0) -> tuple[cst.FunctionDef, set[str]] | None:
    """The function and its parameters a traced local ``name`` is computed from (by plain assignments)."""
    if depth > 3:
        return None
    pos, kwonly = param_names(fn)
    if name in pos or name in kwonly:
        return fn, {name}
    binds = _body_assignments(fn, name)
    if not binds:
        outer = ctx.enclosing(fn, cst.FunctionDef)
        return _to_params(ctx, outer, name, depth + 1) if isinstance(outer, cst.FunctionDef) else None
    if len(binds) != 1 or not isinstance(binds[0], cst.Assign) or not isinstance(binds[0].targets[0].target, cst.Name):
        return None
    found: set[str] = set()
    owner = None
    for n in set(_names_in(binds[0].value)):
        v = _lookup(ctx, n)
        if n in (ctx.locals or {}) and not is_tracer(v):
            continue  # a Python value: static already
        if n not in (ctx.locals or {}) and (n in (ctx.namespace or {}) or hasattr(builtins, n)):
            continue  # a global (module, constant) or a builtin
        sub = _to_params(ctx, fn, n, depth + 1)
        if sub is None or (owner is not None and sub[0] is not owner):
            return None
        owner = sub[0]
        found |= sub[1]
    return (owner, found) if owner is not None else None


def _slice_names(ctx: Context, stmt: cst.CSTNode) -> list[str]:
    """Traced names in the bounds of slices on the failing statement."""
    out: list[str] = []
    for s in ctx.nodes(cst.Slice):
        if _within(ctx, s, stmt):
            for b in (s.lower, s.upper, s.step):  # type: ignore[attr-defined]
                if b is not None:
                    out.extend(n for n in _names_in(b) if is_tracer(_lookup(ctx, n)))
    return list(dict.fromkeys(out))


@dataclass
class _Static:
    fn: cst.FunctionDef
    site: JitSite
    params: list[str]


def _static_target(ctx: Context) -> _Static | None:
    """Which parameters of which user-jitted function the traced value on the failing line comes from."""
    text = ctx.message or str(ctx.exc or "")
    origin = _ORIGIN.search(text)
    fn: cst.FunctionDef | None
    if origin is not None:
        if origin["kind"] != "jit":
            return None
        fn = _function(ctx, origin["fn"].rsplit(".", 1)[-1], int(origin["line"]))
        am = _ARGS.search(text)
        params = _split_args(am["args"]) if am else None
        if fn is None or not params:
            return None
    else:
        stmt = ctx.statement()
        here = ctx.function_at_line()
        if stmt is None or here is None:
            return None
        names = _slice_names(ctx, stmt)
        if not names:
            return None
        fn, pset = None, set()
        for n in names:
            got = _to_params(ctx, here, n)
            if got is None or (fn is not None and got[0] is not fn):
                return None
            fn, pset = got[0], pset | got[1]
        params = sorted(pset)
        if fn is None:
            return None
    site = find_jit(ctx, fn)
    if site is None:
        return None
    return _Static(fn, site, params)


@rule("static-argnames")
def static_argnames(ctx: Context) -> Edit | None:
    """Make the parameter a traced size/shape/axis comes from static on the user's own ``jit``."""
    target = _static_target(ctx)
    if target is None:
        return None
    fn, site, params = target.fn, target.site, target.params
    here = ctx.function_at_line()
    weak = True
    for p in params:
        v = (ctx.locals or {}).get(p) if here is fn else None
        if v is not None:
            if not is_tracer(v) or getattr(v, "shape", None) != ():
                return None  # an array (data), not a size
            weak = weak and bool(getattr(getattr(v, "aval", None), "weak_type", False))
    made = make_static(ctx, site, params)
    if made is None:
        return None
    old, new, imports = made
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(old, new)]
    safe = weak
    notes = set()
    sites = _call_sites(ctx, site)
    if not sites:
        safe = False
    for call in sites:
        caller = ctx.enclosing(call, cst.FunctionDef)
        if caller is not None and _within(ctx, call, fn):
            return None  # recursion
        inside = caller is not None
        for p in params:
            arg = _arg_for(call, fn, p, site.method)
            if arg is False:
                return None
            if arg is None:
                continue
            assert isinstance(arg, cst.Arg)
            kind = _py_value(ctx, arg.value, inside)
            if kind == "py":
                continue
            if inside and isinstance(caller, cst.FunctionDef) and _transformed(ctx, caller):
                return None  # the caller is traced itself: its value would be a tracer too
            if kind in ("wrapped", "scalar-array") and site.method:
                return None  # ``obj.name(...)`` may be another object's method: leave call sites alone
            if kind == "wrapped":
                assert isinstance(arg.value, cst.Call)
                if call is site.inline and _within(ctx, old, call):
                    return None
                pairs.append((arg.value, arg.value.args[0].value))
                notes.add(f"the call now passes `{p}` as a plain Python int")
            elif kind == "scalar-array" and not inside:
                pairs.append((arg.value, cst.Call(func=cst.Name("int"), args=[cst.Arg(arg.value)])))
                notes.add(f"the call now passes `int({ctx.code(arg.value)})`")
            elif kind in ("array", "scalar-array"):
                return None  # array data cannot be static
            safe = False
    if site.inline is not None and len(pairs) > 1:
        return None
    source = ctx.replace_many(pairs, imports=imports)
    who = fn.name.value
    names = ", ".join(f"`{p}`" for p in params)
    summary = (f"{names} {'is' if len(params) == 1 else 'are'} now static in `jax.jit` of `{who}`: "
               f"each new value compiles `{who}` once more")
    if notes:
        summary += "; " + "; ".join(sorted(notes))
        safe = False
    if not safe:
        summary += f"; check every call passes a Python int (not an array) for {names}"
    return Edit(source, "safe" if safe else "review", summary + ".")
