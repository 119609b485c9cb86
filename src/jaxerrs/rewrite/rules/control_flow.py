"""Python control flow and Python scalars on traced values, rewritten into code JAX can trace.

Under ``jit``, ``vmap`` or ``grad`` a value is a tracer: Python cannot branch on it, loop on it or
turn it into an ``int``/``float``/list. These rules rewrite the construct on the failing line:
``if``/ternary -> ``jnp.where`` (or ``lax.cond`` for multi-statement branches), ``and``/``or``/``not``
-> ``jnp.logical_*``, ``min``/``max`` -> ``jnp.minimum``/``jnp.maximum``, ``while`` ->
``lax.while_loop``, ``for ... in range(traced)`` -> ``lax.fori_loop``, a count or flag parameter of
the user's own jitted function -> a static argument, ``lst[i]`` -> ``jnp.asarray(lst)[i]``, and
``float()``/``int()``/``.item()``/``.tolist()`` dropped where the number only fed array math.
Every rule returns None when the code has an unusual shape: no rewrite beats a wrong one.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, add_imports, dotted_name
from jaxerrs.rewrite.rules import rule

_STATIC_ATTRS = {"shape", "ndim", "dtype", "size"}
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


def _is_tracer(v: Any) -> bool:
    return any(c.__name__ == "Tracer" and c.__module__.startswith("jax") for c in type(v).__mro__)


def _is_array(v: Any) -> bool:
    if _is_tracer(v):
        return True
    mod = type(v).__module__ or ""
    return (mod.startswith(("jax", "jaxlib", "numpy")) and hasattr(v, "shape") and hasattr(v, "dtype")
            and not isinstance(v, type))


_MISSING = object()


def _lookup(ctx: Context, dotted: str) -> Any:
    """The value a dotted name has in the failing frame (locals, then the namespace, then builtins)."""
    if not dotted:
        return _MISSING
    head, *rest = dotted.split(".")
    for scope in (ctx.locals, ctx.namespace, vars(builtins)):
        if scope is not None and head in scope:
            obj = scope[head]
            try:
                for part in rest:
                    obj = getattr(obj, part)
            except Exception:  # noqa: BLE001 - a property that raises: unknown
                return _MISSING
            return obj
    return _MISSING


class _Loads(cst.CSTVisitor):
    """Dotted names read by an expression, skipping ``x.shape``-like static reads and keyword names."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if node.attr.value in _STATIC_ATTRS:
            return False
        d = _dotted(node)
        if d:
            self.names.append(d)
        else:  # `f(x).sum`: what `f(x)` reads; `sum` is an attribute, not a name
            node.value.visit(self)
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        return not m.matches(node.func, m.Name("len"))

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node.value)


def _loads(node: cst.CSTNode) -> list[str]:
    v = _Loads()
    node.visit(v)
    return v.names


