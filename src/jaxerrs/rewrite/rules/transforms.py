"""Rewrites for the transformations: ``vmap`` axes, ``scan``/``while_loop``/``fori_loop`` carries,
``cond``/``switch`` branch outputs and ``fori_loop`` bounds.

The messages of these errors print the types on both sides (the carry before and after one step, the
two branches' outputs, each mapped argument's axis size), so the rules read the target type from the
message and change the one expression that disagrees: the initial carry, the odd branch's returned
literal, the ``in_axes`` entry of a shared argument. Anything less clear-cut returns None.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.rules import rule

_MISSING: Any = object()

_DTYPES = {"bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
           "bfloat16", "float32", "float64", "complex64", "complex128"}
# constructors whose dtype may be given positionally: name -> index of the dtype argument
_CTORS = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1, "zeros_like": 1,
          "ones_like": 1, "full_like": 2, "arange": None, "identity": 1, "eye": None, "linspace": None}
# loop functions: full name -> (keyword, position) of the initial carry
_LOOPS = {"jax.lax.scan": ("init", 1), "jax.lax.fori_loop": ("init_val", 3), "jax.lax.while_loop": ("init_val", 2)}


# ---------------------------------------------------------------------------------------------- helpers


def _known_objects() -> dict[int, str]:
    """id -> dotted name of the JAX callables the rules look for (when the namespace binds them bare)."""
    import functools

    import jax

    objs = {"jax.lax.scan": jax.lax.scan, "jax.lax.fori_loop": jax.lax.fori_loop,
            "jax.lax.while_loop": jax.lax.while_loop, "jax.lax.cond": jax.lax.cond,
            "jax.lax.switch": jax.lax.switch, "jax.vmap": jax.vmap, "functools.partial": functools.partial}
    return {id(v): k for k, v in objs.items()}


def _full_name(ctx: Context, func: cst.BaseExpression) -> str:
    """The dotted name a call's function refers to ('jax.lax.scan' for ``lax.scan``), '' when unknown."""
    dotted = dotted_name(func)
    if not dotted:
        return ""
    head, _, rest = dotted.partition(".")
    full = ctx.imports.get(head)
    if full:
        return full + ("." + rest if rest else "")
    if not rest and ctx.namespace and head in ctx.namespace:
        return _known_objects().get(id(ctx.namespace[head]), dotted)
    return dotted


def _calls_at_line(ctx: Context, names: set[str]) -> list[cst.Call]:
    """Calls of one of ``names`` (full dotted names) that contain the failing line, innermost first."""
    return [c for c in ctx.at_line(cst.Call) if isinstance(c, cst.Call) and _full_name(ctx, c.func) in names]


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


def _positional(call: cst.Call) -> list[cst.Arg] | None:
    if any(a.star for a in call.args):
        return None
    return [a for a in call.args if a.keyword is None]


def _kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value=value, keyword=cst.Name(name),
                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))


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


def _value(ctx: Context, expr: cst.BaseExpression) -> Any:
    """The live value of a simple expression (name, ``a.b``, ``a["k"]``, ``a[0]``, number) or _MISSING."""
    if isinstance(expr, cst.Name):
        for scope in (ctx.locals, ctx.namespace):
            if scope is not None and expr.value in scope:
                return scope[expr.value]
        return _MISSING
    if isinstance(expr, (cst.Integer, cst.Float)):
        return expr.evaluated_value
    if isinstance(expr, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in expr.elements):
        items = [_value(ctx, e.value) for e in expr.elements]
        if any(v is _MISSING for v in items):
            return _MISSING
        return tuple(items) if isinstance(expr, cst.Tuple) else items
    if isinstance(expr, cst.Attribute):
        base = _value(ctx, expr.value)
        d = getattr(base, "__dict__", None) if base is not _MISSING else None
        return d.get(expr.attr.value, _MISSING) if isinstance(d, dict) else _MISSING
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        base = _value(ctx, expr.value)
        key = _literal(expr.slice[0].slice.value)
        if isinstance(base, dict) and isinstance(key, str):
            return base.get(key, _MISSING)
        if isinstance(base, (list, tuple)) and isinstance(key, int) and -len(base) <= key < len(base):
            return base[key]
    return _MISSING


