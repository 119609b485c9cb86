"""``grad`` of a function that returns an array: reduce the output the way the code means it."""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import positional_args
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules.autodiff.common import (
    _ELEMENTWISE,
    _LOSSY,
    _PUBLIC,
    _bare,
    _edit,
    _fn_params,
    _grad_use,
    _is_true,
    _kw,
    _ref,
    _ret_value,
    _returns,
    _rule,
    _stmt_of,
    _target_fn,
    _with_value,
)
from jaxerrs.rewrite.values import lookup

# ---------------------------------------------------------------------------------------------- grad calls


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
        v = lookup(ctx, e.value)
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
        if full_name(ctx, e.func, known=_PUBLIC) not in _ELEMENTWISE:
            return False
        return all(a.keyword is None and not a.star and _elementwise_expr(ctx, a.value, local) for a in e.args)
    return False


def _elementwise(ctx: Context, fn_expr: cst.BaseExpression, fn: cst.FunctionDef | cst.Lambda | None) -> bool:
    """Whether the function maps each element on its own (so vmap(grad(f)) gives each element's derivative)."""
    if fn is None:
        return full_name(ctx, fn_expr, known=_PUBLIC) in _ELEMENTWISE
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
    fn_arg = positional_args(use.make)
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
    if fn is None and size == 1 and not has_aux and not _LOSSY.search(name):
        # A callable whose body is not in the cell (a module object, a library function) with a one-element
        # output: squeezed in a wrapper with the same arguments, so argnums still index the same ones.
        squeeze, imp = _ref(ctx, "jax.numpy.squeeze")
        target = ctx.code(fn_arg[0].value)
        callee = target if isinstance(fn_arg[0].value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) \
            else f"({target})"
        wrapper = cst.parse_expression(f"lambda *args, **kwargs: {ctx.module.code_for_node(squeeze)}"
                                       f"({callee}(*args, **kwargs))")
        new_make = use.make.with_changes(args=[use.make.args[0].with_changes(value=wrapper), *use.make.args[1:]])
        return Edit(_edit(ctx, [(use.make, new_make)], imports=[imp]), "review",
                    f"`{target}`'s single output is squeezed to a 0-d array (it had shape {shape}) inside the "
                    f"{use.kind}; value unchanged.")
    if _LOSSY.search(name):
        return None  # a loss defined elsewhere: its return is not in this cell
    if use.wrappers or use.kind not in ("grad", "value_and_grad"):
        return None
    if len(shape) == 1 and _elementwise(ctx, fn_arg[0].value, fn) and not has_aux:
        pos = positional_args(use.apply)
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