def _traced(ctx: Context, e: cst.CSTNode) -> bool | None:
    """True when ``e`` reads an array (a tracer under a transform), False when it reads none, None: unknown."""
    unknown = False
    for name in _loads(e):
        parts = name.split(".")
        values = [_lookup(ctx, ".".join(parts[:k])) for k in range(1, len(parts) + 1)]
        if any(v is not _MISSING and _is_array(v) for v in values):
            return True  # `y.sum` reads the array `y`
        if values[-1] is _MISSING:
            unknown = True
    return None if unknown else False


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
    """The cell with nodes replaced, imports added.

    A node maps to its replacement (a node, FlattenSentinel or RemovalSentinel) or to a function of the
    updated node, for an edit that must keep the edits made inside it (nested ``min(max(...))``).
    """

    class _T(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Any:
            new = mapping.get(original)
            if new is None:
                return updated
            return new(updated) if callable(new) else new

    assert ctx.module is not None
    out = ctx.module.visit(_T())
    return add_imports(out, [i for i in imports if i]).code


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


def _resolves(ctx: Context, node: cst.BaseExpression, target: str) -> bool:
    """Whether ``node`` (a dotted name) names ``target`` ("jax.jit", "functools.partial")."""
    d = _dotted(node)
    if not d:
        return False
    v = _lookup(ctx, d)
    if v is not _MISSING:
        mod, _, attr = target.rpartition(".")
        try:
            import importlib

            return v is getattr(importlib.import_module(mod), attr)
        except Exception:  # noqa: BLE001
            return False
    head = d.split(".")[0]
    full = ctx.imports.get(head)
    return (full + d[len(head):] if full else d) == target


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
            builtin_minmax = func in ("min", "max") and _lookup(ctx, func) is getattr(builtins, func)
            if not builtin_minmax and not (attr in _MATH_FUNCS and head and (
                    ctx.imports.get(head.split(".")[0]) or "").startswith("jax")):
                return False
            cur = call
        elif isinstance(p, (cst.Index, cst.SubscriptElement)):
            cur = p
        elif isinstance(p, cst.Subscript):
            base = _lookup(ctx, _dotted(p.value))
            if cur is p.value or base is _MISSING or not _is_array(base):
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


# ---------------------------------------------------------------------------------------------- conditions


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


def _has_bool_syntax(e: cst.CSTNode) -> bool:
    return bool(m.findall(e, m.BooleanOperation() | m.UnaryOperation(operator=m.Not())
                          | m.Comparison(comparisons=[m.AtLeastN(n=2)])))


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
    v = _lookup(ctx, _dotted(e))
    if v is _MISSING:
        return False
    return isinstance(v, bool) or (_is_array(v) and str(getattr(v, "dtype", "")) == "bool")


def _scalar_pred(ctx: Context) -> bool:
    """Whether the failing condition is a scalar (``lax.cond`` needs one)."""
    shape = ctx.values.get("shape", "")
    return ctx.record_id == "tracer-bool-conversion" and shape.endswith("[]")


def _const_value(e: cst.BaseExpression) -> bool:
    """A value ``jnp.where`` cannot select: a string, None or (for element-wise conditions) True/False."""
    return isinstance(e, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) or m.matches(
        e, m.Name("None"))


# ---------------------------------------------------------------------------------------------- if


def _chain(node: cst.If) -> tuple[list[tuple[cst.BaseExpression, list[cst.BaseStatement]]],
                                  list[cst.BaseStatement] | None]:
    """The branches of an if/elif chain and its else body (None when it has no else)."""
    branches = []
    cur: cst.If | None = node
    while cur is not None:
        branches.append((cur.test, _stmts(cur.body)))
        orelse = cur.orelse
        if isinstance(orelse, cst.If):
            cur = orelse
        else:
            return branches, (_stmts(orelse.body) if isinstance(orelse, cst.Else) else None)
    return branches, None


def _only_return(stmts: Sequence[cst.BaseStatement]) -> cst.BaseExpression | None:
    sm = _smalls(stmts)
    if sm is None or len(sm) != 1 or not isinstance(sm[0], cst.Return) or sm[0].value is None:
        return None
    return sm[0].value


def _block_of(ctx: Context, node: cst.CSTNode) -> tuple[list[cst.BaseStatement], int] | None:
    parent = ctx.parent(node)
    if isinstance(parent, (cst.IndentedBlock, cst.Module)):
        body = list(parent.body)
        return body, body.index(node)  # type: ignore[arg-type]
    return None


def _select(jnp: str, conds: Sequence[cst.BaseExpression], values: Sequence[cst.BaseExpression],
            default: cst.BaseExpression) -> cst.BaseExpression | None:
    """``where(c1, v1, where(c2, v2, default))``; tuples of equal length are selected element by element."""
    all_vals = [*values, default]
    if any(isinstance(v, cst.Tuple) for v in all_vals):
        if not all(isinstance(v, cst.Tuple) for v in all_vals):
            return None
        sizes = {len(v.elements) for v in all_vals}  # type: ignore[attr-defined]
        if len(sizes) != 1 or any(isinstance(el, cst.StarredElement) for v in all_vals
                                  for el in v.elements):  # type: ignore[attr-defined]
            return None
        parts = []
        for k in range(sizes.pop()):
            sel = _select(jnp, conds, [v.elements[k].value for v in values],  # type: ignore[attr-defined]
                          default.elements[k].value)  # type: ignore[attr-defined]
            if sel is None:
                return None
            parts.append(cst.Element(sel))
        return cst.Tuple(parts, lpar=[], rpar=[])
    out = default
    for c, v in zip(reversed(conds), reversed(values), strict=True):
        out = _call(f"{jnp}.where", c, v, out)
    return out


def _replace_if(ctx: Context, node: cst.If, new: list[cst.BaseStatement], removed: Sequence[cst.CSTNode] = ()
                ) -> dict[cst.CSTNode, Any]:
    """Mapping that puts ``new`` statements where the if chain starting at ``node`` was."""
    parent = ctx.parent(node)
    mapping: dict[cst.CSTNode, Any] = {r: cst.RemovalSentinel.REMOVE for r in removed}
    if isinstance(parent, cst.If) and parent.orelse is node:  # an elif: it becomes the else
        mapping[node] = cst.Else(body=cst.IndentedBlock(body=new))
    else:
        new = [new[0].with_changes(leading_lines=node.leading_lines), *new[1:]]
        mapping[node] = cst.FlattenSentinel(new) if len(new) > 1 else new[0]
    return mapping


@rule("traced-if")
def traced_if(ctx: Context) -> Edit | None:
    """``if`` on a traced value: branches that return or assign one value -> ``jnp.where``; else ``lax.cond``."""
    head = _header(ctx)
    if head is None or head[0] != "if":
        return None
    node = head[1]
    assert isinstance(node, cst.If)
    if _traced(ctx, node.test) is False:
        return None  # a static condition: not what failed
    jnp, imp = _jnp(ctx)
    elementwise = not _scalar_pred(ctx)
    branches, orelse = _chain(node)
    conds = []
    for c, _ in branches:
        cc = _array_cond(c, jnp)
        if cc is None:
            return None
        conds.append(cc)
    what = "an element-wise `where`" if elementwise else "`where`"
    extra = " The condition is element-wise: if you meant all elements, use `.all()`." if elementwise else ""

    # 1) every branch is `return expr`
    rets = [_only_return(b) for _, b in branches]
    if all(r is not None for r in rets):
        removed: list[cst.CSTNode] = []
        default = _only_return(orelse) if orelse is not None else None
        if orelse is None and not isinstance(ctx.parent(node), cst.If):
            block = _block_of(ctx, node)
            if block is None:
                return None
            body, i = block
            j = i + 1
            while j < len(body) and isinstance(body[j], cst.If):  # `if c2: return b` siblings join the chain
                sib = body[j]
                assert isinstance(sib, cst.If)
                sb, so = _chain(sib)
                sr = _only_return(sb[0][1]) if len(sb) == 1 and so is None else None
                sc = _array_cond(sib.test, jnp) if sr is not None else None
                if sr is None or sc is None:
                    break
                conds.append(sc)
                rets.append(sr)
                removed.append(sib)
                j += 1
            if j < len(body):
                default = _only_return([body[j]])
                removed.append(body[j])
        if default is not None:
            values = [r for r in rets if r is not None]
            if any(_const_value(v) for v in [*values, default]) or (elementwise and any(
                    m.matches(v, m.Name("True") | m.Name("False")) for v in [*values, default])):
                return None
            sel = _select(jnp, conds, values, default)
            if sel is None:
                return None
            new = cst.SimpleStatementLine(body=[cst.Return(value=sel)])
            return Edit(_edit(ctx, _replace_if(ctx, node, [new], removed), [imp]), "review",
                        f"the `if` became {what}: {_BOTH_BRANCHES}.{extra}")

    # 2) every branch assigns names (one statement per name, no cross references)
    edit = _if_assign(ctx, node, branches, orelse, conds, jnp, imp, what, extra)
    if edit is not None:
        return edit
    # 3) several statements per branch: lax.cond with a scalar predicate
    if not elementwise:
        return _if_cond(ctx, node, branches, orelse, conds[0])
    return None


def _if_assign(ctx: Context, node: cst.If, branches: list[tuple[cst.BaseExpression, list[cst.BaseStatement]]],
               orelse: list[cst.BaseStatement] | None, conds: list[cst.BaseExpression], jnp: str,
               imp: str | None, what: str, extra: str) -> Edit | None:
    bodies = [b for _, b in branches] + ([orelse] if orelse is not None else [])
    per: list[dict[str, cst.BaseExpression]] = []
    order: list[str] = []
    for b in bodies:
        sm = _smalls(b)
        if not sm:
            return None
        got: dict[str, cst.BaseExpression] = {}
        for s in sm:
            if isinstance(s, cst.Assign) and len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name):
                name, value = s.targets[0].target.value, s.value
            elif isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Name) and type(s.operator) in _AUG_TO_BIN:
                name = s.target.value
                value = cst.BinaryOperation(left=s.target, operator=_AUG_TO_BIN[type(s.operator)](),
                                            right=_paren(s.value))
            else:
                return None
            if name in got:
                return None
            got[name] = value
            if name not in order:
                order.append(name)
        per.append(got)
    for got in per:  # a value may read the name it sets, no other name the branches set
        for name, value in got.items():
            if any(r in order and r != name for r in _loads(value)):
                return None
    new: list[cst.BaseStatement] = []
    if len(order) > 1:  # a later `where` must not see a condition re-evaluated on names already rebound
        taken: list[str] = []
        for i, c in enumerate(conds):
            if any(r.split(".")[0] in order for r in _loads(c)):
                pred = _free_name(ctx, "pred")
                while pred in taken:
                    pred = _free_name(ctx, f"pred_{len(taken) + 1}")
                taken.append(pred)
                new.append(cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(pred))],
                                                                    value=_bare(c))]))
                conds = [*conds[:i], cst.Name(pred), *conds[i + 1:]]
    for name in order:
        missing = orelse is None or any(name not in got for got in per)
        if missing and not _bound_before(ctx, node, name):
            return None
        values = [got.get(name, cst.Name(name)) for got in per[:len(branches)]]
        default = per[-1].get(name, cst.Name(name)) if orelse is not None else cst.Name(name)
        if any(_const_value(v) for v in [*values, default]):
            return None
        sel = _select(jnp, conds, values, default)
        if sel is None:
            return None
        new.append(cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=sel)]))
    names = ", ".join(f"`{n}`" for n in order)
    return Edit(_edit(ctx, _replace_if(ctx, node, new), [imp]), "review",
                f"the `if` became {what} for {names}: {_BOTH_BRANCHES}.{extra}")


