"""Static arguments, shapes from traced values and boolean masks.

- ``static-argnames``: a size, shape, count or axis that is traced because it is a parameter of the
  user's own jitted function -> that parameter becomes static on the user's ``jit``.
- ``dynamic-slice``: ``x[i:i + k]`` with a traced start and a static length -> ``lax.dynamic_slice_in_dim``.
- ``static-arg-hashable``: a list passed for a static argument -> a tuple.
- ``jit-method``: ``@jax.jit`` on a method -> ``@partial(jax.jit, static_argnums=0)``.
- ``boolean-mask``: ``x[mask]`` inside a reduction -> the reduction's ``where=``; ``x.at[mask].set(v)``
  -> ``jnp.where(mask, v, x)``.
- ``size-argument``: ``jnp.nonzero``/one-argument ``jnp.where``/``argwhere``/``flatnonzero``/``unique``
  under ``jit`` -> a static ``size=``.
- ``static-argnames-typo``: ``static_argnames`` naming a parameter that does not exist -> the close name.

Every rule returns None as soon as the code is not of a shape it fully understands.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.rules import rule

_ORIGIN = re.compile(r"The error occurred while tracing the function (?P<fn>\S+) at (?P<file>.+?):(?P<line>\d+)"
                     r" for (?P<kind>\w+)\.")
_ARGS = re.compile(r"depends on the values? of the arguments? (?P<args>.+?)\.(?:\s|$)")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_SHAPE_ATTRS = ("shape", "ndim", "size", "dtype")

# ---------------------------------------------------------------------------------------------- names


def _full(ctx: Context, node: cst.CSTNode) -> str:
    """The dotted path a name or attribute chain refers to ('jax.numpy.zeros' for ``jnp.zeros``), or ''."""
    d = dotted_name(node)
    if not d:
        return ""
    head, _, rest = d.partition(".")
    base = ctx.imports.get(head)
    if base is None:
        obj = (ctx.namespace or {}).get(head)
        jax = sys.modules.get("jax")
        if obj is not None and jax is not None and obj is getattr(jax, "jit", None):
            base = "jax.jit"
        elif obj is not None and getattr(obj, "__module__", "") == "functools" and head == "partial":
            base = "functools.partial"
        else:
            return d
    return base + ("." + rest if rest else "")


def _is_jit(ctx: Context, node: cst.CSTNode) -> bool:
    return _full(ctx, node) == "jax.jit"


def _is_partial(ctx: Context, node: cst.CSTNode) -> bool:
    return _full(ctx, node) == "functools.partial"


def _jnp_name(ctx: Context, func: cst.CSTNode) -> str:
    """'zeros' for ``jnp.zeros`` / ``jax.numpy.zeros``; '' when ``func`` is not a jax.numpy function."""
    full = _full(ctx, func)
    return full[len("jax.numpy."):] if full.startswith("jax.numpy.") and full.count(".") == 2 else ""


def _names_in(node: cst.CSTNode) -> list[str]:
    """Names read in ``node``, skipping attribute names and names only used for ``.shape``/``.ndim``."""
    out: list[str] = []

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> bool:
            if isinstance(n.value, cst.Name) and n.attr.value in _SHAPE_ATTRS:
                return False
            n.value.visit(self)
            return False

        def visit_Name(self, n: cst.Name) -> None:
            out.append(n.value)

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

    node.visit(_V())
    return out


def _tracer(v: Any) -> bool:
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(v, jax.core.Tracer)


def _lookup(ctx: Context, name: str) -> Any:
    loc = ctx.locals or {}
    if name in loc:
        return loc[name]
    return (ctx.namespace or {}).get(name)


def _statement(ctx: Context) -> cst.SimpleStatementLine | None:
    found = ctx.at_line(cst.SimpleStatementLine)
    return found[0] if found else None  # type: ignore[return-value]


def _within(ctx: Context, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
    return node is outer or outer in ctx.ancestors(node)


# ---------------------------------------------------------------------------------------------- shapes


def _shape(ctx: Context, e: cst.CSTNode) -> tuple[int, ...] | None:
    """The static shape of a simple expression from the failing frame's locals, or None."""
    if isinstance(e, (cst.Integer, cst.Float)):
        return ()
    if isinstance(e, cst.Name):
        return _value_shape(_lookup(ctx, e.value))
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Name) and len(e.slice) == 1:
        key = e.slice[0].slice
        if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString):
            d = _lookup(ctx, e.value.value)
            if isinstance(d, dict):
                return _value_shape(d.get(key.value.evaluated_value))
        return None
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value in ("ravel", "flatten") \
            and not e.args:
        inner = _shape(ctx, e.func.value)
        return None if inner is None else (_prod(inner),)
    parts: list[cst.CSTNode]
    if isinstance(e, cst.Comparison):
        parts = [e.left] + [c.comparator for c in e.comparisons]
    elif isinstance(e, cst.BinaryOperation):
        parts = [e.left, e.right]
    elif isinstance(e, cst.UnaryOperation):
        parts = [e.expression]
    elif isinstance(e, cst.Call) and _jnp_name(ctx, e.func) in _ELEMENTWISE and all(a.keyword is None for a in e.args):
        parts = [a.value for a in e.args]
    else:
        return None
    shapes = [_shape(ctx, p) for p in parts]
    if any(s is None for s in shapes):
        return None
    try:
        import numpy as np

        return tuple(np.broadcast_shapes(*shapes))  # type: ignore[arg-type]
    except ValueError:
        return None


def _prod(shape: tuple[int, ...]) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def _value_shape(v: Any) -> tuple[int, ...] | None:
    if isinstance(v, (bool, int, float)):
        return ()
    shape = getattr(v, "shape", None) if hasattr(v, "dtype") else None
    return tuple(shape) if isinstance(shape, tuple) else None


def _dtype_kind(ctx: Context, e: cst.CSTNode) -> str:
    """'f', 'i', 'b'... (NumPy kind) of a name's value in the failing frame, '' when unknown."""
    if isinstance(e, cst.Name):
        v = _lookup(ctx, e.value)
        kind = getattr(getattr(v, "dtype", None), "kind", "")
        return kind if isinstance(kind, str) else ""
    return ""


_ELEMENTWISE = {"abs", "absolute", "square", "sqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tanh",
                "isnan", "isfinite", "isinf", "logical_not", "logical_and", "logical_or", "logical_xor",
                "negative", "sign", "maximum", "minimum", "power", "clip"}

