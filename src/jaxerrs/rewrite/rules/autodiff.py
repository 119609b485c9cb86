"""Autodiff and custom derivatives: grad of non-scalars, integer inputs, ``has_aux``, loops, custom rules.

Every rule finds the differentiated function or the custom rule in the user's own cell and edits
it as little as possible. A rule returns None whenever the intent is not plain from the code: the
gradient transform is not visible in the cell, the function is defined elsewhere, several
candidates fit, or the loop has no visible bound.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, add_imports, dotted_name
from jaxerrs.rewrite.rules import rule

# ---------------------------------------------------------------------------------------------- names

_GRADS = {"jax.grad": "grad", "jax.value_and_grad": "value_and_grad"}
_JACS = {"jax.jacrev": "jacrev", "jax.jacfwd": "jacfwd", "jax.hessian": "hessian"}
_WRAPPERS = {"jax.jit", "jax.vmap", "jax.pmap", "jax.checkpoint", "jax.remat"}  # keep argument positions
_PUBLIC = ("jax.grad", "jax.value_and_grad", "jax.jacrev", "jax.jacfwd", "jax.hessian", "jax.jit", "jax.vmap",
           "jax.pmap", "jax.checkpoint", "jax.remat", "jax.custom_vjp", "jax.custom_jvp", "jax.lax.while_loop",
           "jax.lax.fori_loop", "jax.lax.scan", "jax.numpy.array", "jax.numpy.asarray", "jax.numpy.arange")

_ELEMENTWISE = {
    f"jax.numpy.{n}" for n in (
        "sin cos tan tanh sinh cosh arcsin arccos arctan arcsinh arccosh arctanh exp expm1 exp2 log log1p "
        "log2 log10 sqrt cbrt square abs absolute fabs sign negative positive reciprocal power float_power "
        "maximum minimum where clip logaddexp sinc deg2rad rad2deg hypot arctan2 divide true_divide multiply "
        "add subtract fmax fmin"
    ).split()
} | {
    f"jax.nn.{n}" for n in (
        "relu relu6 sigmoid softplus soft_sign silu swish gelu elu celu selu leaky_relu log_sigmoid hard_tanh "
        "hard_sigmoid hard_silu hard_swish mish sparse_plus squareplus"
    ).split()
} | {f"jax.scipy.special.{n}" for n in ("erf erfc expit logit gammaln digamma".split())} | {
    f"jax.lax.{n}" for n in ("sin cos tan tanh exp log log1p expm1 logistic sqrt rsqrt abs neg erf".split())
}

_LOSSY = re.compile(r"loss|mse|mae|error|cost|objective|nll|risk", re.IGNORECASE)


def _public_objects() -> dict[int, str]:
    """id(object) -> public dotted name, for JAX functions a previous cell imported by name."""
    jax = sys.modules.get("jax")
    out: dict[int, str] = {}
    if jax is None:
        return out
    for dotted in _PUBLIC:
        obj: Any = jax
        for part in dotted.split(".")[1:]:
            obj = getattr(obj, part, None)
        if obj is not None:
            out[id(obj)] = dotted
    return out


def _resolve(ctx: Context, expr: cst.CSTNode) -> str:
    """The full dotted name an expression stands for: ``jnp.tanh`` -> ``jax.numpy.tanh``, ``grad`` -> ``jax.grad``."""
    d = dotted_name(expr)
    if not d:
        return ""
    head, _, rest = d.partition(".")
    full = ctx.imports.get(head)
    if full is not None:
        return full + ("." + rest if rest else "")
    obj = (ctx.namespace or {}).get(head)
    if obj is not None and not rest:
        if getattr(obj, "__module__", None) == "functools" and getattr(obj, "__name__", "") == "partial":
            return "functools.partial"
        return _public_objects().get(id(obj), "")
    return ""


def _prepare(ctx: Context) -> Context:
    """Recover the notebook namespace when the engine took it from one of JAX's synthetic frames.

    Errors raised while transforming an already-traced function (transpose, lowering) carry a
    ``JaxStackTraceBeforeTransformation`` cause whose traceback has stand-in frames: right file and
    line, but empty globals and locals. The real frames of the same cell (the call site) still hold
    the namespace; the failing function's locals are gone.
    """
    if ctx.namespace or ctx.exc is None:
        return ctx
    files: set[str] = set()
    chain = [e for e in (ctx.exc, ctx.exc.__cause__, ctx.exc.__context__) if e is not None]
    for e in chain:
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_lineno == ctx.line and not tb.tb_frame.f_globals:
                files.add(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
    found = None
    for e in chain:
        tb = e.__traceback__
        while tb is not None:
            f = tb.tb_frame
            if f.f_code.co_filename in files and f.f_globals:
                found = f.f_globals
            tb = tb.tb_next
        if found is not None:
            break
    if found is not None:
        ctx.namespace, ctx.locals = found, None
        ctx.__dict__.pop("imports", None)  # computed from the empty namespace: recompute
    return ctx


def _rule(name: str) -> Callable[[Callable[[Context], Edit | None]], Callable[[Context], Edit | None]]:
    """``rule`` with the namespace recovered first (see :func:`_prepare`)."""

    def register(fn: Callable[[Context], Edit | None]) -> Callable[[Context], Edit | None]:
        @functools.wraps(fn)
        def run(ctx: Context) -> Edit | None:
            return fn(_prepare(ctx))

        rule(name)(run)
        return fn

    return register


def _kw(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _positional(call: cst.Call) -> list[cst.Arg] | None:
    """The positional arguments, or None when a ``*args`` makes positions unknowable."""
    out = []
    for a in call.args:
        if a.star:
            return None
        if a.keyword is None:
            out.append(a)
    return out


def _is_true(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def _int(expr: cst.BaseExpression | None) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        v = _int(expr.expression)
        return -v if v is not None else None
    return None


def _argnums(call: cst.Call) -> tuple[int, ...] | None:
    arg = _kw(call, "argnums")
    if arg is None:
        pos = _positional(call)
        if pos is not None and len(pos) > 1:
            arg = pos[1]
        else:
            return (0,)
    v = _int(arg.value)
    if v is not None:
        return (v,)
    if isinstance(arg.value, (cst.Tuple, cst.List)):
        vals = [_int(e.value) for e in arg.value.elements]
        if all(x is not None for x in vals):
            return tuple(x for x in vals if x is not None)
    return None


def _assigns(ctx: Context, name: str) -> list[cst.Assign]:
    return [a for a in ctx.nodes(cst.Assign) if len(a.targets) == 1  # type: ignore[attr-defined]
            and m.matches(a.targets[0].target, m.Name(name))]  # type: ignore[attr-defined]


def _single_assign(ctx: Context, name: str) -> cst.Assign | None:
    """The one ``name = value`` of the cell, when the name is bound exactly once (and not by a def)."""
    found = _assigns(ctx, name)
    if len(found) != 1 or any(f.name.value == name for f in ctx.nodes(cst.FunctionDef)):  # type: ignore[attr-defined]
        return None
    return found[0]


def _value_of(ctx: Context, name: str) -> Any:
    """What ``name`` holds in the failing frame (locals first, then the notebook namespace); ``_MISSING`` if unknown."""
    for scope in (ctx.locals, ctx.namespace):
        if scope is not None and name in scope:
            return scope[name]
    return _MISSING


_MISSING = object()


def _fn_params(fn: cst.FunctionDef | cst.Lambda) -> list[str] | None:
    """Names of the plain positional parameters, or None for ``*args``/``**kw``/keyword-only ones."""
    p = fn.params
    if not isinstance(p.star_arg, cst.MaybeSentinel) or p.star_kwarg is not None or p.kwonly_params:
        return None
    return [x.name.value for x in (*p.posonly_params, *p.params)]


class _ReturnFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Return] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested function's returns are its own

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def _returns(fn: cst.FunctionDef | cst.Lambda) -> list[cst.CSTNode] | None:
    """The returned expressions' holders: Return nodes of a def (all with a value) or the lambda itself."""
    if isinstance(fn, cst.Lambda):
        return [fn]
    finder = _ReturnFinder()
    fn.body.visit(finder)
    if not finder.found or any(r.value is None for r in finder.found):
        return None
    return list(finder.found)


def _ret_value(holder: cst.CSTNode) -> cst.BaseExpression:
    return holder.body if isinstance(holder, cst.Lambda) else holder.value  # type: ignore[attr-defined,return-value]


def _with_value(holder: cst.CSTNode, value: cst.BaseExpression) -> cst.CSTNode:
    return holder.with_changes(body=value) if isinstance(holder, cst.Lambda) else holder.with_changes(value=value)