def _if_cond(ctx: Context, node: cst.If, branches: list[tuple[cst.BaseExpression, list[cst.BaseStatement]]],
             orelse: list[cst.BaseStatement] | None, cond: cst.BaseExpression) -> Edit | None:
    """if/else with several statements per branch -> two local functions run by ``lax.cond``."""
    fn = _function(ctx, node)
    if len(branches) != 1 or fn is None:
        return None
    true_body, false_body = branches[0][1], orelse
    removed: list[cst.CSTNode] = []
    returns = _ends_in_return(true_body)
    if returns:
        if false_body is None:  # early return: the rest of the block is the false branch
            block = _block_of(ctx, node)
            if block is None:
                return None
            body, i = block
            false_body = body[i + 1:]
            removed = list(false_body)
        if not _ends_in_return(false_body):
            return None
    elif false_body is not None and _ends_in_return(false_body):
        return None
    t_sm, f_sm = _smalls(true_body), _smalls(false_body or [])
    if t_sm is None or f_sm is None:
        return None
    t = _carry(ctx, node, t_sm[:-1] if returns else t_sm)
    f = _carry(ctx, node, f_sm[:-1] if returns else f_sm)
    if t is None or f is None:
        return None
    operands = list(dict.fromkeys(t[0] + f[0]))  # rebound names: passed in, so the branches can read them
    outs: list[str] = []
    if not returns:
        end = ctx.span(node)[1]
        for name in dict.fromkeys(t[0] + t[1] + f[0] + f[1]):
            both = name in t[0] + t[1] and name in f[0] + f[1]
            if name in operands or both:
                outs.append(name)
            elif _reads_after(ctx, fn, name, end):
                return None  # set on one side only, unbound on the other
        if not outs:
            return None
    lax, imp = _lax(ctx)
    t_name, f_name = _free_name(ctx, "true_branch"), _free_name(ctx, "false_branch")
    ret = _tuple_of(outs) if outs else None
    t_def = _def(t_name, operands, true_body, ret)
    f_def = _def(f_name, operands, list(false_body or []), ret)
    call = f"{lax}.cond({_code(_bare(cond))}, {t_name}, {f_name}" + "".join(f", {o}" for o in operands) + ")"
    last = cst.parse_statement(f"return {call}\n" if returns else f"{_tuple_of(outs)} = {call}\n")
    mapping = _replace_if(ctx, node, [t_def, f_def, last], removed)
    return Edit(_edit(ctx, mapping, [imp]), "review",
                "the branches became local functions run by `lax.cond`: both are traced, and they must return "
                "the same shapes and dtypes.")