# ---------------------------------------------------------------------------------------------- jit sites


@dataclass
class _Jit:
    """Where the user's function is jitted and how it is called."""

    fn: cst.FunctionDef
    node: cst.BaseExpression  # what to replace: the decorator expression or the ``jax.jit(g, ...)`` call
    call: cst.Call | None  # the call that carries the keywords (None for a bare ``@jax.jit``)
    jit_ref: cst.BaseExpression  # ``jax.jit`` / ``jit`` as the cell spells it
    names: list[str] = field(default_factory=list)  # names the jitted function is called by
    inline: cst.Call | None = None  # ``jax.jit(g)(...)``
    method: bool = False  # the call sites are ``obj.name(...)``


def _deco_kind(ctx: Context, e: cst.BaseExpression) -> tuple[cst.Call | None, cst.BaseExpression] | None:
    """(keyword-carrying call, jit expression) for ``@jax.jit``, ``@jax.jit(...)``, ``@partial(jax.jit, ...)``."""
    if _is_jit(ctx, e):
        return None, e
    if isinstance(e, cst.Call):
        pos = [a for a in e.args if a.keyword is None]
        if _is_jit(ctx, e.func) and not pos and all(a.star == "" for a in e.args):
            return e, e.func
        if _is_partial(ctx, e.func) and len(pos) == 1 and e.args[0] is pos[0] and _is_jit(ctx, pos[0].value) \
                and all(a.star == "" for a in e.args):
            return e, pos[0].value
    return None


def _find_jit(ctx: Context, fn: cst.FunctionDef) -> _Jit | None:
    """The single place where ``fn`` is jitted in the cell, or None (not jitted, jitted twice, unusual)."""
    decos = list(fn.decorators)
    kinds = [(d, _deco_kind(ctx, d.decorator)) for d in decos]
    jits = [(d, k) for d, k in kinds if k is not None]
    name = fn.name.value
    in_class = isinstance(ctx.parent(ctx.parent(fn) or fn), cst.ClassDef)
    if jits:
        if len(jits) != 1 or len(decos) != 1:
            return None
        d, (call, ref) = jits[0]
        return _Jit(fn, d.decorator, call, ref, [name], method=in_class)
    if decos or in_class:
        return None
    calls = [c for c in ctx.nodes(cst.Call) if _is_jit(ctx, c.func) and c.args  # type: ignore[attr-defined]
             and c.args[0].keyword is None and _name_of(c.args[0].value) == name]  # type: ignore[attr-defined]
    if len(calls) != 1:
        return None
    call = calls[0]
    assert isinstance(call, cst.Call)
    if any(a.keyword is None or a.star for a in call.args[1:]):
        return None
    parent = ctx.parent(call)
    if isinstance(parent, cst.Call) and parent.func is call:
        return _Jit(fn, call, call, call.func, [], inline=parent)
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        return _Jit(fn, call, call, call.func, [parent.targets[0].target.value])
    return None


def _name_of(e: cst.CSTNode) -> str:
    return e.value if isinstance(e, cst.Name) else ""


def _params(fn: cst.FunctionDef) -> tuple[list[str], list[str]]:
    """(positional parameter names in order, keyword-only names)."""
    pos = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    return pos, [p.name.value for p in fn.params.kwonly_params]


def _literal(e: cst.BaseExpression) -> Any:
    try:
        return ast.literal_eval(cst.Module([]).code_for_node(e))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOPE


_NOPE = object()


def _static_kw(call: cst.Call | None, kw: str) -> tuple[list[Any], cst.Arg | None] | None:
    """The values of ``static_argnums``/``static_argnames`` on ``call`` (as a list) and its Arg; None if unreadable."""
    if call is None:
        return [], None
    for a in call.args:
        if a.keyword is not None and a.keyword.value == kw:
            v = _literal(a.value)
            if v is _NOPE:
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


def _tuple_code(vals: list[Any]) -> str:
    if len(vals) == 1 and isinstance(vals[0], int):
        return str(vals[0])
    body = ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in vals)
    return f"({body},)" if len(vals) == 1 else f"({body})"


