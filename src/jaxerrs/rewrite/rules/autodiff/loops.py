"""Loops under ``grad``: static ``fori_loop`` bounds, ``while_loop`` as a ``scan``."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import keyword_arg, positional_args
from jaxerrs.rewrite.jit_static import find_jit, make_static
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules.autodiff.common import (
    _GRADS,
    _JACS,
    _PUBLIC,
    _WRAPPERS,
    _bare,
    _edit,
    _fn_params,
    _int,
    _kw,
    _name_in_use,
    _ref,
    _ret_value,
    _returns,
    _rule,
    _single_assign,
    _target_fn,
    _unparen_tuple,
)
from jaxerrs.rewrite.values import MISSING, lookup

# ---------------------------------------------------------------------------------------------- loops under grad


def _loop_call(ctx: Context, dotted: str) -> cst.Call | None:
    found = [c for c in ctx.at_line(cst.Call) if full_name(ctx, c.func, known=_PUBLIC) == dotted]  # type: ignore[attr-defined]
    return found[0] if len(found) == 1 else None  # type: ignore[return-value]


def _loop_args(call: cst.Call, names: tuple[str, ...]) -> list[cst.BaseExpression] | None:
    pos = positional_args(call)
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
    if isinstance(expr, cst.Call) and full_name(ctx, expr.func, known=_PUBLIC) in (_WRAPPERS | set(_GRADS) | set(_JACS)):
        pos = positional_args(expr)
        return bool(pos) and _reaches(ctx, pos[0].value, name, depth + 1)  # type: ignore[index]
    return False


def _python_int(ctx: Context, e: cst.BaseExpression, near: cst.CSTNode | None = None) -> bool:
    """Whether ``e`` is a Python int when the code runs (a literal, an int in the namespace, or, seen from
    ``near``, an int-defaulted parameter that no call in the cell sets to anything but an int)."""
    if _int(e) is not None:
        return True
    if not isinstance(e, cst.Name):
        return False
    v = lookup(ctx, e.value)
    if v is not MISSING:
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
                pos = positional_args(c)  # type: ignore[arg-type]
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
        pos = positional_args(c)  # type: ignore[arg-type]
        if pos is None:
            return None
        for s, i in zip(static, idx, strict=True):
            given = pos[i].value if i < len(pos) else getattr(_kw(c, s), "value", None)  # type: ignore[arg-type]
            if given is not None and not _python_int(ctx, given):
                return None
    # where the function is jitted: a bare ``@jax.jit``, or ``jax.jit(fn)`` in the cell without static keywords
    site = find_jit(ctx, fn, others=True, anywhere=True, reaches=lambda e: _reaches(ctx, e, fn.name.value))
    if site is None or (site.decorator is not None and site.call is not None):
        return None
    if site.decorator is None and (fn.decorators or _kw(site.call, "static_argnums")  # type: ignore[arg-type]
                                   or _kw(site.call, "static_argnames")):  # type: ignore[arg-type]
        return None
    made = make_static(ctx, site, static, prefer_nums=not site.direct)
    if made is None:
        return None
    old, new, imports = made
    shown_new = ctx.module.code_for_node(new)  # type: ignore[union-attr]
    how = f"`@{shown_new}`" if site.decorator is not None else f"`{shown_new}`"
    pairs = [(old, new)]
    shown = ", ".join(f"`{s}`" for s in static)
    return Edit(_edit(ctx, pairs, imports=imports), "review",
                f"{shown} made static ({how}): the loop gets a fixed trip count and can be reversed; jit now "
                "recompiles for each new value, which must be a Python int.")


def _conjuncts(e: cst.BaseExpression, ctx: Context) -> list[cst.BaseExpression]:
    if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, cst.And):
        return _conjuncts(e.left, ctx) + _conjuncts(e.right, ctx)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.BitAnd):
        return _conjuncts(e.left, ctx) + _conjuncts(e.right, ctx)
    if isinstance(e, cst.Call) and full_name(ctx, e.func, known=_PUBLIC) == "jax.numpy.logical_and" and len(e.args) == 2:
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
                        keyword_arg("length", cst.parse_expression(length_code))]),
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