def _code(e: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(e)


def _ends_in_return(stmts: Sequence[cst.BaseStatement]) -> bool:
    sm = _smalls(stmts[-1:]) if stmts else None
    return bool(sm) and isinstance(sm[-1], cst.Return) and sm[-1].value is not None  # type: ignore[index]


# ---------------------------------------------------------------------------------------------- expressions


@rule("traced-ternary")
def traced_ternary(ctx: Context) -> Edit | None:
    """``a if cond else b`` with a traced condition -> ``jnp.where(cond, a, b)``."""
    head = _header(ctx)
    if head is None or head[0] != "stmt":
        return None
    found = [n for n in ctx.nodes(cst.IfExp) if head[2] in ctx.ancestors(n)]
    outer = [n for n in found if not any(isinstance(a, cst.IfExp) for a in ctx.ancestors(n))]
    traced = [n for n in outer if _traced(ctx, n.test) is not False]  # type: ignore[attr-defined]
    if not traced:
        return None
    jnp, imp = _jnp(ctx)
    elementwise = not _scalar_pred(ctx)
    mapping: dict[cst.CSTNode, Any] = {}
    for n in traced:
        new = _ternary(n, jnp, elementwise)  # type: ignore[arg-type]
        if new is None:
            return None
        mapping[n] = new.with_changes(lpar=n.lpar, rpar=n.rpar)  # type: ignore[attr-defined]
    extra = " The condition is element-wise." if elementwise else ""
    return Edit(_edit(ctx, mapping, [imp]), "review", f"the conditional expression became `where`: {_BOTH_BRANCHES}."
                + extra)


def _ternary(n: cst.IfExp, jnp: str, elementwise: bool) -> cst.BaseExpression | None:
    cond = _array_cond(n.test, jnp)
    body: cst.BaseExpression | None = n.body
    orelse: cst.BaseExpression | None = n.orelse
    if isinstance(orelse, cst.IfExp):
        orelse = _ternary(orelse, jnp, elementwise)
    if cond is None or body is None or orelse is None or _const_value(body) or _const_value(orelse):
        return None
    return _call(f"{jnp}.where", cond, body, orelse)


@rule("traced-bool-ops")
def traced_bool_ops(ctx: Context) -> Edit | None:
    """``a and b`` / ``a or b`` / ``not a`` / ``lo < x < hi`` on arrays -> ``jnp.logical_*`` (element-wise)."""
    head = _header(ctx)
    if head is None or head[0] != "stmt":
        return None
    stmt = head[1]
    assert isinstance(stmt, cst.SimpleStatementLine)
    if len(stmt.body) != 1 or not isinstance(stmt.body[0], (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return,
                                                            cst.Expr)):
        return None
    pat = m.BooleanOperation() | m.UnaryOperation(operator=m.Not()) | m.Comparison(comparisons=[m.AtLeastN(n=2)])
    found = [n for n in ctx.nodes(pat) if stmt in ctx.ancestors(n)]
    outer = [n for n in found if not any(a in found for a in ctx.ancestors(n))]
    if not outer or any(isinstance(a, (cst.IfExp, cst.Lambda)) for n in outer for a in ctx.ancestors(n)):
        return None
    jnp, imp = _jnp(ctx)
    mapping: dict[cst.CSTNode, Any] = {}
    for n in outer:
        if _traced(ctx, n) is False:
            continue
        if not _all_boolish(ctx, n):
            return None  # `x or default`: a value, not a truth value
        new = _array_cond(n, jnp)  # type: ignore[arg-type]
        if new is None:
            return None
        mapping[n] = new
    if not mapping:
        return None
    if _scalar_pred(ctx):  # one truth value per call: logical_* gives the very same value
        return Edit(_edit(ctx, mapping, [imp]), "safe",
                    "`and`/`or`/`not` on traced truth values became `jnp.logical_*` (same result; both sides "
                    "are evaluated, which comparisons allow).")
    return Edit(_edit(ctx, mapping, [imp]), "review",
                "`and`/`or`/`not` became element-wise `jnp.logical_*`: check that you meant element by element, "
                "not `.all()`/`.any()`.")


def _all_boolish(ctx: Context, n: cst.CSTNode) -> bool:
    if isinstance(n, cst.BooleanOperation):
        return _all_boolish(ctx, n.left) and _all_boolish(ctx, n.right)
    if isinstance(n, cst.UnaryOperation) and isinstance(n.operator, cst.Not):
        return _boolish(ctx, n.expression) or _all_boolish(ctx, n.expression)
    return _boolish(ctx, n)  # type: ignore[arg-type]


@rule("traced-min-max")
def traced_min_max(ctx: Context) -> Edit | None:
    """Python ``min(a, b)``/``max(a, b)`` on traced values -> ``jnp.minimum``/``jnp.maximum``."""
    head = _header(ctx)
    if head is None or head[0] != "stmt":
        return None
    stmt = head[1]
    calls = [n for n in ctx.nodes(m.Call(func=m.Name("min") | m.Name("max"))) if stmt in ctx.ancestors(n)]
    if not calls:
        return None
    for name in ("min", "max"):
        if _lookup(ctx, name) is not getattr(builtins, name):
            return None
    jnp, imp = _jnp(ctx)
    mapping: dict[cst.CSTNode, Any] = {}
    for c in calls:
        assert isinstance(c, cst.Call)
        if len(c.args) != 2 or any(a.keyword is not None or a.star for a in c.args) or not _flows_to_math(ctx, c):
            return None  # a size or a bound for Python (`range(min(n, k))`) must stay a Python number
        fn = "minimum" if c.func.value == "min" else "maximum"  # type: ignore[attr-defined]
        mapping[c] = lambda upd, fn=fn: upd.with_changes(func=_expr(f"{jnp}.{fn}"))
    return Edit(_edit(ctx, mapping, [imp]), "review",
                "Python `min`/`max` became element-wise `jnp.minimum`/`jnp.maximum` (they return an array; "
                "a NaN input gives NaN).")


# ---------------------------------------------------------------------------------------------- loops


@rule("traced-while")
def traced_while(ctx: Context) -> Edit | None:
    """``while <traced>:`` whose body only rebinds names -> ``lax.while_loop`` over those names."""
    head = _header(ctx)
    if head is None or head[0] != "while":
        return None
    node = head[1]
    assert isinstance(node, cst.While)
    fn = _function(ctx, node)
    if node.orelse is not None or fn is None or not _scalar_pred(ctx):
        return None
    smalls = _smalls(_stmts(node.body))
    if not smalls:
        return None
    got = _carry(ctx, node, smalls)
    if got is None or not got[0]:
        return None
    carry, temps = got
    end = ctx.span(node)[1]
    if any(t in _loads(node.test) or _reads_after(ctx, fn, t, end) for t in temps):
        return None
    lax, imp = _lax(ctx)
    jnp, imp2 = _jnp(ctx)
    test = _array_cond(node.test, jnp)
    if test is None:
        return None
    state = _free_name(ctx, "state") if len(carry) > 1 else carry[0]
    unpack = [cst.parse_statement(f"{_tuple_of(carry)} = {state}\n")] if len(carry) > 1 else []
    cname, bname = _free_name(ctx, "cond_fun"), _free_name(ctx, "body_fun")
    cond_def = _def(cname, [state], [*unpack], _code(_bare(test)))
    body_def = _def(bname, [state], [*unpack, *_stmts(node.body)], _tuple_of(carry))
    init = carry[0] if len(carry) == 1 else f"({_tuple_of(carry)})"
    last = cst.parse_statement(f"{_tuple_of(carry)} = {lax}.while_loop({cname}, {bname}, {init})\n")
    cond_def = cond_def.with_changes(leading_lines=node.leading_lines)
    used_jnp = imp2 if _has_bool_syntax(node.test) else None
    names = ", ".join(f"`{c}`" for c in carry)
    return Edit(_edit(ctx, {node: cst.FlattenSentinel([cond_def, body_def, last])}, [imp, used_jnp]), "review",
                f"the `while` became `lax.while_loop` carrying {names}: each must keep its shape and dtype "
                "through the loop, and reverse-mode `grad` cannot go through it.")


@rule("traced-for-range")
def traced_for_range(ctx: Context) -> Edit | None:
    """``for i in range(<traced>):`` whose body only rebinds names -> ``lax.fori_loop``."""
    head = _header(ctx)
    if head is None or head[0] != "for":
        return None
    node = head[1]
    assert isinstance(node, cst.For)
    fn = _function(ctx, node)
    it = node.iter
    if (node.orelse is not None or fn is None or not isinstance(node.target, cst.Name)
            or not m.matches(it, m.Call(func=m.Name("range"))) or _lookup(ctx, "range") is not range):
        return None
    assert isinstance(it, cst.Call)
    if not 1 <= len(it.args) <= 2 or any(a.keyword or a.star for a in it.args):
        return None
    lo, hi = (("0", _code(it.args[0].value)) if len(it.args) == 1
              else (_code(it.args[0].value), _code(it.args[1].value)))
    smalls = _smalls(_stmts(node.body))
    if not smalls:
        return None
    var = node.target.value
    got = _carry(ctx, node, smalls, exclude=[var])
    if got is None or not got[0]:
        return None
    carry, temps = got
    end = ctx.span(node)[1]
    if any(_reads_after(ctx, fn, t, end) for t in [*temps, var]):
        return None
    lax, imp = _lax(ctx)
    state = _free_name(ctx, "state") if len(carry) > 1 else carry[0]
    unpack = [cst.parse_statement(f"{_tuple_of(carry)} = {state}\n")] if len(carry) > 1 else []
    bname = _free_name(ctx, "body_fun")
    body_def = _def(bname, [var, state], [*unpack, *_stmts(node.body)], _tuple_of(carry))
    body_def = body_def.with_changes(leading_lines=node.leading_lines)
    init = carry[0] if len(carry) == 1 else f"({_tuple_of(carry)})"
    last = cst.parse_statement(f"{_tuple_of(carry)} = {lax}.fori_loop({lo}, {hi}, {bname}, {init})\n")
    names = ", ".join(f"`{c}`" for c in carry)
    return Edit(_edit(ctx, {node: cst.FlattenSentinel([body_def, last])}, [imp]), "review",
                f"the loop became `lax.fori_loop` carrying {names}: each must keep its shape and dtype "
                "through the loop, and reverse-mode `grad` cannot go through a traced trip count.")


# ---------------------------------------------------------------------------------------------- static arguments


def _jit_site(ctx: Context, fn: cst.FunctionDef) -> cst.CSTNode | None:
    """The decorator or the ``jax.jit(fn, ...)`` call that jits ``fn`` in this cell (None when not exactly one)."""
    sites: list[cst.CSTNode] = []
    for dec in fn.decorators:
        d = dec.decorator
        if _resolves(ctx, d, "jax.jit"):
            sites.append(dec)
        elif isinstance(d, cst.Call) and d.args and _resolves(ctx, d.func, "functools.partial") and _resolves(
                ctx, d.args[0].value, "jax.jit"):
            sites.append(dec)
        elif isinstance(d, cst.Call) and _resolves(ctx, d.func, "jax.jit"):
            return None  # jax.jit(...) as a decorator factory: leave it alone
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if (_resolves(ctx, call.func, "jax.jit") and call.args and m.matches(call.args[0].value, m.Name(fn.name.value))
                and call.args[0].keyword is None):
            sites.append(call)
    return sites[0] if len(sites) == 1 else None


def _with_static(ctx: Context, call: cst.Call, name: str, index: int | None) -> cst.Call | None:
    """``call`` with parameter ``name`` (at position ``index``) made static.

    With ``static_argnums`` alone the position joins it; with ``static_argnames`` alone the name joins
    it; with both, both (jit then stops mapping one onto the other); with neither, a new
    ``static_argnames``.
    """
    args = list(call.args)
    kws = {a.keyword.value: i for i, a in enumerate(args) if a.keyword is not None}
    if "static_argnums" in kws and (index is None and "static_argnames" not in kws):
        return None
    changed = False
    for key, item in (("static_argnums", cst.Integer(str(index))), ("static_argnames", cst.SimpleString(f'"{name}"'))):
        if key not in kws or (key == "static_argnums" and index is None):
            continue
        a = args[kws[key]]
        v = a.value
        kind = cst.Integer if key == "static_argnums" else cst.SimpleString
        if isinstance(v, kind):
            v = cst.Tuple([cst.Element(v), cst.Element(item)])
        elif isinstance(v, (cst.Tuple, cst.List)) and all(isinstance(e.value, kind) for e in v.elements):
            els = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) for e in v.elements]
            v = v.with_changes(elements=[*els, cst.Element(item)])
        else:
            return None
        args[kws[key]] = a.with_changes(value=v)
        changed = True
    if changed:
        return call.with_changes(args=args)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    kw = cst.Arg(value=_expr(f'("{name}",)'), keyword=cst.Name("static_argnames"),
                 equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                       whitespace_after=cst.SimpleWhitespace("")))
    return call.with_changes(args=[*args, kw])


