"""``vmap`` ``in_axes`` of the wrong length or of a structure that does not match the arguments."""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import positional_args
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.transforms.common import (
    _navigate_literal,
    _path,
)
from jaxerrs.rewrite.rules.transforms.vmap import (
    _arg_values,
    _axes_code,
    _axes_value,
    _batch_size,
    _broadcast_entry,
    _entries,
    _fn_params,
    _set_in_axes,
    _Vmap,
    _vmapped_call,
)
from jaxerrs.rewrite.values import MISSING, live_value

_LEN = re.compile(r"len\(in_axes\)=(\d+), len\(args\)=(\d+)")


@rule("vmap-in-axes")
def vmap_in_axes(ctx: Context) -> Edit | None:
    """``in_axes`` that does not line up with the call's arguments.

    Keyword arguments that ``in_axes`` counts as positional are passed positionally (safe); a single
    tuple argument gets its axes wrapped as one entry, ``((0, None),)``; extra arguments are given
    ``None`` when the live values show they lack the batch axis (review); a list in ``in_axes`` where the
    argument is a tuple becomes a tuple (safe); a dict missing keys of the argument gets them; a container
    whose entries all say the same, written for an argument of another container type, becomes that one
    value (safe with one entry per child of the argument, see ``_uniform_entry``).

    Why the safe ones compute what ``in_axes`` says (one call of the function per example, the entry's
    axis sliced, a ``None`` entry shared): passing ``w=w`` as the parameter's own position binds the same
    value to the same parameter (checked: the keywords are exactly the signature's parameters after the
    positional ones, none keyword-only; their values are simple, or already in signature order, so
    nothing is evaluated in another order), and ``in_axes`` then reaches it as written; wrapping the
    entries of a single tuple argument, or writing an entry in the container type of the argument it
    describes, changes how ``in_axes`` is read, not what it says (checked: the live argument is a tuple
    of that length, the function takes one parameter; the message names the list/tuple mismatch).
    """
    found = _vmapped_call(ctx)
    if found is None:
        return None
    call, vm = found
    axes = _axes_value(vm.in_axes.value if vm.in_axes is not None else None)
    if axes is MISSING:
        return None
    mm = _LEN.search(ctx.message)
    if mm:
        return _in_axes_length(ctx, call, vm, axes, int(mm.group(1)), int(mm.group(2)))
    if "tree prefix" in ctx.message:
        return _in_axes_prefix(ctx, call, vm)
    return None