def _kwarg(name: str, code: str) -> cst.Arg:
    return cst.Arg(value=cst.parse_expression(code), keyword=cst.Name(name),
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")))


def _set_kwargs(call: cst.Call, updates: dict[str, str]) -> cst.Call:
    args = list(call.args)
    for kw, code in updates.items():
        for i, a in enumerate(args):
            if a.keyword is not None and a.keyword.value == kw:
                args[i] = a.with_changes(value=cst.parse_expression(code))
                break
        else:
            args.append(_kwarg(kw, code))
    return call.with_changes(args=args)


def _make_static(ctx: Context, site: _Jit, add: list[str], prefer_nums: bool = False
                 ) -> tuple[cst.BaseExpression, cst.BaseExpression, list[str | None]] | None:
    """(old node, new node, imports) that make the parameters ``add`` of ``site.fn`` static."""
    pos, kwonly = _params(site.fn)
    if any(p not in pos and p not in kwonly for p in add):
        return None
    nums_r = _static_kw(site.call, "static_argnums")
    names_r = _static_kw(site.call, "static_argnames")
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
        updates["static_argnums"] = _tuple_code(sorted(set(nums + more)))
        if both:
            named = names + [pos[i] for i in nums + more if -len(pos) <= i < len(pos) and pos[i] not in names]
            updates["static_argnames"] = _tuple_code(named + [p for p in kw_new if p not in named])
    else:
        updates["static_argnames"] = _tuple_code(names + new)
    if site.call is not None:
        return site.call, _set_kwargs(site.call, updates), []
    part, imp = ctx.need("functools.partial", "partial")
    new_call = cst.Call(func=cst.parse_expression(part), args=[cst.Arg(site.jit_ref)])
    return site.node, _set_kwargs(new_call, updates), [imp]


# ---------------------------------------------------------------------------------------------- call sites


def _call_sites(ctx: Context, site: _Jit) -> list[cst.Call]:
    if site.inline is not None:
        return [site.inline]
    out = []
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if site.method:
            if isinstance(c.func, cst.Attribute) and c.func.attr.value in site.names:
                out.append(c)
        elif isinstance(c.func, cst.Name) and c.func.value in site.names:
            out.append(c)
    return out


def _arg_for(call: cst.Call, fn: cst.FunctionDef, param: str, method: bool = False) -> cst.Arg | None | bool:
    """The Arg passed for ``param`` at ``call``; False when it cannot be told (``*args``), None when defaulted."""
    pos, _ = _params(fn)
    if method:
        pos = pos[1:]
    for a in call.args:
        if a.star:
            return False
        if a.keyword is not None and a.keyword.value == param:
            return a
    if param in pos:
        i = pos.index(param)
        positional = [a for a in call.args if a.keyword is None]
        if i < len(positional):
            return positional[i]
    return None


_PY_CALLS = {"len", "int", "round", "min", "max", "abs", "sum"}


def _py_value(ctx: Context, e: cst.BaseExpression, inside: bool) -> str:
    """'py' (a hashable Python value), 'wrapped' (``jnp.int32(3)``), 'scalar-array', 'array', 'unknown'."""
    lit = _literal(e)
    if lit is not _NOPE:
        return "py" if not isinstance(lit, (list, dict, set)) else "unknown"
    if isinstance(e, cst.Name):
        v = None if inside else (ctx.namespace or {}).get(e.value, _NOPE)
        if v is _NOPE or v is None:
            return "unknown"
        if isinstance(v, (bool, int, float, str, tuple)):
            return "py"
        if hasattr(v, "dtype") and hasattr(v, "shape"):
            if not type(v).__module__.startswith("jax"):
                return "py" if v.shape == () else "array"  # NumPy scalars hash fine
            return "scalar-array" if v.shape == () and getattr(v.dtype, "kind", "") in "iu" else "array"
        return "unknown"
    if isinstance(e, cst.Call):
        if isinstance(e.func, cst.Name) and e.func.value in _PY_CALLS:
            return "py"
        if _jnp_name(ctx, e.func) in ("int32", "int64", "array", "asarray", "int16", "int8", "uint32") \
                and len(e.args) == 1 and isinstance(e.args[0].value, cst.Integer):
            return "wrapped"
        if _full(ctx, e.func).startswith("jax."):
            return "array"  # jnp.float32(2.0), jnp.array(n), jax.random...: array data, never static
        return "unknown"
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape":
        return "py"
    if isinstance(e, cst.BinaryOperation):
        a, b = _py_value(ctx, e.left, inside), _py_value(ctx, e.right, inside)
        return "py" if a == b == "py" else "unknown"
    return "unknown"


def _transformed(ctx: Context, fn: cst.FunctionDef) -> bool:
    """Whether ``fn`` runs under a JAX transformation (jitted, or passed as a function to some call)."""
    if fn.decorators:
        return True
    name = fn.name.value
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if any(isinstance(a.value, cst.Name) and a.value.value == name for a in c.args):
            return True
    return False


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


def _body_assignments(fn: cst.FunctionDef, name: str) -> list[cst.CSTNode]:
    """Statements in ``fn`` (not nested functions) that bind ``name``."""
    out: list[cst.CSTNode] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                if any(isinstance(x, cst.Name) and x.value == name for x in _target_names(t.target)):
                    out.append(n)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            if _name_of(n.target) == name:
                out.append(n)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            if _name_of(n.target) == name:
                out.append(n)

        def visit_For(self, n: cst.For) -> None:
            if any(x.value == name for x in _target_names(n.target)):
                out.append(n)

    fn.visit(_V())
    return out


def _target_names(t: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(t, cst.Name):
        return [t]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for e in t.elements for n in _target_names(e.value)]
    return []


def _to_params(ctx: Context, fn: cst.FunctionDef, name: str, depth: int = 0) -> tuple[cst.FunctionDef, set[str]] | None:
    """The function and its parameters a traced local ``name`` is computed from (by plain assignments)."""
    if depth > 3:
        return None
    pos, kwonly = _params(fn)
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
        if n in (ctx.locals or {}) and not _tracer(v):
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
                    out.extend(n for n in _names_in(b) if _tracer(_lookup(ctx, n)))
    return list(dict.fromkeys(out))


@dataclass
class _Static:
    fn: cst.FunctionDef
    site: _Jit
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
        stmt = _statement(ctx)
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
    site = _find_jit(ctx, fn)
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
            if not _tracer(v) or getattr(v, "shape", None) != ():
                return None  # an array (data), not a size
            weak = weak and bool(getattr(getattr(v, "aval", None), "weak_type", False))
    made = _make_static(ctx, site, params)
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
        return e if isinstance(v, int) and not isinstance(v, bool) and not _tracer(owner) else None
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape":
        return e
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "len":
        return e
    return None


@rule("dynamic-slice")
def dynamic_slice(ctx: Context) -> Edit | None:
    """``x[i:i + k]`` (traced ``i``, static ``k``) -> ``lax.dynamic_slice_in_dim(x, i, k)``."""
    stmt = _statement(ctx)
    if stmt is None:
        return None
    found = []
    for sub in ctx.nodes(cst.Subscript):
        assert isinstance(sub, cst.Subscript)
        if not _within(ctx, sub, stmt):
            continue
        for i, el in enumerate(sub.slice):
            s = el.slice
            if isinstance(s, cst.Slice) and any(
                    b is not None and any(_tracer(_lookup(ctx, n)) for n in _names_in(b))
                    for b in (s.lower, s.upper, s.step)):
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
        args.append(_kwarg("axis", str(axis)))
    new = cst.Call(func=cst.parse_expression(f"{lax}.dynamic_slice_in_dim"), args=args)
    base, start, k = ctx.code(sub.value), ctx.code(s.lower), cst.Module([]).code_for_node(size)
    return Edit(ctx.replace(sub, new, imports=[imp]), "safe",
                f"`{base}[{start}:...]` became `dynamic_slice_in_dim`: a window of static length {k} "
                f"at a traced start (a start too close to the end is clamped so the window fits).")


# ---------------------------------------------------------------------------------------------- hashable static args


def _hashable_literal(v: Any) -> bool:
    """Whether a literal value is made of plain hashable items (lists count: they become tuples)."""
    if isinstance(v, (int, float, str, bool, type(None))):
        return True
    if isinstance(v, (tuple, list)):
        return all(_hashable_literal(x) for x in v)
    return False


def _to_tuple(e: cst.BaseExpression) -> cst.BaseExpression | None:
    """A list literal of plain items as the same tuple literal (brackets become parentheses)."""
    if isinstance(e, cst.List) and all(isinstance(el, cst.Element) for el in e.elements):
        if not all(_hashable_literal(_literal(el.value)) or isinstance(el.value, cst.Name) for el in e.elements):
            return None
        if any(isinstance(el.value, cst.List) for el in e.elements):
            return None
        els = list(e.elements)
        if len(els) == 1:  # (2,) not (2)
            els[0] = els[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace("")))
        return cst.Tuple(elements=els, lpar=[cst.LeftParen(whitespace_after=e.lbracket.whitespace_after)],
                         rpar=[cst.RightParen(whitespace_before=e.rbracket.whitespace_before)])
    return None