def _static_candidates(ctx: Context, fn: cst.FunctionDef, region: cst.CSTNode) -> list[str]:
    """Parameters of ``fn`` read in ``region`` that are jit tracers of a scalar integer or boolean."""
    params = _params(fn)
    out = []
    for name in dict.fromkeys(_loads(region)):
        if name not in params or ctx.locals is None or name not in ctx.locals:
            continue
        v = ctx.locals[name]
        if not _is_tracer(v) or "Batch" in type(v).__name__ or "JVP" in type(v).__name__:
            continue
        dtype = str(getattr(v, "dtype", ""))
        if getattr(v, "shape", None) == () and (dtype == "bool" or dtype.startswith(("int", "uint"))):
            out.append(name)
    return out


def _passes_array(ctx: Context, fn: cst.FunctionDef, site: cst.CSTNode, name: str, index: int | None) -> bool:
    """Whether a call in the cell passes an array for ``name`` (a static argument must be hashable)."""
    callees = {fn.name.value}
    if isinstance(site, cst.Call):
        par = ctx.parent(site)
        if isinstance(par, cst.Assign) and len(par.targets) == 1 and isinstance(par.targets[0].target, cst.Name):
            callees.add(par.targets[0].target.value)
    is_method = isinstance(ctx.parent(ctx.parent(fn) or fn), cst.ClassDef)
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        f = call.func
        if isinstance(f, cst.Call):  # jax.jit(fn)(...)
            if not (f.args and _resolves(ctx, f.func, "jax.jit") and m.matches(f.args[0].value,
                                                                            m.Name(fn.name.value))):
                continue
            fname = fn.name.value
        elif isinstance(f, (cst.Attribute, cst.Name)):
            fname = f.attr.value if isinstance(f, cst.Attribute) else f.value
        else:
            continue
        if fname not in callees:
            continue
        pos = None if index is None else index - (1 if is_method and isinstance(f, cst.Attribute) else 0)
        positional = [a for a in call.args if a.keyword is None]
        arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)
        if arg is None and pos is not None and 0 <= pos < len(positional) and not positional[pos].star:
            arg = positional[pos].value
        if arg is not None and _array_expr(ctx, arg):
            return True
    return False


