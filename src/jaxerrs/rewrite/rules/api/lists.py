"""Python lists, list indexes and ``None`` where JAX wants arrays."""

from __future__ import annotations

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.rules.api.helpers import _arg, _calls_on_line, _expr, _module_ref, _wrap
from jaxerrs.rewrite.values import live_value

# ---------------------------------------------------------------------------------------------- lists into jnp

# functions that take Python sequences on purpose (constructors, shapes, axes): never the culprit
_SEQ_OK = {"array", "asarray", "stack", "concatenate", "hstack", "vstack", "dstack", "column_stack", "block",
           "zeros", "ones", "full", "empty", "reshape", "transpose", "tile", "pad", "broadcast_to", "expand_dims",
           "moveaxis", "squeeze", "einsum", "meshgrid", "ix_", "select", "piecewise", "unravel_index", "concat",
           "broadcast_shapes", "ravel_multi_index", "lexsort", "shape", "ndim", "size", "result_type", "fromiter",
           "promote_types", "can_cast", "frombuffer"}
# functions whose positional arguments are all array operands: every list among them gets converted
_ELEMENTWISE = {"add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "maximum",
                "minimum", "where", "dot", "matmul", "inner", "outer", "vdot", "allclose", "isclose", "equal",
                "not_equal", "less", "less_equal", "greater", "greater_equal", "arctan2", "hypot", "clip",
                "logaddexp", "fmax", "fmin", "mod", "remainder", "kron", "cross", "convolve", "correlate",
                "interp", "polyval", "logical_and", "logical_or", "logical_xor", "copysign", "heaviside"}


def _is_sequence(ctx: Context, node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("list", "tuple") \
            and not ctx.bound(node.func.value):
        return True
    return isinstance(live_value(ctx, node, attrs="getattr", scoped=True), (list, tuple))


def _sequence_operands(ctx: Context, calls: list[cst.Call]) -> list[cst.Arg]:
    """The lists among ``calls``' array operands (the first positional argument of a ``jax.numpy`` function
    that does not take sequences on purpose; every positional one of an element-wise function): each one
    raises the same error."""
    out: list[cst.Arg] = []
    for c in calls:
        if not full_name(ctx, c.func).startswith("jax.numpy."):
            continue
        name = full_name(ctx, c.func).rsplit(".", 1)[-1]
        pos_args = [a for a in c.args if a.keyword is None and not a.star]
        if name in _ELEMENTWISE:
            out += [a for a in pos_args if _is_sequence(ctx, a.value)]
        elif name not in _SEQ_OK and pos_args and _is_sequence(ctx, pos_args[0].value):
            out.append(pos_args[0])
    return out


def detect_list_operand(ctx: Context, key: object = None) -> Found | None:
    """With a key ``("list", name)``: where the cell still passes that same list as a ``jax.numpy`` operand."""
    if key is None or ctx.module is None:
        return None
    calls = [c for c in ctx.nodes(cst.Call) if isinstance(c, cst.Call)]
    return Found(key, fixable=[a for a in _sequence_operands(ctx, calls) if ctx.code(a.value) == key[1]])


def siblings_list_operand(ctx: Context) -> list[object]:
    """The list variables of the failing line passed again as operands on the cell's other lines (the live
    value is that list: the same error there)."""
    on_line = _calls_on_line(ctx)
    names = {ctx.code(a.value) for a in _sequence_operands(ctx, on_line) if isinstance(a.value, (cst.Name, cst.Attribute))}
    line_ids = {id(c) for c in on_line}
    calls = [c for c in ctx.nodes(cst.Call) if isinstance(c, cst.Call) and id(c) not in line_ids]
    again = {ctx.code(a.value) for a in _sequence_operands(ctx, calls)} & names
    return [("list", n) for n in sorted(again)]


@rule("list-to-array", detect=detect_list_operand, siblings=siblings_list_operand)
def list_to_array(ctx: Context) -> Edit | None:
    """A Python list handed to a ``jax.numpy`` function is converted with ``jnp.asarray`` first.

    Why the same values: NumPy converts a list operand with ``np.asarray`` before it computes; so does
    the rewrite, and the function then computes what NumPy's twin computes from that array (in JAX's
    default dtypes: float32/int32 unless x64 is on). That holds for array operands only, so the rewrite
    is ``safe`` only when every list it wraps is an operand: the position the error names, a positional
    argument of an element-wise function (``_ELEMENTWISE``), or a first argument. A list found by the
    fallback at another position of another function (``jnp.sum(x, [0, 1])`` might be an axis) is
    ``review``.
    """
    fun = ctx.values.get("fun", "").rsplit(".", 1)[-1]
    try:
        pos = int(ctx.values.get("pos", "-1"))
    except ValueError:
        pos = -1
    calls = [c for c in _calls_on_line(ctx) if full_name(ctx, c.func).startswith("jax.numpy.")]
    target: list[tuple[cst.Call, cst.Arg]] = []
    named = [c for c in calls if full_name(ctx, c.func).rsplit(".", 1)[-1] == fun]
    for c in named:
        a = _arg(c, pos)
        if a is not None and _is_sequence(ctx, a.value):
            target.append((c, a))
    operand = True  # every wrapped list is an array operand of its function
    if len({ctx.code(a.value) for _, a in target}) != 1:
        target = []
        for c in calls:
            if full_name(ctx, c.func).rsplit(".", 1)[-1] in _SEQ_OK:
                continue
            target += [(c, a) for a in c.args if a.keyword is None and not a.star and _is_sequence(ctx, a.value)]
        if len(target) != 1:
            return None
        c, a = target[0]
        first = next((x for x in c.args if x.keyword is None and not x.star), None)
        operand = a is first or full_name(ctx, c.func).rsplit(".", 1)[-1] in _ELEMENTWISE
    call = target[0][0]
    args = [a for _, a in target] + _sequence_operands(ctx, calls)  # the same mistake elsewhere on the line
    args = list({id(a): a for a in args}.values())
    args = [a for a in args if not any(b.value in ctx.ancestors(a.value) for b in args)]  # outermost only
    jnp, stmt = _module_ref(ctx, "jax.numpy", "jnp")
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(a.value, _wrap(f"{jnp}.asarray", a.value)) for a in args]
    what = ", ".join(dict.fromkeys(f"`{ctx.code(a.value)}`" for a in args))
    if not operand:
        return Edit(ctx.replace_many(pairs, [stmt]), "review",
                    f"{what} converted with `{jnp}.asarray` before `{ctx.code(call.func)}`; check that it is an "
                    "array operand there, not an axis or a shape (those want a tuple).")
    return Edit(ctx.replace_many(pairs, [stmt]), "safe",
                f"{what} converted with `{jnp}.asarray` before `{ctx.code(call.func)}`: the same values NumPy "
                "would compute from the list.")