def _literal(expr: cst.BaseExpression) -> Any:
    """A Python literal (number, string) from a node, or _MISSING."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return expr.evaluated_value
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(
            expr.expression, (cst.Integer, cst.Float)):
        return -expr.expression.evaluated_value
    return _MISSING


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
            if _literal(el.key) == key:
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
            full = _full_name(ctx, func.value)
            if full in ("jax.numpy", "numpy"):
                return mod
    return None


def _with_dtype(ctx: Context, expr: cst.BaseExpression, dtype: str) -> tuple[cst.BaseExpression, list[str | None]] | None:
    """``expr`` rewritten to produce ``dtype`` by changing how it is built (its dtype, its literal)."""
    lit = _literal(expr)
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
        positional = _positional(expr)
        if positional is None:
            return None
        old = kw if kw is not None else (positional[pos_index] if pos_index is not None and pos_index < len(
            positional) else None)
        if old is not None:
            return expr.with_changes(args=[a.with_changes(value=value) if a is old else a for a in expr.args]), []
        return _append_arg(expr, _kwarg("dtype", value)), []
    return None


def _returns(fn: cst.FunctionDef) -> list[cst.Return]:
    """The return statements of ``fn`` itself (not of functions nested in it)."""
    out: list[cst.Return] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            out.append(node)

    fn.visit(_V())
    return out


def _params(node: cst.FunctionDef | cst.Lambda) -> list[str] | None:
    p = node.params
    if p.star_kwarg is not None or isinstance(p.star_arg, cst.Param):
        return None
    return [q.name.value for q in (*p.posonly_params, *p.params)]


class _Branch:
    """A function passed to a loop or a branch: a lambda in the call, or a ``def`` of the cell."""

    def __init__(self, node: cst.FunctionDef | cst.Lambda, outs: list[cst.BaseExpression]) -> None:
        self.node = node
        self.outs = outs  # the returned expressions (a lambda's body, each ``return``'s value)
        self.params = _params(node)


def _branch(ctx: Context, expr: cst.BaseExpression) -> _Branch | None:
    if isinstance(expr, cst.Lambda):
        return _Branch(expr, [expr.body])
    if isinstance(expr, cst.Name):
        fn = ctx.function_named(expr.value)
        if fn is None or fn.decorators:
            return None
        rets = _returns(fn)
        if not rets or any(r.value is None for r in rets):
            return None
        return _Branch(fn, [r.value for r in rets if r.value is not None])
    return None


def _is_used(ctx: Context, name: str, except_node: cst.CSTNode) -> bool:
    """Whether ``name`` is read anywhere in the cell other than inside ``except_node``."""
    inside = {id(n) for n in _walk(except_node)}
    return any(n.value == name and id(n) not in inside for n in ctx.nodes(cst.Name))  # type: ignore[attr-defined]


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    out = [node]
    for child in node.children:
        out.extend(_walk(child))
    return out


# ---------------------------------------------------------------------------------------------- loop carries

_CARRY = re.compile(r"The input carry (?:component )?(?P<path>[A-Za-z_]\w*(?:\[[^\]]+\])*) has type (?P<a>\S+) but "
                    r"the corresponding output carry component has type (?P<b>\S+), so the (?P<what>[a-z ,]+?)\.")


def _loop_call(ctx: Context) -> tuple[cst.Call, str] | None:
    calls = _calls_at_line(ctx, set(_LOOPS))
    if not calls:
        return None
    call = calls[0]
    return call, _full_name(ctx, call.func)


def _carry_leaf(ctx: Context, path_text: str) -> tuple[cst.Call, str, cst.BaseExpression] | None:
    """(loop call, its full name, the initial carry's sub-expression the message's path names)."""
    found = _loop_call(ctx)
    if found is None:
        return None
    call, name = found
    keyword, pos = _LOOPS[name]
    init = _arg(call, pos, keyword)
    mm = re.fullmatch(r"([A-Za-z_]\w*)(.*)", path_text)
    path = _path(mm.group(2)) if mm else None
    if init is None or path is None:
        return None
    if name == "jax.lax.fori_loop":  # fori_loop's own carry is (i, carry) over scan or (i, upper, carry) over while
        if mm is None or mm.group(1) != "loop_carry" or not path or path[0] not in (1, 2):
            return None
        path = path[1:]
    leaf = _navigate(ctx, init.value, path)
    return (call, name, leaf) if leaf is not None else None


def _carry_dtype(ctx: Context) -> Edit | None:
    """The initial carry's component gets the dtype the body returns (read from the message)."""
    mm = _CARRY.search(ctx.message)
    if not mm or mm.group("what") != "dtypes do not match":
        return None
    a, b = _parse_type(mm.group("a")), _parse_type(mm.group("b"))
    found = _carry_leaf(ctx, mm.group("path"))
    if a is None or b is None or found is None or a[1] != b[1]:
        return None
    _, name, leaf = found
    fixed = _with_dtype(ctx, leaf, b[0])
    if fixed is None:
        return None
    new, imports = fixed
    loop = name.rsplit(".", 1)[-1]
    if _kind(a[0]) == _kind(b[0]):
        note = f"check that {b[0]} precision is what you want"
    elif _kind(a[0]) == "i" and _kind(b[0]) == "f":
        note = "the loop now accumulates in floating point; check that no integer (count, index) was meant"
    else:
        note = f"check that a {b[0]} carry is what you meant"
    return Edit(ctx.replace(leaf, new, imports=imports), "review",
                f"The initial carry `{ctx.code(leaf)}` of the `{loop}` becomes `{_code(new)}` ({a[0]} -> {b[0]}, "
                f"the type the body returns); {note}.")


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


@rule("scan-carry-dtype")
def scan_carry_dtype(ctx: Context) -> Edit | None:
    """A scan (or static fori_loop) whose initial carry has another dtype than the body returns."""
    return _carry_dtype(ctx)


@rule("loop-carry-dtype")
def loop_carry_dtype(ctx: Context) -> Edit | None:
    """The same for while_loop (and fori_loop with traced bounds)."""
    return _carry_dtype(ctx)


@rule("scan-carry-shape")
def scan_carry_shape(ctx: Context) -> Edit | None:
    """A scalar initial carry (``0.0``, ``jnp.zeros(())``) whose body returns one step's shape of ``xs``:
    the carry starts as zeros shaped like ``xs[0]``."""
    mm = _CARRY.search(ctx.message)
    if not mm or mm.group("what") != "shapes do not match":
        return None
    a, b = _parse_type(mm.group("a")), _parse_type(mm.group("b"))
    found = _carry_leaf(ctx, mm.group("path"))
    if a is None or b is None or found is None or a[1] != () or not b[1]:
        return None
    call, name, leaf = found
    if name != "jax.lax.scan":
        return None
    fill = _scalar_fill(ctx, leaf)
    xs_arg = _arg(call, 2, "xs")
    if fill is None or xs_arg is None or not isinstance(xs_arg.value, cst.Name):
        return None
    xs = _value(ctx, xs_arg.value)
    shape = _shape(xs)
    if shape is None or tuple(shape[1:]) != b[1] or str(getattr(xs, "dtype", "")) != b[0]:
        return None
    jnp, imp = ctx.need("jax.numpy", "jnp")
    xs_name = xs_arg.value.value  # type: ignore[attr-defined]
    new = cst.parse_expression(f"{jnp}.zeros_like({xs_name}[0])" if fill == 0 else
                               f"{jnp}.ones_like({xs_name}[0])" if fill == 1 else
                               f"{jnp}.full_like({xs_name}[0], {fill!r})")
    return Edit(ctx.replace(leaf, new, imports=[imp]), "review",
                f"The initial carry `{ctx.code(leaf)}` becomes `{_code(new)}`, shaped like one step of `{xs_name}` "
                f"({b[0]}{list(b[1])}), the shape the body returns; check that a per-element carry was meant "
                "rather than a reduced (scalar) one.")