def _target_fn(ctx: Context, expr: cst.BaseExpression) -> tuple[cst.FunctionDef | cst.Lambda | None, str]:
    """The definition in the cell of the function an expression names (a def, a named lambda, ``self.method``)."""
    if isinstance(expr, cst.Lambda):
        return expr, ""
    name = ""
    if isinstance(expr, cst.Name):
        name = expr.value
    elif isinstance(expr, cst.Attribute) and m.matches(expr.value, m.Name("self") | m.Name("cls")):
        name = expr.attr.value
    if not name:
        return None, dotted_name(expr)
    fd = ctx.function_named(name)
    if fd is not None:
        return fd, name
    if isinstance(expr, cst.Name):
        a = _single_assign(ctx, name)
        if a is not None and isinstance(a.value, cst.Lambda):
            return a.value, name
    return None, name


def _paren(e: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)) or e.lpar:
        return e
    return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _bare(e: cst.BaseExpression) -> cst.BaseExpression:
    """The expression without its outer parentheses (for use as a call argument)."""
    return e.with_changes(lpar=[], rpar=[]) if getattr(e, "lpar", None) else e


def _tuple(items: list[cst.BaseExpression], parens: bool = True) -> cst.Tuple:
    els = [cst.Element(_unparen_tuple(x) if isinstance(x, cst.Tuple) else _bare(x)) for x in items]
    if len(els) == 1:
        els = [els[0].with_changes(comma=cst.Comma())]
    return cst.Tuple(els) if parens else cst.Tuple(els, lpar=[], rpar=[])


def _name_in_use(ctx: Context, name: str, outside: cst.CSTNode | None = None) -> bool:
    """Whether ``name`` is used in the cell (outside ``outside``) or bound in the namespace."""
    if ctx.namespace and name in ctx.namespace:
        return True
    for n in ctx.nodes(m.Name(value=name)):
        if outside is None or outside not in ctx.ancestors(n):
            return True
    return False


def _edit(ctx: Context, pairs: list[tuple[cst.CSTNode, cst.CSTNode]],
          before: dict[cst.CSTNode, list[cst.BaseStatement]] | None = None,
          after: dict[cst.CSTNode, list[cst.BaseStatement]] | None = None,
          imports: list[str | None] | None = None) -> str:
    """The cell with nodes replaced and statements inserted before/after given statements (same block)."""
    assert ctx.module is not None
    mapping = dict(pairs)
    inserts: dict[cst.CSTNode, list[tuple[int, list[cst.BaseStatement]]]] = {}
    for where, shift in ((before or {}, 0), (after or {}, 1)):
        for stmt, new in where.items():
            block = ctx.parent(stmt)
            if block is None or not isinstance(block, (cst.Module, cst.IndentedBlock)):
                raise ValueError("statement outside a block")
            inserts.setdefault(block, []).append((list(block.body).index(stmt) + shift, new))

    class _T(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Any:
            out = mapping.get(original, updated)
            if original in inserts:
                body = list(out.body)  # type: ignore[attr-defined]
                for at, new in sorted(inserts[original], key=lambda t: -t[0]):
                    body[at:at] = new
                out = out.with_changes(body=body)
            return out

    module = ctx.module.visit(_T())
    assert isinstance(module, cst.Module)
    return add_imports(module, [i for i in (imports or []) if i]).code


def _ref(ctx: Context, dotted: str) -> tuple[cst.BaseExpression, str | None]:
    """An expression naming ``dotted`` ("jax.vmap", "jax.numpy.mean") and the import it needs, if any."""
    have = ctx.ref(dotted)
    if have is not None:
        return cst.parse_expression(have), None
    mod, _, attr = dotted.rpartition(".")
    if dotted == "functools.partial":
        expr, stmt = ctx.need(dotted, "partial")
        return cst.parse_expression(expr), stmt
    alias = {"jax.numpy": "jnp", "jax.lax": "lax"}.get(mod, mod.split(".")[-1])
    if mod == "jax":
        expr, stmt = ctx.need("jax", "jax")
    else:
        expr, stmt = ctx.need(mod, alias)
    return cst.parse_expression(f"{expr}.{attr}"), stmt


# ---------------------------------------------------------------------------------------------- grad calls


@dataclass
class _GradUse:
    kind: str  # "grad" | "value_and_grad" | "jacrev" ...
    make: cst.Call  # jax.grad(f, ...)
    apply: cst.Call  # the call on the failing line that runs the gradient function
    via: cst.Assign | None  # `name = <expr holding make>` when the gradient function is named first
    wrappers: list[str]


def _as_apply(ctx: Context, call: cst.Call, kinds: dict[str, str]) -> _GradUse | None:
    func: cst.BaseExpression = call.func
    via = None
    if isinstance(func, cst.Name):
        via = _single_assign(ctx, func.value)
        if via is None:
            return None
        func = via.value
    wrappers: list[str] = []
    while isinstance(func, cst.Call):
        name = _resolve(ctx, func.func)
        if name in kinds:
            return _GradUse(kinds[name], func, call, via, wrappers)
        pos = _positional(func)
        if name in _WRAPPERS and pos:
            wrappers.append(name)
            func = pos[0].value
            continue
        return None
    return None


def _grad_use(ctx: Context, kinds: dict[str, str] | None = None) -> _GradUse | None:
    """The single application of a ``jax.grad``-made function on the failing line."""
    kinds = kinds or _GRADS
    found = [u for c in ctx.at_line(cst.Call) if (u := _as_apply(ctx, c, kinds)) is not None]  # type: ignore[arg-type]
    if not found:
        return None
    inner = found[0]
    if any(u.make is not inner.make for u in found[1:]):
        return None
    if inner.via is not None and _applications(ctx, inner.via) != 1:
        return None  # the named gradient function runs elsewhere too: those call sites would need edits
    return inner


def _applications(ctx: Context, via: cst.Assign) -> int:
    name = via.targets[0].target.value  # type: ignore[attr-defined]
    return sum(1 for c in ctx.nodes(cst.Call) if m.matches(c.func, m.Name(name)))  # type: ignore[attr-defined]


def _stmt_of(ctx: Context, node: cst.CSTNode) -> cst.CSTNode | None:
    """The small statement holding ``node`` directly: ``x = <node>``, ``<node>``, ``return <node>``."""
    p = ctx.parent(node)
    if isinstance(p, (cst.Assign, cst.Expr, cst.Return)) and p.value is node:
        return p
    return None


def _shape(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    nums = re.findall(r"\d+", text)
    if not re.fullmatch(r"\s*\(\s*(\d+\s*,\s*)*(\d+\s*,?\s*)?\)\s*\.?\s*", text):
        return None
    return tuple(int(n) for n in nums)


# ---------------------------------------------------------------------------------------------- grad of non-scalar


def _elementwise_expr(ctx: Context, e: cst.BaseExpression, local: set[str]) -> bool:
    if isinstance(e, (cst.Integer, cst.Float)):
        return True
    if isinstance(e, cst.Name):
        if e.value in local:
            return True
        v = _value_of(ctx, e.value)
        return isinstance(v, (int, float)) and not isinstance(v, bool) or getattr(v, "shape", None) == ()
    if isinstance(e, cst.UnaryOperation):
        return _elementwise_expr(ctx, e.expression, local)
    if isinstance(e, cst.BinaryOperation):
        return not isinstance(e.operator, cst.MatrixMultiply) and _elementwise_expr(ctx, e.left, local) \
            and _elementwise_expr(ctx, e.right, local)
    if isinstance(e, cst.Comparison):
        return _elementwise_expr(ctx, e.left, local) and all(
            _elementwise_expr(ctx, c.comparator, local) for c in e.comparisons)
    if isinstance(e, cst.Call):
        if _resolve(ctx, e.func) not in _ELEMENTWISE:
            return False
        return all(a.keyword is None and not a.star and _elementwise_expr(ctx, a.value, local) for a in e.args)
    return False


def _elementwise(ctx: Context, fn_expr: cst.BaseExpression, fn: cst.FunctionDef | cst.Lambda | None) -> bool:
    """Whether the function maps each element on its own (so vmap(grad(f)) gives each element's derivative)."""
    if fn is None:
        return _resolve(ctx, fn_expr) in _ELEMENTWISE
    params = _fn_params(fn)
    if params is None or len(params) != 1:
        return False
    local = set(params)
    if isinstance(fn, cst.Lambda):
        return _elementwise_expr(ctx, fn.body, local)
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return False
        small = stmt.body[0]
        if i == 0 and m.matches(small, m.Expr(m.SimpleString())):
            continue
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            if not _elementwise_expr(ctx, small.value, local):
                return False
            local.add(small.targets[0].target.value)
        elif isinstance(small, cst.Return) and small.value is not None and i == len(body) - 1:
            return _elementwise_expr(ctx, small.value, local)
        else:
            return False
    return False


def _reduce_returns(ctx: Context, fn: cst.FunctionDef | cst.Lambda, has_aux: bool, how: str
                    ) -> tuple[list[tuple[cst.CSTNode, cst.CSTNode]], str | None] | None:
    """Wrap every returned value (the first item with has_aux) in ``jnp.<how>(...)``."""
    holders = _returns(fn)
    if holders is None:
        return None
    func, imp = _ref(ctx, f"jax.numpy.{how}")
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for h in holders:
        value = _ret_value(h)
        if has_aux:
            if not isinstance(value, cst.Tuple) or len(value.elements) != 2:
                return None
            first = value.elements[0]
            if isinstance(first, cst.StarredElement):
                return None
            new_first = first.with_changes(value=cst.Call(func, [cst.Arg(_bare(first.value))]))
            new: cst.BaseExpression = value.with_changes(elements=[new_first, value.elements[1]])
        else:
            if isinstance(value, (cst.Tuple, cst.List, cst.Dict)):
                return None
            new = cst.Call(func, [cst.Arg(_bare(value))])
        pairs.append((h, _with_value(h, new)))
    return pairs, imp


@_rule("grad-non-scalar")
def grad_non_scalar(ctx: Context) -> Edit | None:
    """A loss missing its reduction gets ``jnp.mean``; an elementwise function vmap(grad); others jacrev."""
    use = _grad_use(ctx)
    shape = _shape(ctx.values.get("shape"))
    if use is None or not shape:
        return None
    fn_arg = _positional(use.make)
    if not fn_arg:
        return None
    fn, name = _target_fn(ctx, fn_arg[0].value)
    has_aux = _is_true(getattr(_kw(use.make, "has_aux"), "value", None))
    size = 1
    for d in shape:
        size *= d
    if fn is not None and (_LOSSY.search(name) or size == 1):
        how = "mean" if _LOSSY.search(name) else "squeeze"
        done = _reduce_returns(ctx, fn, has_aux, how)
        if done is None:
            return None
        pairs, imp = done
        label = f"`{name}`" if name else "the function"
        if how == "mean":
            summary = (f"{label} now returns the mean of its per-element values (shape {shape}): check that a mean, "
                       "not a sum, is the loss you meant (it sets the gradient's scale).")
        else:
            summary = f"{label} now returns its single value as a 0-d array instead of shape {shape}; value unchanged."
        return Edit(_edit(ctx, pairs, imports=[imp]), "review", summary)
    if _LOSSY.search(name):
        return None  # a loss defined elsewhere: its return is not in this cell
    if use.wrappers or use.kind not in ("grad", "value_and_grad"):
        return None
    if len(shape) == 1 and _elementwise(ctx, fn_arg[0].value, fn) and not has_aux:
        pos = _positional(use.apply)
        if pos is None or len(pos) != 1 or len(use.apply.args) != 1 or _kw(use.make, "argnums"):
            return None
        vmap, imp = _ref(ctx, "jax.vmap")
        new_apply = use.apply.with_changes(func=cst.Call(vmap, [cst.Arg(use.apply.func)]))
        return Edit(_edit(ctx, [(use.apply, new_apply)], imports=[imp]), "review",
                    f"the {use.kind} now runs per element (jax.vmap): each entry's own derivative, for an "
                    "elementwise function; use jax.jacrev if outputs depend on several inputs.")
    if use.kind != "grad" or _stmt_of(ctx, use.apply) is None:
        return None
    jac, imp = _ref(ctx, "jax.jacrev")
    new_make = use.make.with_changes(func=jac)
    return Edit(_edit(ctx, [(use.make, new_make)], imports=[imp]), "review",
                f"jax.grad -> jax.jacrev: the result is the full Jacobian (output shape {shape} + input shape), "
                "not a gradient shaped like the input; if you meant a loss, reduce it to a scalar instead.")


# ---------------------------------------------------------------------------------------------- integer inputs


def _kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(value=value, keyword=cst.Name(name), equal=eq)


def _add_arg(call: cst.Call, arg: cst.Arg) -> cst.Call:
    args = list(call.args)
    if args and isinstance(args[-1].comma, cst.Comma) and not args[-1].comma.whitespace_after.empty:
        # a trailing comma on its own line: keep the layout, the new argument goes after it
        return call.with_changes(args=[*args, arg.with_changes(comma=args[-1].comma)])
    if args and isinstance(args[-1].comma, cst.Comma):
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*args, arg])


