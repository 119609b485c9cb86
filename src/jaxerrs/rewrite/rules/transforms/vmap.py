"""``vmap``: where a function is vmapped and with which ``in_axes``; arguments that should be broadcast."""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import defining_context, function_of, lookup, shape_of
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import keyword_arg, positional_args
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.transforms.common import (
    _KNOWN,
    _append_arg,
    _arg,
    _assigned,
    _code,
    _params,
    _shape,
)
from jaxerrs.rewrite.values import MISSING, live_value

# ---------------------------------------------------------------------------------------------- vmap


class _Vmap:
    """Where a vmapped function's ``in_axes`` is written: ``vmap(f, in_axes=...)`` or a decorator."""

    def __init__(self, node: cst.Call | cst.Decorator, fn: cst.BaseExpression | cst.FunctionDef | None,
                 in_axes: cst.Arg | None) -> None:
        self.node = node  # the vmap(...) / partial(vmap, ...) call, or a bare @jax.vmap decorator
        self.fn = fn  # the mapped function
        self.in_axes = in_axes
        self.home: Context | None = None  # the context of the earlier cell it is written in; None: this cell

    def cell(self, ctx: Context) -> Context:
        """The context its nodes belong to."""
        return self.home or ctx

    def where(self) -> str:
        """' (in Cell In[3], where the vmap is written)' for a vmap of an earlier cell, else ''."""
        return f" (in {self.home.label}, where the vmap is written)" if self.home is not None else ""


def _vmap_of(ctx: Context, expr: cst.BaseExpression, depth: int = 0) -> _Vmap | None:
    """The vmap that ``expr`` (the function a call calls) is, following names bound in the cell."""
    if isinstance(expr, cst.Call):
        full = full_name(ctx, expr.func, known=_KNOWN, keep=True)
        if full == "jax.vmap":
            f = _arg(expr, 0, "fun")
            return _Vmap(expr, f.value if f else None, _arg(expr, 1, "in_axes"))
        if full == "jax.jit":  # jax.jit(jax.vmap(...))
            f = _arg(expr, 0, "fun")
            return _vmap_of(ctx, f.value, depth + 1) if f is not None and depth < 3 else None
        return None
    if isinstance(expr, cst.Name) and depth < 3:
        value = _assigned(ctx, expr.value)
        if value is not None:
            return _vmap_of(ctx, value, depth + 1)
        fn = ctx.function_named(expr.value)
        if fn is None:
            return _vmap_elsewhere(ctx, expr) if depth == 0 else None
        found = []
        for dec in fn.decorators:
            d = dec.decorator
            if full_name(ctx, d, known=_KNOWN, keep=True) == "jax.vmap":
                found.append(_Vmap(dec, fn, None))
            elif isinstance(d, cst.Call) and full_name(ctx, d.func, known=_KNOWN, keep=True) == "functools.partial":
                pos = positional_args(d)
                if pos and full_name(ctx, pos[0].value, known=_KNOWN, keep=True) == "jax.vmap":
                    found.append(_Vmap(d, fn, _arg(d, 1, "in_axes")))
        return found[0] if len(found) == 1 else None
    return None


def _vmap_elsewhere(ctx: Context, name: cst.Name) -> _Vmap | None:
    """The vmap an earlier cell wrote (``per_example = jax.vmap(loss, ...)``, ``@partial(jax.vmap, ...)``)
    for a name this cell calls: found in the cell that defines the mapped function."""
    value = lookup(ctx, name.value)
    if value is MISSING or not callable(value):
        return None
    other = defining_context(ctx, value)
    if other is None:
        return None
    vm = _vmap_of(other, cst.Name(name.value), depth=1)
    if vm is not None:
        vm.home = other
    return vm


def _vmapped_call(ctx: Context) -> tuple[cst.Call, _Vmap] | None:
    """The call on the failing line of a vmapped function, and its vmap."""
    hits = []
    for c in ctx.at_line(cst.Call):
        if isinstance(c, cst.Call):
            vm = _vmap_of(ctx, c.func)
            if vm is not None:
                hits.append((c, vm))
    if not hits:
        return None
    fn = hits[0][1].fn
    if isinstance(fn, cst.Call) and _vmap_of(ctx, fn) is not None:
        return None  # vmap of a vmap: which of the two failed is not known
    return hits[0]


