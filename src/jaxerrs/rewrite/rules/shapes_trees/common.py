"""What the shape and pytree rules share: shapes inferred from live values and expressions, statements."""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import own_returns
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.values import MISSING, literal, live_value

_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
Shape = tuple[int, ...]

# ----------------------------------------------------------------------------- looking values up


def _shape_of(v: Any) -> Shape | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float, complex)):
        return ()
    shape = getattr(v, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape) and hasattr(v, "dtype"):
        return shape
    return None


_PUBLIC = ("jax.numpy", "jax.nn", "jax.scipy.special", "jax.lax", "jax.numpy.linalg", "jax.tree", "jax.tree_util",
           "jax")


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
                items = [literal(e.value) for e in v.elements]
                return MISSING if any(i is MISSING for i in items) else tuple(items)
            if isinstance(v, cst.Name) and v.value == "None":
                return None
            return literal(v)
    return None


def _reduce_info(ctx: Context, node: cst.BaseExpression) -> tuple[cst.BaseExpression, Any, bool] | None:
    """(reduced operand, axis, is method call) for ``x.mean(axis=1)`` / ``jnp.mean(x, axis=1)`` ..."""
    if not isinstance(node, cst.Call):
        return None
    full = full_name(ctx, node.func, modules=_PUBLIC, keep=True, methods=True)
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
    v = live_value(ctx, node, attrs="instance-or-module")
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
    full = full_name(ctx, node.func, modules=_PUBLIC, keep=True, methods=True)
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
    dtype = getattr(live_value(ctx, node, attrs="instance-or-module"), "dtype", None)
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
    found = ctx.statement()
    if found is not None:
        return found
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


def _final_return(fn: cst.FunctionDef) -> cst.Return | None:
    """The function's only return, as its last top-level statement."""
    rets = own_returns(fn)
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
    last = _single(body[-1]) if body else None
    return last if len(rets) == 1 and rets[0] is last and isinstance(last, cst.Return) else None


def _free_name(ctx: Context, candidates: list[str]) -> str | None:
    bound = _module_bound(ctx)
    return next((c for c in candidates if c not in bound and c.isidentifier()), None)


def _in_def(ctx: Context, node: cst.CSTNode) -> bool:
    return any(isinstance(a, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) for a in ctx.ancestors(node))


def _lambda_param(ctx: Context, n: cst.Name) -> bool:
    """Whether ``n`` names a parameter of a lambda around it."""
    return any(isinstance(a, cst.Lambda) and any(p.name.value == n.value for p in a.params.params)
               for a in ctx.ancestors(n))


def _transformed(ctx: Context, fn: cst.FunctionDef) -> bool:
    """Whether ``fn`` is decorated with or later wrapped in ``jit``."""
    words = ("jit",)  # an extra output would break grad (scalar output) and change vmap's shapes
    for d in fn.decorators:
        if any(w in ctx.code(d.decorator) for w in words):
            return True
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if any(w in full_name(ctx, call.func, modules=_PUBLIC, keep=True, methods=True) for w in words) and any(
                isinstance(a.value, cst.Name) and a.value.value == fn.name.value for a in call.args):
            return True
    return False


def _tuple(items: list[cst.BaseExpression], parens: bool = False) -> cst.Tuple:
    elems = [cst.Element(_paren(i) if isinstance(i, cst.Tuple) else i, comma=_COMMA) for i in items[:-1]]
    elems.append(cst.Element(_paren(items[-1]) if isinstance(items[-1], cst.Tuple) else items[-1]))
    return cst.Tuple(elems) if parens else cst.Tuple(elems, lpar=[], rpar=[])


def _binding_before(ctx: Context, scope: cst.CSTNode, name: str, line: int) -> cst.Assign | None:
    """The one assignment of ``name`` in ``scope`` that comes before ``line``; None if 0 or several."""
    found = [a for a in _assignments(ctx, scope, name) if ctx.span(a)[0] < line]
    return found[0] if len(found) == 1 else None


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


def _line_of(ctx: Context, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
    found = ctx.enclosing(node, cst.SimpleStatementLine)
    return found if isinstance(found, cst.SimpleStatementLine) else None


def _single(stmt: cst.CSTNode | None) -> cst.BaseSmallStatement | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


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