def _is_list(ctx: Context, node: cst.BaseExpression) -> bool:
    """A list (never a tuple: ``x[(0, 2)]`` is already one index per axis)."""
    if isinstance(node, (cst.List, cst.ListComp)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "list" \
            and not ctx.bound("list"):
        return True
    return isinstance(live_value(ctx, node, attrs="getattr", scoped=True), list)


def _index_items(ctx: Context, node: cst.BaseExpression) -> set[str] | None:
    """What a list index holds: {"int"} numbers, "unpack" (None, ``...``, a slice), "seq" (a list, tuple or
    array of its own); None when unknown."""
    val = live_value(ctx, node, attrs="getattr", scoped=True)
    items: list[object]
    if isinstance(val, list):
        items = list(val)
    elif isinstance(node, cst.List) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        items = []
        for e in node.elements:
            v = e.value
            if isinstance(v, cst.Name) and v.value == "None" or isinstance(v, cst.Ellipsis):
                items.append(None)
            elif isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == "slice":
                items.append(slice(None))
            elif isinstance(v, (cst.List, cst.Tuple)):
                items.append([])
            elif isinstance(v, cst.Integer) or isinstance(v, cst.UnaryOperation) and isinstance(
                    v.expression, cst.Integer):
                items.append(0)
            else:
                items.append(live_value(ctx, v, attrs="getattr", scoped=True))
    else:
        return None
    kinds: set[str] = set()
    for x in items:
        if x is None or x is Ellipsis or isinstance(x, slice):
            kinds.add("unpack")
        elif isinstance(x, (list, tuple)) or getattr(x, "ndim", 0):
            kinds.add("seq")
        elif isinstance(x, int) and not isinstance(x, bool) or getattr(getattr(x, "dtype", None), "kind", "") in (
                "i", "u"):
            kinds.add("int")
        else:
            return None
    return kinds


@rule("list-index-to-array")
def list_index_to_array(ctx: Context) -> Edit | None:
    """``x[[0, 2]]`` -> ``x[jnp.array([0, 2])]`` (or ``x[tuple(seq)]``, as the message suggests).

    Why the same values: a list of numbers as an index means one index array to NumPy, old and new,
    which ``jnp.array`` makes; a list holding a slice, ``None`` or ``...`` means one index per axis (the
    only meaning NumPy ever gave it; NumPy 1.23+ refuses it), which ``tuple`` makes. Checked per list
    (``_index_items``): ``safe`` only when each wrapped list is of its kind; a list of lists or of index
    arrays meant ``x[rows, cols]`` to NumPy before 1.23 and one stacked index array since, so it is
    ``review``. Tuples are never wrapped (``x[(0, 2)]`` is already one index per axis).
    """
    as_tuple = ctx.values.get("suggestion", "").startswith("tuple")
    stmt = ctx.statement(cst.If, cst.While, cst.For, cst.With, cst.Return)
    if stmt is None:
        return None
    lo, hi = ctx.span(stmt)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    jnp, imp = _module_ref(ctx, "jax.numpy", "jnp")
    proven = True
    for sub in ctx.nodes(cst.Subscript):
        assert isinstance(sub, cst.Subscript)
        if not lo <= ctx.span(sub)[0] <= hi or len(sub.slice) != 1:
            continue
        el = sub.slice[0].slice
        if not isinstance(el, cst.Index) or not _is_list(ctx, el.value):
            continue
        if isinstance(live_value(ctx, sub.value, attrs="getattr", scoped=True), (list, tuple, dict, str)):
            continue  # a Python container: not the JAX error
        kinds = _index_items(ctx, el.value)
        proven = proven and kinds is not None and (("unpack" in kinds) if as_tuple else kinds == {"int"})
        pairs.append((el.value, _wrap("tuple" if as_tuple else f"{jnp}.array", el.value)))
    if not pairs:
        return None
    how = "`tuple(...)` (one index per axis)" if as_tuple else f"`{jnp}.array(...)` (picks those elements)"
    if not proven:
        return Edit(ctx.replace_many(pairs, [] if as_tuple else [imp]), "review",
                    f"The list used as an index is wrapped in {how}; check that this is what you meant (NumPy "
                    "before 1.23 read a list of lists as one index per axis, NumPy since as one index array).")
    return Edit(ctx.replace_many(pairs, [] if as_tuple else [imp]), "safe",
                f"The list used as an index is wrapped in {how}, the meaning NumPy gave it.")


def _nones(seq: cst.List | cst.Tuple) -> tuple[list[cst.Name], bool]:
    """The ``None`` literals of a (nested) list of number literals; False when something else is in it."""
    nones: list[cst.Name] = []
    for el in seq.elements:
        v = el.value
        if isinstance(v, cst.Name) and v.value == "None":
            nones.append(v)
        elif isinstance(v, (cst.List, cst.Tuple)):
            inner, ok = _nones(v)
            if not ok:
                return nones, False
            nones += inner
        elif not isinstance(v, (cst.Float, cst.Integer)) and not (
                isinstance(v, cst.UnaryOperation) and isinstance(v.expression, (cst.Float, cst.Integer))):
            return nones, False
    return nones, True


@rule("none-to-nan")
def none_to_nan(ctx: Context) -> Edit | None:
    """``jnp.array([1.0, None, 3.0])``: the ``None`` placeholders become ``jnp.nan``."""
    jnp, imp = _module_ref(ctx, "jax.numpy", "jnp")
    for call in _calls_on_line(ctx):
        if full_name(ctx, call.func) not in ("jax.numpy.array", "jax.numpy.asarray") or not call.args:
            continue
        data: cst.BaseExpression = call.args[0].value
        if isinstance(data, cst.Name):  # a list literal bound once in the cell
            defs = [a for a in ctx.nodes(cst.Assign) if len(a.targets) == 1  # type: ignore[attr-defined]
                    and isinstance(a.targets[0].target, cst.Name)  # type: ignore[attr-defined]
                    and a.targets[0].target.value == data.value]  # type: ignore[attr-defined]
            if len(defs) != 1:
                continue
            data = defs[0].value  # type: ignore[attr-defined]
        if not isinstance(data, (cst.List, cst.Tuple)):
            continue
        nones, ok = _nones(data)
        if ok and nones:
            pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(n, _expr(f"{jnp}.nan")) for n in nones]
            return Edit(ctx.replace_many(pairs, [imp]), "review",
                        f"Missing values written as `None` become `{jnp}.nan` (a float array); check that later "
                        "reductions skip them (`jnp.nanmean`, a mask from `jnp.isnan`).")
    return None
