"""What the control-flow rules share: traced names, stores and loads, carries, edits."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite.analysis import MISSING, is_array, loads, lookup_dotted, traced
from jaxerrs.rewrite.context import Context, dotted_name

_BOTH_BRANCHES = ("both branches are now computed: check that the unused one cannot produce NaN/inf "
                  "(it would poison gradients)")
_BOOL_FUNCS = {"isnan", "isinf", "isfinite", "isclose", "isneginf", "isposinf", "signbit", "logical_and",
               "logical_or", "logical_not", "logical_xor", "any", "all", "array_equal", "allclose", "bool_"}
# jnp functions whose array arguments may be a 0-d array instead of a Python number
_MATH_FUNCS = {"where", "maximum", "minimum", "clip", "exp", "log", "log1p", "expm1", "sqrt", "abs", "sin", "cos",
               "tanh", "square", "sum", "mean", "asarray", "array", "stack", "float32", "int32", "sign", "floor",
               "ceil", "round", "power", "multiply", "add", "subtract", "divide", "true_divide", "dot", "matmul",
               "exp2", "log2", "log10", "sigmoid", "relu", "softplus", "full_like", "isnan", "isfinite"}
_AUG_TO_BIN = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
               cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.PowerAssign: cst.Power,
               cst.ModuloAssign: cst.Modulo, cst.MatrixMultiplyAssign: cst.MatrixMultiply}


# ---------------------------------------------------------------------------------------------- helpers


def _dotted(node: cst.CSTNode) -> str:
    """'a.b.c' for a chain of names only; '' for anything else (``f(x).sum`` included)."""
    d = dotted_name(node)
    return d if d and "" not in d.split(".") else ""


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def _call(func: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=_expr(func), args=[cst.Arg(_bare(a)) for a in args])


def _bare(e: cst.BaseExpression) -> cst.BaseExpression:
    """``e`` without its outer parentheses, where it can stand alone as a call argument."""
    if isinstance(e, (cst.Tuple, cst.GeneratorExp, cst.NamedExpr)) or not getattr(e, "lpar", None):
        return e
    return e.with_changes(lpar=[], rpar=[])


def _atomic(e: cst.BaseExpression) -> bool:
    return isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
                          cst.SimpleString, cst.List, cst.Dict)) or bool(getattr(e, "lpar", None))


def _paren(e: cst.BaseExpression) -> cst.BaseExpression:
    return e if _atomic(e) else e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _is_array(v: Any) -> bool:
    return is_array(v)


def _loads(node: cst.CSTNode) -> list[str]:
    """Dotted names read by an expression, skipping ``x.shape``-like static reads and keyword names."""
    return loads(node)


def _traced(ctx: Context, e: cst.CSTNode) -> bool | None:
    """True when ``e`` reads an array (a tracer under a transform), False when it reads none, None: unknown."""
    return traced(ctx, e)


def _jnp(ctx: Context) -> tuple[str, str | None]:
    return ctx.need("jax.numpy", "jnp")


def _lax(ctx: Context) -> tuple[str, str | None]:
    return ctx.need("jax.lax", "lax")


def _free_name(ctx: Context, base: str) -> str:
    name, k = base, 2
    while ctx.bound(name):
        name, k = f"{base}_{k}", k + 1
    return name


def _stmts(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                                              for s in block.body])]
    return list(block.body)  # type: ignore[attr-defined]


def _smalls(stmts: Sequence[cst.BaseStatement]) -> list[cst.BaseSmallStatement] | None:
    """The small statements of simple lines only; None when a compound statement is among them."""
    out: list[cst.BaseSmallStatement] = []
    for s in stmts:
        if not isinstance(s, cst.SimpleStatementLine):
            return None
        out.extend(s.body)
    return out


def _edit(ctx: Context, mapping: dict[cst.CSTNode, Any], imports: Sequence[str | None]) -> str:
    """The cell with nodes replaced (by a node, a sentinel, or a function of the updated node), imports added."""
    return ctx.replace_many(list(mapping.items()), list(imports))


def _header(ctx: Context) -> tuple[str, cst.CSTNode, cst.CSTNode] | None:
    """(kind, statement, expression region) of the failing line: the header of an if/while/for, or a simple line."""
    line = ctx.line
    if line is None:
        return None
    best: tuple[str, cst.CSTNode, cst.CSTNode] | None = None
    best_size = 10 ** 9
    for kind, cls, attr in (("if", cst.If, "test"), ("while", cst.While, "test"), ("for", cst.For, "iter")):
        for n in ctx.at_line(cls):
            part = getattr(n, attr)
            lo, hi = ctx.span(part)
            if lo <= line <= hi and hi - lo < best_size:
                best, best_size = (kind, n, part), hi - lo
    if best is not None:
        return best
    simple = ctx.at_line(cst.SimpleStatementLine)
    if simple:
        return "stmt", simple[0], simple[0]
    return None


def _function(ctx: Context, node: cst.CSTNode) -> cst.FunctionDef | None:
    fn = ctx.enclosing(node, cst.FunctionDef)
    return fn if isinstance(fn, cst.FunctionDef) else None


def _params(fn: cst.FunctionDef) -> list[str]:
    p = fn.params
    return [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]


class _Stores(cst.CSTVisitor):
    """Names bound by assignment statements (not inside nested functions or classes)."""

    def __init__(self) -> None:
        self.names: list[cst.Name] = []

    def _add(self, t: cst.BaseExpression) -> None:
        if isinstance(t, cst.Name):
            self.names.append(t)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self._add(el.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._add(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._add(node.target)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def _stores(node: cst.CSTNode) -> list[cst.Name]:
    v = _Stores()
    if isinstance(node, cst.FunctionDef):
        node.body.visit(v)
    else:
        node.visit(v)
    return v.names


def _bound_before(ctx: Context, where: cst.CSTNode, name: str) -> bool:
    """Whether ``name`` is bound when the statement ``where`` starts (in its function, or the cell's top level)."""
    fn = _function(ctx, where)
    start = ctx.span(where)[0]
    if fn is not None:
        if name in _params(fn):
            return True
        scope: cst.CSTNode = fn
    else:
        assert ctx.module is not None
        if ctx.namespace and name in ctx.namespace and ctx.line is not None and ctx.locals is ctx.namespace:
            return True
        scope = ctx.module
    return any(ctx.span(n)[0] < start for n in _stores(scope) if n.value == name)


def _reads_after(ctx: Context, scope: cst.CSTNode, name: str, after_line: int) -> bool:
    return any(ctx.span(n)[0] > after_line for n in ctx.nodes(m.Name(value=name)) if scope in ctx.ancestors(n))


def _assigned(small: cst.BaseSmallStatement) -> list[str] | None:
    """Names a small statement binds, or None when it is not a plain assignment to names."""
    if isinstance(small, cst.Assign):
        out: list[str] = []
        for t in small.targets:
            if isinstance(t.target, cst.Name):
                out.append(t.target.value)
            elif isinstance(t.target, cst.Tuple) and all(isinstance(e.value, cst.Name) for e in t.target.elements):
                out.extend(e.value.value for e in t.target.elements)  # type: ignore[attr-defined]
            else:
                return None
        return out
    if isinstance(small, (cst.AugAssign, cst.AnnAssign)) and isinstance(small.target, cst.Name):
        return [small.target.value] if not isinstance(small, cst.AnnAssign) or small.value is not None else None
    return None


def _carry(ctx: Context, where: cst.CSTNode, smalls: list[cst.BaseSmallStatement],
           exclude: Sequence[str] = ()) -> tuple[list[str], list[str]] | None:
    """(carried names bound before ``where``, temporaries) of a loop or branch body made of plain assignments."""
    names: list[str] = []
    for s in smalls:
        got = _assigned(s)
        if got is None:
            return None
        names.extend(n for n in got if n not in names and n not in exclude)
    carry = [n for n in names if _bound_before(ctx, where, n)]
    temps = [n for n in names if n not in carry]
    for t in temps:  # a temporary must be written before it is read, in the body
        first = next(i for i, s in enumerate(smalls) if t in (_assigned(s) or []))
        s = smalls[first]
        value = getattr(s, "value", None)
        if isinstance(s, cst.AugAssign) or any(t in _loads(x) for x in smalls[:first]) or (
                value is not None and t in _loads(value)):
            return None
    return carry, temps


def _tuple_of(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names)


def _def(name: str, params: Sequence[str], body: Sequence[cst.BaseStatement], ret: str | None) -> cst.FunctionDef:
    tmpl = cst.parse_statement(f"def {name}({', '.join(params)}):\n    pass\n")
    assert isinstance(tmpl, cst.FunctionDef)
    stmts = [s.with_changes(leading_lines=[]) if i == 0 and isinstance(s, (cst.SimpleStatementLine, cst.If,
             cst.For, cst.While)) else s for i, s in enumerate(body)]
    if ret is not None:
        stmts.append(cst.parse_statement(f"return {ret}\n"))
    return tmpl.with_changes(body=cst.IndentedBlock(body=stmts or [cst.parse_statement("pass\n")]))


def _flows_to_math(ctx: Context, node: cst.CSTNode, depth: int = 0) -> bool:
    """Whether the value of ``node`` only feeds array math or a return (so a 0-d array does as well as a number)."""
    cur = node
    while True:
        p = ctx.parent(cur)
        if isinstance(p, (cst.BinaryOperation, cst.Element, cst.DictElement, cst.Tuple, cst.List, cst.Dict,
                          cst.Comparison, cst.ComparisonTarget)):
            if isinstance(p, cst.DictElement) and p.key is cur:
                return False
            cur = p
        elif isinstance(p, cst.UnaryOperation) and not isinstance(p.operator, cst.Not):
            cur = p
        elif isinstance(p, cst.Arg):
            call = ctx.parent(p)
            if not isinstance(call, cst.Call) or p.keyword is not None:
                return False
            func = _dotted(call.func)
            head, _, attr = func.rpartition(".")
            builtin_minmax = func in ("min", "max") and lookup_dotted(ctx, func) is getattr(builtins, func)
            if not builtin_minmax and not (attr in _MATH_FUNCS and head and (
                    ctx.imports.get(head.split(".")[0]) or "").startswith("jax")):
                return False
            cur = call
        elif isinstance(p, (cst.Index, cst.SubscriptElement)):
            cur = p
        elif isinstance(p, cst.Subscript):
            base = lookup_dotted(ctx, _dotted(p.value))
            if cur is p.value or base is MISSING or not _is_array(base):
                return False
            cur = p
        elif isinstance(p, cst.Return):
            return True
        elif isinstance(p, cst.Assign) and cur is p.value:
            if depth > 2 or len(p.targets) != 1 or not isinstance(p.targets[0].target, cst.Name):
                return False
            return _uses_flow(ctx, p, p.targets[0].target.value, depth)
        elif isinstance(p, cst.AugAssign) and cur is p.value and isinstance(p.target, cst.Name):
            if depth > 2:
                return False
            return _uses_flow(ctx, p, p.target.value, depth)
        else:
            return False


def _uses_flow(ctx: Context, stmt: cst.CSTNode, name: str, depth: int) -> bool:
    """Every later read of ``name`` in the same function flows to math."""
    scope = _function(ctx, stmt) or ctx.module
    end = ctx.span(stmt)[1]
    for n in ctx.nodes(m.Name(value=name)):
        if ctx.span(n)[0] <= end or scope not in ctx.ancestors(n):
            continue
        par = ctx.parent(n)
        if isinstance(par, cst.AssignTarget) or (isinstance(par, cst.AugAssign) and par.target is n):
            if isinstance(par, cst.AugAssign):
                continue
            return True  # rebound: later reads see another value
        if isinstance(par, cst.Attribute) and par.value is n:
            return False
        if not _flows_to_math(ctx, n, depth + 1):
            return False
    return True


def _boolish(ctx: Context, e: cst.BaseExpression) -> bool:
    """Whether ``e`` is a truth value (so ``and``/``or`` on it can become ``logical_and``/``logical_or``)."""
    if isinstance(e, (cst.Comparison,)):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Not, cst.BitInvert)):
        return True
    if isinstance(e, cst.BooleanOperation):
        return _boolish(ctx, e.left) and _boolish(ctx, e.right)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _boolish(ctx, e.left) and _boolish(ctx, e.right)
    if isinstance(e, cst.Call):
        name = _dotted(e.func).rpartition(".")[2]
        return name in _BOOL_FUNCS
    if isinstance(e, cst.Name) and e.value in ("True", "False"):
        return True
    v = lookup_dotted(ctx, _dotted(e))
    if v is MISSING:
        return False
    return isinstance(v, bool) or (_is_array(v) and str(getattr(v, "dtype", "")) == "bool")


