"""Shapes, pytrees, leaked tracers and donated buffers: rewrites for the cases where the intent is clear.

Every rule here reads the live values (``ctx.locals`` / ``ctx.namespace``) to learn shapes and tree
structures, and only rewrites when exactly one edit makes the failing expression consistent. Values
are looked up, never computed: names, instance attributes, constant subscripts of dicts, lists and
tuples; shapes of simple array expressions are inferred without running anything.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.rules import rule

MISSING: Any = object()
_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
Shape = tuple[int, ...]

# ----------------------------------------------------------------------------- looking values up


def _lookup(ctx: Context, name: str) -> Any:
    for scope in (ctx.locals, ctx.namespace):
        if scope is not None and name in scope:
            return scope[name]
    return MISSING


def _value(ctx: Context, node: cst.BaseExpression) -> Any:
    """The live value of a name, an instance attribute or a constant subscript; MISSING otherwise."""
    if isinstance(node, cst.Name):
        return _lookup(ctx, node.value)
    if isinstance(node, cst.Attribute):
        base = _value(ctx, node.value)
        if base is MISSING:
            return MISSING
        attr = node.attr.value
        try:
            inst = vars(base)
        except TypeError:
            inst = None
        if isinstance(inst, dict) and attr in inst:
            return inst[attr]
        if type(base).__name__ == "module":
            return getattr(base, attr, MISSING)
        return MISSING
    if isinstance(node, cst.Subscript):
        base = _value(ctx, node.value)
        if base is MISSING or not isinstance(base, (dict, list, tuple)) or len(node.slice) != 1:
            return MISSING
        sl = node.slice[0].slice
        if not isinstance(sl, cst.Index):
            return MISSING
        key = _literal(sl.value)
        if key is MISSING:
            return MISSING
        try:
            return base[key]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return MISSING


def _literal(node: cst.BaseExpression) -> Any:
    if isinstance(node, (cst.SimpleString, cst.Integer)) or (
            isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
            and isinstance(node.expression, cst.Integer)):
        try:
            return ast.literal_eval(cst.Module([]).code_for_node(node))
        except (ValueError, SyntaxError):
            return MISSING
    return MISSING


def _shape_of(v: Any) -> Shape | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float, complex)):
        return ()
    shape = getattr(v, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape) and hasattr(v, "dtype"):
        return shape
    return None


def _full_name(ctx: Context, func: cst.BaseExpression) -> str:
    """'jax.numpy.dot' for ``jnp.dot`` (imports resolved), '.mean' for a method of an expression, else ''."""
    dotted = dotted_name(func)
    if not dotted:
        # a method of some expression (``params["w"].mean``): keep the method name, no module
        return f".{func.attr.value}" if isinstance(func, cst.Attribute) else ""
    head, _, rest = dotted.partition(".")
    mod = ctx.imports.get(head)
    if mod is None:
        return _public_name(ctx, head) or dotted if not rest else dotted
    return f"{mod}.{rest}" if rest else mod


_PUBLIC = ("jax.numpy", "jax.nn", "jax.scipy.special", "jax.lax", "jax.numpy.linalg", "jax.tree", "jax.tree_util",
           "jax")


def _public_name(ctx: Context, name: str) -> str | None:
    """'jax.nn.logsumexp' for a bare name an earlier cell imported with ``from jax.nn import logsumexp``."""
    import importlib

    value = _lookup(ctx, name)
    if value is MISSING or not callable(value) or not str(getattr(value, "__module__", "")).startswith("jax"):
        return None
    for mod in _PUBLIC:
        try:
            if getattr(importlib.import_module(mod), name, None) is value:
                return f"{mod}.{name}"
        except ImportError:
            continue
    return None


_UNARY = {"tanh", "exp", "log", "log1p", "expm1", "sqrt", "abs", "square", "sin", "cos", "sign", "negative",
          "relu", "sigmoid", "gelu", "silu", "swish", "softplus", "elu", "leaky_relu", "relu6", "softmax",
          "log_softmax", "tan", "arctan", "floor", "ceil", "round", "clip", "logistic", "erf", "rsqrt"}
_UNARY_MODULES = {"jax.numpy", "jax.nn", "jax.lax", "jax.scipy.special", "numpy"}
_REDUCE = {"mean", "sum", "std", "var", "max", "min", "prod", "median", "nanmean", "nansum", "amax", "amin",
           "norm", "logsumexp", "nanstd", "nanvar", "nanmax", "nanmin", "all", "any"}
_REDUCE_MODULES = {"jax.numpy", "numpy", "jax.numpy.linalg", "numpy.linalg", "jax.nn", "jax.scipy.special"}
_ELEMENTWISE_OPS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.Modulo)
_BINARY_FUNCS = {"add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "power",
                 "mod", "floor_divide", "arctan2", "hypot", "fmax", "fmin"}


def _broadcast(*shapes: Shape) -> Shape | None:
    nd = max(len(s) for s in shapes)
    out = []
    for i in range(nd):
        dims = {s[len(s) - nd + i] for s in shapes if len(s) - nd + i >= 0} - {1}
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _matmul_shape(a: Shape, b: Shape) -> Shape | None:
    if not a or not b:
        return None
    if len(b) == 1:
        return a[:-1] if a[-1] == b[0] else None
    if len(a) == 1:
        return b[:-2] + b[-1:] if a[0] == b[-2] else None
    if a[-1] != b[-2]:
        return None
    batch = _broadcast(a[:-2], b[:-2])
    return None if batch is None else batch + (a[-2], b[-1])


def _axis_arg(call: cst.Call, position: int) -> Any:
    """The literal ``axis`` of a reduction call (keyword or positional), None when absent, MISSING if odd."""
    for i, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == "axis" or arg.keyword is None and i == position:
            v = arg.value
            if isinstance(v, cst.Tuple):
                items = [_literal(e.value) for e in v.elements]
                return MISSING if any(i is MISSING for i in items) else tuple(items)
            if isinstance(v, cst.Name) and v.value == "None":
                return None
            return _literal(v)
    return None


def _reduce_info(ctx: Context, node: cst.BaseExpression) -> tuple[cst.BaseExpression, Any, bool] | None:
    """(reduced operand, axis, is method call) for ``x.mean(axis=1)`` / ``jnp.mean(x, axis=1)`` ..."""
    if not isinstance(node, cst.Call):
        return None
    full = _full_name(ctx, node.func)
    mod, _, name = full.rpartition(".")
    if name not in _REDUCE:
        return None
    if mod in _REDUCE_MODULES:
        if not node.args or node.args[0].keyword is not None:
            return None
        return node.args[0].value, _axis_arg(node, 1), False
    if not isinstance(node.func, cst.Attribute) or mod in ctx.imports.values() or mod in ctx.imports:
        return None  # some other module's function
    return node.func.value, _axis_arg(node, 0), True


def _has_kw(call: cst.Call, name: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == name for a in call.args)


def _shape(ctx: Context, node: cst.BaseExpression, depth: int = 0) -> Shape | None:
    """The shape of an array expression, from live values and simple shape rules; None if unknown."""
    if depth > 12:
        return None
    v = _value(ctx, node)
    if v is not MISSING:
        return _shape_of(v)
    if isinstance(node, (cst.Integer, cst.Float)):
        return ()
    if isinstance(node, cst.UnaryOperation):
        return _shape(ctx, node.expression, depth + 1)
    if isinstance(node, cst.Attribute) and node.attr.value in ("T", "mT"):
        s = _shape(ctx, node.value, depth + 1)
        if s is None:
            return None
        return s[::-1] if node.attr.value == "T" else (s[:-2] + s[-1:] + s[-2:-1] if len(s) >= 2 else None)
    if isinstance(node, cst.BinaryOperation):
        a, b = _shape(ctx, node.left, depth + 1), _shape(ctx, node.right, depth + 1)
        if a is None or b is None:
            return None
        if isinstance(node.operator, cst.MatrixMultiply):
            return _matmul_shape(a, b)
        if isinstance(node.operator, _ELEMENTWISE_OPS):
            return _broadcast(a, b)
        return None
    if isinstance(node, cst.Call):
        return _call_shape(ctx, node, depth)
    return None


def _call_shape(ctx: Context, node: cst.Call, depth: int) -> Shape | None:
    full = _full_name(ctx, node.func)
    mod, _, fname = full.rpartition(".")
    if mod in _UNARY_MODULES and fname in _UNARY and node.args and node.args[0].keyword is None:
        return _shape(ctx, node.args[0].value, depth + 1)
    if mod in _UNARY_MODULES and fname in ("dot", "matmul") and len(node.args) == 2:
        a, b = (_shape(ctx, x.value, depth + 1) for x in node.args)
        return None if a is None or b is None else _matmul_shape(a, b)
    if mod in _UNARY_MODULES and fname in _BINARY_FUNCS and len(node.args) == 2:
        a, b = (_shape(ctx, x.value, depth + 1) for x in node.args)
        return None if a is None or b is None else _broadcast(a, b)
    red = _reduce_info(ctx, node)
    if red is not None:
        src = _shape(ctx, red[0], depth + 1)
        axis = red[1]
        if src is None or axis is MISSING:
            return None
        if axis is None:
            return () if not _has_kw(node, "keepdims") else None
        axes = {a % len(src) for a in (axis if isinstance(axis, tuple) else (axis,))} if src else set()
        if _has_kw(node, "keepdims"):
            return None
        return tuple(d for i, d in enumerate(src) if i not in axes)
    return None


def _integer(ctx: Context, node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a live integer array (class labels, indices)."""
    dtype = getattr(_value(ctx, node), "dtype", None)
    return getattr(dtype, "kind", "") in ("i", "u")