def _scalar_fill(ctx: Context, leaf: cst.BaseExpression) -> float | None:
    """The value of a scalar initial carry written as a literal, ``jnp.float32(v)`` or ``jnp.zeros(())``."""
    lit = _literal(leaf)
    if isinstance(lit, (int, float)):
        return lit
    if isinstance(leaf, cst.Call) and isinstance(leaf.func, cst.Attribute) and _np_module(ctx, leaf.func):
        attr = leaf.func.attr.value
        pos = _positional(leaf)
        if attr in _DTYPES and pos is not None and len(leaf.args) == 1:
            v = _literal(pos[0].value)
            return v if isinstance(v, (int, float)) else None
        shape = pos[0].value if pos else None
        if attr in ("zeros", "ones") and isinstance(shape, (cst.Tuple, cst.List)) and not shape.elements:
            return 0 if attr == "zeros" else 1
    return None


# ---------------------------------------------------------------------------------------------- carry containers

_CONTAINER = re.compile(r"The input carry (?:component )?(?P<path>[A-Za-z_]\w*(?:\[[^\]]+\])*) is a <class '(?P<a>\w+)'> "
                        r"but the corresponding component of the carry output is a <class '(?P<b>\w+)'>")


@rule("carry-container")
def carry_container(ctx: Context) -> Edit | None:
    """A loop state built as a tuple but returned as a list (or back): the body's list becomes a tuple."""
    mm = _CONTAINER.search(ctx.message)
    if not mm or {mm.group("a"), mm.group("b")} != {"list", "tuple"}:
        return None
    found = _loop_call(ctx)
    pm = re.fullmatch(r"([A-Za-z_]\w*)(.*)", mm.group("path"))
    path = _path(pm.group(2)) if pm else None
    if found is None or path is None:
        return None
    call, name = found
    body_arg = _arg(call, {"jax.lax.scan": 0, "jax.lax.fori_loop": 2, "jax.lax.while_loop": 1}[name],
                    {"jax.lax.scan": "f", "jax.lax.fori_loop": "body_fun", "jax.lax.while_loop": "body_fun"}[name])
    if name == "jax.lax.fori_loop":
        if not path or path[0] not in (1, 2):
            return None
        path = path[1:]
    body = _branch(ctx, body_arg.value) if body_arg is not None else None
    if body is None:
        return None
    targets = []
    for out in body.outs:
        carry = out
        if name == "jax.lax.scan":
            if not isinstance(out, cst.Tuple) or len(out.elements) != 2:
                return None
            carry = out.elements[0].value
        node = _navigate_literal(carry, path)
        want = cst.List if mm.group("b") == "list" else cst.Tuple
        if not isinstance(node, want) or any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        targets.append(node)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for node in targets:
        elements = list(node.elements)
        if mm.group("a") == "tuple":
            if len(elements) == 1:
                elements[0] = elements[0].with_changes(comma=cst.Comma())
            new: cst.BaseExpression = cst.Tuple(elements=elements, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        else:
            if elements and isinstance(elements[-1].comma, cst.Comma) and len(elements) == 1:
                elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            new = cst.List(elements=elements)
        pairs.append((node, new))
    return Edit(ctx.replace_many(pairs), "safe",
                f"The body now returns its state as a {mm.group('a')}, the container the initial state was built "
                f"with (it returned a {mm.group('b')}).")


def _navigate_literal(expr: cst.BaseExpression, path: list[Any]) -> cst.BaseExpression | None:
    for key in path:
        if isinstance(expr, (cst.Tuple, cst.List)) and isinstance(key, int) and -len(expr.elements) <= key < len(
                expr.elements):
            expr = expr.elements[key].value
        elif isinstance(expr, cst.Dict) and isinstance(key, str):
            hit = [e for e in expr.elements if isinstance(e, cst.DictElement) and _literal(e.key) == key]
            if len(hit) != 1:
                return None
            expr = hit[0].value
        else:
            return None
    return expr


# ---------------------------------------------------------------------------------------------- scan body pair


@rule("scan-body-pair")
def scan_body_pair(ctx: Context) -> Edit | None:
    """A scan body that returns only the carry returns ``(carry, None)``; the call site takes the carry.

    A body returning ``(carry, y1, y2)`` returns ``(carry, (y1, y2))`` and ``c, a, b = scan(...)``
    becomes ``c, (a, b) = scan(...)``.
    """
    calls = _calls_at_line(ctx, {"jax.lax.scan"})
    if not calls:
        return None
    call = calls[0]
    f_arg = _arg(call, 0, "f")
    body = _branch(ctx, f_arg.value) if f_arg is not None else None
    got = (ctx.values.get("output") or "").strip()
    if body is None or not got or got[0] in "[{":  # a list or dict output: what the user meant is unclear
        return None
    if isinstance(body.node, cst.FunctionDef):  # a body also called elsewhere would break there
        name = body.node.name
        if any(n.value == name.value and n is not name for n in ctx.nodes(cst.Name)  # type: ignore[attr-defined]
               if n is not f_arg.value):  # type: ignore[union-attr]
            return None
    n_out = _count_top(got)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for out in body.outs:
        if isinstance(out, (cst.List, cst.Dict)):
            return None
        s = out
        if isinstance(s, cst.Tuple):
            if len(s.elements) != n_out or n_out < 3 or any(isinstance(e, cst.StarredElement) for e in s.elements):
                return None
            rest = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(s.elements) - 2 else e
                    for i, e in enumerate(s.elements[1:])]
            ys = cst.Tuple(elements=rest, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            new = s.with_changes(elements=[s.elements[0].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Element(ys)])
        else:
            if n_out != 1:
                return None
            new = cst.Tuple(elements=[cst.Element(out, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                      cst.Element(cst.Name("None"))],
                            lpar=[cst.LeftParen()] if isinstance(body.node, cst.Lambda) else [],
                            rpar=[cst.RightParen()] if isinstance(body.node, cst.Lambda) else [])
        pairs.append((out, new))
    site = _scan_site(ctx, call, n_out)
    if site is _MISSING:
        return None
    if site is not None:
        pairs.append(site)
    what = "`(carry, None)`" if n_out == 1 else "`(carry, (outputs...))`"
    return Edit(ctx.replace_many(pairs), "review",
                f"The scan body now returns {what}, the pair scan expects, and the call keeps the final carry; "
                "check that you need no per-step output (scan stacks the second element).")


def _count_top(text: str) -> int:
    """How many values a printed scan output holds: 'float32[]' -> 1, '(a, b, c)' -> 3."""
    text = text.strip()
    if not text.startswith("("):
        return 1
    depth, n = 0, 1
    for ch in text[1:-1]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            n += 1
    return n


def _scan_site(ctx: Context, call: cst.Call, n_out: int) -> Any:
    """The edit of the statement using the scan's result: None when none is needed, _MISSING when unsure."""
    parent = ctx.parent(call)
    if isinstance(parent, cst.Subscript) and parent.value is call:
        index = parent.slice[0].slice if len(parent.slice) == 1 else None
        if isinstance(index, cst.Index) and _literal(index.value) == 0:
            return None  # lax.scan(...)[0] already takes the carry
        return _MISSING
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
        target = parent.targets[0].target
        if n_out == 1:
            if isinstance(target, cst.Name):
                new_t = cst.Tuple([cst.Element(target, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                   cst.Element(cst.Name("_"))], lpar=[], rpar=[])
                return parent.targets[0], parent.targets[0].with_changes(target=new_t)
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
                second = target.elements[1].value
                if isinstance(second, cst.Name) and (second.value == "_" or not _is_used(ctx, second.value, parent)):
                    return None
            return _MISSING
        if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == n_out:
            els = list(target.elements)
            rest = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(els) - 2 else e
                    for i, e in enumerate(els[1:])]
            ys = cst.Tuple(elements=rest, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            new_t = target.with_changes(elements=[els[0].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Element(ys)])
            return target, new_t
        return _MISSING
    if n_out != 1 or not isinstance(parent, (cst.Return, cst.Arg, cst.BinaryOperation, cst.Element)):
        return _MISSING
    return call, cst.Subscript(value=call, slice=[cst.SubscriptElement(cst.Index(cst.Integer("0")))])


# ---------------------------------------------------------------------------------------------- cond / switch

_COND = re.compile(r"The output of true_fun(?: at path (?P<path>\S+))? has type (?P<a>\S+) but the corresponding "
                   r"output of false_fun has type (?P<b>\S+), so the")
_SWITCH = re.compile(r"The output of branch ?(?P<i>\d+)(?: at path (?P<path>\S+))? has type (?P<a>\S+) but the "
                     r"corresponding output of branch ?(?P<j>\d+) has type (?P<b>\S+), so the")


@rule("branch-dtype")
def branch_dtype(ctx: Context) -> Edit | None:
    """The odd branch's returned value takes the other branch's type: ``0`` -> ``0.0``, ``jnp.int32(0)`` ->
    ``jnp.float32(0)``, a scalar placeholder -> ``jnp.zeros_like(v)``, an integer result -> ``.astype``."""
    cm, sm = _COND.search(ctx.message), _SWITCH.search(ctx.message)
    if cm:
        calls = _calls_at_line(ctx, {"jax.lax.cond"})
        if not calls:
            return None
        call = calls[0]
        pos = _positional(call)
        if pos is None or len(pos) < 3:
            return None
        exprs, operands, mm = [pos[1].value, pos[2].value], pos[3:], cm
        idx = (0, 1)
    elif sm:
        calls = _calls_at_line(ctx, {"jax.lax.switch"})
        if not calls:
            return None
        call = calls[0]
        pos = _positional(call)
        if pos is None or len(pos) < 2:
            return None
        branches = pos[1].value
        if isinstance(branches, cst.Name):
            branches = _assigned(ctx, branches.value)
        if not isinstance(branches, (cst.List, cst.Tuple)) or any(
                isinstance(e, cst.StarredElement) for e in branches.elements):
            return None
        exprs, operands, mm = [e.value for e in branches.elements], pos[2:], sm
        idx = (int(sm.group("i")), int(sm.group("j")))
        if max(idx) >= len(exprs):
            return None
    else:
        return None
    path = _path(mm.group("path") or "")
    ta, tb = _parse_type(mm.group("a")), _parse_type(mm.group("b"))
    if path is None or ta is None or tb is None:
        return None
    types = {idx[0]: ta, idx[1]: tb}
    leaves: dict[int, cst.BaseExpression] = {}
    infos: dict[int, _Branch] = {}
    for k in range(len(exprs)):
        br = _branch(ctx, exprs[k])
        leaf = _navigate_literal(br.outs[0], path) if br is not None and len(br.outs) == 1 else None
        if br is not None and leaf is not None:
            leaves[k], infos[k] = leaf, br
    # which branch is the odd one: the one returning a literal placeholder, else an integer result
    options = []
    for odd in idx:
        ref = idx[1] if odd == idx[0] else idx[0]
        fix = _branch_fix(ctx, leaves[odd], types[odd], types[ref], infos[odd], operands) if odd in leaves else None
        if fix is not None:
            options.append((fix[2], odd, ref, fix))
    options.sort(key=lambda o: o[0])
    if not options or (len(options) > 1 and options[0][0] == options[1][0]):
        return None
    _, odd, ref, fix = options[0]
    changed = {odd: fix}
    for k, leaf in leaves.items():  # switch: other branches returning a bare literal need the same change
        lit = _literal(leaf)
        if k in idx or isinstance(lit, bool) or not isinstance(lit, (int, float)):
            continue
        more = _branch_fix(ctx, leaf, ("int32" if isinstance(lit, int) else "float32", ()), types[ref], infos[k],
                           operands)
        if more is not None and _code(more[0]) != ctx.code(leaf):
            changed[k] = more
    pairs = [(leaves[k], f[0]) for k, f in changed.items()]
    imports = [i for f in changed.values() for i in f[1]]
    safety = "safe" if all(f[3] for f in changed.values()) else "review"
    names = ", ".join(("true_fun", "false_fun")[k] if cm else f"branch {k}" for k in changed)
    dt, shape = types[ref]
    olds = ", ".join(f"`{ctx.code(leaves[k])}`" for k in changed)
    news = ", ".join(f"`{_code(f[0])}`" for f in changed.values())
    summary = (f"{names} now return{'s' if len(changed) == 1 else ''} {news} instead of {olds}, so "
               f"{'both' if cm else 'all'} branches give {dt}{list(shape)}")
    if safety == "review":
        summary += "; check that this value is what the branch should produce"
    return Edit(ctx.replace_many(pairs, imports=imports), safety, summary + ".")


def _branch_fix(ctx: Context, leaf: cst.BaseExpression, have: tuple[str, tuple[int, ...]],
                want: tuple[str, tuple[int, ...]], br: _Branch,
                operands: list[cst.Arg]) -> tuple[cst.BaseExpression, list[str | None], int, bool] | None:
    """(new leaf, imports, rank (lower = surer odd one), safe) turning ``leaf`` of type ``have`` into ``want``."""
    dt, shape = want
    lit = _literal(leaf)
    is_lit = isinstance(lit, (int, float)) and not isinstance(lit, bool)
    if have[1] != shape:
        if not is_lit or have[1] != ():
            return None
        ref = _like_name(ctx, br, operands, want)
        if ref is None:
            return None
        jnp, imp = ctx.need("jax.numpy", "jnp")
        fn = "zeros_like" if lit == 0 else "ones_like" if lit == 1 else "full_like"
        code = f"{jnp}.{fn}({ref})" if fn != "full_like" else f"{jnp}.{fn}({ref}, {lit!r})"
        return cst.parse_expression(code), [imp], 0, False
    if is_lit:
        if _kind(dt) not in ("f", "i") or (_kind(dt) == "i" and lit != int(lit)):
            return None
        fixed = _with_dtype(ctx, leaf, dt)
        return (fixed[0], fixed[1], 0, True) if fixed else None
    s = leaf
    if isinstance(s, cst.Call) and isinstance(s.func, cst.Attribute) and _np_module(ctx, s.func) and (
            s.func.attr.value in _DTYPES):
        fixed = _with_dtype(ctx, s, dt)
        return (fixed[0], fixed[1], 1, False) if fixed else None
    if _kind(have[0]) in ("i", "b") and _kind(dt) == "f":
        jnp, imp = ctx.need("jax.numpy", "jnp")
        new = cst.Call(func=cst.Attribute(value=_paren(leaf), attr=cst.Name("astype")),
                       args=[cst.Arg(cst.parse_expression(f"{jnp}.{dt}"))])
        return new, [imp], 2, False
    return None


def _like_name(ctx: Context, br: _Branch, operands: list[cst.Arg], want: tuple[str, tuple[int, ...]]) -> str | None:
    """A parameter of the branch whose operand has the wanted shape and dtype (for ``zeros_like``)."""
    if br.params is None or len(br.params) != len(operands):
        return None
    for name, op in zip(br.params, operands, strict=True):
        v = _value(ctx, op.value)
        if v is not _MISSING and _shape(v) == want[1] and str(getattr(v, "dtype", "")) == want[0]:
            return name
    return None


# ---------------------------------------------------------------------------------------------- fori_loop bounds

_BOUNDS = re.compile(r"lower and upper arguments to fori_loop must have equal types, got (\w+) and (\w+)")


@rule("fori-bounds-int")
def fori_bounds_int(ctx: Context) -> Edit | None:
    """A float bound of ``fori_loop`` becomes an integer: ``3.0`` -> ``3`` (safe), ``n / 2`` -> ``n // 2`` when
    both sides are integers, otherwise ``jnp.int32(bound)`` (truncates)."""
    mm = _BOUNDS.search(ctx.message)
    calls = _calls_at_line(ctx, {"jax.lax.fori_loop"})
    if not mm or not calls:
        return None
    lo_t, hi_t = mm.group(1), mm.group(2)
    kinds = (_kind(lo_t), _kind(hi_t))
    if sorted(kinds) != ["f", "i"]:
        return None
    which = 0 if kinds[0] == "f" else 1
    int_t = hi_t if which == 0 else lo_t
    arg = _arg(calls[0], which, ("lower", "upper")[which])
    if arg is None:
        return None
    bound = arg.value
    lit = _literal(bound)
    side = ("lower", "upper")[which]
    if isinstance(lit, float):
        if lit != int(lit) or int_t != "int32":
            return None
        new: cst.BaseExpression = cst.parse_expression(str(int(lit)))
        return Edit(ctx.replace(bound, new), "safe", f"The {side} bound `{ctx.code(bound)}` is written as the "
                    f"integer `{_code(new)}`: fori_loop's bounds must share one integer dtype.")
    if isinstance(bound, cst.BinaryOperation) and isinstance(bound.operator, cst.Divide) and all(
            _is_int(ctx, side_) for side_ in (bound.left, bound.right)):
        new = bound.with_changes(operator=cst.FloorDivide(
            whitespace_before=bound.operator.whitespace_before, whitespace_after=bound.operator.whitespace_after))
        return Edit(ctx.replace(bound, new), "review",
                    f"The {side} bound `{ctx.code(bound)}` uses floor division `//`, which keeps it an integer; "
                    "check the count when the division is not exact (it rounds down).")
    jnp, imp = ctx.need("jax.numpy", "jnp")
    new = cst.Call(func=cst.parse_expression(f"{jnp}.{int_t}"), args=[cst.Arg(bound)])
    return Edit(ctx.replace(bound, new, imports=[imp]), "review",
                f"The {side} bound `{ctx.code(bound)}` is converted with `{jnp}.{int_t}(...)`, the other bound's dtype; "
                "a fractional value is truncated toward zero, so check that it is a whole number.")


def _is_int(ctx: Context, expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is a Python int or an integer scalar (array or tracer), from its live value."""
    v = _value(ctx, expr)
    if v is _MISSING or isinstance(v, bool):
        return False
    return isinstance(v, int) or (_shape(v) == () and "int" in str(getattr(v, "dtype", "")))


# ---------------------------------------------------------------------------------------------- vmap


class _Vmap:
    """Where a vmapped function's ``in_axes`` is written: ``vmap(f, in_axes=...)`` or a decorator."""

    def __init__(self, node: cst.Call | cst.Decorator, fn: cst.BaseExpression | cst.FunctionDef | None,
                 in_axes: cst.Arg | None) -> None:
        self.node = node  # the vmap(...) / partial(vmap, ...) call, or a bare @jax.vmap decorator
        self.fn = fn  # the mapped function
        self.in_axes = in_axes


def _vmap_of(ctx: Context, expr: cst.BaseExpression, depth: int = 0) -> _Vmap | None:
    """The vmap that ``expr`` (the function a call calls) is, following names bound in the cell."""
    if isinstance(expr, cst.Call):
        full = _full_name(ctx, expr.func)
        if full == "jax.vmap":
            f = _arg(expr, 0, "fun")
            return _Vmap(expr, f.value if f else None, _arg(expr, 1, "in_axes"))
        if full == "jax.jit":  # jax.jit(jax.vmap(...))
            f = _arg(expr, 0, "fun")
            return _vmap_of(ctx, f.value, depth + 1) if f is not None and depth < 3 else None
        return None
    if isinstance(expr, cst.Name) and depth < 3:
        value = _assigned(ctx, expr.value)
        if value is not None:
            return _vmap_of(ctx, value, depth + 1)
        fn = ctx.function_named(expr.value)
        if fn is None:
            return None
        found = []
        for dec in fn.decorators:
            d = dec.decorator
            if _full_name(ctx, d) == "jax.vmap":
                found.append(_Vmap(dec, fn, None))
            elif isinstance(d, cst.Call) and _full_name(ctx, d.func) == "functools.partial":
                pos = _positional(d)
                if pos and _full_name(ctx, pos[0].value) == "jax.vmap":
                    found.append(_Vmap(d, fn, _arg(d, 1, "in_axes")))
        return found[0] if len(found) == 1 else None
    return None


def _vmapped_call(ctx: Context) -> tuple[cst.Call, _Vmap] | None:
    """The call on the failing line of a vmapped function, and its vmap."""
    hits = []
    for c in ctx.at_line(cst.Call):
        if isinstance(c, cst.Call):
            vm = _vmap_of(ctx, c.func)
            if vm is not None:
                hits.append((c, vm))
    if not hits:
        return None
    fn = hits[0][1].fn
    if isinstance(fn, cst.Call) and _vmap_of(ctx, fn) is not None:
        return None  # vmap of a vmap: which of the two failed is not known
    return hits[0]


def _fn_params(ctx: Context, fn: cst.BaseExpression | cst.FunctionDef | None) -> list[str] | None:
    """Positional parameter names of the mapped function (a def or lambda of the cell, or a live function)."""
    if fn is None:
        return None
    if isinstance(fn, cst.FunctionDef):
        return _params(fn)
    if isinstance(fn, cst.Lambda):
        return _params(fn)
    if isinstance(fn, cst.Name):
        d = ctx.function_named(fn.value)
        if d is not None:
            return _params(d)
    v = _value(ctx, fn)
    if v is _MISSING or not callable(v):
        return None
    import inspect

    try:
        sig = inspect.signature(v)
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
        return None
    return [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _axes_value(node: cst.BaseExpression | None) -> Any:
    """The Python value of an ``in_axes`` literal (ints, None, tuples, lists, dicts) or _MISSING."""
    if node is None:
        return 0
    try:
        return ast.literal_eval(_code(node))
    except (ValueError, SyntaxError):
        return _MISSING


def _axes_code(value: Any) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(_axes_code(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_axes_code(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_axes_code(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _set_in_axes(ctx: Context, vm: _Vmap, value: Any) -> str:
    """The cell with the vmap's ``in_axes`` set to ``value`` (added where it was not written)."""
    new_val = cst.parse_expression(_axes_code(value))
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    if vm.in_axes is not None:
        pairs.append((vm.in_axes.value, new_val))
    elif isinstance(vm.node, cst.Call):
        pairs.append((vm.node, _append_arg(vm.node, _kwarg("in_axes", new_val))))
    else:  # bare @jax.vmap decorator -> @partial(jax.vmap, in_axes=...)
        partial, imp = ctx.need("functools.partial", "partial")
        imports.append(imp)
        dec = vm.node
        assert isinstance(dec, cst.Decorator)
        call = cst.Call(func=cst.parse_expression(partial),
                        args=[cst.Arg(dec.decorator, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                              _kwarg("in_axes", new_val)])
        pairs.append((dec, dec.with_changes(decorator=call)))
    return ctx.replace_many(pairs, imports=imports)


def _leaves(v: Any) -> list[Any] | None:
    """Array leaves of a small pytree of dicts/lists/tuples (None when it holds anything else)."""
    if isinstance(v, dict):
        out: list[Any] = []
        for x in v.values():
            sub = _leaves(x)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            sub = _leaves(x)
            if sub is None:
                return None
            out.extend(sub)
        return out
    return [v] if _shape(v) is not None else None


def _arg_values(ctx: Context, args: list[cst.Arg]) -> list[Any] | None:
    out = [_value(ctx, a.value) for a in args]
    return None if any(v is _MISSING for v in out) else out


def _entries(axes: Any, n: int) -> list[Any] | None:
    if isinstance(axes, (list, tuple)):
        return list(axes) if len(axes) == n else None
    if axes is None or isinstance(axes, int):
        return [axes] * n
    return None


def _batch_size(values: list[Any], entries: list[Any]) -> int | None:
    """The one size every mapped argument has along its axis (None if they disagree or none is mapped)."""
    sizes = set()
    for v, ax in zip(values, entries, strict=True):
        if ax is None:
            continue
        if not isinstance(ax, int):
            return None
        leaves = _leaves(v)
        if leaves is None:
            return None
        for leaf in leaves:
            s = _shape(leaf)
            if s is None or not -len(s) <= ax < len(s):
                return None
            sizes.add(s[ax])
    return sizes.pop() if len(sizes) == 1 else None


def _broadcast_entry(v: Any, size: int, axis: int) -> Any:
    """The ``in_axes`` entry an extra argument needs: None if no leaf has the batch size along ``axis``,
    ``axis`` if all do, _MISSING when mixed or unknown."""
    leaves = _leaves(v)
    if leaves is None:
        return _MISSING
    if not leaves:
        return None
    hits = []
    for leaf in leaves:
        s = _shape(leaf)
        if s is None:
            return _MISSING
        hits.append(len(s) > axis and s[axis] == size)
    if not any(hits):
        return None
    return axis if all(hits) else _MISSING


_LEN = re.compile(r"len\(in_axes\)=(\d+), len\(args\)=(\d+)")


@rule("vmap-in-axes")
def vmap_in_axes(ctx: Context) -> Edit | None:
    """``in_axes`` that does not line up with the call's arguments.

    Keyword arguments that ``in_axes`` counts as positional are passed positionally (safe); a single
    tuple argument gets its axes wrapped as one entry, ``((0, None),)``; extra arguments are given
    ``None`` when the live values show they lack the batch axis (review); a list in ``in_axes`` where the
    argument is a tuple becomes a tuple (safe); a dict missing keys of the argument gets them.
    """
    found = _vmapped_call(ctx)
    if found is None:
        return None
    call, vm = found
    axes = _axes_value(vm.in_axes.value if vm.in_axes is not None else None)
    if axes is _MISSING:
        return None
    mm = _LEN.search(ctx.message)
    if mm:
        return _in_axes_length(ctx, call, vm, axes, int(mm.group(1)), int(mm.group(2)))
    if "tree prefix" in ctx.message:
        return _in_axes_prefix(ctx, call, vm)
    return None


def _in_axes_length(ctx: Context, call: cst.Call, vm: _Vmap, axes: Any, n: int, m: int) -> Edit | None:
    if not isinstance(axes, (tuple, list)) or len(axes) != n:
        return None
    positional = _positional(call)
    if positional is None or len(positional) != m:
        return None
    keywords = [a for a in call.args if a.keyword is not None]
    params = _fn_params(ctx, vm.fn)
    if keywords:  # f(x, w=w) with in_axes=(0, None): pass them positionally, in the signature's order
        if params is None or m + len(keywords) != n or len(params) < n:
            return None
        by_name = {a.keyword.value: a for a in keywords if a.keyword is not None}
        if set(by_name) != set(params[m:n]):
            return None
        ordered = [cst.Arg(by_name[p].value) for p in params[m:n]]
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in positional]
        args += [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in ordered[:-1]]
        args.append(ordered[-1])
        new_call = call.with_changes(args=args)
        names = ", ".join(f"`{p}`" for p in params[m:n])
        one = len(keywords) == 1
        return Edit(ctx.replace(call, new_call), "safe",
                    f"{names} {'is' if one else 'are'} now passed positionally, so `in_axes` applies to "
                    f"{'it' if one else 'them'} as written (vmap maps keyword arguments over axis 0).")
    values = _arg_values(ctx, positional)
    if m == 1 and n > 1:  # one tuple argument: the axes describe its elements
        v = values[0] if values is not None else _MISSING
        if not (isinstance(v, (tuple, list)) and len(v) == n) or params is None or len(params) != 1:
            return None
        new_axes = (tuple(axes) if isinstance(v, tuple) else list(axes),)
        source = _set_in_axes(ctx, vm, new_axes)
        return Edit(source, "safe", f"`in_axes` is wrapped as `{_axes_code(new_axes)}`: its entries describe the "
                    f"elements of the single argument `{ctx.code(positional[0].value)}`, and in_axes needs one "
                    "entry per positional argument.")
    if m > n and values is not None:  # extra trailing arguments: broadcast those without the batch axis
        entries = list(axes)
        size = _batch_size(values[:n], entries)
        ints = {e for e in entries if isinstance(e, int)}
        if size is None or len(ints) != 1:
            return None
        axis = ints.pop()
        extra = [_broadcast_entry(v, size, axis) for v in values[n:]]
        if any(e is _MISSING for e in extra):
            return None
        new_axes = tuple(entries + extra)
        source = _set_in_axes(ctx, vm, new_axes)
        names = ", ".join(f"`{ctx.code(a.value)}` -> {e}" for a, e in zip(positional[n:], extra, strict=True))
        return Edit(source, "review",
                    f"`in_axes` gets one entry per argument, `{_axes_code(new_axes)}` ({names}, judged from their "
                    "shapes); check which arguments are batched and which are shared.")
    return None


def _in_axes_prefix(ctx: Context, call: cst.Call, vm: _Vmap) -> Edit | None:
    mm = re.search(r"key path\s+vmap in_axes((?:\[[^\]]+\])+)", ctx.message)
    path = _path(mm.group(1)) if mm else None
    if path is None or vm.in_axes is None:
        return None
    node = _navigate_literal(vm.in_axes.value, path)
    if node is None:
        return None
    types = re.search(r"prefix pytree vmap in_axes has a subtree of type\s+<class '(\w+)'>.*?full pytree has a "
                      r"subtree of different type\s+<class '(\w+)'>", ctx.message, re.S)
    if types and {types.group(1), types.group(2)} == {"list", "tuple"}:
        if isinstance(node, cst.List) and types.group(2) == "tuple":
            elements = list(node.elements)
            if len(elements) == 1:
                elements[0] = elements[0].with_changes(comma=cst.Comma())
            new: cst.BaseExpression = cst.Tuple(elements=elements, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        elif isinstance(node, cst.Tuple) and types.group(2) == "list":
            new = cst.List(elements=list(node.elements))
        else:
            return None
        return Edit(ctx.replace(node, new), "safe",
                    f"The `in_axes` entry `{ctx.code(node)}` is written as a {types.group(2)}, the container type "
                    "of the argument it describes (pytree prefixes must match container types).")
    keys = re.search(r"with \d+ child keys\s+(.*?)\s+but at the same key path the full pytree has a subtree of the "
                     r"same type but with \d+ child keys", ctx.message, re.S)
    lengths = re.search(r"subtree of type (?:tuple|list) of length \d+, but the full pytree has a subtree of the same "
                        r"type but of length \d+", ctx.message)
    if (keys and isinstance(node, cst.Dict)) or (lengths and isinstance(node, (cst.Tuple, cst.List))):
        return _pad_axes(ctx, call, vm, node, path)
    return None


def _pad_axes(ctx: Context, call: cst.Call, vm: _Vmap, node: cst.Dict | cst.Tuple | cst.List,
              path: list[Any]) -> Edit | None:
    """A dict in ``in_axes`` missing keys of its argument, or a tuple shorter than it: each missing entry is
    mapped when its value has the batch size along the others' axis, else None (judged from live values)."""
    positional = _positional(call)
    if positional is None or not path or not isinstance(path[0], int) or path[0] >= len(positional):
        return None
    v = _value(ctx, positional[path[0]].value)
    for key in path[1:]:
        v = v[key] if isinstance(v, (dict, list, tuple)) and v is not _MISSING else _MISSING
    axes = _axes_value(node)
    if isinstance(node, cst.Dict):
        if not isinstance(v, dict) or not isinstance(axes, dict) or any(not isinstance(k, str) for k in v):
            return None
        if not set(axes) < set(v):
            return None
        keys: list[Any] = list(axes)
        missing: list[Any] = [k for k in v if k not in axes]
    else:
        if not isinstance(v, (tuple, list)) or not isinstance(axes, (tuple, list)) or len(axes) >= len(v):
            return None
        keys, missing = list(range(len(axes))), list(range(len(axes), len(v)))
    given = [axes[k] for k in keys]
    if any(e is not None and not isinstance(e, int) for e in given):
        return None
    # the batch: the mapped leaves of this entry and of the other arguments
    mapped = [(v[k], axes[k]) for k in keys if isinstance(axes[k], int)]
    top = _entries(_axes_value(vm.in_axes.value if vm.in_axes is not None else None), len(positional))
    for i, e in enumerate(top or []):
        other = _value(ctx, positional[i].value) if i != path[0] and isinstance(e, int) else _MISSING
        if other is not _MISSING:
            mapped.append((other, e))
    ints = {e for _, e in mapped}
    size = _batch_size([p[0] for p in mapped], [p[1] for p in mapped]) if len(ints) == 1 else None
    if size is None:
        return None
    axis = ints.pop()
    added = {}
    for k in missing:
        e = _broadcast_entry(v[k], size, axis)
        if e is _MISSING:
            return None
        added[k] = e
    elements = list(node.elements)
    if elements and not isinstance(elements[-1].comma, cst.Comma):
        elements[-1] = elements[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    elif elements and len(elements) == 1 and isinstance(node, cst.Tuple):
        elements[-1] = elements[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if isinstance(node, cst.Dict):
        quote = '"' if any(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                           and e.key.value.startswith('"') for e in elements) else "'"
        new_els: list[Any] = [cst.DictElement(cst.parse_expression(f"{quote}{k}{quote}"),
                                              cst.parse_expression(repr(e)), comma=comma) for k, e in added.items()]
        desc = ", ".join(f"`{k}`: {e}" for k, e in added.items())
    else:
        new_els = [cst.Element(cst.parse_expression(repr(e)), comma=comma) for e in added.values()]
        desc = ", ".join(f"element {k}: {e}" for k, e in added.items())
    new_els[-1] = new_els[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new = node.with_changes(elements=elements + new_els)
    what = "dict" if isinstance(node, cst.Dict) else "tuple"
    return Edit(ctx.replace(node, new), "review",
                f"The `in_axes` {what} gets the entries it lacked ({desc}, judged from their shapes: batched "
                "entries map, others are shared); check those entries.")


@rule("vmap-broadcast-arg")
def vmap_broadcast_arg(ctx: Context) -> Edit | None:
    """The mapped argument whose axis size differs from the others and which looks shared (its size is
    one of the batched arguments' per-example sizes, as a weight vector or matrix) gets ``in_axes`` None."""
    found = _vmapped_call(ctx)
    if found is None:
        return None
    call, vm = found
    positional = _positional(call)
    if positional is None or len(positional) != len(call.args) or len(positional) < 2:
        return None
    axes = _axes_value(vm.in_axes.value if vm.in_axes is not None else None)
    entries = _entries(axes, len(positional)) if axes is not _MISSING else None
    values = _arg_values(ctx, positional)
    if entries is None or values is None:
        return None
    # the sizes each argument's leaves are mapped with; an argument whose leaves disagree cannot be mapped
    leaf_sizes: dict[int, set[int]] = {}
    per_example: dict[int, list[tuple[int, ...]]] = {}
    for i, (v, ax) in enumerate(zip(values, entries, strict=True)):
        if ax is None:
            continue
        if not isinstance(ax, int):
            return None
        leaves = _leaves(v)
        if not leaves:
            return None
        leaf_sizes[i], per_example[i] = set(), []
        for leaf in leaves:
            s = _shape(leaf)
            if s is None or not -len(s) <= ax < len(s):
                return None
            leaf_sizes[i].add(s[ax])
            per_example[i].append(s[:ax] + s[ax + 1:] if ax >= 0 else s)
    groups: dict[int, list[int]] = {}
    for i, sz in leaf_sizes.items():
        if len(sz) == 1:
            groups.setdefault(next(iter(sz)), []).append(i)
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    if not ranked:
        return None
    top = len(ranked[0][1])
    # the batch size: the one most arguments share; on a tie, the group whose examples use the others' sizes
    candidates = [size for size, idx in ranked if len(idx) == top]
    choices = []
    for batch in candidates:
        odd = [i for i, sz in leaf_sizes.items() if sz != {batch}]
        if odd and all(batch not in leaf_sizes[i] for i in odd) and all(
                _looks_shared(i, odd, per_example, leaf_sizes, values, groups[batch]) for i in odd):
            choices.append((batch, odd))
    if len(choices) != 1:
        return None
    batch, odd = choices[0]
    new_entries = [None if i in odd else e for i, e in enumerate(entries)]
    new_axes = tuple(new_entries)
    source = _set_in_axes(ctx, vm, new_axes)
    names = ", ".join(f"`{ctx.code(positional[i].value)}`" for i in odd)
    return Edit(source, "review",
                f"{names} {'is' if len(odd) == 1 else 'are'} no longer mapped (`in_axes={_axes_code(new_axes)}`): "
                f"{'its' if len(odd) == 1 else 'their'} size does not match the batch of {batch}, so "
                f"{'it is' if len(odd) == 1 else 'they are'} taken as shared by every example; check that "
                f"{'it is' if len(odd) == 1 else 'they are'} not a batch sliced to another length.")


def _looks_shared(i: int, odd: list[int], per_example: dict[int, list[tuple[int, ...]]],
                  leaf_sizes: dict[int, set[int]], values: list[Any], batch_args: list[int]) -> bool:
    """Whether odd argument ``i`` looks like a shared parameter rather than a data batch: each size it is
    mapped with is a feature size of a batched argument's examples (a weight vector or matrix), or a
    dimension of another odd leaf that is one (a bias next to its weight matrix)."""

    def feature(sz: int) -> bool:
        return any(sz in dims for j in batch_args for dims in per_example[j])

    shared_dims = {d for j in odd for leaf in _leaves(values[j]) or [] for d in (_shape(leaf) or ())
                   if any(feature(x) for x in (_shape(leaf) or ()))}
    return all(feature(sz) or sz in shared_dims for sz in leaf_sizes[i])