def _in_axes_length(ctx: Context, call: cst.Call, vm: _Vmap, axes: Any, n: int, m: int) -> Edit | None:
    if not isinstance(axes, (tuple, list)) or len(axes) != n:
        return None
    positional = positional_args(call)
    if positional is None or len(positional) != m:
        return None
    keywords = [a for a in call.args if a.keyword is not None]
    params = _fn_params(vm.cell(ctx), vm.fn)
    if keywords:  # f(x, w=w) with in_axes=(0, None): pass them positionally, in the signature's order
        if params is None or m + len(keywords) != n or len(params) < n:
            return None
        by_name = {a.keyword.value: a for a in keywords if a.keyword is not None}
        if set(by_name) != set(params[m:n]):
            return None
        ordered = [cst.Arg(by_name[p].value) for p in params[m:n]]
        in_order = [a.keyword.value for a in keywords if a.keyword is not None] == list(params[m:n])
        simple = all(isinstance(v, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString)) or isinstance(
            v, cst.UnaryOperation) and isinstance(v.expression, (cst.Integer, cst.Float)) for v in (a.value for a in keywords))
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in positional]
        args += [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in ordered[:-1]]
        args.append(ordered[-1])
        new_call = call.with_changes(args=args)
        names = ", ".join(f"`{p}`" for p in params[m:n])
        one = len(keywords) == 1
        what = (f"{names} {'is' if one else 'are'} now passed positionally, so `in_axes` applies to "
                f"{'it' if one else 'them'} as written (vmap maps keyword arguments over axis 0)")
        if not (in_order or simple):
            return Edit(ctx.replace(call, new_call), "review",
                        what + "; check nothing depends on the order the arguments are evaluated in.")
        return Edit(ctx.replace(call, new_call), "safe", what + ".")
    values = _arg_values(ctx, positional)
    bound = _bound_entries(vm.cell(ctx), vm, n, m)
    if bound is not None:  # entries written for parameters a bound method or a partial already fills
        if not all(axes[i] is None for i in bound):
            return None
        new_axes = tuple(e for i, e in enumerate(axes) if i not in bound)
        return Edit(_set_in_axes(ctx, vm, new_axes), "review",
                    f"`in_axes` is `{_axes_code(new_axes)}`{vm.where()}: the `None` written for "
                    f"{', '.join(f'`{p}`' for p in bound.values())} is dropped, since "
                    f"`{ctx.code(vm.fn) if isinstance(vm.fn, cst.BaseExpression) else 'the function'}` already "
                    "has it bound (vmap counts only the arguments it is called with).", where=vm.home)
    if m == 1 and n > 1:  # one tuple argument: the axes describe its elements
        v = values[0] if values is not None else MISSING
        if not (isinstance(v, (tuple, list)) and len(v) == n) or params is None or len(params) != 1:
            return None
        new_axes = (tuple(axes) if isinstance(v, tuple) else list(axes),)
        source = _set_in_axes(ctx, vm, new_axes)
        return Edit(source, "safe", f"`in_axes` is wrapped as `{_axes_code(new_axes)}`{vm.where()}: its entries "
                    f"describe the elements of the single argument `{ctx.code(positional[0].value)}`, and in_axes "
                    "needs one entry per positional argument.", where=vm.home)
    if m > n and values is not None:  # extra trailing arguments: broadcast those without the batch axis
        entries = list(axes)
        size = _batch_size(values[:n], entries)
        ints = {e for e in entries if isinstance(e, int)}
        if size is None or len(ints) != 1:
            return None
        axis = ints.pop()
        extra = [_broadcast_entry(v, size, axis) for v in values[n:]]
        if any(e is MISSING for e in extra):
            return None
        new_axes = tuple(entries + extra)
        source = _set_in_axes(ctx, vm, new_axes)
        names = ", ".join(f"`{ctx.code(a.value)}` -> {e}" for a, e in zip(positional[n:], extra, strict=True))
        return Edit(source, "review",
                    f"`in_axes` gets one entry per argument, `{_axes_code(new_axes)}` ({names}, judged from their "
                    f"shapes){vm.where()}; check which arguments are batched and which are shared.", where=vm.home)
    return None