def _parse_shapes(text: str) -> list[Shape] | None:
    try:
        v = ast.literal_eval(text.strip().rstrip("."))
    except (ValueError, SyntaxError):
        return None
    if isinstance(v, tuple) and all(isinstance(d, int) for d in v):
        return [v]
    if isinstance(v, (list, tuple)) and all(isinstance(s, tuple) for s in v):
        return [tuple(s) for s in v]
    return None


def _statement(ctx: Context) -> cst.CSTNode | None:
    """The innermost simple statement on the failing line (or the header of a compound one)."""
    found = ctx.at_line(cst.SimpleStatementLine)
    if found:
        return found[0]
    for comp in ctx.at_line((cst.If, cst.While, cst.For, cst.With)):
        test = getattr(comp, "test", None) or getattr(comp, "iter", None)
        if test is not None and ctx.span(test)[0] <= (ctx.line or 0) <= ctx.span(test)[1]:
            return test
    return None


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _attr(expr: cst.BaseExpression, name: str) -> cst.Attribute:
    return cst.Attribute(value=_paren(expr), attr=cst.Name(name))


# ----------------------------------------------------------------------------- matmul-transpose


def _transposed(expr: cst.BaseExpression, ndim: int) -> cst.BaseExpression:
    if ndim == 2:
        return _attr(expr, "T")
    return cst.Call(func=_attr(expr, "swapaxes"), args=[
        cst.Arg(cst.UnaryOperation(cst.Minus(), cst.Integer("1")), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
        cst.Arg(cst.UnaryOperation(cst.Minus(), cst.Integer("2")))])


def _fits_t(a: Shape, b: Shape, which: str, batched: bool) -> bool:
    """Whether ``a @ b`` works once operand ``which`` has its last two axes swapped (non-square only)."""
    x = a if which == "a" else b
    if len(x) < 2 or x[-1] == x[-2] or (len(x) > 2 and not batched):
        return False
    xt = x[:-2] + (x[-1], x[-2])
    return _matmul_shape(xt, b) is not None if which == "a" else _matmul_shape(a, xt) is not None


@rule("matmul-transpose")
def matmul_transpose(ctx: Context) -> Edit | None:
    """``x @ W`` with W stored (out, in): transpose the one operand whose transpose makes the product fit."""
    stmt = _statement(ctx)
    if stmt is None:
        return None
    want = (_parse_shapes(ctx.values.get("lhs", "")), _parse_shapes(ctx.values.get("rhs", "")))
    found = []
    for node in m.findall(stmt, m.BinaryOperation(operator=m.MatrixMultiply()) | m.Call()):
        if isinstance(node, cst.BinaryOperation):
            a_node, b_node, batched = node.left, node.right, True
        else:
            full = _full_name(ctx, node.func)
            if full not in ("jax.numpy.dot", "jax.numpy.matmul") or len(node.args) != 2 or any(
                    x.keyword is not None or x.star for x in node.args):
                continue
            a_node, b_node = node.args[0].value, node.args[1].value
            batched = full.endswith("matmul")
        a, b = _shape(ctx, a_node), _shape(ctx, b_node)
        if a is None or b is None or not a or not b or _matmul_shape(a, b) is not None:
            continue
        if not batched and (len(a) > 2 or len(b) > 2):
            continue
        contract = ((a[-1],), (b[-2] if len(b) > 1 else b[0],))
        if want[0] and want[1] and (want[0][0], want[1][0]) != contract:
            continue
        found.append((node, a_node, b_node, a, b, batched))
    if len(found) != 1:
        return None
    node, a_node, b_node, a, b, batched = found[0]
    fit_a, fit_b = _fits_t(a, b, "a", batched), _fits_t(a, b, "b", batched)
    if fit_a == fit_b:
        return None  # neither or both: the intended orientation is not clear
    old, shape = (a_node, a) if fit_a else (b_node, b)
    new = _transposed(old, len(shape))
    name = ctx.code(old)
    return Edit(ctx.replace(old, new), "review",
                f"`{name}` is used transposed so its {shape[-1]}-long axis meets the other operand; check that "
                f"`{name}` is stored as {shape} = (out, in) and that the result has the shape you expect.")


# ----------------------------------------------------------------------------- broadcast-axis


def _binary_candidates(ctx: Context, stmt: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.BaseExpression,
                                                                          cst.BaseExpression]]:
    for node in m.findall(stmt, m.BinaryOperation() | m.Call()):
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, _ELEMENTWISE_OPS):
                yield node, node.left, node.right
        elif isinstance(node, cst.Call):
            full = _full_name(ctx, node.func)
            mod, _, fname = full.rpartition(".")
            if mod in ("jax.numpy", "jax.lax") and fname in _BINARY_FUNCS and len(node.args) == 2 and all(
                    a.keyword is None and not a.star for a in node.args):
                yield node, node.args[0].value, node.args[1].value