@rule("static-arg-hashable")
def static_arg_hashable(ctx: Context) -> Edit | None:
    """A list given for a static argument becomes a tuple at the call site."""
    text = ctx.message or ""
    mt = re.search(r"hash an object of type <class '([\w.]+)'>, (.*?)\. The error was", text, re.S)
    if mt is None or mt.group(1) != "list":
        return None
    shown = mt.group(2)
    stmt = _statement(ctx)
    if stmt is None:
        return None
    cands: list[tuple[cst.BaseExpression, cst.BaseExpression, cst.Call, cst.Arg]] = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if not _within(ctx, call, stmt) or _jnp_name(ctx, call.func) or _full(ctx, call.func).startswith("jax."):
            continue
        for a in call.args:
            v = a.value
            if isinstance(v, cst.List):
                lit = _literal(v)
                new = _to_tuple(v)
                if new is not None and (lit is _NOPE or repr(lit) == shown):
                    cands.append((v, new, call, a))
            elif isinstance(v, cst.ListComp):
                cands.append((v, cst.Call(func=cst.Name("tuple"), args=[cst.Arg(v)]), call, a))
            elif isinstance(v, cst.Name):
                val = _lookup(ctx, v.value)
                if isinstance(val, list) and _hashable_literal(val) and \
                        not any(isinstance(x, list) for x in val) and repr(val) == shown:
                    cands.append((v, cst.Call(func=cst.Name("tuple"), args=[cst.Arg(v)]), call, a))
    if len(cands) != 1:
        return None
    old, new, call, arg = cands[0]
    fits = _tuple_fits(ctx, call, arg)
    if fits is False:
        return None  # the function uses it as a list (`+ [..]`, `.append`): a tuple would break it
    summary = f"`{ctx.code(old)}` is passed as a tuple: static arguments must be hashable"
    if fits:
        return Edit(ctx.replace(old, new), "safe", summary + ", and the function only reads its items.")
    return Edit(ctx.replace(old, new), "review",
                summary + "; check the function does not use it as a list (`+ [..]`, `.append`, `== [..]`).")


def _callee_def(ctx: Context, call: cst.Call) -> tuple[cst.FunctionDef, bool] | None:
    """The user's function a call runs (through its ``jit``), and whether it is called as a method."""
    if isinstance(call.func, cst.Name):
        name = call.func.value
        fn = ctx.function_named(name)
        if fn is not None and not isinstance(ctx.parent(ctx.parent(fn) or fn), cst.ClassDef):
            return fn, False
        for c in ctx.nodes(cst.Call):
            assert isinstance(c, cst.Call)
            parent = ctx.parent(c)
            if _is_jit(ctx, c.func) and c.args and isinstance(c.args[0].value, cst.Name) and isinstance(
                    parent, cst.Assign) and _name_of(parent.targets[0].target) == name:
                g = ctx.function_named(c.args[0].value.value)
                return (g, False) if g is not None else None
    return None


_TUPLE_SAFE_CALLS = {"len", "tuple", "list", "zip", "enumerate", "sum", "max", "min", "sorted", "reversed"}


def _tuple_fits(ctx: Context, call: cst.Call, arg: cst.Arg) -> bool | None:
    """True: the called function only reads the argument's items; False: it uses list-only operations;
    None: cannot tell (the function is not in the cell, or the value is handed on to other code)."""
    found = _callee_def(ctx, call)
    if found is None:
        return None
    fn, method = found
    pos, kwonly = _params(fn)
    if arg.keyword is not None:
        param = arg.keyword.value
    else:
        positional = [a for a in call.args if a.keyword is None]
        i = positional.index(arg) + (1 if method else 0)
        if any(a.star for a in call.args) or i >= len(pos):
            return None
        param = pos[i]
    if param not in pos + kwonly or _body_assignments(fn, param):
        return None
    verdict: bool | None = True
    for n in ctx.nodes(cst.Name):
        assert isinstance(n, cst.Name)
        if n.value != param or not _within(ctx, n, fn.body):
            continue
        p = ctx.parent(n)
        if isinstance(p, cst.Arg):
            owner = ctx.parent(p)
            if isinstance(owner, cst.Call) and (_name_of(owner.func) in _TUPLE_SAFE_CALLS or isinstance(
                    owner.func, cst.Attribute)) and p.star in ("", "*"):
                continue
            verdict = None  # handed to other code
            continue
        if isinstance(p, cst.Subscript) and p.value is n:
            continue
        if isinstance(p, (cst.For, cst.CompFor)) and p.iter is n:
            continue
        if isinstance(p, cst.StarredElement):
            continue
        if isinstance(p, cst.Attribute) and p.attr.value in ("count", "index") and p.value is n:
            continue
        if isinstance(p, (cst.BinaryOperation, cst.Comparison, cst.ComparisonTarget, cst.Attribute, cst.AugAssign)):
            return False
        verdict = None
    return verdict


# ---------------------------------------------------------------------------------------------- jit-method


