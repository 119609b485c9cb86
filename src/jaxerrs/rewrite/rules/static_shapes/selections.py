"""Selections under jit, followed through the failing function (rules ``boolean-mask``, ``selection-where``).

A *selection* is the entries of an array where a boolean mask is True: ``x[mask]``,
``x[jnp.nonzero(mask)]``, ``x[jnp.where(mask)]`` and, for a 1-D mask, ``x[idx]`` with ``idx`` one of
``jnp.nonzero(mask)[0]``, ``jnp.where(mask)[0]``, ``jnp.argwhere(mask)[:, 0]``, ``jnp.flatnonzero(mask)``
(inline, or bound to a name). ``jnp.nonzero(a)`` of a number array selects where ``a != 0``. Under ``jit``
a selection has no static length: that is the error. The rewrite applies when every selection and every
set of positions in the failing function is used only as:

- an element-wise computation of selections by the same mask and scalars (``+ - * / ** %``, a
  comparison, ``jnp.exp``...), bound to a name or not, that ends in a reduction over all its entries
  (``.sum()``, ``jnp.mean(...)``, ``max``, ``var``...), or over the first axis for a 1-D mask;
- a count: ``idx.shape[0]``, ``idx.size``, ``len(idx)``, ``x[mask].shape[0]``.

Then the arrays keep their full shape: each reduction takes ``where=`` the mask (broadcast to the array:
``mask[:, None]`` for a row mask), each count becomes ``jnp.count_nonzero(mask)``, and a name bound to
positions is bound to the mask instead. Why the same values: a reduction with ``where=`` reads exactly the
entries the mask selects, which are the entries of the selection; the count is the selection's length.
What differs, and why it is ``review``: entries outside the mask are still computed (a ``log`` of padding
may be inf there: the value is not read, but under ``grad`` a NaN there can reach the gradient), a max/min
of an empty selection is -inf/inf instead of an error, and a count is a traced integer, not a Python int.
Any other use (a selection returned, passed to another function, indexed again) and nothing is offered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.static_shapes.common import (
    _ELEMENTWISE,
    _body_assignments,
    _dtype_kind,
    _jnp_name,
    _names_in,
    _shape,
    _within,
)
from jaxerrs.rewrite.rules.static_shapes.masks import _is_mask, _mask_shape

_REDUCTIONS = {"sum", "mean", "prod", "max", "min", "any", "all", "var", "std", "nansum", "nanmean", "amax",
               "amin"}
_EXTREMES = {"max", "min", "amax", "amin"}
_ELEMENTWISE_MORE = _ELEMENTWISE | {"log2", "log10", "sinh", "cosh", "tan", "arctan", "reciprocal", "floor",
                                    "ceil", "round", "rint", "exp2", "logaddexp"}
_OPS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power, cst.Modulo)
_POSITIONS = ("nonzero", "where", "argwhere", "flatnonzero")
# computations that can be inf/NaN outside the mask (and so in the gradient)
_PARTIAL = {"log", "log1p", "log2", "log10", "sqrt", "reciprocal", "power"}

Leaf = tuple["_Mask", tuple[int, ...]]  # (the mask, the shape of the array it selects from)


@dataclass(frozen=True)
class _Mask:
    code: str  # the mask's code where it is used (the name a set of positions is bound to, once rebound)
    ndim: int


@dataclass
class _Plan:
    pairs: list[tuple[cst.CSTNode, object]] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)  # ids of expressions already followed
    reductions: list[str] = field(default_factory=list)
    masks: set[str] = field(default_factory=set)
    counts: int = 0
    partial: bool = False


def _paren(code: str) -> str:
    return code if code.replace("_", "").replace(".", "").isalnum() else f"({code})"


def _part_shape(ctx: Context, e: cst.CSTNode) -> tuple[int, ...] | None:
    """The shape of ``e`` from the failing frame, reading ``self.threshold``-like attributes too."""
    return _shape(ctx, e, attrs=True)


class _Selections:
    """The selections of one function and what their uses need; ``ok`` False once one use is not understood."""

    def __init__(self, ctx: Context, fn: cst.FunctionDef):
        self.ctx, self.fn = ctx, fn
        self.ok = True
        self.plan = _Plan()
        self.position_names: dict[str, tuple[str, _Mask]] = {}  # name -> (form, mask)
        self.masked_names: dict[str, Leaf] = {}  # name bound to a selection -> (mask, array shape)
        self.jnp = ctx.need("jax.numpy", "jnp")

    # ------------------------------------------------------------------ sets of positions

    def mask_of(self, e: cst.BaseExpression) -> _Mask | None:
        """The mask a boolean index or a positions argument is, with its number of dimensions."""
        ctx = self.ctx
        shape = _part_shape(ctx, e)
        stmt = ctx.statement()
        if shape is None and stmt is not None and _within(ctx, e, stmt):
            shape = _mask_shape(ctx)  # the failing mask's shape, from the message (its line only)
        if shape is None:
            return None
        code = ctx.code(e) if _is_mask(ctx, e) else f"{_paren(ctx.code(e))} != 0"
        return _Mask(code, len(shape))

    def positions(self, e: cst.CSTNode) -> tuple[str, _Mask] | None:
        """("tuple", mask) for ``jnp.nonzero(m)``-like sets (they index like ``m``), ("index", mask) for the
        positions along axis 0 of a 1-D mask; None when ``e`` is not a set of positions."""
        ctx = self.ctx
        if isinstance(e, cst.Name):
            return self.position_names.get(e.value)
        if isinstance(e, cst.Call):
            name = _jnp_name(ctx, e.func)
            pos = [a for a in e.args if a.keyword is None and not a.star]
            if len(e.args) == 1 and len(pos) == 1 and name in ("nonzero", "where", "flatnonzero"):
                mask = self.mask_of(pos[0].value)
                if mask is None:
                    return None
                if name == "flatnonzero":
                    return ("index", mask) if mask.ndim == 1 else None
                return "tuple", mask
            if isinstance(e.func, cst.Attribute) and e.func.attr.value == "nonzero" and not e.args \
                    and _is_mask(ctx, e.func.value):
                mask = self.mask_of(e.func.value)
                return ("tuple", mask) if mask is not None else None
            return None
        if isinstance(e, cst.Subscript):
            if len(e.slice) == 1 and _is_int(e.slice[0].slice, 0):
                inner = self.positions(e.value)
                return ("index", inner[1]) if inner and inner[0] == "tuple" and inner[1].ndim == 1 else None
            if len(e.slice) == 2 and _is_full_slice(e.slice[0].slice) and _is_int(e.slice[1].slice, 0) \
                    and isinstance(e.value, cst.Call) and _jnp_name(ctx, e.value.func) == "argwhere" \
                    and len(e.value.args) == 1 and e.value.args[0].keyword is None:
                mask = self.mask_of(e.value.args[0].value)
                return ("index", mask) if mask is not None and mask.ndim == 1 else None
        return None

    def outermost_positions(self, node: cst.CSTNode) -> cst.CSTNode:
        """``jnp.nonzero(m)`` -> ``jnp.nonzero(m)[0]``; ``jnp.argwhere(m)`` -> ``jnp.argwhere(m)[:, 0]``."""
        cur = node
        while True:
            p = self.ctx.parent(cur)
            if isinstance(p, cst.Subscript) and p.value is cur and self.positions(p) is not None:
                cur = p
                continue
            return cur

    # ------------------------------------------------------------------ selections and what reads them

    def selection(self, sub: cst.CSTNode) -> Leaf | None:
        """(mask, the array's shape) when ``sub`` is ``x[mask]`` or ``x[positions]``."""
        if not isinstance(sub, cst.Subscript) or len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return None
        if isinstance(sub.value, cst.Attribute) and sub.value.attr.value == "at":
            return None
        idx = sub.slice[0].slice.value
        base = _part_shape(self.ctx, sub.value)
        got = self.positions(idx)
        if got is not None:
            mask: _Mask | None = got[1]
        elif _is_mask(self.ctx, idx):
            mask = self.mask_of(idx)
        else:
            return None
        if mask is None or base is None or len(base) < mask.ndim:
            return None
        return mask, base

    def leaves(self, e: cst.BaseExpression) -> list[Leaf] | None:
        """The selections (or names bound to one) the element-wise expression ``e`` reads; None when a leaf
        is neither one nor a scalar."""
        ctx = self.ctx
        parts: list[cst.BaseExpression]
        if isinstance(e, cst.BinaryOperation):
            if not isinstance(e.operator, _OPS):
                return None
            parts = [e.left, e.right]
        elif isinstance(e, cst.UnaryOperation):
            parts = [e.expression]
        elif isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
            parts = [e.left, e.comparisons[0].comparator]
        elif isinstance(e, cst.Call) and _jnp_name(ctx, e.func) in _ELEMENTWISE_MORE and all(
                a.keyword is None and not a.star for a in e.args):
            parts = [a.value for a in e.args]
        else:
            got = self.selection(e)
            if got is not None:
                return [got]
            if isinstance(e, cst.Name) and e.value in self.masked_names:
                return [self.masked_names[e.value]]
            return [] if _part_shape(ctx, e) == () else None
        out: list[Leaf] = []
        for part in parts:
            more = self.leaves(part)
            if more is None:
                return None
            out += more
        return out

    def register(self) -> None:
        """Names bound once to an element-wise expression of selections (``p = pred[valid]``), found before
        their uses are followed (``jnp.mean((p - t) ** 2)`` reads two of them)."""
        ctx, changed = self.ctx, True
        while changed:
            changed = False
            for a in ctx.nodes(cst.Assign):
                assert isinstance(a, cst.Assign)
                if len(a.targets) != 1 or not isinstance(a.targets[0].target, cst.Name) or not _within(ctx, a, self.fn):
                    continue
                name = a.targets[0].target.value
                if name in self.masked_names or name in self.position_names:
                    continue
                got = self.leaves(a.value)
                if got and len(set(got)) == 1:
                    self.masked_names[name] = got[0]
                    changed = True

    def top(self, node: cst.CSTNode) -> cst.CSTNode:
        """The largest element-wise expression around ``node``."""
        cur = node
        while True:
            p = self.ctx.parent(cur)
            if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, _OPS) or isinstance(
                    p, cst.UnaryOperation) or isinstance(p, cst.Comparison) and len(p.comparisons) == 1:
                cur = p
                continue
            if isinstance(p, cst.Arg) and p.keyword is None:
                call = self.ctx.parent(p)
                if isinstance(call, cst.Call) and _jnp_name(self.ctx, call.func) in _ELEMENTWISE_MORE and all(
                        a.keyword is None and not a.star for a in call.args):
                    cur = call
                    continue
            return cur

    def follow(self, node: cst.CSTNode, leaf: Leaf) -> None:
        """Follow the selection (or a name bound to one) ``node`` to where its values end up."""
        ctx = self.ctx
        top = self.top(node)
        if id(top) in self.plan.seen:
            return
        got = self.leaves(top)  # type: ignore[arg-type]
        if got is None or any(g != leaf for g in got):
            self.ok = False
            return
        self.plan.seen.add(id(top))
        self.plan.partial |= _partial(ctx, top)
        p = ctx.parent(top)
        if self.count(top, p, leaf) or self.reduction(top, p, leaf):
            return
        if isinstance(p, cst.Assign) and p.value is top and len(p.targets) == 1 and isinstance(
                p.targets[0].target, cst.Name) and self.masked_names.get(p.targets[0].target.value) == leaf:
            self.bind(p, p.targets[0].target.value, leaf)
            return
        self.ok = False

    def count(self, top: cst.CSTNode, p: cst.CSTNode | None, leaf: Leaf) -> bool:
        """``x[mask].shape[0]`` / ``len(x[mask])`` (``.size`` when the mask covers every axis)."""
        mask, base = leaf
        node = _count_node(self.ctx, top, p, size_ok=len(base) == mask.ndim)
        if node is None or not isinstance(top, (cst.Subscript, cst.Name)):
            return False
        self.add_count(node, mask)
        return True

    def add_count(self, node: cst.CSTNode, mask: _Mask) -> None:
        jnp, _ = self.jnp
        self.plan.pairs.append((node, cst.parse_expression(f"{jnp}.count_nonzero({mask.code})")))
        self.plan.counts += 1

    def reduction(self, top: cst.CSTNode, p: cst.CSTNode | None, leaf: Leaf) -> bool:
        """``<top>.sum()`` / ``jnp.mean(<top>)`` (axis 0 at most): the reduction takes ``where=``."""
        ctx = self.ctx
        if isinstance(p, cst.Attribute) and p.value is top and p.attr.value in _REDUCTIONS:
            call, name = ctx.parent(p), p.attr.value
            if not isinstance(call, cst.Call) or call.func is not p:
                return False
            rest = list(call.args)
        elif isinstance(p, cst.Arg) and p.keyword is None and isinstance(ctx.parent(p), cst.Call):
            call = ctx.parent(p)
            assert isinstance(call, cst.Call)
            name = _jnp_name(ctx, call.func)
            if name not in _REDUCTIONS or call.args[0] is not p:
                return False
            rest = list(call.args[1:])
        else:
            return False
        mask, base = leaf
        if not _axis_ok(rest, mask):
            return False
        initial = ""
        if name in _EXTREMES:
            if not self.float_leaves(top):
                return False
            jnp, _ = self.jnp
            initial = f"-{jnp}.inf" if name in ("max", "amax") else f"{jnp}.inf"
        where = _where(mask, base)
        self.plan.pairs.append((call, lambda updated, w=where, i=initial: _with_where(updated, w, i)))
        self.plan.reductions.append(name)
        self.plan.masks.add(where)
        return True

    def float_leaves(self, top: cst.CSTNode) -> bool:
        subs = [s for s in _subscripts(top) if self.selection(s) is not None]
        return bool(subs) and all(_dtype_kind(self.ctx, s.value) == "f" for s in subs)

    def bind(self, assign: cst.Assign, name: str, leaf: Leaf) -> None:
        """``v = <selection>``: ``v`` keeps the full array; its later uses are followed in turn."""
        ctx, fn = self.ctx, self.fn
        if len(_body_assignments(fn, name)) != 1:
            self.ok = False
            return
        if any(_assigned_after(ctx, fn, n, assign) for n in _mask_names(leaf[0])):
            self.ok = False  # the mask is read again where ``v`` is reduced: it must not change in between
            return
        for use in _uses(ctx, fn, name):
            if ctx.span(use)[0] <= ctx.span(assign)[0]:
                self.ok = False
                return
            self.follow(use, leaf)