def _in_axes_prefix(ctx: Context, call: cst.Call, vm: _Vmap) -> Edit | None:
    mm = re.search(r"key path\s+vmap in_axes((?:\[[^\]]+\])+)", ctx.message)
    path = _path(mm.group(1)) if mm else None
    if path is None or vm.in_axes is None:
        return None
    node = _navigate_literal(vm.in_axes.value, path)
    if node is None:
        return None
    types = re.search(r"prefix pytree vmap in_axes has a subtree of type\s+<class '(\w+)'>.*?full pytree has a "
                      r"subtree of different type\s+<class '(\w+)'>", ctx.message, re.S)
    if types and {types.group(1), types.group(2)} == {"list", "tuple"}:
        if isinstance(node, cst.List) and types.group(2) == "tuple":
            elements = list(node.elements)
            if len(elements) == 1:
                elements[0] = elements[0].with_changes(comma=cst.Comma())
            new: cst.BaseExpression = cst.Tuple(elements=elements, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        elif isinstance(node, cst.Tuple) and types.group(2) == "list":
            new = cst.List(elements=list(node.elements))
        else:
            return None
        cell = vm.cell(ctx)
        return Edit(cell.replace(node, new), "safe",
                    f"The `in_axes` entry `{cell.code(node)}` is written as a {types.group(2)}, the container type "
                    f"of the argument it describes{vm.where()} (pytree prefixes must match container types).",
                    where=vm.home)
    if types and types.group(1) in ("tuple", "list", "dict") and types.group(1) != types.group(2):
        return _uniform_entry(ctx, call, vm, node, path, types.group(2))
    keys = re.search(r"with \d+ child keys\s+(.*?)\s+but at the same key path the full pytree has a subtree of the "
                     r"same type but with \d+ child keys", ctx.message, re.S)
    lengths = re.search(r"subtree of type (?:tuple|list) of length \d+, but the full pytree has a subtree of the same "
                        r"type but of length \d+", ctx.message)
    if (keys and isinstance(node, cst.Dict)) or (lengths and isinstance(node, (cst.Tuple, cst.List))):
        return _pad_axes(ctx, call, vm, node, path)
    return None


def _uniform_entry(ctx: Context, call: cst.Call, vm: _Vmap, node: cst.BaseExpression, path: list[Any],
                   full: str) -> Edit | None:
    """An ``in_axes`` container written for an argument of another container type (a tuple of ``None`` for a
    dict of parameters) whose entries all say the same (every one ``None``, or every one the same axis): the
    entry becomes that one value, which ``in_axes`` applies to every leaf of the argument.

    Safe when the container has one entry per child of the argument (the live value at the key path): each
    child then gets exactly the axis written for it, in whatever order the entries were meant. With another
    count, the children the entries did not name get the same axis too: review.
    """
    axes = _axes_value(node)
    leaves = _leaves(axes)
    if leaves is None or not leaves or len(set(map(repr, leaves))) != 1:
        return None
    value = leaves[0]
    if value is not None and not isinstance(value, int):
        return None
    v = _argument_at(ctx, call, path)
    if v is MISSING or type(v).__name__ != full or not isinstance(v, (dict, list, tuple)):
        return None
    cell = vm.cell(ctx)
    same = isinstance(axes, (tuple, list, dict)) and len(axes) == len(v) and len(leaves) == len(axes)
    what = "shared, not mapped" if value is None else f"mapped over axis {value}"
    summary = (f"The `in_axes` entry `{cell.code(node)}`, a {type(axes).__name__} where the argument is a {full}, "
               f"is written `{value!r}`{vm.where()}: one entry applies to every leaf, so every part of the {full} "
               f"is {what}, as each entry said")
    if same:
        return Edit(cell.replace(node, cst.parse_expression(repr(value))), "safe", summary + ".", where=vm.home)
    return Edit(cell.replace(node, cst.parse_expression(repr(value))), "review",
                summary + f"; the {full} has {len(v)} entries where {len(leaves)} were written: check that all of "
                "them are meant to be treated alike.", where=vm.home)


def _argument_at(ctx: Context, call: cst.Call, path: list[Any]) -> Any:
    """The live value of the call's argument at an ``in_axes`` key path (``[0, 'w']``), or MISSING."""
    positional = positional_args(call)
    if positional is None or not path or not isinstance(path[0], int) or path[0] >= len(positional):
        return MISSING
    v = live_value(ctx, positional[path[0]].value, numbers=True)
    for key in path[1:]:
        v = v[key] if isinstance(v, (dict, list, tuple)) and v is not MISSING else MISSING
    return v


def _leaves(axes: Any) -> list[Any] | None:
    """The leaves of an ``in_axes`` value (``None`` kept as a leaf), or None when one is not ``None`` or an int."""
    import jax

    out = jax.tree.leaves(axes, is_leaf=lambda x: x is None)
    return out if all(x is None or type(x) is int for x in out) else None


def _pad_axes(ctx: Context, call: cst.Call, vm: _Vmap, node: cst.Dict | cst.Tuple | cst.List,
              path: list[Any]) -> Edit | None:
    """A dict in ``in_axes`` missing keys of its argument, or a tuple shorter than it: each missing entry is
    mapped when its value has the batch size along the others' axis, else None (judged from live values)."""
    positional = positional_args(call)
    v = _argument_at(ctx, call, path)
    if positional is None or v is MISSING:
        return None
    axes = _axes_value(node)
    if isinstance(node, cst.Dict):
        if not isinstance(v, dict) or not isinstance(axes, dict) or any(not isinstance(k, str) for k in v):
            return None
        if not set(axes) < set(v):
            return None
        keys: list[Any] = list(axes)
        missing: list[Any] = [k for k in v if k not in axes]
    else:
        if not isinstance(v, (tuple, list)) or not isinstance(axes, (tuple, list)) or len(axes) >= len(v):
            return None
        keys, missing = list(range(len(axes))), list(range(len(axes), len(v)))
    given = [axes[k] for k in keys]
    if any(e is not None and not isinstance(e, int) for e in given):
        return None
    # the batch: the mapped leaves of this entry and of the other arguments
    mapped = [(v[k], axes[k]) for k in keys if isinstance(axes[k], int)]
    top = _entries(_axes_value(vm.in_axes.value if vm.in_axes is not None else None), len(positional))
    for i, e in enumerate(top or []):
        other = live_value(ctx, positional[i].value, numbers=True) if i != path[0] and isinstance(e, int) else MISSING
        if other is not MISSING:
            mapped.append((other, e))
    ints = {e for _, e in mapped}
    size = _batch_size([p[0] for p in mapped], [p[1] for p in mapped]) if len(ints) == 1 else None
    if size is None:
        return None
    axis = ints.pop()
    added = {}
    for k in missing:
        e = _broadcast_entry(v[k], size, axis)
        if e is MISSING:
            return None
        added[k] = e
    elements = list(node.elements)
    if elements and not isinstance(elements[-1].comma, cst.Comma):
        elements[-1] = elements[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    elif elements and len(elements) == 1 and isinstance(node, cst.Tuple):
        elements[-1] = elements[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if isinstance(node, cst.Dict):
        quote = '"' if any(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                           and e.key.value.startswith('"') for e in elements) else "'"
        new_els: list[Any] = [cst.DictElement(cst.parse_expression(f"{quote}{k}{quote}"),
                                              cst.parse_expression(repr(e)), comma=comma) for k, e in added.items()]
        desc = ", ".join(f"`{k}`: {e}" for k, e in added.items())
    else:
        new_els = [cst.Element(cst.parse_expression(repr(e)), comma=comma) for e in added.values()]
        desc = ", ".join(f"element {k}: {e}" for k, e in added.items())
    new_els[-1] = new_els[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new = node.with_changes(elements=elements + new_els)
    what = "dict" if isinstance(node, cst.Dict) else "tuple"
    return Edit(vm.cell(ctx).replace(node, new), "review",
                f"The `in_axes` {what} gets the entries it lacked ({desc}, judged from their shapes: batched "
                f"entries map, others are shared){vm.where()}; check those entries.", where=vm.home)


def _bound_entries(ctx: Context, vm: _Vmap, n: int, m: int) -> dict[int, str] | None:
    """For ``in_axes`` of ``n`` entries and a call with ``m`` arguments, where the vmapped function is a bound
    method (``self`` filled) or a ``functools.partial`` (its arguments filled): the positions of the
    underlying function's parameters that are filled -> their names, when there are exactly ``n - m``, they
    are among its first ``n`` parameters, and what is left lines up with the call; else None."""
    import functools
    import inspect

    if n <= m or not isinstance(vm.fn, cst.BaseExpression):
        return None
    f = live_value(ctx, vm.fn, attrs="instance-or-module")
    if f is MISSING and isinstance(vm.fn, cst.Attribute):  # obj.method: read from the class, running nothing
        obj = live_value(ctx, vm.fn.value, attrs="instance-or-module")
        try:
            raw = inspect.getattr_static(obj, vm.fn.attr.value) if obj is not MISSING else None
        except AttributeError:
            raw = None
        if inspect.isfunction(raw) and not inspect.isclass(obj) and not inspect.ismodule(obj):
            f = raw.__get__(obj)  # the bound method, as `obj.method` gives it
    if f is MISSING:
        return None
    if isinstance(f, functools.partial):
        inner = f.func
        try:
            names = list(inspect.signature(inner).parameters)
        except (TypeError, ValueError):
            return None
        if inspect.ismethod(inner):
            return None
        filled = set(names[:len(f.args)]) | set(f.keywords or {})
    elif inspect.ismethod(f):
        try:
            names = list(inspect.signature(f.__func__).parameters)
        except (TypeError, ValueError):
            return None
        filled = set(names[:1])
    else:
        return None
    out = {i: p for i, p in enumerate(names[:n]) if p in filled}
    return out if len(out) == n - m and len(names) >= n else None
