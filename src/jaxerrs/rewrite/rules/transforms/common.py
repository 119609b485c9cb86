"""What the transform rules share: names, call arguments, live values, dtypes and paths into pytrees."""

from __future__ import annotations

import ast
import re
from typing import Any

import libcst as cst

from jaxerrs.rewrite.analysis import Callee, function_elsewhere, function_of
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.cst_tools import keyword_arg, own_returns, positional_args
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.values import literal

_DTYPES = {"bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
           "bfloat16", "float32", "float64", "complex64", "complex128"}
# constructors whose dtype may be given positionally: name -> index of the dtype argument
_CTORS = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1, "zeros_like": 1,
          "ones_like": 1, "full_like": 2, "arange": None, "identity": 1, "eye": None, "linspace": None}
# loop functions: full name -> (keyword, position) of the initial carry
_LOOPS = {"jax.lax.scan": ("init", 1), "jax.lax.fori_loop": ("init_val", 3), "jax.lax.while_loop": ("init_val", 2)}

# JAX callables the rules look for, also when an earlier cell bound one bare (``scan = lax.scan``)
_KNOWN = ("jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.cond", "jax.lax.switch", "jax.vmap",
          "functools.partial")


# ---------------------------------------------------------------------------------------------- helpers


def _calls_at_line(ctx: Context, names: set[str]) -> list[cst.Call]:
    """Calls of one of ``names`` (full dotted names) that contain the failing line, innermost first."""
    return [c for c in ctx.at_line(cst.Call) if isinstance(c, cst.Call) and full_name(ctx, c.func, known=_KNOWN, keep=True) in names]


def _arg(call: cst.Call, pos: int | None, keyword: str) -> cst.Arg | None:
    """The argument at positional index ``pos`` or passed as ``keyword``; None with ``*args``/``**kw``."""
    positional = []
    for a in call.args:
        if a.star:
            return None
        if a.keyword is None:
            positional.append(a)
        elif a.keyword.value == keyword:
            return a
    return positional[pos] if pos is not None and pos < len(positional) else None


