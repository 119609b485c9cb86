"""A size, shape, count or axis traced as a parameter of the user's jitted function -> static."""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import ran_context
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import (
    JitSite,
    find_jit,
    make_static,
    param_names,
)
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
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
    home: Context | None = None  # the cell the jit is written in, when not the function's (the cell that ran)


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
    if site is None and not fn.decorators:
        # a function an earlier cell defined, jitted in the cell that ran it: `jax.jit(positions)(16, 8)`
        ran = ran_context(ctx)
        site = find_jit(ran, fn) if ran is not None else None
        return _Static(fn, site, params, ran) if site is not None else None
    if site is None:
        return None
    return _Static(fn, site, params)


# ---------------------------------------------------------------------------------------------- detection

# jax.numpy functions -> (positions, keywords) of the arguments that set a shape, a size or an axis
_SHAPE_ARGS: dict[str, tuple[tuple[int, ...] | str, tuple[str, ...]]] = {
    "jax.numpy.arange": ("all", ("start", "stop", "step")),
    "jax.numpy.zeros": ((0,), ("shape",)), "jax.numpy.ones": ((0,), ("shape",)),
    "jax.numpy.empty": ((0,), ("shape",)), "jax.numpy.full": ((0,), ("shape",)),
    "jax.numpy.eye": ((0, 1, 2), ("N", "M", "k")), "jax.numpy.identity": ((0,), ("n",)),
    "jax.numpy.tri": ((0, 1, 2), ("N", "M", "k")),
    "jax.numpy.linspace": ((2,), ("num",)), "jax.numpy.logspace": ((2,), ("num",)),
    "jax.numpy.geomspace": ((2,), ("num",)),
    "jax.numpy.reshape": ((1,), ("shape", "newshape")), "jax.numpy.broadcast_to": ((1,), ("shape",)),
    "jax.numpy.tile": ((1,), ("reps",)), "jax.numpy.repeat": ((), ("total_repeat_length",)),
    "jax.numpy.pad": ((1,), ("pad_width",)), "jax.numpy.split": ((1,), ("indices_or_sections",)),
    "jax.numpy.tril": ((1,), ("k",)), "jax.numpy.triu": ((1,), ("k",)),
    "jax.nn.one_hot": ((1,), ("num_classes",)),
    "jax.random.normal": ((1,), ("shape",)), "jax.random.uniform": ((1,), ("shape",)),
    "jax.random.randint": ((1,), ("shape",)), "jax.random.bernoulli": ((2,), ("shape",)),
    "jax.random.categorical": ((3,), ("shape",)), "jax.random.choice": ((2,), ("shape",)),
    "jax.random.truncated_normal": ((3,), ("shape",)),
    "jax.lax.iota": ((1,), ("size",)), "range": ("all", ()),
}
_SHAPE_METHODS = {"reshape": "all", "broadcast_to": "all", "repeat": None}
_AXIS_FUNCS = {"sum", "mean", "max", "min", "prod", "argmax", "argmin", "std", "var", "any", "all", "cumsum",
               "cumprod", "expand_dims", "squeeze", "flip", "median", "nansum", "nanmean", "logsumexp",
               "softmax", "log_softmax", "sort", "argsort", "moveaxis", "swapaxes"}


def _shape_exprs(ctx: Context, fn: cst.FunctionDef) -> list[cst.BaseExpression]:
    """The expressions in ``fn`` that must be concrete under ``jit``: shapes, sizes, counts, axes, slice bounds."""
    out: list[cst.BaseExpression] = []
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if not _within(ctx, c, fn):
            continue
        name = full_name(ctx, c.func, keep=True)
        spec = _SHAPE_ARGS.get(name)
        kws: tuple[str, ...] = ()
        positions: tuple[int, ...] | str = ()
        if spec is not None:
            positions, kws = spec
        elif isinstance(c.func, cst.Attribute) and c.func.attr.value in _SHAPE_METHODS and not name.startswith(
                "jax.numpy."):
            positions = "all" if c.func.attr.value != "repeat" else ()
            kws = ("shape", "total_repeat_length")
        if name.rsplit(".", 1)[-1] in _AXIS_FUNCS and (name.startswith("jax.") or isinstance(c.func, cst.Attribute)):
            kws = (*kws, "axis")
        pos = [a for a in c.args if a.keyword is None and not a.star]
        for i, a in enumerate(pos):
            if positions == "all" or (isinstance(positions, tuple) and i in positions):
                out.append(a.value)
        out.extend(a.value for a in c.args if a.keyword is not None and a.keyword.value in kws)
    for sl in ctx.nodes(cst.Slice):
        if _within(ctx, sl, fn):
            out.extend(b for b in (sl.lower, sl.upper, sl.step) if b is not None)  # type: ignore[attr-defined]
    return out