def _drop_arg(call: cst.Call, arg: cst.Arg) -> cst.Call:
    args = [a for a in call.args if a is not arg]
    if args and call.args[-1] is arg:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def _float_dtype() -> str:
    jax = sys.modules.get("jax")
    try:
        return "float64" if jax is not None and jax.config.read("jax_enable_x64") else "float32"
    except Exception:  # noqa: BLE001 - an older config API: the default float type
        return "float32"


def _int_literals(e: cst.BaseExpression) -> bool:
    if _int(e) is not None:
        return True
    if isinstance(e, (cst.List, cst.Tuple)) and e.elements:
        return all(not isinstance(x, cst.StarredElement) and _int_literals(x.value) for x in e.elements)
    return False


def _is_int_value(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    dtype = getattr(v, "dtype", None)
    kind = getattr(dtype, "kind", "")
    return kind in ("i", "u") and hasattr(v, "shape")


def _floatify(ctx: Context, e: cst.BaseExpression) -> tuple[cst.BaseExpression, str | None, str] | None:
    """A float version of an integer argument with the same values: (expression, import, how it changed)."""
    v = _int(e)
    if v is not None:
        lit = f"{abs(v)}.0"
        new: cst.BaseExpression = cst.Float(lit)
        if v < 0:
            new = cst.UnaryOperation(cst.Minus(), new)
        return new.with_changes(lpar=e.lpar, rpar=e.rpar), None, f"`{v}` -> `{v}.0`"
    dtype = _float_dtype()
    if isinstance(e, cst.Call):
        name = _resolve(ctx, e.func)
        pos = _positional(e)
        if name not in ("jax.numpy.array", "jax.numpy.asarray", "jax.numpy.arange") or pos is None or not pos:
            return None
        if _kw(e, "dtype") is not None or (name != "jax.numpy.arange" and len(pos) > 1):
            return None
        if name == "jax.numpy.arange":
            if any(isinstance(a.value, cst.Float) for a in pos) or len(pos) > 3:
                return None
        elif not _int_literals(pos[0].value):
            return None
        dt, imp = _ref(ctx, f"jax.numpy.{dtype}")
        return _add_arg(e, _kwarg("dtype", dt)), imp, f"`{name.rsplit('.', 1)[1]}` now builds {dtype} values"
    if isinstance(e, cst.Name):
        val = _value_of(ctx, e.value)
        if val is _MISSING or not _is_int_value(val):
            return None
        if isinstance(val, int):
            return cst.Call(cst.Name("float"), [cst.Arg(e)]), None, f"`{e.value}` is passed as a float"
        dt, imp = _ref(ctx, f"jax.numpy.{dtype}")
        new = cst.Call(cst.Attribute(e, cst.Name("astype")), [cst.Arg(dt)])
        return new, imp, f"`{e.value}` is passed as {dtype}"
    return None


_PARAMS_NAME = re.compile(r"^(params|parameters|weights|w|theta|p|model_params|variables|coeffs?)$|param")


def _float_tree(v: Any) -> bool:
    jax = sys.modules.get("jax")
    if jax is None or v is _MISSING:
        return False
    leaves = jax.tree_util.tree_leaves(v)
    return bool(leaves) and all(getattr(getattr(x, "dtype", None), "kind", "") in ("f", "c") for x in leaves)


@_rule("grad-float-input")
def grad_float_input(ctx: Context) -> Edit | None:
    """An integer literal or int array at the call site becomes float (same points); argnums on an int arg moves."""
    use = _grad_use(ctx, {**_GRADS, **_JACS})
    if use is None:
        return None
    argnums = _argnums(use.make)
    pos = _positional(use.apply)
    if argnums is None or pos is None or any(i >= len(pos) or i < 0 for i in argnums):
        return None
    moved = _argnums_to_params(ctx, use, argnums, pos)
    if moved is not None:
        return moved
    fn, _ = _target_fn(ctx, (_positional(use.make) or [cst.Arg(cst.Name("_"))])[0].value)
    params = _fn_params(fn) if fn is not None else None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    notes = []
    for i in argnums:
        if fn is not None and (params is None or i >= len(params) or _used_as_int(fn, params[i])):
            return None  # the function needs that argument as an integer (an index, a count)
        done = _floatify(ctx, pos[i].value)
        if done is not None:
            pairs.append((pos[i].value, done[0]))
            imports.append(done[1])
            notes.append(done[2])
    if not pairs:
        return None
    return Edit(_edit(ctx, pairs, imports=imports), "safe",
                "; ".join(notes) + ": the derivative is taken at the same points, now as floats.")


_INT_USES = re.compile(r"(^|\.)(take|take_along_axis|one_hot|arange|range|zeros|ones|full|eye|repeat|tile|"
                       r"dynamic_slice|dynamic_index_in_dim|bincount|segment_sum|fori_loop|PRNGKey|key|fold_in)$")


def _used_as_int(fn: cst.FunctionDef | cst.Lambda, name: str) -> bool:
    """Whether the function uses parameter ``name`` as an integer: an index, a size, a count, a key."""
    body = fn.body
    for sub in m.findall(body, m.Subscript()):
        assert isinstance(sub, cst.Subscript)
        if any(m.findall(el, m.Name(name)) for el in sub.slice):
            return True
    for call in m.findall(body, m.Call()):
        assert isinstance(call, cst.Call)
        if _INT_USES.search(dotted_name(call.func)) and any(m.findall(a, m.Name(name)) for a in call.args):
            return True
    for op in m.findall(body, m.BinaryOperation(operator=m.FloorDivide() | m.Modulo() | m.BitAnd() | m.BitOr()
                                                 | m.BitXor() | m.LeftShift() | m.RightShift())):
        if m.findall(op, m.Name(name)):
            return True
    return False


def _argnums_to_params(ctx: Context, use: _GradUse, argnums: tuple[int, ...], pos: list[cst.Arg]) -> Edit | None:
    """``grad(loss)(tokens, params)`` with integer tokens: differentiate the float ``params`` argument instead."""
    if argnums != (0,) or _kw(use.make, "argnums") is not None or len(_positional(use.make) or []) != 1:
        return None
    fn, name = _target_fn(ctx, use.make.args[0].value)
    params = _fn_params(fn) if fn is not None else None
    if params is None or len(params) < len(pos) or fn is None:
        return None
    first = pos[0].value
    if not (_int(first) is not None or isinstance(first, cst.Name) and _is_int_value(_value_of(ctx, first.value))):
        return None
    floats = [i for i in range(1, len(pos)) if isinstance(pos[i].value, cst.Name)
              and _float_tree(_value_of(ctx, pos[i].value.value))]
    fits = [i for i in floats if _PARAMS_NAME.search(params[i])]
    if not fits and _used_as_int(fn, params[0]):
        fits = floats  # the integer is an index into the function's float data
    if len(fits) != 1:
        return None
    i = fits[0]
    new_make = _add_arg(use.make, _kwarg("argnums", cst.Integer(str(i))))
    return Edit(_edit(ctx, [(use.make, new_make)]), "review",
                f"now differentiates `{name}` with respect to `{params[i]}` (argument {i}) instead of the integer "
                f"`{params[0]}`: check that the gradient's users expect the `{params[i]}` structure.")


# ---------------------------------------------------------------------------------------------- has_aux


def _unparen_tuple(t: cst.BaseExpression) -> cst.BaseExpression:
    """A tuple/list target as a parenthesised element (``a, b`` -> ``(a, b)``)."""
    if isinstance(t, cst.Tuple) and not t.lpar:
        return t.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return t


def _pick_aux(ctx: Context, fn: cst.CSTNode, second: cst.BaseExpression) -> str | None:
    names = [second.value] if isinstance(second, cst.Name) and second.value not in ("self", "_") else []
    for cand in [*names, "aux", "aux_out", "aux_data"]:
        if not _name_in_use(ctx, cand, outside=fn):
            return cand
    return None


@_rule("grad-has-aux")
def grad_has_aux(ctx: Context) -> Edit | None:
    """A function returning ``(loss, aux)``: pass ``has_aux=True`` and unpack the extra output at the call site."""
    use = _grad_use(ctx)
    if use is None or _kw(use.make, "has_aux") is not None:
        return None
    fn_arg = _positional(use.make)
    if not fn_arg:
        return None
    fn, name = _target_fn(ctx, fn_arg[0].value)
    holders = _returns(fn) if fn is not None else None
    if fn is None or holders is None:
        return None
    values = [_ret_value(h) for h in holders]
    if not all(isinstance(v, cst.Tuple) and len(v.elements) == 2
               and not any(isinstance(e, cst.StarredElement) for e in v.elements) for v in values):
        return None
    aux = _pick_aux(ctx, fn, values[0].elements[1].value)  # type: ignore[attr-defined]
    if aux is None:
        return None
    new_make = _add_arg(use.make, _kwarg("has_aux", cst.Name("True")))
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    if use.via is not None:
        pairs.append((use.make, new_make))
        new_apply: cst.BaseExpression = use.apply
    else:
        new_apply = use.apply.deep_replace(use.make, new_make)  # type: ignore[assignment]
    stmt = _stmt_of(ctx, use.apply)
    label = f"`{name}`" if name else "the function"
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0].target
        if use.kind == "grad":
            new_target: cst.BaseExpression = _tuple([_unparen_tuple(target), cst.Name(aux)], parens=False)
        elif isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 and not any(
                isinstance(e, cst.StarredElement) for e in target.elements):
            first = target.elements[0].value
            new_first = _tuple([_unparen_tuple(first), cst.Name(aux)])
            new_target = target.with_changes(elements=[target.elements[0].with_changes(value=new_first),
                                                       target.elements[1]])
        else:
            return None
        new_stmt = stmt.with_changes(targets=[stmt.targets[0].with_changes(target=new_target)], value=new_apply)
        pairs.append((stmt, new_stmt))
        where = f"its second output is now bound to `{aux}`"
    elif use.kind == "grad":
        pairs.append((use.apply, cst.Subscript(new_apply, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])))
        where = "`[0]` keeps only the gradient"
    else:
        return None
    return Edit(_edit(ctx, pairs), "review",
                f"{label} returns (value, aux): `has_aux=True` differentiates the value only; {where}.")