def _append_arg(call: cst.Call, arg: cst.Arg) -> cst.Call:
    args = list(call.args)
    if args and not isinstance(args[-1].comma, cst.Comma):
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*args, arg])


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` wrapped in parentheses when a trailing ``.attr`` would otherwise bind to part of it."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _assigned(ctx: Context, name: str) -> cst.BaseExpression | None:
    """The value of the single ``name = value`` in the cell (None if ``name`` is bound any other way)."""
    found = [a for a in ctx.nodes(cst.Assign) if isinstance(a, cst.Assign) and any(
        isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)]
    if len(found) != 1 or len(found[0].targets) != 1:
        return None
    others = [n for n in ctx.nodes(cst.Param) if n.name.value == name]  # type: ignore[attr-defined]
    others += [n for n in ctx.nodes(cst.AugAssign) if dotted_name(n.target) == name]  # type: ignore[attr-defined]
    others += [n for n in ctx.nodes(cst.For) if dotted_name(n.target) == name]  # type: ignore[attr-defined]
    return None if others else found[0].value


def _shape(v: Any) -> tuple[int, ...] | None:
    if isinstance(v, (bool, int, float)):
        return ()
    s = getattr(v, "shape", None)
    return tuple(s) if isinstance(s, tuple) and all(isinstance(d, int) for d in s) else None


def _parse_type(text: str) -> tuple[str, tuple[int, ...]] | None:
    """'float32[8,3]' -> ('float32', (8, 3))."""
    mm = re.fullmatch(r"(?:ShapedArray\()?(\w+)\[([\d, ]*)\](?:, weak_type=\w+\))?\)?", text.strip())
    if not mm:
        return None
    dims = tuple(int(d) for d in mm.group(2).replace(" ", "").split(",") if d)
    return mm.group(1), dims


def _kind(dtype: str) -> str:
    return "f" if dtype.startswith(("float", "bfloat")) else "c" if dtype.startswith("complex") else (
        "b" if dtype.startswith("bool") else "i")


def _path(text: str) -> list[Any] | None:
    """"[1]['a']" -> [1, 'a']."""
    out: list[Any] = []
    rest = text
    while rest:
        mm = re.match(r"\[([^\]]+)\]", rest)
        if not mm:
            return None
        try:
            out.append(ast.literal_eval(mm.group(1)))
        except (ValueError, SyntaxError):
            return None
        rest = rest[mm.end():]
    return out


def _navigate(ctx: Context, expr: cst.BaseExpression, path: list[Any], depth: int = 0) -> cst.BaseExpression | None:
    """The sub-expression of a tuple/list/dict literal at ``path`` (following ``name = ...`` once or twice)."""
    if isinstance(expr, cst.Name) and depth < 3:
        value = _assigned(ctx, expr.value)
        return _navigate(ctx, value, path, depth + 1) if value is not None else (None if path else expr)
    if not path:
        return expr
    key, rest = path[0], path[1:]
    if isinstance(expr, (cst.Tuple, cst.List)) and isinstance(key, int):
        if any(isinstance(e, cst.StarredElement) for e in expr.elements) or not -len(expr.elements) <= key < len(
                expr.elements):
            return None
        return _navigate(ctx, expr.elements[key].value, rest, depth)
    if isinstance(expr, cst.Dict) and isinstance(key, str):
        for el in expr.elements:
            if not isinstance(el, cst.DictElement):
                return None
            if literal(el.key) == key:
                return _navigate(ctx, el.value, rest, depth)
        return None
    if isinstance(expr, cst.Call) and dotted_name(expr.func) == "dict" and isinstance(key, str):
        arg = _arg(expr, None, key)
        return _navigate(ctx, arg.value, rest, depth) if arg is not None else None
    return None


def _np_module(ctx: Context, func: cst.BaseExpression) -> str | None:
    """'jnp'/'np' when ``func`` is ``<jax.numpy or numpy module>.<something>``."""
    if isinstance(func, cst.Attribute):
        mod = dotted_name(func.value)
        if mod and ctx.imports.get(mod.split(".")[0], "").startswith(("jax", "numpy")):
            full = full_name(ctx, func.value, known=_KNOWN, keep=True)
            if full in ("jax.numpy", "numpy"):
                return mod
    return None


def _with_dtype(ctx: Context, expr: cst.BaseExpression, dtype: str) -> tuple[cst.BaseExpression, list[str | None]] | None:
    """``expr`` rewritten to produce ``dtype`` by changing how it is built (its dtype, its literal)."""
    lit = literal(expr)
    if isinstance(lit, (int, float)) and not isinstance(lit, bool):
        if dtype == "float32" and lit == int(lit):
            return cst.parse_expression(f"{int(lit)}.0"), []
        if dtype == "int32" and lit == int(lit):
            return cst.parse_expression(str(int(lit))), []
        jnp, imp = ctx.need("jax.numpy", "jnp")
        return cst.parse_expression(f"{jnp}.{dtype}({lit!r})"), [imp]
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute):
        return None
    attr = expr.func.attr.value
    mod = _np_module(ctx, expr.func)
    if mod is not None and attr in _DTYPES:  # jnp.int32(0) -> jnp.float32(0)
        return expr.with_changes(func=expr.func.with_changes(attr=cst.Name(dtype))), []
    if attr == "astype" and len(expr.args) == 1 and expr.args[0].keyword is None:
        jnp, imp = ctx.need("jax.numpy", "jnp")
        new_arg = expr.args[0].with_changes(value=cst.parse_expression(f"{jnp}.{dtype}"))
        return expr.with_changes(args=[new_arg]), [imp]
    if mod is not None and attr in _CTORS:
        value = cst.parse_expression(f"{mod}.{dtype}")
        kw = _arg(expr, None, "dtype")
        pos_index = _CTORS[attr]
        positional = positional_args(expr)
        if positional is None:
            return None
        old = kw if kw is not None else (positional[pos_index] if pos_index is not None and pos_index < len(
            positional) else None)
        if old is not None:
            return expr.with_changes(args=[a.with_changes(value=value) if a is old else a for a in expr.args]), []
        return _append_arg(expr, keyword_arg("dtype", value)), []
    return None


def _params(node: cst.FunctionDef | cst.Lambda) -> list[str] | None:
    p = node.params
    if p.star_kwarg is not None or isinstance(p.star_arg, cst.Param):
        return None
    return [q.name.value for q in (*p.posonly_params, *p.params)]


class _Branch:
    """A function passed to a loop or a branch: a lambda in the call, or a ``def`` of the cell (a nested def,
    a method ``self.step``, a ``partial(f, a)``: see :func:`jaxerrs.rewrite.analysis.function_of`)."""

    def __init__(self, node: cst.FunctionDef | cst.Lambda, outs: list[cst.BaseExpression],
                 callee: Callee | None = None, home: Context | None = None) -> None:
        self.node = node
        self.outs = outs  # the returned expressions (a lambda's body, each ``return``'s value)
        self.callee = callee
        self.home = home  # the context of the earlier cell that defines it; None: this cell
        # the parameters the loop or branch fills (not ``self``, not what a partial binds)
        self.params = callee.params if callee is not None else _params(node)


def _branch(ctx: Context, expr: cst.BaseExpression) -> _Branch | None:
    """The function ``expr`` passes: of this cell, or a def of an earlier cell (its ``home``)."""
    got = function_of(ctx, expr)
    home = None
    if got is None:
        far = function_elsewhere(ctx, expr)
        if far is None:
            return None
        home, got = far
    node = got.node
    if isinstance(node, cst.Lambda):
        return _Branch(node, [node.body], got)
    if node.decorators:
        return None
    rets = own_returns(node)
    if not rets or any(r.value is None for r in rets):
        return None
    return _Branch(node, [r.value for r in rets if r.value is not None], got, home)


def _is_used(ctx: Context, name: str, except_node: cst.CSTNode) -> bool:
    """Whether ``name`` is read anywhere in the cell other than inside ``except_node``."""
    inside = {id(n) for n in _walk(except_node)}
    return any(n.value == name and id(n) not in inside for n in ctx.nodes(cst.Name))  # type: ignore[attr-defined]


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    out = [node]
    for child in node.children:
        out.extend(_walk(child))
    return out


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _navigate_literal(expr: cst.BaseExpression, path: list[Any]) -> cst.BaseExpression | None:
    for key in path:
        if isinstance(expr, (cst.Tuple, cst.List)) and isinstance(key, int) and -len(expr.elements) <= key < len(
                expr.elements):
            expr = expr.elements[key].value
        elif isinstance(expr, cst.Dict) and isinstance(key, str):
            hit = [e for e in expr.elements if isinstance(e, cst.DictElement) and literal(e.key) == key]
            if len(hit) != 1:
                return None
            expr = hit[0].value
        else:
            return None
    return expr