def _mask_names(mask: _Mask) -> set[str]:
    return set(_names_in(cst.parse_expression(mask.code)))


def _is_int(node: cst.BaseSlice, value: int) -> bool:
    return isinstance(node, cst.Index) and isinstance(node.value, cst.Integer) and node.value.evaluated_value == value


def _is_full_slice(node: cst.BaseSlice) -> bool:
    return isinstance(node, cst.Slice) and node.lower is None and node.upper is None and node.step is None


def _subscripts(node: cst.CSTNode) -> list[cst.Subscript]:
    out: list[cst.Subscript] = []

    class _V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> bool:
            out.append(n)
            return False

    node.visit(_V())
    return out


def _partial(ctx: Context, node: cst.CSTNode) -> bool:
    """Whether the element-wise expression divides or takes a log/sqrt/power (inf/NaN outside the mask)."""
    found = False

    class _V(cst.CSTVisitor):
        def visit_BinaryOperation(self, n: cst.BinaryOperation) -> None:
            nonlocal found
            found |= isinstance(n.operator, (cst.Divide, cst.Power, cst.Modulo))

        def visit_Call(self, n: cst.Call) -> None:
            nonlocal found
            found |= _jnp_name(ctx, n.func) in _PARTIAL

    node.visit(_V())
    return found