@_rule("grad-aux-pair")
def grad_aux_pair(ctx: Context) -> Edit | None:
    """``has_aux=True`` with 3+ outputs: group the extras into one aux tuple; with a single output: drop has_aux."""
    use = _grad_use(ctx, {**_GRADS, **_JACS})
    if use is None:
        return None
    kw = _kw(use.make, "has_aux")
    fn_arg = _positional(use.make)
    if kw is None or not _is_true(kw.value) or not fn_arg:
        return None
    fn, name = _target_fn(ctx, fn_arg[0].value)
    holders = _returns(fn) if fn is not None else None
    if fn is None or holders is None:
        return None
    values = [_ret_value(h) for h in holders]
    stmt = _stmt_of(ctx, use.apply)
    target = stmt.targets[0].target if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 else None
    label = f"`{name}`" if name else "the function"
    sizes = {len(v.elements) if isinstance(v, cst.Tuple) else 0 for v in values}
    if len(sizes) == 1 and min(sizes) >= 3 and all(
            not any(isinstance(e, cst.StarredElement) for e in v.elements) for v in values):  # type: ignore[attr-defined]
        n = min(sizes)
        pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        for h, v in zip(holders, values, strict=True):
            els = [e.value for e in v.elements]  # type: ignore[attr-defined]
            pairs.append((h, _with_value(h, v.with_changes(elements=[  # type: ignore[attr-defined]
                cst.Element(els[0]), cst.Element(_tuple(els[1:]))]))))
        flat = None
        if use.kind != "value_and_grad":
            flat = target if isinstance(target, cst.Tuple) and len(target.elements) == n else None
        elif isinstance(target, cst.Tuple) and len(target.elements) == 2:
            first = target.elements[0].value
            flat = first if isinstance(first, cst.Tuple) and len(first.elements) == n else None
        if flat is not None:
            if any(isinstance(e, cst.StarredElement) for e in flat.elements):
                return None
            ts = [e.value for e in flat.elements]
            pairs.append((flat, flat.with_changes(elements=[cst.Element(ts[0]), cst.Element(_tuple(ts[1:]))])))
        return Edit(_edit(ctx, pairs), "review",
                    f"{label} now returns (value, ({', '.join(['…'] * (n - 1))})): the extra outputs are grouped "
                    "as one aux tuple; other callers of it see the new grouping.")
    if sizes != {0} or any(isinstance(v, (cst.List, cst.Dict)) for v in values) or "tuple" in ctx.values.get(
            "type", "") or "list" in ctx.values.get("type", ""):
        return None
    # a single output: there is no aux; drop has_aux and the aux slot of the unpacking
    dims = re.search(r"typeof\(tangent\)=\w+\[([^\]]*)\]", ctx.values.get("ans", "") or ctx.message)
    if dims is None or dims.group(1).strip():
        return None  # not a plain scalar: perhaps value and aux packed into one array
    new_make = _drop_arg(use.make, kw)
    aux_t: cst.BaseExpression | None = None
    if use.kind != "value_and_grad" and isinstance(target, cst.Tuple) and len(target.elements) == 2:
        new_target: cst.BaseExpression = _bare(target.elements[0].value)
        aux_t = target.elements[1].value
    elif use.kind == "value_and_grad" and isinstance(target, cst.Tuple) and len(target.elements) == 2 and \
            isinstance(target.elements[0].value, cst.Tuple) and len(target.elements[0].value.elements) == 2:
        inner = target.elements[0].value
        aux_t = inner.elements[1].value
        new_target = target.with_changes(elements=[target.elements[0].with_changes(value=inner.elements[0].value),
                                                   target.elements[1]])
    else:
        return None
    if not isinstance(aux_t, cst.Name) or (aux_t.value != "_" and len(ctx.nodes(m.Name(aux_t.value))) > 1):
        return None  # the aux value is used: the function must return it, which only its author knows
    assert isinstance(stmt, cst.Assign)
    new_apply = use.apply if use.via is not None else use.apply.deep_replace(use.make, new_make)
    pairs = [(stmt, stmt.with_changes(targets=[stmt.targets[0].with_changes(target=new_target)], value=new_apply))]
    if use.via is not None:
        pairs.append((use.make, new_make))
    safety = "safe" if aux_t.value == "_" else "review"
    extra = "" if aux_t.value == "_" else f"; `{aux_t.value}` is no longer bound"
    return Edit(_edit(ctx, pairs), safety,
                f"{label} returns no aux output, so `has_aux=True` is dropped with the unused aux slot{extra}.")