def _array_expr(ctx: Context, e: cst.BaseExpression) -> bool:
    if _traced(ctx, e) is True:
        return True
    if isinstance(e, cst.Call):
        head = _dotted(e.func).split(".")[0]
        mod = ctx.imports.get(head, "")
        return mod.startswith(("jax", "numpy"))
    return False


@rule("traced-static-arg")
def static_arg(ctx: Context) -> Edit | None:
    """A count or flag parameter of the user's own jitted function used as a Python value -> a static argument."""
    head = _header(ctx)
    if head is None:
        return None
    kind, stmt, region = head
    fn = _function(ctx, stmt) if kind != "stmt" else ctx.function_at_line()
    if fn is None:
        return None
    if kind in ("if", "while"):
        test = region
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if not isinstance(test, cst.Name):
            return None  # a data-dependent condition: where/cond, not static
        region = test
    elif kind == "for":
        if not m.matches(region, m.Call(func=m.Name("range"))):
            return None
    else:
        other = m.IfExp() | m.Call(func=m.Name("min") | m.Name("max"))
        if _has_bool_syntax(region) or any(region in ctx.ancestors(n) for n in ctx.nodes(other)):
            return None  # another rule's construct: not a count or flag
    cands = _static_candidates(ctx, fn, region)
    if len(cands) != 1:
        return None
    name = cands[0]
    positional = [x.name.value for x in (*fn.params.posonly_params, *fn.params.params)]
    index = positional.index(name) if name in positional else None
    site = _jit_site(ctx, fn)
    if site is None or _passes_array(ctx, fn, site, name, index):
        return None
    imports: list[str | None] = []
    if isinstance(site, cst.Decorator):
        d = site.decorator
        if isinstance(d, cst.Call):
            new_call = _with_static(ctx, d, name, index)
            if new_call is None:
                return None
            new: cst.CSTNode = site.with_changes(decorator=new_call)
        else:
            partial, imp = ctx.need("functools.partial", "partial")
            imports.append(imp)
            new_call = _with_static(ctx, cst.Call(func=_expr(partial), args=[cst.Arg(d)]), name, index)
            assert new_call is not None
            new = site.with_changes(decorator=new_call)
    else:
        assert isinstance(site, cst.Call)
        new_call = _with_static(ctx, site, name, index)
        if new_call is None:
            return None
        new = new_call
    dtype = str(getattr(ctx.locals.get(name), "dtype", "")) if ctx.locals else ""
    pytype = "bool" if dtype == "bool" else "int"
    return Edit(_edit(ctx, {site: new}, imports), "review",
                f"`{name}` is now a static argument of `{fn.name.value}`: pass a plain Python {pytype}; "
                "each new value compiles the function again.")