@rule("jit-method")
def jit_method(ctx: Context) -> Edit | None:
    """``@jax.jit`` on a method -> ``@partial(jax.jit, static_argnums=0)`` (``self`` hashed by identity)."""
    qual = ctx.values.get("method", "")
    if qual.count(".") < 1 or "<locals>" in qual:
        return None
    cls_name, meth = qual.split(".")[-2:]
    classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == cls_name]  # type: ignore[attr-defined]
    if len(classes) != 1:
        return None
    cls = classes[0]
    assert isinstance(cls, cst.ClassDef)
    fns = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == meth]
    if len(fns) != 1:
        return None
    fn = fns[0]
    obj = (ctx.namespace or {}).get(cls_name)
    if obj is not None and (getattr(obj, "__hash__", None) is None or hasattr(obj, "__dataclass_fields__")):
        return None  # not hashable (or hashed by its array fields): static self would fail
    for d in cls.decorators:
        e = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if "dataclass" in dotted_name(e):
            return None
    if _mutates_instances(ctx, cls, obj):
        return None  # a static self would silently keep the old attribute values
    site = _find_jit(ctx, fn)
    pos, _ = _params(fn)
    if site is None or not pos:
        return None
    made = _make_static(ctx, site, [pos[0]], prefer_nums=True)
    if made is None:
        return None
    old, new, imports = made
    return Edit(ctx.replace(old, new, imports=imports), "review",
                f"`{pos[0]}` is now a static argument of `{meth}`: the object must stay hashable and is "
                f"compiled in as a constant, so later changes to its attributes are NOT seen (no retrace).")


def _mutates_instances(ctx: Context, cls: cst.ClassDef, obj: Any) -> bool:
    """Whether the cell changes attributes of the class's objects after ``__init__``."""
    for a in ctx.nodes(cst.AssignTarget) + ctx.nodes(cst.AugAssign) + ctx.nodes(cst.AnnAssign):
        t = a.target  # type: ignore[attr-defined]
        targets = [t] if not isinstance(t, (cst.Tuple, cst.List)) else [e.value for e in t.elements]
        for tt in targets:
            if not isinstance(tt, cst.Attribute) or not isinstance(tt.value, cst.Name):
                continue
            meth = ctx.enclosing(a, cst.FunctionDef)
            if meth is not None and _within(ctx, meth, cls):
                if meth.name.value != "__init__":  # type: ignore[attr-defined]
                    return True
                continue
            inst = (ctx.namespace or {}).get(tt.value.value)
            if meth is not None or obj is None or isinstance(inst, obj):
                return True
    return False


# ---------------------------------------------------------------------------------------------- boolean-mask


def _is_mask(ctx: Context, e: cst.BaseExpression) -> bool:
    if isinstance(e, cst.Comparison):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.BitInvert):
        return _is_mask(ctx, e.expression)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _is_mask(ctx, e.left) and _is_mask(ctx, e.right)
    if isinstance(e, cst.Call) and _jnp_name(ctx, e.func) in ("isnan", "isfinite", "isinf", "logical_not",
                                                                "logical_and", "logical_or", "logical_xor"):
        return True
    if isinstance(e, (cst.Name, cst.Subscript)):
        v = _lookup(ctx, e.value) if isinstance(e, cst.Name) else None
        if isinstance(e, cst.Subscript):
            shape = _shape(ctx, e)
            return shape is not None and _subscript_dtype(ctx, e) == "b"
        return getattr(getattr(v, "dtype", None), "kind", "") == "b"
    return False


def _subscript_dtype(ctx: Context, e: cst.Subscript) -> str:
    if isinstance(e.value, cst.Name) and len(e.slice) == 1:
        key = e.slice[0].slice
        d = _lookup(ctx, e.value.value)
        if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString) and isinstance(d, dict):
            return getattr(getattr(d.get(key.value.evaluated_value), "dtype", None), "kind", "")
    return ""


def _mask_subscripts(ctx: Context, stmt: cst.CSTNode) -> list[cst.Subscript]:
    out = []
    for s in ctx.nodes(cst.Subscript):
        assert isinstance(s, cst.Subscript)
        if _within(ctx, s, stmt) and len(s.slice) == 1 and isinstance(s.slice[0].slice, cst.Index) \
                and _is_mask(ctx, s.slice[0].slice.value):
            out.append(s)
    return out


def _mask_of(s: cst.Subscript) -> cst.BaseExpression:
    idx = s.slice[0].slice
    assert isinstance(idx, cst.Index)
    return idx.value


_REDUCTIONS = {"sum", "mean", "prod", "max", "min", "any", "all", "var", "std", "nansum", "nanmean", "amax", "amin"}


def _reduction_of(ctx: Context, node: cst.CSTNode) -> tuple[cst.Call, cst.BaseExpression, str] | None:
    """The reduction call that consumes ``node`` through elementwise operations: (call, its operand, name)."""
    cur = node
    while True:
        p = ctx.parent(cur)
        if isinstance(p, (cst.BinaryOperation, cst.UnaryOperation)):
            if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, (cst.MatrixMultiply, cst.FloorDivide)):
                return None
            cur = p
            continue
        if isinstance(p, cst.Arg):
            call = ctx.parent(p)
            if not isinstance(call, cst.Call):
                return None
            name = _jnp_name(ctx, call.func)
            if name in _ELEMENTWISE and all(a.keyword is None for a in call.args):
                cur = call
                continue
            if name in _REDUCTIONS and call.args[0] is p and len(call.args) == 1:
                return call, p.value, name
            return None
        if isinstance(p, cst.Attribute) and p.value is cur and p.attr.value in _REDUCTIONS:
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and call.func is p and not call.args:
                return call, cur, p.attr.value  # type: ignore[return-value]
            return None
        return None


def _where_mask(ctx: Context, bases: list[cst.BaseExpression], mask: cst.BaseExpression,
                mshape: tuple[int, ...] | None) -> cst.BaseExpression | None:
    """``mask`` (or ``mask[:, None]``) so that it lines up with every base; None when shapes are unknown/odd."""
    shapes = {_shape(ctx, b) for b in bases}
    if len(shapes) != 1:
        return None
    shape = shapes.pop()
    if shape is None or mshape is None:
        return None
    if shape == mshape:
        return mask
    if len(shape) > len(mshape) and shape[:len(mshape)] == mshape:
        idx = ", ".join([":"] * len(mshape) + ["None"] * (len(shape) - len(mshape)))
        return cst.parse_expression(f"({cst.Module([]).code_for_node(mask)})[{idx}]") if not isinstance(
            mask, cst.Name) else cst.parse_expression(f"{mask.value}[{idx}]")
    return None


def _strip_masks(expr: cst.BaseExpression, subs: list[cst.Subscript]) -> cst.BaseExpression:
    mapping = {id(s): s.value for s in subs}

    class _T(cst.CSTTransformer):
        def leave_Subscript(self, original: cst.Subscript, updated: cst.BaseExpression) -> cst.BaseExpression:
            got = mapping.get(id(original))
            if got is None:
                return updated
            return got.with_changes(lpar=original.lpar, rpar=original.rpar) if hasattr(got, "lpar") else got

    out = expr.visit(_T())
    assert isinstance(out, cst.BaseExpression)
    return out