# ---------------------------------------------------------------------------------------------- loops under grad


def _loop_call(ctx: Context, dotted: str) -> cst.Call | None:
    found = [c for c in ctx.at_line(cst.Call) if _resolve(ctx, c.func) == dotted]  # type: ignore[attr-defined]
    return found[0] if len(found) == 1 else None  # type: ignore[return-value]


def _loop_args(call: cst.Call, names: tuple[str, ...]) -> list[cst.BaseExpression] | None:
    pos = _positional(call)
    if pos is None:
        return None
    out: list[cst.BaseExpression] = [a.value for a in pos]
    for name in names[len(out):]:
        kw = _kw(call, name)
        if kw is None:
            return None
        out.append(kw.value)
    return out if len(out) == len(names) and len(call.args) == len(names) else None


def _reaches(ctx: Context, expr: cst.BaseExpression, name: str, depth: int = 0) -> bool:
    """Whether a call's function is ``name`` itself or ``name`` under grad/jit/vmap wrappers."""
    if depth > 6:
        return False
    if isinstance(expr, cst.Name):
        if expr.value == name:
            return True
        a = _single_assign(ctx, expr.value)
        return a is not None and _reaches(ctx, a.value, name, depth + 1)
    if isinstance(expr, cst.Call) and _resolve(ctx, expr.func) in (_WRAPPERS | set(_GRADS) | set(_JACS)):
        pos = _positional(expr)
        return bool(pos) and _reaches(ctx, pos[0].value, name, depth + 1)  # type: ignore[index]
    return False


def _python_int(ctx: Context, e: cst.BaseExpression, near: cst.CSTNode | None = None) -> bool:
    """Whether ``e`` is a Python int when the code runs (a literal, an int in the namespace, or, seen from
    ``near``, an int-defaulted parameter that no call in the cell sets to anything but an int)."""
    if _int(e) is not None:
        return True
    if not isinstance(e, cst.Name):
        return False
    v = _value_of(ctx, e.value)
    if v is not _MISSING:
        return isinstance(v, int) and not isinstance(v, bool)
    for f in ctx.ancestors(near) if near is not None else []:
        if not isinstance(f, cst.FunctionDef):
            continue
        params = _fn_params(f)
        local = [a for a in m.findall(f.body, m.Assign(targets=[m.AssignTarget(m.Name(e.value))]))]
        if params is None:
            return False
        if e.value in params:
            p = next(x for x in (*f.params.posonly_params, *f.params.params) if x.name.value == e.value)
            if local or p.default is None or _int(p.default) is None:
                return False
            i = params.index(e.value)
            for c in ctx.nodes(cst.Call):
                if not _reaches(ctx, c.func, f.name.value):  # type: ignore[attr-defined]
                    continue
                pos = _positional(c)  # type: ignore[arg-type]
                if pos is None:
                    return False
                given = pos[i].value if i < len(pos) else getattr(_kw(c, e.value), "value", None)  # type: ignore
                if given is not None and not _python_int(ctx, given):
                    return False
            return True
        if local:
            return len(local) == 1 and _int(local[0].value) is not None  # type: ignore[attr-defined]
    return False


@_rule("fori-static-bounds")
def fori_static_bounds(ctx: Context) -> Edit | None:
    """``fori_loop`` bounds that are jit arguments become static: the loop then unrolls into a differentiable scan."""
    call = _loop_call(ctx, "jax.lax.fori_loop")
    args = _loop_args(call, ("lower", "upper", "body_fun", "init_val")) if call is not None else None
    fn = ctx.enclosing(call, cst.FunctionDef) if call is not None else None
    params = _fn_params(fn) if isinstance(fn, cst.FunctionDef) else None
    if args is None or params is None:
        return None
    assert isinstance(fn, cst.FunctionDef)
    used = [n.value for b in args[:2] for n in m.findall(b, m.Name())]  # type: ignore[attr-defined]
    if not used or any(u not in params for u in used):
        return None
    if any(not isinstance(x, (cst.Name, cst.Integer, cst.BinaryOperation, cst.UnaryOperation))
           for b in args[:2] for x in [b]):
        return None
    static = list(dict.fromkeys(used))
    idx = [params.index(s) for s in static]
    # every call of the function must pass Python ints for those parameters
    for c in ctx.nodes(cst.Call):
        if not _reaches(ctx, c.func, fn.name.value):  # type: ignore[attr-defined]
            continue
        pos = _positional(c)  # type: ignore[arg-type]
        if pos is None:
            return None
        for s, i in zip(static, idx, strict=True):
            given = pos[i].value if i < len(pos) else getattr(_kw(c, s), "value", None)  # type: ignore[arg-type]
            if given is not None and not _python_int(ctx, given):
                return None
    quoted = [f'"{s}"' for s in static]
    names = cst.parse_expression(quoted[0] if len(quoted) == 1 else f"({', '.join(quoted)})")
    # where the function is jitted: a decorator, or jax.jit(fn) in the cell
    jit_decos = [d for d in fn.decorators if _resolve(ctx, d.decorator) == "jax.jit"]
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    if len(jit_decos) == 1:
        partial, imp = _ref(ctx, "functools.partial")
        deco = jit_decos[0]
        new = cst.Call(partial, [cst.Arg(deco.decorator), _kwarg("static_argnames", names)])
        pairs.append((deco, deco.with_changes(decorator=new)))
        imports.append(imp)
        how = f"`@{ctx.module.code_for_node(new)}`"  # type: ignore[union-attr]
    elif not fn.decorators:
        sites = [c for c in ctx.nodes(cst.Call) if _resolve(ctx, c.func) == "jax.jit"  # type: ignore[attr-defined]
                 and _positional(c) and _reaches(ctx, _positional(c)[0].value, fn.name.value)]  # type: ignore
        if len(sites) != 1 or _kw(sites[0], "static_argnums") or _kw(sites[0], "static_argnames"):  # type: ignore
            return None
        site = sites[0]
        direct = m.matches(_positional(site)[0].value, m.Name(fn.name.value))  # type: ignore[arg-type,index]
        kw = _kwarg("static_argnames", names) if direct else _kwarg(
            "static_argnums", cst.parse_expression(repr(idx[0]) if len(idx) == 1 else repr(tuple(idx))))
        pairs.append((site, _add_arg(site, kw)))  # type: ignore[arg-type]
        how = "jax.jit with `" + ctx.module.code_for_node(kw).strip() + "`"  # type: ignore[union-attr]
    else:
        return None
    shown = ", ".join(f"`{s}`" for s in static)
    return Edit(_edit(ctx, pairs, imports=imports), "review",
                f"{shown} made static ({how}): the loop gets a fixed trip count and can be reversed; jit now "
                "recompiles for each new value, which must be a Python int.")


def _conjuncts(e: cst.BaseExpression, ctx: Context) -> list[cst.BaseExpression]:
    if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, cst.And):
        return _conjuncts(e.left, ctx) + _conjuncts(e.right, ctx)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.BitAnd):
        return _conjuncts(e.left, ctx) + _conjuncts(e.right, ctx)
    if isinstance(e, cst.Call) and _resolve(ctx, e.func) == "jax.numpy.logical_and" and len(e.args) == 2:
        return _conjuncts(e.args[0].value, ctx) + _conjuncts(e.args[1].value, ctx)
    return [e]


def _single_value(fn: cst.FunctionDef | cst.Lambda) -> cst.BaseExpression | None:
    holders = _returns(fn)
    return _ret_value(holders[0]) if holders and len(holders) == 1 else None