def _offsets(big: Shape, small: Shape) -> list[int]:
    return [k for k in range(len(big) - len(small) + 1) if big[k:k + len(small)] == small]


def _expand(expr: cst.BaseExpression, ndim: int, count: int) -> cst.Subscript:
    """``v[:, None]`` (1-D) or ``v[..., None, None]``: ``count`` new trailing axes."""
    first = cst.Slice(lower=None, upper=None) if ndim == 1 else cst.Index(cst.Ellipsis())
    elems = [cst.SubscriptElement(first)] + [cst.SubscriptElement(cst.Index(cst.Name("None")))] * count
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elems = [e.with_changes(comma=comma) for e in elems[:-1]] + elems[-1:]
    return cst.Subscript(value=_paren(expr), slice=elems)


@rule("broadcast-axis")
def broadcast_axis(ctx: Context) -> Edit | None:
    """A statistic or vector meant per row (not per column): ``keepdims=True``, ``v[:, None]`` or ``w.T``."""
    stmt = _statement(ctx)
    shapes = _parse_shapes(ctx.values.get("shapes", ""))
    if stmt is None or not shapes or len(shapes) != 2:
        return None
    found = []
    for _node, a_node, b_node in _binary_candidates(ctx, stmt):
        a, b = _shape(ctx, a_node), _shape(ctx, b_node)
        if a is None or b is None or _broadcast(a, b) is not None:
            continue
        if sorted([a, b]) == sorted(shapes):
            found.append((a_node, b_node, a, b))
    if len(found) != 1:
        return None
    a_node, b_node, a, b = found[0]
    if len(a) == len(b):
        # same rank: a 2-D operand stored the other way round (w of shape (m, n) against x of shape (n, m))
        if len(a) != 2:
            return None
        opts = [(b_node, a_node, b[::-1])] if _broadcast(a, b[::-1]) == a else []
        if _broadcast(a[::-1], b) == b and math.prod(a) < math.prod(b):
            opts.append((a_node, b_node, a[::-1]))
        if len(opts) != 1:
            return None
        node, other, new_shape = opts[0]
        return Edit(ctx.replace(node, _attr(node, "T")), "review",
                    f"`{ctx.code(node)}` is transposed to {new_shape} to line up with `{ctx.code(other)}`; check that "
                    "it is stored the other way round rather than holding different data.")
    (big_node, big), (small_node, small) = sorted([(a_node, a), (b_node, b)], key=lambda t: -len(t[1]))
    if not small or _integer(ctx, small_node):
        return None  # integer labels against float scores usually want one-hot encoding, not a new axis
    red = _reduce_info(ctx, small_node)
    if red is not None and red[1] not in (None, MISSING) and not _has_kw(small_node, "keepdims"):
        src = _shape(ctx, red[0])
        axis = red[1]
        if src is not None and len(src) == len(big):
            axes = {x % len(src) for x in (axis if isinstance(axis, tuple) else (axis,))}
            kept = tuple(1 if i in axes else d for i, d in enumerate(src))
            if _broadcast(kept, big) == big:
                assert isinstance(small_node, cst.Call)
                args = list(small_node.args)
                last = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                kw = cst.Arg(cst.Name("True"), keyword=cst.Name("keepdims"),
                             equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
                new = small_node.with_changes(args=[*args[:-1], last, kw])
                return Edit(ctx.replace(small_node, new), "review",
                            f"`{ctx.code(small_node)}` keeps the reduced axis (keepdims=True) so it lines up with "
                            f"`{ctx.code(big_node)}` {big} per row; check that this is the axis you meant.")
        return None  # a reduction over the wrong axis: not ours to guess
    ks = [k for k in _offsets(big, small) if k + len(small) < len(big)]
    if len(ks) != 1 or big.count(small[-1]) != 1 and len(small) == 1:
        return None
    count = len(big) - ks[0] - len(small)
    new = _expand(small_node, len(small), count)
    axes = f"axis {ks[0]}" if len(small) == 1 else f"axes {ks[0]}..{ks[0] + len(small) - 1}"
    return Edit(ctx.replace(small_node, new), "review",
                f"`{ctx.code(small_node)}` {small} becomes `{ctx.code(new)}` so it lines up with {axes} of "
                f"`{ctx.code(big_node)}` {big} instead of its last axes; check that this is the axis it describes.")


# ----------------------------------------------------------------------------- concat-axis


@rule("concat-axis")
def concat_axis(ctx: Context) -> Edit | None:
    """``jnp.concatenate([a, b])`` whose pieces differ along exactly one other axis: join along that one."""
    stmt = _statement(ctx)
    msg_shapes = _parse_shapes(ctx.values.get("shapes", ""))
    if stmt is None or not msg_shapes:
        return None
    found = []
    for call in m.findall(stmt, m.Call()):
        assert isinstance(call, cst.Call)
        if _full_name(ctx, call.func) != "jax.numpy.concatenate" or not call.args or call.args[0].keyword:
            continue
        args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "axis")]
        if len(args) > 1:
            continue  # an axis given positionally or other arguments: leave it
        axis_arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == "axis"), None)
        dim = 0 if axis_arg is None else _literal(axis_arg.value)
        if not isinstance(dim, int):
            continue
        seq = call.args[0].value
        if isinstance(seq, (cst.List, cst.Tuple)):
            got = [_shape(ctx, e.value) for e in seq.elements if isinstance(e, cst.Element)]
        else:
            v = _value(ctx, seq)
            got = [_shape_of(x) for x in v] if isinstance(v, (list, tuple)) else [None]
        # under vmap the message shows batched shapes; the code's own (per-example) shapes come first
        shapes = got if all(g is not None for g in got) else msg_shapes
        if len(got) != len(msg_shapes) or len({len(x) for x in shapes}) != 1 or not shapes[0]:  # type: ignore[arg-type]
            continue
        if shapes is msg_shapes and any(g is not None and g != x for g, x in zip(got, shapes, strict=True)):
            continue
        nd = len(shapes[0])  # type: ignore[arg-type]
        differ = [k for k in range(nd) if len({x[k] for x in shapes}) > 1]  # type: ignore[index]
        if len(differ) == 1 and differ[0] != dim % nd:
            found.append((call, args[0], differ[0], nd, shapes, dim))
    if len(found) != 1:
        return None
    call, first, k, nd, shapes, dim = found[0]
    axis = -1 if k == nd - 1 else k
    kw = cst.Arg(cst.parse_expression(str(axis)), keyword=cst.Name("axis"),
                 equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
    new = call.with_changes(args=[first.with_changes(comma=_COMMA), kw])
    joined = list(shapes[0])
    joined[k] = sum(x[k] for x in shapes)
    return Edit(ctx.replace(call, new), "review",
                f"the pieces are joined along axis {axis} (where their sizes differ), giving {tuple(joined)} instead "
                f"of along axis {dim}; check that this is the axis you meant.")


# ----------------------------------------------------------------------------- tree-structure

_TREE_MAPS = {"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"}
_GRADS = {"jax.grad", "jax.value_and_grad"}


def _tree_map_call(ctx: Context) -> tuple[cst.Call, list[cst.BaseExpression], list[Any]] | None:
    """The single ``jax.tree.map(f, t0, t1, ...)`` on the failing line that fails: (call, tree nodes, values)."""
    stmt = _statement(ctx)
    if stmt is None:
        return None
    import jax

    found = []
    for call in m.findall(stmt, m.Call()):
        assert isinstance(call, cst.Call)
        if _full_name(ctx, call.func) not in _TREE_MAPS:
            continue
        pos = [a for a in call.args if a.keyword is None]
        if len(pos) < 3 or any(a.star for a in call.args):
            continue
        trees = [a.value for a in pos[1:]]
        values = [_value(ctx, t) for t in trees]
        if any(v is MISSING for v in values):
            found.append((call, trees, values))
            continue
        try:
            first = jax.tree.structure(values[0])
            if all(jax.tree.structure(v) == first for v in values[1:]):
                continue  # this one is fine
        except Exception:  # noqa: BLE001 - odd user objects: keep as a candidate
            pass
        found.append((call, trees, values))
    return found[0] if len(found) == 1 else None


def _odd_tree(values: list[Any]) -> int | None:
    """Index (among the trees) of the only tree whose structure differs from the first."""
    import jax

    try:
        first = jax.tree.structure(values[0])
        odd = [i for i, v in enumerate(values[1:], 1) if jax.tree.structure(v) != first]
    except Exception:  # noqa: BLE001
        return None
    return odd[0] if len(odd) == 1 else None


def _scope_body(ctx: Context, node: cst.CSTNode) -> cst.CSTNode:
    fn = ctx.enclosing(node, cst.FunctionDef)
    return fn if fn is not None else ctx.module  # type: ignore[return-value]


def _assignments(ctx: Context, scope: cst.CSTNode, name: str) -> list[cst.Assign]:
    """Assignments binding ``name`` (alone or in a tuple target) directly in ``scope`` (not nested defs)."""
    out = []
    for node in m.findall(scope, m.Assign()):
        assert isinstance(node, cst.Assign)
        if scope is not ctx.module and ctx.enclosing(node, cst.FunctionDef) is not scope:
            continue
        if scope is ctx.module and ctx.enclosing(node, cst.FunctionDef) is not None:
            continue
        for t in node.targets:
            names = [t.target] if not isinstance(t.target, cst.Tuple) else [e.value for e in t.target.elements]
            if any(isinstance(n, cst.Name) and n.value == name for n in names):
                out.append(node)
    return out


def _binding_before(ctx: Context, scope: cst.CSTNode, name: str, line: int) -> cst.Assign | None:
    """The one assignment of ``name`` in ``scope`` that comes before ``line``; None if 0 or several."""
    found = [a for a in _assignments(ctx, scope, name) if ctx.span(a)[0] < line]
    return found[0] if len(found) == 1 else None


def _grad_call(ctx: Context, expr: cst.BaseExpression, scope: cst.CSTNode, line: int) -> tuple[cst.Call, cst.Call] | None:
    """For ``jax.grad(f, ...)(args)`` or ``gf(args)`` with ``gf = jax.grad(f, ...)``: (the grad call, the call)."""
    if not isinstance(expr, cst.Call):
        return None
    func = expr.func
    if isinstance(func, cst.Call) and _full_name(ctx, func.func) in _GRADS:
        return func, expr
    if isinstance(func, cst.Name):
        for sc in dict.fromkeys([scope, ctx.module]):
            a = _binding_before(ctx, sc, func.value, line)
            if a is not None and len(a.targets) == 1 and isinstance(a.value, cst.Call) and _full_name(
                    ctx, a.value.func) in _GRADS:
                return a.value, expr
    return None


def _argnums(call: cst.Call) -> Any:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "argnums":
            return _literal(a.value)
    return 0


def _with_argnums(call: cst.Call, j: int) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "argnums")]
    if j != 0:
        kw = cst.Arg(cst.Integer(str(j)), keyword=cst.Name("argnums"),
                     equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args] + [kw]
    elif args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def _same_tree(a: Any, b: Any, is_leaf: Any = None) -> bool:
    """Same structure and, leaf by leaf, the same shapes."""
    import jax

    try:
        if jax.tree.structure(a, is_leaf=is_leaf) != jax.tree.structure(b, is_leaf=is_leaf):
            return False
        la, lb = jax.tree.leaves(a, is_leaf=is_leaf), jax.tree.leaves(b, is_leaf=is_leaf)
    except Exception:  # noqa: BLE001
        return False
    return all(_shape_of(x) == _shape_of(y) for x, y in zip(la, lb, strict=True))