def _fn_params(ctx: Context, fn: cst.BaseExpression | cst.FunctionDef | None) -> list[str] | None:
    """Positional parameter names of the mapped function (a def or lambda of the cell, or a live function)."""
    if fn is None:
        return None
    if isinstance(fn, cst.FunctionDef):
        return _params(fn)
    if isinstance(fn, cst.Lambda):
        return _params(fn)
    if isinstance(fn, cst.Name):
        d = ctx.function_named(fn.value)
        if d is not None:
            return _params(d)
    callee = function_of(ctx, fn)  # a method (`self.apply`), a module instance, a partial, a nested def
    if callee is not None:
        return callee.params
    v = live_value(ctx, fn, numbers=True)
    if v is MISSING or not callable(v):
        return None
    import inspect

    try:
        sig = inspect.signature(v)
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
        return None
    return [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _axes_value(node: cst.BaseExpression | None) -> Any:
    """The Python value of an ``in_axes`` literal (ints, None, tuples, lists, dicts) or MISSING."""
    if node is None:
        return 0
    try:
        return ast.literal_eval(_code(node))
    except (ValueError, SyntaxError):
        return MISSING


def _axes_code(value: Any) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(_axes_code(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_axes_code(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_axes_code(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _set_in_axes(ctx: Context, vm: _Vmap, value: Any) -> str:
    """The cell with the vmap's ``in_axes`` set to ``value`` (added where it was not written)."""
    ctx = vm.cell(ctx)
    new_val = cst.parse_expression(_axes_code(value))
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    if vm.in_axes is not None:
        pairs.append((vm.in_axes.value, new_val))
    elif isinstance(vm.node, cst.Call):
        pairs.append((vm.node, _append_arg(vm.node, keyword_arg("in_axes", new_val))))
    else:  # bare @jax.vmap decorator -> @partial(jax.vmap, in_axes=...)
        partial, imp = ctx.need("functools.partial", "partial")
        imports.append(imp)
        dec = vm.node
        assert isinstance(dec, cst.Decorator)
        call = cst.Call(func=cst.parse_expression(partial),
                        args=[cst.Arg(dec.decorator, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                              keyword_arg("in_axes", new_val)])
        pairs.append((dec, dec.with_changes(decorator=call)))
    return ctx.replace_many(pairs, imports=imports)


def _leaves(v: Any) -> list[Any] | None:
    """Array leaves of a small pytree of dicts/lists/tuples (None when it holds anything else)."""
    if isinstance(v, dict):
        out: list[Any] = []
        for x in v.values():
            sub = _leaves(x)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            sub = _leaves(x)
            if sub is None:
                return None
            out.extend(sub)
        return out
    return [v] if _shape(v) is not None else None


class _Shaped:
    """An argument known by its shape only (``jnp.zeros(2)`` written in the call: see ``analysis.shape_of``)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape


def _arg_values(ctx: Context, args: list[cst.Arg]) -> list[Any] | None:
    out = []
    for a in args:
        v = live_value(ctx, a.value, numbers=True)
        if v is MISSING:
            shape = shape_of(ctx, a.value)
            v = _Shaped(shape) if shape is not None else MISSING
        out.append(v)
    return None if any(v is MISSING for v in out) else out


def _entries(axes: Any, n: int) -> list[Any] | None:
    if isinstance(axes, (list, tuple)):
        return list(axes) if len(axes) == n else None
    if axes is None or isinstance(axes, int):
        return [axes] * n
    return None


def _batch_size(values: list[Any], entries: list[Any]) -> int | None:
    """The one size every mapped argument has along its axis (None if they disagree or none is mapped)."""
    sizes = set()
    for v, ax in zip(values, entries, strict=True):
        if ax is None:
            continue
        if not isinstance(ax, int):
            return None
        leaves = _leaves(v)
        if leaves is None:
            return None
        for leaf in leaves:
            s = _shape(leaf)
            if s is None or not -len(s) <= ax < len(s):
                return None
            sizes.add(s[ax])
    return sizes.pop() if len(sizes) == 1 else None


def _broadcast_entry(v: Any, size: int, axis: int) -> Any:
    """The ``in_axes`` entry an extra argument needs: None if no leaf has the batch size along ``axis``,
    ``axis`` if all do, MISSING when mixed or unknown."""
    leaves = _leaves(v)
    if leaves is None:
        return MISSING
    if not leaves:
        return None
    hits = []
    for leaf in leaves:
        s = _shape(leaf)
        if s is None:
            return MISSING
        hits.append(len(s) > axis and s[axis] == size)
    if not any(hits):
        return None
    return axis if all(hits) else MISSING


@rule("vmap-broadcast-arg")
def vmap_broadcast_arg(ctx: Context) -> Edit | None:
    """The mapped argument whose axis size differs from the others and which looks shared (its size is
    one of the batched arguments' per-example sizes, as a weight vector or matrix) gets ``in_axes`` None."""
    found = _vmapped_call(ctx)
    if found is None:
        return None
    call, vm = found
    positional = positional_args(call)
    if positional is None or len(positional) != len(call.args) or len(positional) < 2:
        return None
    axes = _axes_value(vm.in_axes.value if vm.in_axes is not None else None)
    entries = _entries(axes, len(positional)) if axes is not MISSING else None
    values = _arg_values(ctx, positional)
    if entries is None or values is None:
        return None
    # the sizes each argument's leaves are mapped with; an argument whose leaves disagree cannot be mapped
    leaf_sizes: dict[int, set[int]] = {}
    per_example: dict[int, list[tuple[int, ...]]] = {}
    for i, (v, ax) in enumerate(zip(values, entries, strict=True)):
        if ax is None:
            continue
        if not isinstance(ax, int):
            return None
        leaves = _leaves(v)
        if not leaves:
            return None
        leaf_sizes[i], per_example[i] = set(), []
        for leaf in leaves:
            s = _shape(leaf)
            if s is None or not -len(s) <= ax < len(s):
                return None
            leaf_sizes[i].add(s[ax])
            per_example[i].append(s[:ax] + s[ax + 1:] if ax >= 0 else s)
    groups: dict[int, list[int]] = {}
    for i, sz in leaf_sizes.items():
        if len(sz) == 1:
            groups.setdefault(next(iter(sz)), []).append(i)
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    if not ranked:
        return None
    top = len(ranked[0][1])
    # the batch size: the one most arguments share; on a tie, the group whose examples use the others' sizes
    candidates = [size for size, idx in ranked if len(idx) == top]
    choices = []
    for batch in candidates:
        odd = [i for i, sz in leaf_sizes.items() if sz != {batch}]
        if odd and all(batch not in leaf_sizes[i] for i in odd) and all(
                _looks_shared(i, odd, per_example, leaf_sizes, values, groups[batch]) for i in odd):
            choices.append((batch, odd))
    if len(choices) != 1:
        return None
    batch, odd = choices[0]
    new_entries = [None if i in odd else e for i, e in enumerate(entries)]
    new_axes = tuple(new_entries)
    source = _set_in_axes(ctx, vm, new_axes)
    names = ", ".join(f"`{ctx.code(positional[i].value)}`" for i in odd)
    return Edit(source, "review",
                f"{names} {'is' if len(odd) == 1 else 'are'} no longer mapped (`in_axes={_axes_code(new_axes)}`"
                f"{vm.where()}): "
                f"{'its' if len(odd) == 1 else 'their'} size does not match the batch of {batch}, so "
                f"{'it is' if len(odd) == 1 else 'they are'} taken as shared by every example; check that "
                f"{'it is' if len(odd) == 1 else 'they are'} not a batch sliced to another length.", where=vm.home)


def _looks_shared(i: int, odd: list[int], per_example: dict[int, list[tuple[int, ...]]],
                  leaf_sizes: dict[int, set[int]], values: list[Any], batch_args: list[int]) -> bool:
    """Whether odd argument ``i`` looks like a shared parameter rather than a data batch: each size it is
    mapped with is a feature size of a batched argument's examples (a weight vector or matrix), or a
    dimension of another odd leaf that is one (a bias next to its weight matrix)."""

    def feature(sz: int) -> bool:
        return any(sz in dims for j in batch_args for dims in per_example[j])

    shared_dims = {d for j in odd if j != i for leaf in _leaves(values[j]) or [] for d in (_shape(leaf) or ())
                   if any(feature(x) for x in (_shape(leaf) or ()))}  # another odd leaf's: never its own
    return all(feature(sz) or sz in shared_dims for sz in leaf_sizes[i])