# ---------------------------------------------------------------------------------------------- containers


@rule("traced-list-index")
def traced_list_index(ctx: Context) -> Edit | None:
    """``table[i]`` on a Python list/tuple with a traced ``i`` -> ``jnp.asarray(table)[i]``; ``fns[i](x)`` -> ``lax.switch``."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    found = []
    for sub in ctx.nodes(cst.Subscript):
        assert isinstance(sub, cst.Subscript)
        if region is not sub and region not in ctx.ancestors(sub):
            continue
        seq = _lookup(ctx, _dotted(sub.value))
        if not isinstance(seq, (list, tuple)) or len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            continue
        if _traced(ctx, sub.slice[0].slice.value) is not True:
            continue
        found.append((sub, seq))
    if len(found) != 1:
        return None
    sub, seq = found[0]
    index = sub.slice[0].slice.value  # type: ignore[attr-defined]
    par = ctx.parent(sub)
    if isinstance(par, cst.AssignTarget) or (isinstance(par, (cst.AugAssign, cst.Del))):
        return None
    if seq and all(callable(f) and not _is_array(f) for f in seq):
        if not isinstance(par, cst.Call) or par.func is not sub or any(a.keyword or a.star for a in par.args):
            return None
        lax, imp = _lax(ctx)
        new: cst.BaseExpression = cst.Call(func=_expr(f"{lax}.switch"),
                                           args=[cst.Arg(_bare(index)), cst.Arg(sub.value), *par.args])
        return Edit(_edit(ctx, {par: new}, [imp]), "review",
                    "the function is chosen with `lax.switch`: an out-of-range index picks the first or last "
                    "function instead of raising, and every function must return the same shapes.")
    if not seq or not _uniform(seq):
        return None
    jnp, imp = _jnp(ctx)
    new = sub.with_changes(value=_call(f"{jnp}.asarray", sub.value))
    return Edit(_edit(ctx, {sub: new}, [imp]), "review",
                f"`{ctx.code(sub.value)}` is read as an array so a traced index can select from it: an out-of-range "
                "index is clamped instead of raising.")


def _uniform(seq: Sequence[Any]) -> bool:
    """Numbers only, or arrays of one shape and dtype: what ``jnp.asarray`` stacks into one array."""
    if all(isinstance(v, (int, float, bool)) for v in seq):
        return True
    if all(_is_array(v) for v in seq):
        return len({(tuple(v.shape), str(v.dtype)) for v in seq}) == 1
    return False


# ---------------------------------------------------------------------------------------------- scalar conversions


@rule("traced-scalar-conversion")
def traced_scalar_conversion(ctx: Context) -> Edit | None:
    """``float(x)``/``int(x)`` of a traced value that only feeds array math -> the array (cast with ``astype``)."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    wanted = ctx.values.get("function") or ""
    kinds = ("float", "int") if wanted not in ("float", "int") else (wanted,)
    calls = []
    for c in ctx.nodes(m.Call(func=m.Name("float") | m.Name("int"))):
        assert isinstance(c, cst.Call)
        if region is not c and region not in ctx.ancestors(c):
            continue
        if c.func.value not in kinds or len(c.args) != 1 or c.args[0].keyword or c.args[0].star:  # type: ignore
            continue
        if _lookup(ctx, c.func.value) is not getattr(builtins, c.func.value):  # type: ignore[attr-defined]
            return None
        if _traced(ctx, c.args[0].value) is not True:
            continue
        calls.append(c)
    if not calls:
        return None
    mapping: dict[cst.CSTNode, Any] = {}
    for c in calls:
        if not _flows_to_math(ctx, c):
            return None
        fname = c.func.value  # type: ignore[attr-defined]
        arg = c.args[0].value
        dtype = _dtype_of(ctx, arg, len(calls) == 1)
        same = (fname == "float" and dtype.startswith(("float", "bfloat"))) or (
            fname == "int" and dtype.startswith(("int", "uint")))
        if same:
            par = ctx.parent(c)
            new = _paren(arg) if isinstance(par, (cst.BinaryOperation, cst.UnaryOperation)) else _bare(arg)
        else:
            new = cst.Call(func=cst.Attribute(value=_paren(arg), attr=cst.Name("astype")),
                           args=[cst.Arg(cst.Name(fname))])
        mapping[c] = new
    names = " / ".join(sorted({f"`{c.func.value}()`" for c in calls}))  # type: ignore[attr-defined]
    return Edit(_edit(ctx, mapping, []), "review",
                f"{names} on a traced value became array code (`astype` where the dtype changes): the result "
                "is a 0-d array, not a Python number; convert it after the transformed call if you need one.")