def _fix_argnums(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                 odd: int) -> Edit | None:
    """grads = jax.grad(loss, argnums=1)(params, batch): the gradient was taken w.r.t. the wrong argument."""
    g_node, p_node = trees[odd], trees[0]
    if not isinstance(g_node, cst.Name) or not isinstance(p_node, cst.Name):
        return None
    line = ctx.span(call)[0]
    scope = _scope_body(ctx, call)
    assign = _binding_before(ctx, scope, g_node.value, line)
    if assign is None or len(assign.targets) != 1:
        return None
    got = _grad_call(ctx, assign.value, scope, line)
    if got is None:
        return None
    grad, applied = got
    k = _argnums(grad)
    if not isinstance(k, int) or any(a.keyword is not None or a.star for a in applied.args):
        return None
    pos = [i for i, a in enumerate(applied.args) if isinstance(a.value, cst.Name) and a.value.value == p_node.value]
    if len(pos) != 1 or pos[0] == k:
        return None
    target = assign.targets[0].target
    is_vg = _full_name(ctx, grad.func) == "jax.value_and_grad"
    if is_vg != isinstance(target, cst.Tuple):
        return None
    j = pos[0]
    taken = _value(ctx, applied.args[k].value) if k < len(applied.args) else MISSING
    if taken is not MISSING and not _same_tree(taken, values[odd]):
        return None  # the odd tree is not the gradient of argument k after all
    f = grad.args[0].value if grad.args else None
    name = ctx.code(f) if f is not None else "the function"
    return Edit(ctx.replace(grad, _with_argnums(grad, j)), "review",
                f"the gradient of `{name}` is now taken with respect to `{p_node.value}` (argument {j}) instead of "
                f"argument {k}, so `{g_node.value}` matches `{p_node.value}`; check that this is the argument you train.")