def _slot(fn: cst.FunctionDef | cst.Lambda, e: cst.BaseExpression) -> int | str | None:
    """Which item of the loop state an expression reads: ``s[0]``, ``s["i"]``, or a name unpacked from ``s``."""
    params = _fn_params(fn)
    if not params or len(params) != 1:
        return None
    p = params[0]
    if isinstance(e, cst.Subscript) and m.matches(e.value, m.Name(p)) and len(e.slice) == 1:
        idx = e.slice[0].slice
        if isinstance(idx, cst.Index):
            if _int(idx.value) is not None:
                return _int(idx.value)
            if isinstance(idx.value, cst.SimpleString):
                return str(idx.value.evaluated_value)
        return None
    if isinstance(e, cst.Name) and isinstance(fn, cst.FunctionDef):
        for a in m.findall(fn.body, m.Assign(value=m.Name(p))):
            assert isinstance(a, cst.Assign)
            t = a.targets[0].target
            if len(a.targets) == 1 and isinstance(t, (cst.Tuple, cst.List)):
                names = [x.value.value if isinstance(x.value, cst.Name) else None for x in t.elements]
                if e.value in names and names.count(e.value) == 1:
                    return names.index(e.value)
            elif len(a.targets) == 1:
                return None
        for a in m.findall(fn.body, m.Assign(targets=[m.AssignTarget(m.Name(e.value))])):
            assert isinstance(a, cst.Assign)
            return _slot(fn, a.value) if isinstance(a.value, cst.Subscript) else None
    return None


def _item(e: cst.BaseExpression, slot: int | str) -> cst.BaseExpression | None:
    if isinstance(slot, int) and isinstance(e, (cst.Tuple, cst.List)) and slot < len(e.elements):
        el = e.elements[slot]
        return None if isinstance(el, cst.StarredElement) else el.value
    if isinstance(slot, str) and isinstance(e, cst.Dict):
        for el in e.elements:
            if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString) and \
                    el.key.evaluated_value == slot:
                return el.value
    return None


def _fn_of(ctx: Context, e: cst.BaseExpression) -> cst.FunctionDef | cst.Lambda | None:
    fn, _ = _target_fn(ctx, e)
    if isinstance(e, cst.Name) and isinstance(fn, cst.FunctionDef) and len(
            [f for f in ctx.nodes(cst.FunctionDef) if f.name.value == e.value]) != 1:  # type: ignore[attr-defined]
        return None
    return fn


class _Rename(cst.CSTTransformer):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.new) if original.value == self.old else updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


def _apply_fn(ctx: Context, e: cst.BaseExpression, fn: cst.FunctionDef | cst.Lambda, arg: str) -> str:
    """Code for calling the loop's cond/body on ``arg`` (a lambda's body is inlined with its parameter renamed)."""
    if isinstance(fn, cst.Lambda) and e is fn:
        p = (_fn_params(fn) or [arg])[0]
        body = fn.body.visit(_Rename(p, arg)) if p != arg else fn.body
        assert ctx.module is not None
        return ctx.module.code_for_node(body if isinstance(body, cst.Tuple) else _bare(body))  # type: ignore
    return f"{ctx.code(e)}({arg})"