def _dtype_of(ctx: Context, e: cst.BaseExpression, only: bool) -> str:
    """The dtype of ``e``: from the failing frame when it is a name, else from the message's aval when
    ``e`` is the only value converted on the line; '' when unknown."""
    v = _lookup(ctx, _dotted(e))
    if v is not _MISSING and _is_array(v):
        return str(v.dtype)
    aval = ctx.values.get("aval", "")
    if only and " shape " in aval:
        return aval.rsplit(" ", 1)[-1].split("[")[0]
    return ""


@rule("drop-item")
def drop_item(ctx: Context) -> Edit | None:
    """``x.item()`` inside a transformed function whose result only feeds array math or a return -> ``x``."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    calls = [c for c in ctx.nodes(m.Call(func=m.Attribute(attr=m.Name("item")), args=[]))
             if region is c or region in ctx.ancestors(c)]
    if not calls:
        return None
    mapping: dict[cst.CSTNode, Any] = {}
    for c in calls:
        assert isinstance(c, cst.Call)
        if not _flows_to_math(ctx, c):
            return None
        base = c.func.value  # type: ignore[attr-defined]
        if c.lpar:  # `((a + b).item())` keeps the outer parentheses; the base keeps its own
            base = base.with_changes(lpar=[*c.lpar, *base.lpar], rpar=[*base.rpar, *c.rpar])
        mapping[c] = base
    return Edit(_edit(ctx, mapping, []), "review",
                "`.item()` was dropped: the value stays a 0-d array inside the transformed function; call "
                "`.item()` on the result after the call if you need a Python number.")


_TOLIST_REDUCE = {"sum": "sum", "max": "max", "min": "min", "sorted": "sort"}


@rule("drop-tolist")
def drop_tolist(ctx: Context) -> Edit | None:
    """``x.tolist()`` inside a transformed function -> ``x`` (iterated, returned) or ``jnp.sum/max/min/sort(x)``."""
    head = _header(ctx)
    if head is None:
        return None
    region = head[2]
    calls = [c for c in ctx.nodes(m.Call(func=m.Attribute(attr=m.Name("tolist")), args=[]))
             if region is c or region in ctx.ancestors(c)]
    if len(calls) != 1:
        return None
    c = calls[0]
    assert isinstance(c, cst.Call)
    base = c.func.value  # type: ignore[attr-defined]
    par = ctx.parent(c)
    imports: list[str | None] = []
    if isinstance(par, cst.For) and par.iter is c:
        target: cst.CSTNode = c
        new: cst.BaseExpression = base
        what = "the loop now runs over the array's rows (unrolled while tracing)"
    elif isinstance(par, cst.Return) or (isinstance(par, cst.Arg) and m.matches(ctx.parent(par), m.Call(
            func=m.Name("zip") | m.Name("enumerate")))):
        target, new = c, base
        what = "the value stays an array; call `.tolist()` on the result after the call if you need a list"
    elif isinstance(par, cst.Arg) and par.keyword is None and isinstance(ctx.parent(par), cst.Call):
        outer = ctx.parent(par)
        assert isinstance(outer, cst.Call)
        fname = outer.func.value if isinstance(outer.func, cst.Name) else ""
        if fname not in _TOLIST_REDUCE or len(outer.args) != 1 or _lookup(ctx, fname) is not getattr(builtins, fname):
            return None
        if not re.search(r"\[\d+\]$", ctx.values.get("shape", "")):
            return None  # of a list of rows, sum/max/min/sorted are not the array's reduction
        jnp, imp = _jnp(ctx)
        imports.append(imp)
        target, new = outer, _call(f"{jnp}.{_TOLIST_REDUCE[fname]}", base)
        what = f"`{fname}(... .tolist())` became `jnp.{_TOLIST_REDUCE[fname]}`, which works on traced arrays"
    else:
        return None
    return Edit(_edit(ctx, {target: new}, imports), "review", f"`.tolist()` was dropped: {what}.")