def _concrete_names(e: cst.CSTNode) -> list[str]:
    """Names ``e`` reads for their value (not for ``.shape``, ``len(...)``)."""
    class _Len(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            if isinstance(updated.func, cst.Name) and updated.func.value == "len":
                return cst.Integer("0")
            return updated

    stripped = e.visit(_Len())
    return _names_in(stripped)


def _shape_params(ctx: Context, fn: cst.FunctionDef) -> list[str]:
    """The parameters of ``fn`` a shape, size, count or axis in it is computed from, in parameter order."""
    found: set[str] = set()
    for e in _shape_exprs(ctx, fn):
        for n in dict.fromkeys(_concrete_names(e)):
            got = _to_params(ctx, fn, n)
            if got is not None and got[0] is fn:
                found |= got[1]
    pos, kwonly = param_names(fn)
    return [p for p in (*pos, *kwonly) if p in found]


def detect_static(ctx: Context, key: object = None) -> Found | None:
    """The parameters of the jitted function that set shapes and are not static (key: the function's name)."""
    if key is None:
        target = _static_target(ctx)
        if target is None:
            return None
        fn: cst.FunctionDef | None = target.fn
        site: JitSite | None = target.site
        extra = target.params
        assert fn is not None
        key = fn.name.value
    else:
        fn = ctx.function_named(str(key))
        if fn is None:
            return None
        site = find_jit(ctx, fn)
        extra = []
        if site is None:
            return Found(key, unfixable=[fn])  # the jit the edit made is not one the rule can read
    assert site is not None
    statics = site.statics()
    if statics is None:
        return Found(key, unfixable=[fn])
    pos, kwonly = param_names(fn)
    wanted = set(_shape_params(ctx, fn)) | set(extra)
    found = Found(key)
    here = ctx.function_at_line() is fn
    for p in (*pos, *kwonly):
        if p not in wanted or p in statics:
            continue
        v = (ctx.locals or {}).get(p) if here else None
        if v is not None and is_tracer(v) and getattr(v, "shape", None) != ():
            found.unfixable.append(p)  # array data a shape is computed from: it cannot be static
        else:
            found.fixable.append(p)
    return found


@rule("static-argnames", detect=detect_static)
def static_argnames(ctx: Context) -> Edit | None:
    """Make every parameter a traced size/shape/axis of the jitted function comes from static on the user's
    own ``jit``: the one on the failing line and each other one that sets a shape in the same function
    (making only the first static would fail again on the next).

    Why the same values (when ``safe``): a static parameter is the very Python value the caller passed,
    so the jitted function computes what the unjitted one computes on it, the value the traced version
    stood for. Checked: the traced values are weak-typed scalars (Python numbers passed in), the cell has
    call sites and every one passes a Python value for each parameter made static; a call passing an
    array, ``int(...)`` added at a call site, or no call in the cell is ``review``.
    """
    target = _static_target(ctx)
    if target is None:
        return None
    found = detect_static(ctx)
    if found is None or found.unfixable or _staged_on_the_way(ctx):
        return None
    fn, site = target.fn, target.site
    pos, kwonly = param_names(fn)
    params = [p for p in (*pos, *kwonly) if p in set(target.params) | set(found.fixable)]
    here = ctx.function_at_line()
    weak = True
    for p in params:
        v = (ctx.locals or {}).get(p) if here is fn else None
        if v is not None:
            if not is_tracer(v) or getattr(v, "shape", None) != ():
                return None  # an array (data), not a size
            weak = weak and bool(getattr(getattr(v, "aval", None), "weak_type", False))
    jctx = target.home or ctx  # the cell the jit and its calls are written in
    made = make_static(jctx, site, params)
    if made is None:
        return None
    old, new, imports = made
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(old, new)]
    safe = weak
    notes = set()
    sites = _call_sites(jctx, site)
    if not sites:
        safe = False
    for call in sites:
        caller = jctx.enclosing(call, cst.FunctionDef)
        if caller is not None and _within(jctx, call, fn):
            return None  # recursion
        inside = caller is not None
        for p in params:
            arg = _arg_for(call, fn, p, site.method)
            if arg is False:
                return None
            if arg is None:
                continue
            assert isinstance(arg, cst.Arg)
            kind = _py_value(jctx, arg.value, inside)
            if kind == "py":
                continue
            if inside and isinstance(caller, cst.FunctionDef) and _transformed(jctx, caller):
                return None  # the caller is traced itself: its value would be a tracer too
            if kind in ("wrapped", "scalar-array") and site.method:
                return None  # ``obj.name(...)`` may be another object's method: leave call sites alone
            if kind == "wrapped":
                assert isinstance(arg.value, cst.Call)
                if call is site.inline and _within(jctx, old, call):
                    return None
                pairs.append((arg.value, arg.value.args[0].value))
                notes.add(f"the call now passes `{p}` as a plain Python int")
            elif kind == "scalar-array" and not inside:
                pairs.append((arg.value, cst.Call(func=cst.Name("int"), args=[cst.Arg(arg.value)])))
                notes.add(f"the call now passes `int({jctx.code(arg.value)})`")
            elif kind in ("array", "scalar-array"):
                return None  # array data cannot be static
            safe = False
    if site.inline is not None and len(pairs) > 1:
        return None
    source = jctx.replace_many(pairs, imports=imports)
    who = fn.name.value
    names = ", ".join(f"`{p}`" for p in params)
    jit = site.kind.replace("flax.", "")
    where = f" (in {jctx.label}, where `{who}` is jitted)" if target.home is not None else ""
    summary = (f"{names} {'is' if len(params) == 1 else 'are'} now static in `{jit}` of `{who}`{where}: "
               f"each new value compiles `{who}` once more")
    if notes:
        summary += "; " + "; ".join(sorted(notes))
        safe = False
    if not safe:
        summary += f"; check every call passes a Python int (not an array) for {names}"
    return Edit(source, "safe" if safe else "review", summary + ".", cause=found.key, where=target.home)


