"""Loop carries (``scan``, ``fori_loop``, ``while_loop``): dtype, shape, container; ``fori_loop`` bounds."""

from __future__ import annotations

import re

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import read_names, references
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import positional_args
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.transforms.common import (
    _DTYPES,
    _KNOWN,
    _LOOPS,
    _arg,
    _Branch,
    _branch,
    _calls_at_line,
    _code,
    _kind,
    _navigate,
    _navigate_literal,
    _np_module,
    _parse_type,
    _path,
    _shape,
    _with_dtype,
)
from jaxerrs.rewrite.values import MISSING, literal, live_value

# ---------------------------------------------------------------------------------------------- loop carries

_CARRY = re.compile(r"The input carry (?:component )?(?P<path>[A-Za-z_]\w*(?:\[[^\]]+\])*) has type (?P<a>\S+) but "
                    r"the corresponding output carry component has type (?P<b>\S+), so the (?P<what>[a-z ,]+?)\.")


def _loop_call(ctx: Context) -> tuple[cst.Call, str] | None:
    calls = _calls_at_line(ctx, set(_LOOPS))
    if not calls:
        return None
    call = calls[0]
    return call, full_name(ctx, call.func, known=_KNOWN, keep=True)


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
    fixed = _with_dtype(ctx, leaf, b[0]) or _cast_value(ctx, leaf, a[0], b[0])
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


def _cast_value(ctx: Context, leaf: cst.BaseExpression, have: str, want: str
                ) -> tuple[cst.BaseExpression, list[str | None]] | None:
    """``h0`` -> ``h0.astype(jnp.float32)`` for an initial carry that is a name (or ``self.h0``) holding an array
    of the message's dtype: made in an earlier cell or elsewhere, it is cast where the loop takes it."""
    if not isinstance(leaf, (cst.Name, cst.Attribute)):
        return None
    v = live_value(ctx, leaf, numbers=True, scoped=True)
    if v is MISSING or str(getattr(v, "dtype", "")) != have or _shape(v) is None:
        return None
    jnp, imp = ctx.need("jax.numpy", "jnp")
    return cst.Call(func=cst.Attribute(value=leaf, attr=cst.Name("astype")),
                    args=[cst.Arg(cst.parse_expression(f"{jnp}.{want}"))]), [imp]


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
    xs = live_value(ctx, xs_arg.value, numbers=True)
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
    lit = literal(leaf)
    if isinstance(lit, (int, float)):
        return lit
    if isinstance(leaf, cst.Call) and isinstance(leaf.func, cst.Attribute) and _np_module(ctx, leaf.func):
        attr = leaf.func.attr.value
        pos = positional_args(leaf)
        if attr in _DTYPES and pos is not None and len(leaf.args) == 1:
            v = literal(pos[0].value)
            return v if isinstance(v, (int, float)) else None
        shape = pos[0].value if pos else None
        if attr in ("zeros", "ones") and isinstance(shape, (cst.Tuple, cst.List)) and not shape.elements:
            return 0 if attr == "zeros" else 1
    return None


# ---------------------------------------------------------------------------------------------- carry containers

_CONTAINER = re.compile(r"The input carry (?:component )?(?P<path>[A-Za-z_]\w*(?:\[[^\]]+\])*) is a <class '(?P<a>\w+)'> "
                        r"but the corresponding component of the carry output is a <class '(?:[\w.]+\.)?(?P<b>\w+)'>")


@rule("carry-container")
def carry_container(ctx: Context) -> Edit | None:
    """A loop state built as a tuple but returned as a list (or back): the body's list becomes a tuple.

    Why the same values: the returned state keeps its elements, in order; only its container becomes the
    one the initial state has, which is the type the loop hands the body on every step anyway (the body is
    traced with the initial state). ``safe`` when the body is a lambda or a def named nowhere else (another
    caller would get a tuple where it got a list); ``review`` otherwise.
    """
    mm = _CONTAINER.search(ctx.message)
    if mm and mm.group("a") in ("list", "tuple") and mm.group("b") in _LEAVES:
        return _whole_state(ctx, mm)
    if not mm or {mm.group("a"), mm.group("b")} != {"list", "tuple"}:
        return None
    pm = re.fullmatch(r"([A-Za-z_]\w*)(.*)", mm.group("path"))
    found = _loop_body(ctx, _path(pm.group(2)) if pm else None)
    if found is None:
        return None
    _call, name, body, path = found
    states = _returned_states(body, name, path)
    want = cst.List if mm.group("b") == "list" else cst.Tuple
    if states is None or not all(isinstance(node, want) and not any(
            isinstance(e, cst.StarredElement) for e in node.elements) for node in states):
        return None
    targets = states
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
    where = f" (in {body.home.label}, where the body is defined)" if body.home is not None else ""
    shared = body.home is not None and body.callee is not None and bool(references(body.home, body.callee))
    return Edit((body.home or ctx).replace_many(pairs), "review" if shared else "safe",
                f"The body now returns its state as a {mm.group('a')}{where}, the container the initial state was "
                f"built with (it returned a {mm.group('b')}).", where=body.home)


# The message's class for an array leaf where the initial state has a container (a traced value's aval).
_LEAVES = {"ShapedArray", "ArrayImpl", "DynamicJaxprTracer", "float", "int"}


def _loop_body(ctx: Context, path: list | None) -> tuple[cst.Call, str, _Branch, list] | None:
    """(loop call, its name, its body, the message's path inside the body's state) for the failing loop."""
    found = _loop_call(ctx)
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
    return (call, name, body, path) if body is not None else None