def _operands_ok(ctx: Context, operand: cst.BaseExpression, subs: list[cst.Subscript]) -> bool:
    """Every name in the operand outside the masked subscripts is a scalar."""
    sub_ids = {id(s) for s in subs}
    ok = True

    class _V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> bool:
            nonlocal ok
            if id(n) in sub_ids:
                return False
            ok = False
            return False

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            if _full(ctx, n).startswith("jax.numpy."):
                return False
            nonlocal ok
            ok = False
            return False

        def visit_Name(self, n: cst.Name) -> None:
            nonlocal ok
            if _full(ctx, n).startswith("jax.numpy"):
                return
            if _shape(ctx, n) != ():
                ok = False

    operand.visit(_V())
    return ok


def _mask_shape(ctx: Context) -> tuple[int, ...] | None:
    mt = re.match(r"bool\[([\d,\s]*)\]$", ctx.values.get("aval", "").strip())
    if mt is None:
        return None
    return tuple(int(x) for x in mt.group(1).split(",") if x.strip())


def _reduction_edit(ctx: Context, red: tuple[cst.Call, cst.BaseExpression, str], subs: list[cst.Subscript],
                    where: cst.BaseExpression) -> cst.Call | None:
    call, operand, name = red
    jnp, _ = ctx.need("jax.numpy", "jnp")
    new_operand = _strip_masks(operand, subs)
    kws = [_kwarg("where", "0")]
    kws[0] = kws[0].with_changes(value=where)
    if name in ("max", "min", "amax", "amin"):
        if not all(_dtype_kind(ctx, s.value) == "f" for s in subs):
            return None
        kws.append(_kwarg("initial", f"-{jnp}.inf" if name in ("max", "amax") else f"{jnp}.inf"))
    if isinstance(call.func, cst.Attribute) and call.func.value is operand:
        return call.with_changes(func=call.func.with_changes(value=new_operand), args=kws)
    return call.with_changes(args=[call.args[0].with_changes(value=new_operand), *kws])


@rule("boolean-mask")
def boolean_mask(ctx: Context) -> Edit | None:
    """Boolean-mask indexing under jit: reductions take ``where=mask``; ``x.at[mask].set(v)`` -> ``jnp.where``."""
    stmt = _statement(ctx)
    if stmt is None:
        return None
    subs = _mask_subscripts(ctx, stmt)
    if not subs:
        return None
    mshape = _mask_shape(ctx)
    at = [s for s in subs if isinstance(s.value, cst.Attribute) and s.value.attr.value == "at"]
    if at:
        return _at_mask(ctx, subs, mshape) if len(at) == 1 else None
    got = _reduction_pairs(ctx, subs, mshape)
    if got is None:
        return _masked_variable(ctx, stmt, subs, mshape) if not at else None
    pairs, names, mask_codes = got
    # the same function often filters several times (one line per class, per metric): fix those too
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    for other in ctx.nodes(cst.SimpleStatementLine) if fn is not None else []:
        if other is stmt or not _within(ctx, other, fn) or ctx.span(other)[0] < ctx.span(stmt)[0]:
            continue
        osubs = _mask_subscripts(ctx, other)
        more = _reduction_pairs(ctx, osubs, None) if osubs else None
        if more is not None:
            pairs += more[0]
            names += more[1]
            mask_codes |= more[2]
    mask_code = ", ".join(f"`where={c}`" for c in sorted(mask_codes))
    extra = " (an all-False mask now gives -inf/inf instead of an error)" if {"max", "min", "amax", "amin"} & set(
        names) else ""
    return Edit(ctx.replace_many(pairs), "review",
                f"the masked entries are skipped with {mask_code} instead of being gathered (the shape "
                f"stays static){extra}; check that the mask lines up with the array it filters.")


def _reduction_pairs(ctx: Context, subs: list[cst.Subscript], mshape: tuple[int, ...] | None
                     ) -> tuple[list[tuple[cst.CSTNode, cst.CSTNode]], list[str], set[str]] | None:
    """Every masked subscript of ``subs`` inside a reduction, rewritten with ``where=``; None if any is not."""
    if any(isinstance(s.value, cst.Attribute) and s.value.attr.value == "at" for s in subs):
        return None
    groups: dict[int, tuple[tuple[cst.Call, cst.BaseExpression, str], list[cst.Subscript]]] = {}
    for s in subs:
        red = _reduction_of(ctx, s)
        if red is None:
            return None
        groups.setdefault(id(red[0]), (red, []))[1].append(s)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    names: list[str] = []
    masks: set[str] = set()
    for red, gsubs in groups.values():
        if len({ctx.code(_mask_of(s)) for s in gsubs}) != 1 or not _operands_ok(ctx, red[1], gsubs):
            return None
        mask = _mask_of(gsubs[0])
        shape = _shape(ctx, mask)
        shape = mshape if shape is None else shape
        where = _where_mask(ctx, [s.value for s in gsubs], mask, shape)
        if where is None:
            return None
        new = _reduction_edit(ctx, red, gsubs, where)
        if new is None:
            return None
        pairs.append((red[0], new))
        names.append(red[2])
        masks.add(ctx.code(where))
    return pairs, names, masks