@_rule("while-to-scan")
def while_to_scan(ctx: Context) -> Edit | None:
    """A counted ``while_loop`` (cond tests ``i < N``, body adds 1) becomes a scan of N steps that freezes when done."""
    call = _loop_call(ctx, "jax.lax.while_loop")
    args = _loop_args(call, ("cond_fun", "body_fun", "init_val")) if call is not None else None
    if call is None or args is None:
        return None
    cond_e, body_e, init = args
    cond, body = _fn_of(ctx, cond_e), _fn_of(ctx, body_e)
    if cond is None or body is None:
        return None
    test, new_state = _single_value(cond), _single_value(body)
    if test is None or new_state is None:
        return None
    if isinstance(init, cst.Name):
        a = _single_assign(ctx, init.value)
        init_value = a.value if a is not None else None
    else:
        init_value = init
    bound = None
    for c in _conjuncts(_bare(test), ctx):
        if not isinstance(c, cst.Comparison) or len(c.comparisons) != 1:
            continue
        op, right = c.comparisons[0].operator, c.comparisons[0].comparator
        if isinstance(op, (cst.LessThan, cst.LessThanEqual)):
            counter, limit, inclusive = c.left, right, isinstance(op, cst.LessThanEqual)
        elif isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
            counter, limit, inclusive = right, c.left, isinstance(op, cst.GreaterThanEqual)
        else:
            continue
        slot = _slot(cond, _bare(counter))
        if slot is None or not _python_int(ctx, _bare(limit), c):
            continue
        # the body must add 1 to that slot, and the loop must start it at a non-negative int
        step = _item(_bare(new_state), slot)
        start = _item(_bare(init_value), slot) if init_value is not None else None
        if step is None or start is None or (_int(start) is None or _int(start) < 0):  # type: ignore[operator]
            continue
        if not (isinstance(step, cst.BinaryOperation) and isinstance(step.operator, cst.Add)
                and _int(step.right) == 1 and _slot(body, _bare(step.left)) == slot):
            continue
        if bound is not None:
            return None
        bound = (limit, inclusive)
    if bound is None:
        return None
    limit, inclusive = bound
    params = {p for f in (cond, body) if isinstance(f, cst.Lambda) for p in (_fn_params(f) or [])}
    arg = next(iter(params)) if len(params) == 1 else "carry"
    if arg == "carry" and _name_in_use(ctx, "carry"):
        arg = "_carry"
    step_name = "_loop_step"
    if _name_in_use(ctx, step_name):
        return None
    jax_tree, imp1 = _ref(ctx, "jax.tree.map")
    where, imp2 = _ref(ctx, "jax.numpy.where")
    assert ctx.module is not None
    code = ctx.module.code_for_node
    step_src = (
        f"def {step_name}({arg}, _):\n"
        f"    # one while_loop step; once the condition is False the state is kept as it is\n"
        f"    _go = {_apply_fn(ctx, cond_e, cond, arg)}\n"
        f"    _new = {_apply_fn(ctx, body_e, body, arg)}\n"
        f"    return {code(jax_tree)}(lambda new, old: {code(where)}(_go, new, old), _new, {arg}), None\n"
    )
    step_def = cst.parse_statement(step_src)
    if isinstance(call.func, cst.Attribute):
        scan: cst.BaseExpression = call.func.with_changes(attr=cst.Name("scan"))
        imp3 = None
    else:
        scan, imp3 = _ref(ctx, "jax.lax.scan")
    length = _bare(limit)
    length_code = code(length) + (" + 1" if inclusive else "")
    new_call = cst.Subscript(
        cst.Call(scan, [cst.Arg(cst.Name(step_name)), cst.Arg(_unparen_tuple(init)),
                        _kwarg("length", cst.parse_expression(length_code))]),
        [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
    stmt = ctx.enclosing(call, cst.SimpleStatementLine)
    block = ctx.parent(stmt) if stmt is not None else None
    if stmt is None or not isinstance(block, (cst.Module, cst.IndentedBlock)):
        return None
    assert isinstance(stmt, cst.SimpleStatementLine)
    # the helper takes the blank lines above the statement; the statement keeps its comments
    lead = list(stmt.leading_lines)
    blanks = []
    while lead and lead[0].comment is None:
        blanks.append(lead.pop(0))
    at = list(block.body).index(stmt)
    if not blanks and at > 0 and not isinstance(block.body[at - 1], cst.SimpleStatementLine):
        blanks = [cst.EmptyLine(indent=False)]
    step_def = step_def.with_changes(leading_lines=blanks)
    new_stmt = stmt.deep_replace(call, new_call).with_changes(leading_lines=[cst.EmptyLine(indent=False), *lead])
    return Edit(_edit(ctx, [(stmt, new_stmt)], before={stmt: [step_def]}, imports=[imp1, imp2, imp3]), "review",
                f"while_loop -> lax.scan of {length_code} steps that keeps the state once the condition is False: "
                "same result (the counter bounds the loop), but every step is computed; NaN in a skipped step's "
                "values can still reach the gradient.")


# ---------------------------------------------------------------------------------------------- custom rules


@dataclass
class _Custom:
    fn: cst.FunctionDef  # the decorated primal function
    nondiff: tuple[int, ...]
    rules: list[cst.BaseExpression]  # fwd, bwd (custom_vjp) or the jvp rule


def _nondiff(ctx: Context, call: cst.Call) -> tuple[int, ...] | None:
    kw = _kw(call, "nondiff_argnums")
    if kw is None:
        return ()
    v = _int(kw.value)
    if v is not None:
        return (v,)
    if isinstance(kw.value, (cst.Tuple, cst.List)):
        vals = [_int(e.value) for e in kw.value.elements]
        if all(x is not None for x in vals):
            return tuple(sorted(x for x in vals if x is not None))
    return None


def _customs(ctx: Context, kind: str) -> list[_Custom]:
    """The ``jax.custom_vjp``/``jax.custom_jvp`` functions defined in the cell, with their registered rules."""
    dotted = f"jax.{kind}"
    out = []
    for fd in ctx.nodes(cst.FunctionDef):
        assert isinstance(fd, cst.FunctionDef)
        nondiff: tuple[int, ...] | None = None
        for d in fd.decorators:
            e = d.decorator
            if _resolve(ctx, e) == dotted:
                nondiff = ()
            elif isinstance(e, cst.Call):
                head = _resolve(ctx, e.func)
                pos = _positional(e)
                if head == dotted or (head == "functools.partial" and pos and _resolve(ctx, pos[0].value) == dotted):
                    nondiff = _nondiff(ctx, e)
        if nondiff is None:
            continue
        name = fd.name.value
        rules: list[cst.BaseExpression] = []
        method = "defvjp" if kind == "custom_vjp" else "defjvp"
        for c in ctx.nodes(m.Call(func=m.Attribute(value=m.Name(name), attr=m.Name(method)))):
            rules = [a.value for a in c.args if a.keyword is None]  # type: ignore[attr-defined]
        if kind == "custom_jvp":
            for f2 in ctx.nodes(cst.FunctionDef):
                if any(m.matches(d.decorator, m.Attribute(value=m.Name(name), attr=m.Name("defjvp")))
                       for d in f2.decorators):  # type: ignore[attr-defined]
                    rules = [f2.name]  # type: ignore[attr-defined]
        out.append(_Custom(fd, nondiff, rules))
    return out


def _rule_fn(ctx: Context, e: cst.BaseExpression) -> cst.FunctionDef | cst.Lambda | None:
    if isinstance(e, cst.Lambda):
        return e
    if isinstance(e, cst.Name):
        return ctx.function_named(e.value)
    return None


def _tree_inner(text: str) -> str | None:
    mm = re.fullmatch(r"\s*PyTreeDef\((.*)\)\s*\.?\s*", text or "")
    return mm.group(1) if mm else None


@_rule("custom-vjp-bwd-tuple")
def custom_vjp_bwd_tuple(ctx: Context) -> Edit | None:
    """bwd returning a bare cotangent for a one-argument function -> a 1-tuple; entries for nondiff args dropped."""
    bwd_tree = _tree_inner(ctx.values.get("bwd_tree", ""))
    primal_tree = _tree_inner(ctx.values.get("primal_tree", ""))
    if bwd_tree is None or primal_tree is None:
        return None
    found: list[tuple[list[tuple[cst.CSTNode, cst.CSTNode]], str, str]] = []
    for c in _customs(ctx, "custom_vjp"):
        params = _fn_params(c.fn)
        bwd = _rule_fn(ctx, c.rules[1]) if len(c.rules) == 2 else None
        holders = _returns(bwd) if bwd is not None else None
        if params is None or holders is None:
            continue
        values = [_ret_value(h) for h in holders]
        if primal_tree == f"({bwd_tree},)":
            pairs = [(h, _with_value(h, _tuple([v]))) for h, v in zip(holders, values, strict=True)]
            found.append((pairs, "safe", "bwd now returns a 1-tuple `(cotangent,)`: one entry per argument of "
                                         f"`{c.fn.name.value}`, same values."))
        elif c.nondiff and all(isinstance(v, (cst.Tuple, cst.List)) and len(v.elements) == len(params)
                               for v in values):
            ok = all(m.matches(v.elements[i].value, m.Name("None")) for v in values  # type: ignore[attr-defined]
                     for i in c.nondiff)
            if not ok:
                continue
            pairs = []
            for h, v in zip(holders, values, strict=True):
                keep = [e.value for i, e in enumerate(v.elements) if i not in c.nondiff]  # type: ignore[attr-defined]
                pairs.append((h, _with_value(h, _tuple(keep, parens=bool(v.lpar)))))
            skipped = ", ".join(f"`{params[i]}`" for i in c.nondiff)
            found.append((pairs, "safe", f"bwd no longer returns entries for the nondiff_argnums argument(s) "
                                         f"{skipped}: they get no cotangent."))
    if len(found) != 1:
        return None
    pairs, safety, summary = found[0]
    return Edit(_edit(ctx, pairs), safety, summary)


def _unpacked(fn: cst.FunctionDef, name: str) -> list[str] | None:
    """Names that ``a, b = name`` unpacks in the body of ``fn``."""
    for a in m.findall(fn.body, m.Assign(value=m.Name(name))):
        assert isinstance(a, cst.Assign)
        t = a.targets[0].target
        if len(a.targets) == 1 and isinstance(t, (cst.Tuple, cst.List)) and all(
                isinstance(e.value, cst.Name) and not isinstance(e, cst.StarredElement) for e in t.elements):
            return [e.value.value for e in t.elements]  # type: ignore[attr-defined]
    return None


@_rule("custom-vjp-fwd-pair")
def custom_vjp_fwd_pair(ctx: Context) -> Edit | None:
    """fwd returning ``y, a, b`` -> ``y, (a, b)``; fwd returning only ``y`` -> ``y, x`` when bwd plainly reads ``x``."""
    fwd_name = ctx.values.get("fwd") or ctx.values.get("fwd_name") or ""
    fun_name = ctx.values.get("fun") or ctx.values.get("primal_name") or ""
    fwd = ctx.function_named(fwd_name)
    custom = [c for c in _customs(ctx, "custom_vjp") if c.fn.name.value == fun_name]
    if fwd is None or len(custom) != 1 or len(custom[0].rules) != 2:
        return None
    c = custom[0]
    bwd = _rule_fn(ctx, c.rules[1])
    holders = _returns(fwd)
    fwd_params = _fn_params(fwd)
    bwd_params = _fn_params(bwd) if bwd is not None else None
    if holders is None or fwd_params is None or bwd_params is None or len(bwd_params) != len(c.nondiff) + 2:
        return None
    res = bwd_params[len(c.nondiff)]
    values = [_ret_value(h) for h in holders]
    sizes = {len(v.elements) if isinstance(v, cst.Tuple) else 0 for v in values}
    if len(sizes) == 1 and min(sizes) >= 3:
        n = min(sizes)
        if any(isinstance(e, cst.StarredElement) for v in values for e in v.elements):  # type: ignore[attr-defined]
            return None
        pairs = []
        for h, v in zip(holders, values, strict=True):
            els = [e.value for e in v.elements]  # type: ignore[attr-defined]
            pairs.append((h, _with_value(h, v.with_changes(elements=[cst.Element(els[0]),  # type: ignore[attr-defined]
                                                                      cst.Element(_tuple(els[1:]))]))))
        reads = _unpacked(bwd, res) if isinstance(bwd, cst.FunctionDef) else None
        safe = reads is not None and len(reads) == n - 1
        return Edit(_edit(ctx, pairs), "safe" if safe else "review",
                    f"`{fwd_name}` now returns (output, residuals) with its {n - 1} saved values grouped in one tuple"
                    + (", as `" + (c.rules[1].value if isinstance(c.rules[1], cst.Name) else "bwd")
                       + "` unpacks them." if safe else "; check that bwd reads them in this order."))
    if sizes != {0} or any(isinstance(v, (cst.List, cst.Dict)) for v in values):
        return None
    # only the output: the residuals are the inputs bwd reads under the same names
    if res in fwd_params:
        residual: cst.BaseExpression = cst.Name(res)
        saved = f"`{res}`"
    else:
        names = _unpacked(bwd, res) if isinstance(bwd, cst.FunctionDef) else None
        if not names or any(x not in fwd_params for x in names):
            return None
        residual = _tuple([cst.Name(x) for x in names])
        saved = ", ".join(f"`{x}`" for x in names)
    pairs = [(h, _with_value(h, _tuple([_paren(v) if isinstance(v, cst.Lambda) else v, residual], parens=False)))
             for h, v in zip(holders, values, strict=True)]
    return Edit(_edit(ctx, pairs), "review",
                f"`{fwd_name}` now returns (output, residuals), saving the input(s) {saved} that bwd reads: "
                "check that bwd expects exactly these values.")


def _bindings(fn: cst.FunctionDef, name: str) -> int:
    """How many statements of the body bind ``name`` (assignments, loops, with, imports...)."""
    n = 0
    for node in m.findall(fn.body, m.AssignTarget() | m.AugAssign() | m.AnnAssign() | m.For() | m.WithItem()
                          | m.NamedExpr()):
        target = getattr(node, "target", None) or getattr(getattr(node, "asname", None), "name", None)
        if target is not None and m.findall(target, m.Name(name)):
            n += 1
    return n


@_rule("custom-jvp-pair")
def custom_jvp_pair(ctx: Context) -> Edit | None:
    """A custom_jvp rule returning only the tangent -> ``(primal_out, tangent_out)``, the primal from the function."""
    rule_name = ctx.values.get("rule") or ctx.values.get("jvp_name") or ""
    fun_name = ctx.values.get("fun") or ctx.values.get("primal_name") or ""
    jvp = ctx.function_named(rule_name)
    custom = [c for c in _customs(ctx, "custom_jvp") if c.fn.name.value == fun_name]
    if jvp is None or len(custom) != 1:
        return None
    c = custom[0]
    if c.nondiff != tuple(range(len(c.nondiff))):
        return None  # nondiff arguments in the middle: their order in the call is not worth guessing
    params = _fn_params(jvp)
    f_params = _fn_params(c.fn)
    holders = _returns(jvp)
    if params is None or f_params is None or holders is None or len(params) != len(c.nondiff) + 2:
        return None
    values = [_ret_value(h) for h in holders]
    if any(isinstance(v, (cst.Tuple, cst.List, cst.Dict)) for v in values):
        return None
    lead = params[: len(c.nondiff)]
    primals = params[len(c.nondiff)]
    names = _unpacked(jvp, primals)
    if names is None:  # (x,), (t,) = primals, tangents
        for a in m.findall(jvp.body, m.Assign(value=m.Tuple([m.Element(m.Name(primals)), m.Element()]))):
            t = a.targets[0].target  # type: ignore[attr-defined]
            if isinstance(t, cst.Tuple) and len(t.elements) == 2 and isinstance(t.elements[0].value, cst.Tuple):
                inner = t.elements[0].value.elements
                if all(isinstance(e.value, cst.Name) for e in inner):
                    names = [e.value.value for e in inner]  # type: ignore[attr-defined]
    if names is not None and len(names) != len(f_params) - len(c.nondiff):
        return None
    if names is not None and any(_bindings(jvp, x) != 1 for x in names):
        names = None  # rebound in the rule: call the function on the primals themselves
    if _bindings(jvp, primals) != 0 or any(_bindings(jvp, x) != 0 for x in lead):
        return None
    primal: cst.BaseExpression | None = None
    body = c.fn.body.body if isinstance(c.fn.body, cst.IndentedBlock) else []
    if names is not None and not c.nondiff and names == f_params and len(body) == 1 and m.matches(
            body[0], m.SimpleStatementLine([m.Return()])):
        value = body[0].body[0].value  # type: ignore[attr-defined]
        if value is not None and not isinstance(value, (cst.Tuple, cst.List, cst.Dict)):
            primal = value  # the function's own expression, on the same names
    if primal is None:
        args = [cst.Arg(cst.Name(x)) for x in lead]
        args += [cst.Arg(cst.Name(x)) for x in names] if names is not None else [cst.Arg(cst.Name(primals), star="*")]
        primal = cst.Call(cst.Name(fun_name), args)
    pairs = [(h, _with_value(h, _tuple([_paren(primal) if isinstance(primal, cst.Lambda) else primal, v],
                                       parens=False))) for h, v in zip(holders, values, strict=True)]
    return Edit(_edit(ctx, pairs), "review",
                f"`{rule_name}` now returns (primal_out, tangent_out), the primal output computed as `{fun_name}` "
                "does: check it is the value the function returns.")


_AVAL = re.compile(r"([a-z]+\d*)\[([\d,\s]*)\]")


@_rule("custom-vjp-bwd-unbroadcast")
def custom_vjp_bwd_unbroadcast(ctx: Context) -> Edit | None:
    """A bwd cotangent shaped like the (broadcast) output for a smaller input -> summed over the broadcast axes."""
    path = re.fullmatch(r"\[(\d+)\]", ctx.values.get("path", "").strip())
    got = _AVAL.match(ctx.values.get("got", "").strip())
    want = _AVAL.match(ctx.values.get("expected", "").strip())
    if path is None or got is None or want is None or got.group(1) != want.group(1):
        return None
    k = int(path.group(1))
    g_dims = [int(x) for x in got.group(2).split(",") if x.strip()]
    w_dims = [int(x) for x in want.group(2).split(",") if x.strip()]
    lead = len(g_dims) - len(w_dims)
    if lead <= 0 or g_dims[lead:] != w_dims:
        return None  # not a leading broadcast: the rule itself is wrong in a way a sum does not fix
    customs = [c for c in _customs(ctx, "custom_vjp") if len(c.rules) == 2]
    if len(customs) != 1:
        return None
    c = customs[0]
    bwd = _rule_fn(ctx, c.rules[1])
    holders = _returns(bwd) if bwd is not None else None
    params = _fn_params(c.fn)
    if holders is None or params is None:
        return None
    diff = [p for i, p in enumerate(params) if i not in c.nondiff]
    if k >= len(diff):
        return None
    total, imp = _ref(ctx, "jax.numpy.sum")
    axis = [] if not w_dims else [_kwarg("axis", cst.parse_expression(
        "0" if lead == 1 else repr(tuple(range(lead)))))]
    pairs = []
    for h in holders:
        v = _ret_value(h)
        if not isinstance(v, (cst.Tuple, cst.List)) or len(v.elements) != len(diff):
            return None
        el = v.elements[k]
        if isinstance(el, cst.StarredElement):
            return None
        new_el = el.with_changes(value=cst.Call(total, [cst.Arg(_bare(el.value)), *axis]))
        pairs.append((el, new_el))
    return Edit(_edit(ctx, pairs, imports=[imp]), "review",
                f"the cotangent for `{diff[k]}` is summed over the {lead} broadcast axis(es) to its shape "
                f"{tuple(w_dims)}: right when `{c.fn.name.value}` broadcasts `{diff[k]}` against the other inputs.")


@_rule("grad-argnums-positional")
def grad_argnums_positional(ctx: Context) -> Edit | None:
    """``grad(f, argnums=1)(x, w=w)``: pass the keyword arguments that argnums counts positionally."""
    use = _grad_use(ctx, {**_GRADS, **_JACS})
    if use is None:
        return None
    argnums = _argnums(use.make)
    fn_arg = _positional(use.make)
    pos = _positional(use.apply)
    if argnums is None or not fn_arg or pos is None:
        return None
    fn, name = _target_fn(ctx, fn_arg[0].value)
    params = _fn_params(fn) if fn is not None else None
    if params is None:
        return None
    if use.wrappers:
        return None  # under vmap/pmap a keyword argument is batched differently from a positional one
    need = max(argnums) + 1
    missing = params[len(pos):need]
    kws = {a.keyword.value: a for a in use.apply.args if a.keyword is not None}
    if need > len(params) or not missing or any(p not in kws for p in missing):
        return None
    moved = [cst.Arg(kws[p].value) for p in missing]
    rest = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in use.apply.args
            if a.keyword is None or a.keyword.value not in missing]
    keep_pos = [a for a in rest if a.keyword is None]
    keep_kw = [a for a in rest if a.keyword is not None]
    new_apply = use.apply.with_changes(args=[*keep_pos, *moved, *keep_kw])
    shown = ", ".join(f"`{p}`" for p in missing)
    return Edit(_edit(ctx, [(use.apply, new_apply)]), "safe",
                f"{shown} passed by position: argnums counts positional arguments; same call of `{name or 'f'}`.")


@_rule("custom-vjp-defvjp")
def custom_vjp_defvjp(ctx: Context) -> Edit | None:
    """A custom_vjp function with ``<f>_fwd``/``<f>_bwd`` defined but never registered: add ``f.defvjp(...)``."""
    fun = ctx.values.get("fun", "").strip()
    custom = [c for c in _customs(ctx, "custom_vjp") if c.fn.name.value == fun and not c.rules]
    if len(custom) != 1 or ctx.line is None:
        return None
    fwd = ctx.function_named(f"{fun}_fwd")
    bwd = ctx.function_named(f"{fun}_bwd")
    if fwd is None or bwd is None:
        return None
    blocks = {ctx.parent(x) for x in (custom[0].fn, fwd, bwd)}
    if len(blocks) != 1:
        return None
    last = max((custom[0].fn, fwd, bwd), key=lambda n: ctx.span(n)[0])
    if ctx.parent(last) is ctx.module and ctx.span(last)[1] >= ctx.line:
        return None  # the failing call comes before the rules exist
    reg = cst.parse_statement(f"{fun}.defvjp({fun}_fwd, {fun}_bwd)\n")
    return Edit(_edit(ctx, [], after={last: [reg]}), "review",
                f"registers `{fun}_fwd`/`{fun}_bwd` as the rules of `{fun}` with `{fun}.defvjp`: check that they are "
                "the rules you meant.")