def _returned_states(body: _Branch, name: str, path: list) -> list | None:
    """Per ``return`` of the body, the part of the state it returns that the message's path names (a scan
    body's state is the first of the pair it returns); None when a scan body does not return a pair."""
    out = []
    for ret in body.outs:
        state = ret
        if name == "jax.lax.scan":
            if not isinstance(ret, cst.Tuple) or len(ret.elements) != 2:
                return None
            state = ret.elements[0].value
        out.append(_navigate_literal(state, path))
    return out


def _whole_state(ctx: Context, mm: re.Match) -> Edit | None:
    """The body returns one array where the initial state is a list or tuple: it returns the whole state.

    One entry (``[v0]``, the body reading ``carry[0]``): the returned value is wrapped in that container.
    Several (``(c0, h0)``): the body must have unpacked the new state into names, one of which it returned
    (``c, h = cell(carry, x)`` … ``return h, h``): it returns those names, in the initial state's container.
    ``review`` either way: the loop now carries every entry, and the order of the unpacked names is taken
    to be the state's.
    """
    pm = re.fullmatch(r"([A-Za-z_]\w*)(.*)", mm.group("path"))
    found = _loop_body(ctx, _path(pm.group(2)) if pm else None)
    if found is None:
        return None
    call, name, body, path = found
    keyword, pos = _LOOPS[name]
    init_arg = _arg(call, pos, keyword)
    home = body.home or ctx
    init = _navigate(ctx, init_arg.value, path) if init_arg is not None else None
    want = cst.List if mm.group("a") == "list" else cst.Tuple
    if not isinstance(init, want) or not init.elements or any(
            isinstance(e, cst.StarredElement) for e in init.elements):
        return None
    n = len(init.elements)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    states = _returned_states(body, name, path)
    if states is None:
        return None
    for leaf in states:
        if leaf is None or isinstance(leaf, (cst.Tuple, cst.List, cst.Dict)):
            return None
        if n == 1:
            items: list[cst.BaseExpression] = [leaf]
        else:
            params = body.params or []
            state = params[1] if name == "jax.lax.fori_loop" and len(params) > 1 else params[0] if params else None
            names = _unpacked_with(body.node, leaf, n, state)
            if names is None:
                return None
            items = [cst.Name(x) for x in names]
        els = [cst.Element(v, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(items) - 1
                           else (cst.Comma() if want is cst.Tuple and len(items) == 1 else cst.MaybeSentinel.DEFAULT))
               for i, v in enumerate(items)]
        new = cst.List(elements=els) if want is cst.List else cst.Tuple(elements=els, lpar=[cst.LeftParen()],
                                                                          rpar=[cst.RightParen()])
        pairs.append((leaf, new))
    where = f" (in {body.home.label}, where the body is defined)" if body.home is not None else ""
    shown = _code(pairs[0][1])
    check = ("check that the unpacked names are the state's entries in its order" if n > 1
             else "the single entry is updated each step")
    return Edit(home.replace_many(pairs), "review",
                f"The body returned `{home.code(pairs[0][0])}` as the loop state, which starts as a {mm.group('a')} "
                f"of {n}; it now returns `{shown}`{where}: {check}.", where=body.home)


def _unpacked_with(fn: cst.CSTNode, leaf: cst.BaseExpression, n: int, state: str | None) -> list[str] | None:
    """The names of the last ``a, b, … = …`` (``n`` plain names) in ``fn``'s own body that binds ``leaf`` from
    the state: its value reads the state parameter or a name computed from it (``c, h = cell(carry, x)``)."""
    if state is None or not isinstance(leaf, cst.Name) or not isinstance(getattr(fn, "body", None), cst.IndentedBlock):
        return None
    from_state = {state}
    found = None
    for stmt in fn.body.body:  # type: ignore[attr-defined]
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                continue
            reads = read_names(small.value) & from_state
            target = small.targets[0].target
            bound = read_names(target)
            if reads:
                from_state.update(bound)
            if isinstance(target, (cst.Tuple, cst.List)):
                els = target.elements
                names = [e.value.value for e in els if isinstance(e, cst.Element) and isinstance(e.value, cst.Name)]
                if len(names) == len(els) == n and leaf.value in names:
                    found = names if reads else None
    return found


# ---------------------------------------------------------------------------------------------- fori_loop bounds

_BOUNDS = re.compile(r"lower and upper arguments to fori_loop must have equal types, got (\w+) and (\w+)")


@rule("fori-bounds-int")
def fori_bounds_int(ctx: Context) -> Edit | None:
    """A float bound of ``fori_loop`` becomes an integer: ``3.0`` -> ``3`` (safe), ``n / 2`` -> ``n // 2`` when
    both sides are integers, otherwise ``jnp.int32(bound)`` (truncates).

    Why ``3.0`` -> ``3`` is the same loop: the literal is checked to be a whole number and the other bound
    int32, so the loop runs over the same indices, ``range(lower, upper)``, with the index dtype any loop
    that ran had. The other two forms change the count for a fractional value: ``review``.
    """
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
    lit = literal(bound)
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
    v = live_value(ctx, expr, numbers=True)
    if v is MISSING or isinstance(v, bool):
        return False
    return isinstance(v, int) or (_shape(v) == () and "int" in str(getattr(v, "dtype", "")))