def _count_node(ctx: Context, top: cst.CSTNode, p: cst.CSTNode | None, size_ok: bool) -> cst.CSTNode | None:
    """The expression that reads the length of ``top``: ``top.shape[0]``, ``len(top)``, ``top.size``."""
    if isinstance(p, cst.Attribute) and p.value is top:
        if p.attr.value == "size" and size_ok:
            return p
        q = ctx.parent(p)
        if p.attr.value == "shape" and isinstance(q, cst.Subscript) and q.value is p and len(q.slice) == 1 \
                and _is_int(q.slice[0].slice, 0):
            return q
    if isinstance(p, cst.Arg) and isinstance(ctx.parent(p), cst.Call):
        call = ctx.parent(p)
        assert isinstance(call, cst.Call)
        if isinstance(call.func, cst.Name) and call.func.value == "len" and len(call.args) == 1 \
                and not ctx.bound("len"):
            return call
    return None


def _axis_ok(rest: list[cst.Arg], mask: _Mask) -> bool:
    """No arguments but the reduction's axis, and that one only as ``0`` with a 1-D mask."""
    for a in rest:
        if a.keyword is not None and a.keyword.value != "axis":
            return False
        if not (isinstance(a.value, cst.Integer) and a.value.evaluated_value == 0 and mask.ndim == 1):
            return False
    return len(rest) <= 1