def _const_value(e: cst.BaseExpression) -> bool:
    """A value ``jnp.where`` cannot select: a string, None or (for element-wise conditions) True/False."""
    return isinstance(e, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) or m.matches(
        e, m.Name("None"))


def _array_cond(e: cst.BaseExpression, jnp: str) -> cst.BaseExpression | None:
    """A condition with ``and``/``or``/``not``/chained comparisons made element-wise array operations."""
    if isinstance(e, cst.BooleanOperation):
        fn = "logical_and" if isinstance(e.operator, cst.And) else "logical_or"
        left, right = _array_cond(e.left, jnp), _array_cond(e.right, jnp)
        return None if left is None or right is None else _call(f"{jnp}.{fn}", left, right)
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        inner = _array_cond(e.expression, jnp)
        return None if inner is None else _call(f"{jnp}.logical_not", inner)
    if isinstance(e, cst.Comparison) and len(e.comparisons) > 1:
        parts: list[cst.BaseExpression] = []
        left = e.left
        for i, ct in enumerate(e.comparisons):
            if i < len(e.comparisons) - 1 and not isinstance(ct.comparator, (cst.Name, cst.Attribute, cst.Integer,
                                                                              cst.Float)):
                return None  # the middle operand would be evaluated twice
            parts.append(cst.Comparison(left=_bare(left), comparisons=[ct.with_changes(comparator=_bare(ct.comparator))]))
            left = ct.comparator
        out = parts[0]
        for p in parts[1:]:
            out = _call(f"{jnp}.logical_and", out, p)
        return out
    return e


def _code(e: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(e)


def _scalar_pred(ctx: Context) -> bool:
    """Whether the failing condition is a scalar (``lax.cond`` needs one)."""
    shape = ctx.values.get("shape", "")
    return ctx.record_id == "tracer-bool-conversion" and shape.endswith("[]")


def _has_bool_syntax(e: cst.CSTNode) -> bool:
    return bool(m.findall(e, m.BooleanOperation() | m.UnaryOperation(operator=m.Not())
                          | m.Comparison(comparisons=[m.AtLeastN(n=2)])))