def _at_mask(ctx: Context, subs: list[cst.Subscript], mshape: tuple[int, ...] | None) -> Edit | None:
    """``x.at[mask].set(v)`` / ``.add(v)`` / ``.multiply(v)`` -> ``jnp.where(mask, ..., x)``."""
    at = next(s for s in subs if isinstance(s.value, cst.Attribute) and s.value.attr.value == "at")
    assert isinstance(at.value, cst.Attribute)
    base = at.value.value
    mask = _mask_of(at)
    meth = ctx.parent(at)
    call = ctx.parent(meth) if meth is not None else None
    if not isinstance(meth, cst.Attribute) or not isinstance(call, cst.Call) or call.func is not meth:
        return None
    if len(call.args) != 1 or call.args[0].keyword is not None:
        return None
    op = meth.attr.value
    v = call.args[0].value
    others = [s for s in subs if s is not at]
    bshape = _shape(ctx, base)
    if bshape is None or bshape != mshape:
        return None
    if others:  # x.at[mask].set(y[mask]), x.at[mask].add(-lr * g[mask])
        if any(ctx.code(_mask_of(o)) != ctx.code(mask) or _shape(ctx, o.value) != bshape
               or not _elementwise_path(ctx, o, v) for o in others) or not _operands_ok(ctx, v, others):
            return None
        value: cst.BaseExpression = _strip_masks(v, others)
        kinds = {_dtype_kind(ctx, o.value) for o in others}
        scalar_ok = kinds == {_dtype_kind(ctx, base)} != {""} and isinstance(v, cst.Subscript)
    else:
        if _shape(ctx, v) != ():
            return None
        value = v
        lit = _literal(v)
        kind = _dtype_kind(ctx, base)
        scalar_ok = (isinstance(lit, float) and kind == "f") or (isinstance(lit, int) and kind in "fiu" and kind != "")
    jnp, imp = ctx.need("jax.numpy", "jnp")
    b = ctx.code(base)
    val = cst.Module([]).code_for_node(value)
    ops = {"set": "{v}", "add": "{b} + {v}", "multiply": "{b} * {v}", "subtract": "{b} - {v}",
           "divide": "{b} / {v}", "min": f"{jnp}.minimum({{b}}, {{v}})", "max": f"{jnp}.maximum({{b}}, {{v}})"}
    if op not in ops:
        return None
    vv = val if isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Subscript)) else f"({val})"
    new_val = ops[op].format(b=b, v=vv)
    new = cst.parse_expression(f"{jnp}.where({ctx.code(mask)}, {new_val}, {b})")
    safe = scalar_ok and op in ("set", "add", "multiply", "subtract")
    return Edit(ctx.replace(call, new, imports=[imp]), "safe" if safe else "review",
                f"`{b}.at[mask].{op}(...)` became `jnp.where(mask, ..., {b})`: same values, without a "
                f"data-dependent index" + ("." if safe else "; check the dtype and shape of the new values."))


def _elementwise_path(ctx: Context, node: cst.CSTNode, root: cst.CSTNode) -> bool:
    """Whether ``node`` reaches ``root`` through elementwise operations only (so its shape carries through)."""
    cur = node
    while cur is not root:
        p = ctx.parent(cur)
        if isinstance(p, (cst.BinaryOperation, cst.UnaryOperation)) and not isinstance(
                getattr(p, "operator", None), cst.MatrixMultiply):
            cur = p
        elif isinstance(p, cst.Arg) and isinstance(ctx.parent(p), cst.Call) and _jnp_name(
                ctx, ctx.parent(p).func) in _ELEMENTWISE:  # type: ignore[union-attr]
            cur = ctx.parent(p)  # type: ignore[assignment]
        else:
            return False
    return True


def _masked_variable(ctx: Context, stmt: cst.SimpleStatementLine, subs: list[cst.Subscript],
                     mshape: tuple[int, ...] | None) -> Edit | None:
    """``v = x[mask]`` (or an elementwise expression of masked arrays) used only by later reductions of ``v``."""
    if len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Assign):
        return None
    assign = stmt.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    var = assign.targets[0].target.value
    value = assign.value
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    if not isinstance(fn, cst.FunctionDef) or not _operands_ok(ctx, value, subs):
        return None
    if not all(_elementwise_path(ctx, s, value) for s in subs):
        return None
    mask = _mask_of(subs[0])
    where = _where_mask(ctx, [s.value for s in subs], mask, mshape)
    if where is None:
        return None
    if len(_body_assignments(fn, var)) != 1:
        return None
    mask_names = set(_names_in(mask))
    if any(len(_body_assignments(fn, n)) > 0 and _assigned_after(ctx, fn, n, stmt) for n in mask_names):
        return None
    uses = [n for n in ctx.nodes(cst.Name) if n.value == var and _within(ctx, n, fn)  # type: ignore[attr-defined]
            and not _within(ctx, n, assign.targets[0])]
    if not uses:
        return None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(value, _strip_masks(value, subs))]
    for u in uses:
        if ctx.span(u)[0] <= ctx.span(stmt)[0]:
            return None
        red = _reduction_of(ctx, u)
        if red is None or red[1] is not u:
            return None
        if red[2] in ("max", "min", "amax", "amin"):
            return None
        new = _reduction_edit(ctx, red, [], where)
        if new is None:
            return None
        pairs.append((red[0], new))
    return Edit(ctx.replace_many(pairs), "review",
                f"`{var}` now keeps the full shape and its reductions skip the masked entries with "
                f"`where={ctx.code(where)}`; check nothing else expects `{var}` to hold only the selected values.")


def _assigned_after(ctx: Context, fn: cst.FunctionDef, name: str, stmt: cst.CSTNode) -> bool:
    line = ctx.span(stmt)[0]
    return any(ctx.span(b)[0] > line for b in _body_assignments(fn, name))


# ---------------------------------------------------------------------------------------------- size-argument

_SIZED = {"nonzero", "where", "argwhere", "flatnonzero", "unique"}