def _where(mask: _Mask, base: tuple[int, ...]) -> str:
    if len(base) == mask.ndim:
        return mask.code
    idx = ", ".join([":"] * mask.ndim + ["None"] * (len(base) - mask.ndim))
    return f"{_paren(mask.code)}[{idx}]"


def _with_where(call: cst.Call, where: str, initial: str) -> cst.Call:
    kws = [f"where={where}"] + ([f"initial={initial}"] if initial else [])
    new = list(call.args) + list(cst.parse_expression(f"f({', '.join(kws)})").args)  # type: ignore[attr-defined]
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    new = [a.with_changes(comma=comma) for a in new[:-1]] + [new[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return call.with_changes(args=new)


def _uses(ctx: Context, fn: cst.FunctionDef, name: str) -> list[cst.Name]:
    """Where ``fn`` reads ``name`` (not where it binds it, not ``obj.name``, not ``f(name=...)``)."""
    return [n for n in ctx.nodes(cst.Name) if isinstance(n, cst.Name) and n.value == name and _within(ctx, n, fn)
            and not _binds(ctx, n) and not _attribute_name(ctx, n)]


def _binds(ctx: Context, n: cst.Name) -> bool:
    return any(isinstance(a, cst.AssignTarget) for a in ctx.ancestors(n))


def _attribute_name(ctx: Context, n: cst.Name) -> bool:
    p = ctx.parent(n)
    return isinstance(p, cst.Attribute) and p.attr is n or isinstance(p, cst.Arg) and p.keyword is n


def _assigned_after(ctx: Context, fn: cst.FunctionDef, name: str, stmt: cst.CSTNode) -> bool:
    line = ctx.span(stmt)[0]
    return any(ctx.span(b)[0] > line for b in _body_assignments(fn, name))


# ---------------------------------------------------------------------------------------------- the plan


def _position_definitions(sel: _Selections) -> bool:
    """Names bound to positions (``idx = jnp.argwhere(m)[:, 0]``, ``(ids,) = jnp.nonzero(m)``): each is
    rebound to its mask. False when one is bound twice or through a pattern not understood."""
    ctx, fn = sel.ctx, sel.fn
    for a in ctx.nodes(cst.Assign):
        assert isinstance(a, cst.Assign)
        if not _within(ctx, a, fn) or ctx.enclosing(a, cst.FunctionDef) is not fn:
            continue
        got = sel.positions(a.value)
        if got is None:
            continue
        form, mask = got
        if len(a.targets) != 1:
            return False
        t = a.targets[0].target
        if isinstance(t, cst.Tuple) and len(t.elements) == 1 and isinstance(t.elements[0].value, cst.Name) \
                and form == "tuple" and mask.ndim == 1:
            name, form = t.elements[0].value.value, "index"
        elif isinstance(t, cst.Name):
            name = t.value
        else:
            return False
        if len(_body_assignments(fn, name)) != 1 or any(_assigned_after(ctx, fn, n, a) for n in _mask_names(mask)):
            return False
        sel.position_names[name] = (form, _Mask(name, mask.ndim))
        sel.plan.pairs.append((a, a.with_changes(targets=[cst.AssignTarget(cst.Name(name))],
                                                 value=cst.parse_expression(mask.code))))
    return True


def _position_uses(sel: _Selections) -> None:
    """Every set of positions in the function (a bound name's uses, an inline ``jnp.nonzero(m)``) indexes
    an array or is counted; the selections it makes are followed with the others."""
    ctx, fn = sel.ctx, sel.fn
    starts: list[cst.CSTNode] = [n for name in sorted(sel.position_names) for n in _uses(ctx, fn, name)]
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if not _within(ctx, c, fn) or _jnp_name(ctx, c.func) not in _POSITIONS:
            continue
        if any(a.keyword is not None for a in c.args) or len(c.args) != 1:
            continue  # sized (static), or the three-argument where
        if not any(isinstance(x, cst.Assign) and sel.positions(x.value) is not None for x in ctx.ancestors(c)):
            starts.append(c)
    for s in starts:
        top = sel.outermost_positions(s)
        got = sel.positions(top)
        if got is None:
            sel.ok = False  # positions returned, passed on, or a form not understood
            return
        form, mask = got
        p = ctx.parent(top)
        count = _count_node(ctx, top, p, size_ok=True) if form == "index" else None
        if count is not None:
            sel.add_count(count, mask)
            continue
        sub = ctx.parent(p) if isinstance(p, cst.Index) else None
        sub = ctx.parent(sub) if isinstance(sub, cst.SubscriptElement) else None
        if not (isinstance(sub, cst.Subscript) and sel.selection(sub) is not None):
            sel.ok = False
            return


def plan_selections(ctx: Context) -> Edit | None:
    """The whole-function rewrite of the failing function's selections, or None."""
    stmt = ctx.statement()
    fn = ctx.enclosing(stmt, cst.FunctionDef) if stmt is not None else None
    if not isinstance(fn, cst.FunctionDef):
        return None
    sel = _Selections(ctx, fn)
    if not _position_definitions(sel):
        return None
    _position_uses(sel)
    if not sel.ok:
        return None
    sel.register()
    found = 0
    for s in ctx.nodes(cst.Subscript):
        got = sel.selection(s) if _within(ctx, s, fn) else None
        if got is None:
            continue
        assert isinstance(s, cst.Subscript)
        found += 1
        base = s.value
        sel.plan.pairs.append((s, base.with_changes(lpar=s.lpar, rpar=s.rpar) if s.lpar else base))
        sel.follow(s, got)
        if not sel.ok:
            return None
    if not (found or sel.plan.counts):
        return None
    return _edit(ctx, sel)


def _edit(ctx: Context, sel: _Selections) -> Edit:
    plan = sel.plan
    jnp, imp = sel.jnp
    parts = []
    if plan.reductions:
        masks = ", ".join(f"`where={m}`" for m in sorted(plan.masks))
        parts.append(f"the reductions read only the selected entries ({masks})")
    if plan.counts:
        parts.append(f"a count of the selection is `{jnp}.count_nonzero(...)`, a traced integer")
    note = "the arrays keep their full shape instead of being gathered by a data-dependent index: " + "; ".join(
        parts)
    if _EXTREMES & set(plan.reductions):
        note += "; an empty selection gives -inf/inf instead of an error"
    if plan.partial:
        note += ("; the entries outside the mask are still computed (a division, log or power there may be "
                 "inf/NaN: the value is unaffected, but under grad mask them first with `jnp.where`)")
    uses_jnp = plan.counts or _EXTREMES & set(plan.reductions)  # count_nonzero, initial=-jnp.inf
    return Edit(ctx.replace_many(plan.pairs, [imp] if uses_jnp else []), "review", note + ".")


@rule("selection-where")
def selection_where(ctx: Context) -> Edit | None:
    """``jnp.nonzero``/``where``/``argwhere`` positions used to index and count (see the module docstring)."""
    return plan_selections(ctx)