def _fix_value_and_grad(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], odd: int) -> Edit | None:
    """grads = jax.value_and_grad(loss)(params): the (value, grads) pair was bound to one name."""
    g_node = trees[odd]
    if not isinstance(g_node, cst.Name) or not isinstance(_value(ctx, g_node), tuple):
        return None
    line = ctx.span(call)[0]
    scope = _scope_body(ctx, call)
    assign = _binding_before(ctx, scope, g_node.value, line)
    if assign is None or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    got = _grad_call(ctx, assign.value, scope, line)
    if got is None or _full_name(ctx, got[0].func) != "jax.value_and_grad":
        return None
    value = _value(ctx, g_node)
    if len(value) != 2 or not _same_tree(_value(ctx, trees[0]), value[1]):
        return None
    free = next((n for n in ("loss", "loss_value", "value") if not ctx.bound(n)), "_")
    target = cst.Tuple([cst.Element(cst.Name(free), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Element(cst.Name(g_node.value))], lpar=[], rpar=[])
    new = assign.with_changes(targets=[assign.targets[0].with_changes(target=target)])
    return Edit(ctx.replace(assign, new), "review",
                f"`jax.value_and_grad` returns (value, gradients): the pair is unpacked into `{free}, "
                f"{g_node.value}`; check that nothing else expected the pair.")


def _fix_container(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                   odd: int) -> Edit | None:
    """A list where the first tree has a tuple (or the reverse), with the same leaves: convert it."""
    first, other = values[0], values[odd]
    if type(first) not in (list, tuple) or type(other) not in (list, tuple) or type(first) is type(other):
        return None
    conv = type(first).__name__
    shadow = _lookup(ctx, conv)
    if not _same_tree(first, type(first)(other)) or shadow is not MISSING and shadow is not type(first):
        return None  # different leaves, or `list`/`tuple` rebound by the user
    node = trees[odd]
    new = cst.Call(func=cst.Name(conv), args=[cst.Arg(node)])
    return Edit(ctx.replace(node, new), "safe",
                f"`{ctx.code(node)}` is converted to a {conv} so its structure matches the first tree; the leaves "
                "are the same.")


def _fix_none(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any]) -> Edit | None:
    """None (a frozen or absent entry) in the first tree: let it reach ``f`` and keep the other value there."""
    if len(trees) != 2 or _has_kw(call, "is_leaf"):
        return None
    fn = call.args[0].value
    if not isinstance(fn, cst.Lambda) or len(fn.params.params) != 2 or fn.params.star_arg not in (
            None, cst.MaybeSentinel.DEFAULT) or fn.params.kwonly_params or fn.params.posonly_params:
        return None
    import jax

    def isnone(x: Any) -> bool:
        return x is None

    first, other = values
    if any(x is None for x in jax.tree.leaves(other, is_leaf=isnone)):
        return None
    try:
        if jax.tree.structure(first, is_leaf=isnone) != jax.tree.structure(other, is_leaf=isnone):
            return None
    except Exception:  # noqa: BLE001
        return None
    # keeping the other value is right only where the map computes the new version of that very tree
    parent = ctx.parent(call)
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(trees[1], (cst.Name, cst.Attribute))
            and ctx.code(parent.targets[0].target) == ctx.code(trees[1])):
        return None
    a, b = (p.name.value for p in fn.params.params)
    body = cst.IfExp(test=cst.Comparison(cst.Name(a), [cst.ComparisonTarget(cst.Is(), cst.Name("None"))]),
                     body=cst.Name(b), orelse=_paren(fn.body) if isinstance(fn.body, (cst.IfExp, cst.Lambda)) else fn.body)
    new_fn = fn.with_changes(body=body)
    is_leaf = cst.Arg(cst.parse_expression("lambda x: x is None"), keyword=cst.Name("is_leaf"),
                      equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
    args = list(call.args)
    args[0] = args[0].with_changes(value=new_fn)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = call.with_changes(args=[*args, is_leaf])
    t0, t1 = ctx.code(trees[0]), ctx.code(trees[1])
    return Edit(ctx.replace(call, new), "review",
                f"where `{t0}` holds None, the entry of `{t1}` is left unchanged (None is an empty subtree; "
                "`is_leaf` lets it reach the function); check that None means 'leave this entry alone'.")


def _dict_literal(ctx: Context, node: cst.BaseExpression, line: int, scope: cst.CSTNode,
                  depth: int = 0) -> cst.BaseExpression | None:
    """The dict (or list/tuple) literal ``node`` is, or was bound to by its one earlier assignment.

    A parameter of the enclosing function is followed to the argument of its one call in the cell.
    """
    if isinstance(node, (cst.Dict, cst.List, cst.Tuple)):
        return node
    if not isinstance(node, cst.Name) or depth > 3:
        return None
    a = _binding_before(ctx, scope, node.value, line) or (
        _binding_before(ctx, ctx.module, node.value, line) if scope is not ctx.module else None)  # type: ignore[arg-type]
    if a is not None:
        if len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name):
            return _dict_literal(ctx, a.value, ctx.span(a)[0], scope, depth + 1)
        return None
    if not isinstance(scope, cst.FunctionDef):
        return None
    params = [p.name.value for p in scope.params.params]
    if node.value not in params:
        return None
    i = params.index(node.value)
    calls = [c for c in ctx.nodes(cst.Call) if m.matches(c, m.Call(func=m.Name(scope.name.value)))]
    if len(calls) != 1:
        return None
    call = calls[0]
    assert isinstance(call, cst.Call)
    arg = next((x.value for x in call.args if x.keyword is not None and x.keyword.value == node.value), None)
    if arg is None and i < len(call.args) and call.args[i].keyword is None and not call.args[i].star:
        arg = call.args[i].value
    if arg is None:
        return None
    return _dict_literal(ctx, arg, ctx.span(call)[0], _scope_body(ctx, call), depth + 1)