@rule("size-argument")
def size_argument(ctx: Context) -> Edit | None:
    """``jnp.nonzero(x)``/``jnp.where(c)``/``jnp.argwhere``/``jnp.flatnonzero``/``jnp.unique`` -> a static ``size=``."""
    stmt = _statement(ctx)
    if stmt is None:
        return None
    cands = []
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if not _within(ctx, c, stmt):
            continue
        name = _jnp_name(ctx, c.func)
        if name not in _SIZED or any(a.keyword is not None and a.keyword.value in ("size", "axis") for a in c.args):
            continue
        pos = [a for a in c.args if a.keyword is None]
        if not pos or any(a.star for a in c.args) or (name == "where" and len(pos) != 1):
            continue
        if name != "unique" and len(c.args) != 1:
            continue
        cands.append((c, name))
    if len(cands) != 1:
        return None
    call, name = cands[0]
    arg = call.args[0].value
    shape = _shape(ctx, arg)
    if shape is None or not _result_is_values(ctx, call, stmt):
        return None
    total = _prod(shape)
    size_code = str(total)
    if isinstance(arg, cst.Name):
        size_code = f"{arg.value}.size"
    else:  # name the array the size comes from, so the rewrite keeps working for other input shapes
        for n in _names_in(arg):
            got = _shape(ctx, cst.Name(n))
            if got is not None and len(got) > 0 and _prod(got) == total:
                size_code = f"{n}.size"
                break
    kws = [_kwarg("size", size_code)]
    given = next((a for a in call.args if a.keyword is not None and a.keyword.value == "fill_value"), None)
    if given is not None:
        pad = f"`{ctx.code(given.value)}`"
    elif name != "unique":
        kws.append(_kwarg("fill_value", "-1"))
        pad = "-1"
    else:
        pad = "the smallest value"
    new = _set_kwargs(call, {})
    new = new.with_changes(args=[*new.args, *kws])
    if new.args[-len(kws) - 1].comma is not cst.MaybeSentinel.DEFAULT:
        fixed = list(new.args)
        fixed[-len(kws) - 1] = fixed[-len(kws) - 1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new = new.with_changes(args=fixed)
    return Edit(ctx.replace(call, new), "review",
                f"`jnp.{name}` now returns exactly `{size_code}` entries, padded with {pad}: check that the "
                f"code using the result ignores the padding.")


def _result_is_values(ctx: Context, call: cst.Call, stmt: cst.SimpleStatementLine) -> bool:
    """False when the padded result would change what follows: its length is read, or it indexes an array."""
    cur: cst.CSTNode = call
    while True:
        p = ctx.parent(cur)
        if p is None or p is stmt:
            break
        if isinstance(p, cst.Attribute) and p.attr.value in ("shape", "size") and p.value is cur:
            return False
        if isinstance(p, cst.Arg) and isinstance(ctx.parent(p), cst.Call) and _name_of(ctx.parent(p).func) == "len":  # type: ignore[union-attr]
            return False
        if isinstance(p, (cst.SubscriptElement, cst.Index)):
            sub = ctx.enclosing(p, cst.Subscript)
            if sub is not None and not _within(ctx, call, sub.value):  # type: ignore[attr-defined]
                return False  # the result is an index
        cur = p
    small = stmt.body[0] if len(stmt.body) == 1 else None
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    if isinstance(small, cst.Assign) and fn is not None:
        bound = [n.value for t in small.targets for n in _target_names(t.target)]
        line = ctx.span(stmt)[1]
        for n in ctx.nodes(cst.Name):
            assert isinstance(n, cst.Name)
            if n.value in bound and ctx.span(n)[0] > line and _within(ctx, n, fn):
                q = ctx.parent(n)
                if isinstance(q, cst.Attribute) and q.attr.value in ("shape", "size") and q.value is n:
                    return False
                for a in ctx.ancestors(n):
                    if isinstance(a, cst.SubscriptElement):
                        return False
                    if isinstance(a, cst.SimpleStatementLine):
                        break
                    if isinstance(a, cst.Arg) and isinstance(ctx.parent(a), cst.Call) and _name_of(
                            ctx.parent(a).func) == "len":  # type: ignore[union-attr]
                        return False
    return True


# ---------------------------------------------------------------------------------------------- static-argnames-typo


@rule("static-argnames-typo")
def static_argnames_typo(ctx: Context) -> Edit | None:
    """``static_argnames=("num",)`` on ``def f(x, n)`` -> the parameter name it is closest to."""
    # read the message itself: the template holes can split "{'trainng'}" at the "in" inside the name
    mt = re.search(r"invalid argnames (\{.*?\}) in (\w+)\.", ctx.message or "")
    if mt is None:
        return None
    kw = mt.group(2)
    try:
        bad = ast.literal_eval(mt.group(1))
    except (ValueError, SyntaxError):
        return None
    if not isinstance(bad, (set, list, tuple)) or not bad:
        return None
    sites: list[tuple[cst.Call, cst.FunctionDef]] = []
    for c in ctx.at_line(cst.Call, exact_start=True):
        assert isinstance(c, cst.Call)
        parent = ctx.parent(c)
        if isinstance(parent, cst.Decorator) and _deco_kind(ctx, c) is not None:
            fn = ctx.parent(parent)
            if isinstance(fn, cst.FunctionDef):
                sites.append((c, fn))
        elif _is_jit(ctx, c.func) and c.args and c.args[0].keyword is None and isinstance(c.args[0].value, cst.Name):
            fn2 = ctx.function_named(c.args[0].value.value)
            if fn2 is not None:
                sites.append((c, fn2))
    if len(sites) != 1:
        return None
    call, fn = sites[0]
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == kw), None)
    if arg is None:
        return None
    pos, kwonly = _params(fn)
    params = pos + kwonly
    current = _literal(arg.value)
    if current is _NOPE:
        return None
    current_l = [current] if isinstance(current, str) else list(current)
    strings = [arg.value] if isinstance(arg.value, cst.SimpleString) else [
        e.value for e in getattr(arg.value, "elements", []) if isinstance(e.value, cst.SimpleString)]
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    fixes = []
    for b in bad:
        close = difflib.get_close_matches(b, [p for p in params if p not in current_l], n=2, cutoff=0.6)
        if len(close) == 0 or (len(close) == 2 and difflib.SequenceMatcher(None, b, close[0]).ratio()
                                == difflib.SequenceMatcher(None, b, close[1]).ratio()):
            return None
        node = next((s for s in strings if isinstance(s, cst.SimpleString) and s.evaluated_value == b), None)
        if node is None:
            return None
        q = node.quote
        pairs.append((node, node.with_changes(value=f"{node.prefix}{q}{close[0]}{q}")))
        fixes.append((b, close[0]))
    text = ", ".join(f"`{b}` -> `{c}`" for b, c in fixes)
    safe = kw == "static_argnames" and _calls_pass_python(ctx, fn, [c for _, c in fixes])
    tail = "every call in the cell passes a Python value for it" if safe else \
        "check every call passes a hashable Python value for it"
    return Edit(ctx.replace_many(pairs), "safe" if safe else "review",
                f"{kw} now names the parameter the function has ({text}), which becomes static as intended; {tail}.")


def _calls_pass_python(ctx: Context, fn: cst.FunctionDef, params: list[str]) -> bool:
    """Whether every call of the jitted ``fn`` in the cell passes plain Python values for ``params``."""
    site = _find_jit(ctx, fn)
    sites = _call_sites(ctx, site) if site is not None else []
    if site is None or not sites:
        return False
    for call in sites:
        inside = ctx.enclosing(call, cst.FunctionDef) is not None
        for p in params:
            arg = _arg_for(call, fn, p, site.method)
            if arg is False or (isinstance(arg, cst.Arg) and _py_value(ctx, arg.value, inside) != "py"):
                return False
    return True
