"""What the autodiff rules share: the namespace recovered from stand-in frames, arguments, returns, edits."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, add_imports, dotted_name
from jaxerrs.rewrite.cst_tools import positional_args
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule

# ---------------------------------------------------------------------------------------------- names

_GRADS = {"jax.grad": "grad", "jax.value_and_grad": "value_and_grad"}
_JACS = {"jax.jacrev": "jacrev", "jax.jacfwd": "jacfwd", "jax.hessian": "hessian"}
# The libraries' gradient transforms whose ``has_aux`` means what JAX's does: ``(grads, aux)`` and
# ``((value, aux), grads)`` (Equinox's filter_* differentiate the floating arrays of the first argument).
_AUX_GRADS = {**_GRADS, "equinox.filter_grad": "grad", "equinox.filter_value_and_grad": "value_and_grad",
              "flax.nnx.grad": "grad", "flax.nnx.value_and_grad": "value_and_grad"}
_WRAPPERS = {"jax.jit", "jax.vmap", "jax.pmap", "jax.checkpoint", "jax.remat"}  # keep argument positions
_PUBLIC = ("jax.grad", "jax.value_and_grad", "jax.jacrev", "jax.jacfwd", "jax.hessian", "jax.jit", "jax.vmap",
           "jax.pmap", "jax.checkpoint", "jax.remat", "jax.custom_vjp", "jax.custom_jvp", "jax.lax.while_loop",
           "jax.lax.fori_loop", "jax.lax.scan", "jax.numpy.array", "jax.numpy.asarray", "jax.numpy.arange", "functools.partial",
           *(k for k in _AUX_GRADS if not k.startswith("jax.")))

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
        pos = positional_args(call)
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


@dataclass
class _GradUse:
    kind: str  # "grad" | "value_and_grad" | "jacrev" ...
    make: cst.Call  # jax.grad(f, ...)
    apply: cst.Call  # the call on the failing line that runs the gradient function
    via: cst.Assign | None  # `name = <expr holding make>` when the gradient function is named first
    wrappers: list[str]


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


def _stmt_of(ctx: Context, node: cst.CSTNode) -> cst.CSTNode | None:
    """The small statement holding ``node`` directly: ``x = <node>``, ``<node>``, ``return <node>``."""
    p = ctx.parent(node)
    if isinstance(p, (cst.Assign, cst.Expr, cst.Return)) and p.value is node:
        return p
    return None


def _unparen_tuple(t: cst.BaseExpression) -> cst.BaseExpression:
    """A tuple/list target as a parenthesised element (``a, b`` -> ``(a, b)``)."""
    if isinstance(t, cst.Tuple) and not t.lpar:
        return t.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return t


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
        name = full_name(ctx, func.func, known=_PUBLIC)
        if name in kinds:
            return _GradUse(kinds[name], func, call, via, wrappers)
        pos = positional_args(func)
        if name in _WRAPPERS and pos:
            wrappers.append(name)
            func = pos[0].value
            continue
        return None
    return None