def _dict_diff(a: Any, b: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], dict, dict]]:
    """The dict pairs (with their key path) whose key sets differ, walking dicts, lists and tuples."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [(path, a, b)]
        return [d for k in a for d in _dict_diff(a[k], b[k], (*path, k))]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _dict_diff(x, y, (*path, i))]
    return []


def _literal_at(lit: cst.BaseExpression, path: tuple[Any, ...]) -> cst.Dict | None:
    """The dict literal inside ``lit`` at ``path`` (keys of nested dict and list literals)."""
    node = lit
    for key in path:
        if isinstance(node, cst.Dict) and isinstance(key, str):
            hits = [e.value for e in node.elements if isinstance(e, cst.DictElement) and _literal(e.key) == key]
        elif isinstance(node, (cst.List, cst.Tuple)) and isinstance(key, int):
            elems = [e.value for e in node.elements if isinstance(e, cst.Element)]
            hits = [elems[key]] if len(elems) == len(node.elements) and key < len(elems) else []
        else:
            return None
        if len(hits) != 1:
            return None
        node = hits[0]
    return node if isinstance(node, cst.Dict) else None


def _fix_dict_key(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                  odd: int) -> Edit | None:
    """One key of a hand-written dict spelled differently from the first tree's: rename it there."""
    diffs = _dict_diff(values[0], values[odd])
    if len(diffs) != 1:
        return None
    path, first, other = diffs[0]
    if len(first) != len(other):
        return None
    only1, only2 = set(first) - set(other), set(other) - set(first)
    if len(only1) != 1 or len(only2) != 1:
        return None
    k1, k2 = only1.pop(), only2.pop()
    if not isinstance(k1, str) or not isinstance(k2, str):
        return None
    renamed = {(k1 if k == k2 else k): v for k, v in other.items()}
    if not _same_tree(first, renamed):
        return None
    top = _dict_literal(ctx, trees[odd], ctx.span(call)[0], _scope_body(ctx, call))
    lit = _literal_at(top, path) if top is not None else None
    if lit is None:
        return None
    keys = [e for e in lit.elements if isinstance(e, cst.DictElement) and _literal(e.key) == k2]
    if len(keys) != 1 or any(isinstance(e, cst.StarredDictElement) for e in lit.elements):
        return None
    key = keys[0].key
    assert isinstance(key, cst.SimpleString)
    quote = key.value[0] if key.value[0] in "'\"" else '"'
    new = key.with_changes(value=f"{quote}{k1}{quote}")
    return Edit(ctx.replace(key, new), "review",
                f"the key '{k2}' is renamed '{k1}' to match the first tree (same shapes); check that they are the "
                "same entry.")