def _staged_on_the_way(ctx: Context) -> bool:
    """Whether a traced name on the failing line is computed, in the cell, through a JAX call or an array
    method (``jnp.array([0.0, t])``, ``(dt // h).astype(int)``): under ``jit`` such a value is traced whatever
    the arguments are, so a static parameter would not make it concrete (the cell fails the same way again).
    Starts from the traced names in the sizes of the failing line (not its data: a key, an array) and follows
    single assignments in the failing function and, for its parameters, the argument at each call of it."""
    stmt, here = ctx.statement(), ctx.function_at_line()
    if stmt is None or here is None:
        return False
    sizes = [e for e in _shape_exprs(ctx, here) if _within(ctx, e, stmt)]  # the sizes on the failing line
    todo = [(here, n) for n in dict.fromkeys(x for e in sizes for x in _concrete_names(e))
            if is_tracer(_lookup(ctx, n))]
    seen: set[tuple[int, str]] = set()
    while todo and len(seen) < 40:
        fn, name = todo.pop()
        if (id(fn), name) in seen:
            continue
        seen.add((id(fn), name))
        pos, kwonly = param_names(fn)
        if name in pos or name in kwonly:
            if find_jit(ctx, fn) is not None:
                continue  # a parameter of the jitted function itself: what a static argument changes
            values = []
            for call in ctx.nodes(cst.Call):
                if isinstance(call.func, cst.Name) and call.func.value == fn.name.value:  # type: ignore[attr-defined]
                    arg = _arg_for(call, fn, name)  # type: ignore[arg-type]
                    if isinstance(arg, cst.Arg):
                        values.append((ctx.enclosing(call, cst.FunctionDef), arg.value))
        else:
            binds = _body_assignments(fn, name)
            values = [(fn, b.value) for b in binds if isinstance(b, (cst.Assign, cst.AugAssign))]  # type: ignore[attr-defined]
        for owner, e in values:
            if _stages(ctx, e):
                return True
            if isinstance(owner, cst.FunctionDef):
                todo.extend((owner, n) for n in _names_in(e))
    return False


def _stages(ctx: Context, e: cst.CSTNode) -> bool:
    """A call of a JAX function or a method call on a value (not a module's function) in ``e``."""
    for call in m.findall(e, m.Call()):
        assert isinstance(call, cst.Call)
        name = full_name(ctx, call.func, keep=True)
        if name.startswith(("jax.", "jaxlib.")):
            return True
        if isinstance(call.func, cst.Attribute) and not name:
            return True
    return False