def _fix_like_literal(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                      odd: int) -> Edit | None:
    """``state = {"w": jnp.zeros_like(params["w"])}`` that misses entries: build it from every parameter."""
    for mine, other in ((odd, 0), (0, odd)):
        edit = _like_literal(ctx, call, trees[mine], values[other])
        if edit is not None:
            return edit
    return None


def _like_literal(ctx: Context, call: cst.Call, g_node: cst.BaseExpression, other: Any) -> Edit | None:
    if not isinstance(g_node, cst.Name):
        return None
    lit = _dict_literal(ctx, g_node, ctx.span(call)[0], _scope_body(ctx, call))
    if isinstance(lit, cst.Dict):
        items = [e.value for e in lit.elements if isinstance(e, cst.DictElement)]
        if len(items) != len(lit.elements):
            return None
    elif isinstance(lit, (cst.List, cst.Tuple)):
        items = [e.value for e in lit.elements if isinstance(e, cst.Element)]
    else:
        return None
    funcs, roots = set(), set()
    for item in items:
        if not isinstance(item, cst.Call) or len(item.args) != 1 or item.args[0].keyword is not None:
            return None
        full = _full_name(ctx, item.func)
        if full not in ("jax.numpy.zeros_like", "jax.numpy.ones_like"):
            return None
        root = item.args[0].value
        while isinstance(root, cst.Subscript):
            root = root.value
        if not isinstance(root, cst.Name):
            return None
        roots.add(root.value)
        funcs.add(ctx.code(item.func))
    if len(funcs) != 1 or len(roots) != 1:
        return None
    source = roots.pop()
    ref = _lookup(ctx, source)
    if ref is MISSING or not _same_tree(ref, other):
        return None
    tm = ctx.ref("jax.tree.map") or ctx.ref("jax.tree_util.tree_map")
    if tm is None:
        return None
    new = cst.parse_expression(f"{tm}({funcs.pop()}, {source})")
    return Edit(ctx.replace(lit, new), "review",
                f"`{g_node.value}` is built from every entry of `{source}` instead of a hand-written subset; "
                "check that each parameter should get this state.")


@rule("tree-structure")
def tree_structure(ctx: Context) -> Edit | None:
    """Two pytrees that should match in ``jax.tree.map``: fix where the odd tree came from, if certain."""
    got = _tree_map_call(ctx)
    if got is None:
        return None
    call, trees, values = got
    if any(v is MISSING for v in values):
        return None
    if ctx.record_id == "tree-map-none-subtree":
        return _fix_none(ctx, call, trees, values)
    odd = _odd_tree(values)
    if odd is None:
        return None
    for fix in (lambda: _fix_argnums(ctx, call, trees, values, odd),
                lambda: _fix_value_and_grad(ctx, call, trees, odd),
                lambda: _fix_container(ctx, call, trees, values, odd),
                lambda: _fix_dict_key(ctx, call, trees, values, odd),
                lambda: _fix_like_literal(ctx, call, trees, values, odd)):
        edit = fix()
        if edit is not None:
            return edit
    return None


# ----------------------------------------------------------------------------- shared statement helpers



def _expr_names(ctx: Context, root: cst.CSTNode) -> list[cst.Name]:
    """Names used as values under ``root`` (not attribute names, keywords or parameters)."""
    out = []
    for n in m.findall(root, m.Name()):
        assert isinstance(n, cst.Name)
        p = ctx.parent(n)
        if isinstance(p, cst.Attribute) and p.attr is n or isinstance(p, (cst.Arg, cst.Param)) and getattr(
                p, "keyword", None) is n or isinstance(p, cst.Param):
            continue
        out.append(n)
    return out


def _module_bound(ctx: Context) -> set[str]:
    """Names the cell binds at module level, plus the namespace's."""
    out = set(ctx.namespace or ())
    for node in ctx.nodes((cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.FunctionDef, cst.ClassDef)):
        if ctx.enclosing(node, cst.FunctionDef) is not None:
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            out.add(node.name.value)
            continue
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        for t in targets:
            out.update(n.value for n in m.findall(t, m.Name()))  # type: ignore[attr-defined]
    out.update(ctx.imports)
    return out


def _free_name(ctx: Context, candidates: list[str]) -> str | None:
    bound = _module_bound(ctx)
    return next((c for c in candidates if c not in bound and c.isidentifier()), None)


def _single(stmt: cst.CSTNode | None) -> cst.BaseSmallStatement | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def _line_of(ctx: Context, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
    found = ctx.enclosing(node, cst.SimpleStatementLine)
    return found if isinstance(found, cst.SimpleStatementLine) else None


def _in_def(ctx: Context, node: cst.CSTNode) -> bool:
    return any(isinstance(a, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) for a in ctx.ancestors(node))


def _is_tracer(v: Any) -> bool:
    import jax

    return isinstance(v, jax.core.Tracer)


def _transformed(ctx: Context, fn: cst.FunctionDef) -> bool:
    """Whether ``fn`` is decorated with or later wrapped in ``jit``."""
    words = ("jit",)  # an extra output would break grad (scalar output) and change vmap's shapes
    for d in fn.decorators:
        if any(w in ctx.code(d.decorator) for w in words):
            return True
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if any(w in _full_name(ctx, call.func) for w in words) and any(
                isinstance(a.value, cst.Name) and a.value.value == fn.name.value for a in call.args):
            return True
    return False


def _returns(fn: cst.FunctionDef) -> list[cst.Return]:
    out = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            out.append(node)

    fn.visit(_V())
    return out


def _final_return(fn: cst.FunctionDef) -> cst.Return | None:
    """The function's only return, as its last top-level statement."""
    rets = _returns(fn)
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
    last = _single(body[-1]) if body else None
    return last if len(rets) == 1 and rets[0] is last and isinstance(last, cst.Return) else None


def _tuple(items: list[cst.BaseExpression], parens: bool = False) -> cst.Tuple:
    elems = [cst.Element(_paren(i) if isinstance(i, cst.Tuple) else i, comma=_COMMA) for i in items[:-1]]
    elems.append(cst.Element(_paren(items[-1]) if isinstance(items[-1], cst.Tuple) else items[-1]))
    return cst.Tuple(elems) if parens else cst.Tuple(elems, lpar=[], rpar=[])


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
            if not _full_name(ctx, outer.func).endswith("jit"):
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
        v = _value(ctx, n) if not _lambda_param(ctx, n) else MISSING
        if _is_tracer(v):
            out.add(("global", n.value))
        elif isinstance(v, list) and any(_is_tracer(x) for x in v):
            out.add(("list", n.value))
    for a in m.findall(stmt, m.Attribute(value=m.Name())):
        assert isinstance(a, cst.Attribute)
        if _is_tracer(_value(ctx, a)):
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
        if _is_tracer(v):
            out.add(("global", name))
        elif isinstance(v, list) and any(_is_tracer(x) for x in v):
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


# ----------------------------------------------------------------------------- donated-reuse


def _lambda_param(ctx: Context, n: cst.Name) -> bool:
    """Whether ``n`` names a parameter of a lambda around it."""
    return any(isinstance(a, cst.Lambda) and any(p.name.value == n.value for p in a.params.params)
               for a in ctx.ancestors(n))


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
    dead = {n.value for n in _expr_names(ctx, stmt) if not _lambda_param(ctx, n) and _deleted(_value(ctx, n))}
    if len(dead) != 1:
        return None
    p = dead.pop()
    sites = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        fn = _value(ctx, call.func) if isinstance(call.func, cst.Name) else MISSING
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
    rets = _returns(node) if node is not None else None
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
        rets = _returns(defs[0])  # type: ignore[arg-type]
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
        nums = [_literal(e.value) for e in v.elements] if isinstance(v, (cst.Tuple, cst.List)) else [_literal(v)]
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
        if (len(args) == 1 and _full_name(ctx, jit_call.func) == "functools.partial"
                and _full_name(ctx, args[0].value) == "jax.jit"):
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
