"""Removed/renamed APIs, Python lists and ints where arrays and keys belong, NumPy on tracers, dtypes.

Every rule here resolves the names of the cell through its imports (``tu.tree_multimap`` is
``jax.tree_util.tree_multimap``) and checks the installed JAX before proposing anything: a
replacement is only offered when the old name is really missing and the new one really exists.
"""

from __future__ import annotations

import importlib
import re
import warnings
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.rules import rule

_MISSING = object()

# ---------------------------------------------------------------------------------------------- helpers


def _full(ctx: Context, node: cst.CSTNode) -> str:
    """The full dotted name an expression stands for ('jax.tree_util.tree_map' for ``tu.tree_map``), or ''."""
    dotted = dotted_name(node)
    if not dotted:
        return ""
    head, _, rest = dotted.partition(".")
    base = ctx.imports.get(head)
    if base is None:
        return ""
    return f"{base}.{rest}" if rest else base


def _lookup(dotted: str) -> Any:
    """The live object named ``dotted`` (importing modules as needed), or ``_MISSING``."""
    parts = dotted.split(".")
    obj: Any = _MISSING
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001 - not a module: try a shorter prefix
            continue
        rest = parts[i:]
        break
    else:
        return _MISSING
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for attr in rest:
            try:
                obj = getattr(obj, attr)
            except Exception:  # noqa: BLE001 - AttributeError or a deprecation error
                return _MISSING
    return obj


def _frame_scope(ctx: Context) -> cst.CSTNode | None:
    """The function (or lambda) whose frame ``ctx.locals`` belongs to: the innermost one at the failing line."""
    found = ctx.at_line((cst.FunctionDef, cst.Lambda))
    return found[0] if found else None


def _bound_in(fn: cst.CSTNode) -> set[str]:
    """Parameters and assigned names of a function or lambda (its locals)."""
    out = {p.name.value for p in fn.params.params + fn.params.kwonly_params + fn.params.posonly_params}  # type: ignore[attr-defined]
    for star in (fn.params.star_arg, fn.params.star_kwarg):  # type: ignore[attr-defined]
        if isinstance(star, cst.Param):
            out.add(star.name.value)

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            out.update(_names_in(n.target))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            out.update(_names_in(n.target))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            out.update(_names_in(n.target))

        def visit_For(self, n: cst.For) -> None:
            out.update(_names_in(n.target))

    fn.visit(_V())
    return out


def _value(ctx: Context, node: cst.CSTNode) -> Any:
    """The live value of a plain name, ``obj.attr`` or ``d["key"]``, or ``_MISSING``.

    Names in the failing function are read from its frame's locals; names elsewhere from the namespace.
    """
    if isinstance(node, cst.Name):
        home = next((a for a in ctx.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        scopes = (ctx.locals, ctx.namespace) if home is _frame_scope(ctx) else (ctx.namespace,)
        if home is not None and home is not _frame_scope(ctx) and node.value in _bound_in(home):
            scopes = ()  # a local of another function: its frame is gone
        for scope in scopes:
            if scope is not None and node.value in scope:
                return scope[node.value]
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1 and \
            isinstance(node.slice[0].slice, cst.Index) and isinstance(
                node.slice[0].slice.value, (cst.SimpleString, cst.Integer)):
        base = _value(ctx, node.value)
        if isinstance(base, (dict, list, tuple)):  # cfg["seed"], sizes[0]
            try:
                return base[_literal(node.slice[0].slice.value)]
            except Exception:  # noqa: BLE001
                return _MISSING
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        base = _value(ctx, node.value)
        if base is not _MISSING:
            try:
                return getattr(base, node.attr.value)
            except Exception:  # noqa: BLE001
                return _MISSING
    return _MISSING


def _literal(node: cst.SimpleString | cst.Integer) -> Any:
    return node.evaluated_value


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def _wrap(func: str, value: cst.BaseExpression) -> cst.Call:
    """``func(value)``, the value keeping its own parentheses and comments."""
    return cst.Call(func=_expr(func), args=[cst.Arg(value)])


def _arg(node: cst.Call, pos: int, keyword: str | None = None) -> cst.Arg | None:
    """The ``pos``-th positional argument of a call (or the one passed as ``keyword=``)."""
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if 0 <= pos < len(positional):
        return positional[pos]
    if keyword is not None:
        return next((a for a in node.args if a.keyword is not None and a.keyword.value == keyword), None)
    return None


def _module_ref(ctx: Context, module: str, alias: str) -> tuple[str, str | None]:
    """How to name ``module`` in the cell, with the import to add (for jax.* a plain ``import jax`` path)."""
    have = ctx.ref(module)
    if have is not None:
        return have, None
    return ctx.need(module, alias)


def _names_from(ctx: Context, module: str, names: list[tuple[str, str]]) -> tuple[list[str], str | None]:
    """Several names from one module, spelled as the cell has them, with at most one new ``from`` import.

    A name whose alias is taken in the cell is spelled through the module instead (``jax.sharding.Mesh``).
    """
    spelled: list[str] = []
    fresh: list[str] = []
    for name, alias in names:
        have = next((b for b, t in ctx.imports.items() if t == f"{module}.{name}"), None)
        if have is not None:
            spelled.append(have)
        elif not ctx.bound(alias):
            spelled.append(alias)
            fresh.append(name if alias == name else f"{name} as {alias}")
        else:
            spelled.append(f"{ctx.ref(module) or module}.{name}")
    return spelled, (f"from {module} import {', '.join(fresh)}" if fresh else None)


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
                         cst.SimpleString, cst.List, cst.Tuple)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _names_in(node: cst.CSTNode) -> set[str]:
    """Names read in an expression (not attribute names, not keyword names)."""
    out: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            out.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

    node.visit(_V())
    return out


_STATIC_ATTRS = {"shape", "ndim", "dtype", "size"}


def _traced_reads(node: cst.CSTNode) -> set[str]:
    """Names read in an expression, leaving out static uses (``x.shape``, ``x.dtype``, ``len(x)``)."""
    out: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            out.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            if n.attr.value not in _STATIC_ATTRS:
                n.value.visit(self)
            return False

        def visit_Call(self, n: cst.Call) -> bool:
            if isinstance(n.func, cst.Name) and n.func.value in ("len", "isinstance", "type"):
                return False
            return True

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

    node.visit(_V())
    return out


def _statement(ctx: Context) -> cst.CSTNode | None:
    """The innermost simple statement (or compound statement header) on the failing line."""
    found = ctx.at_line((cst.SimpleStatementLine, cst.If, cst.While, cst.For, cst.With, cst.Return))
    return found[0] if found else None


def _calls_on_line(ctx: Context) -> list[cst.Call]:
    """Calls that sit on the failing statement (the whole statement, so multi-line calls count)."""
    stmt = _statement(ctx)
    if stmt is None:
        return []
    lo, hi = ctx.span(stmt)
    if isinstance(stmt, (cst.If, cst.While, cst.For, cst.With)):
        hi = lo  # the header only
    return [c for c in ctx.nodes(cst.Call) if lo <= ctx.span(c)[0] <= hi]  # type: ignore[misc]


def _in_annotation(ctx: Context, node: cst.CSTNode) -> bool:
    return any(isinstance(a, cst.Annotation) for a in ctx.ancestors(node))


def _is_array(value: Any) -> bool:
    return value is not _MISSING and hasattr(value, "dtype") and hasattr(value, "shape") \
        and not isinstance(value, (int, float, complex, bool))


# ---------------------------------------------------------------------------------------------- renamed APIs

_TREE = ("map", "leaves", "flatten", "unflatten", "structure", "transpose", "reduce", "all")
# old full name -> new full name; the replacement is only used when the old one is gone and the new one exists
_RENAMES: dict[str, str] = {f"jax.tree_{n}": f"jax.tree.{n}" for n in _TREE}
_RENAMES.update({
    "jax.tree_multimap": "jax.tree.map",
    "jax.tree_util.tree_multimap": "jax.tree_util.tree_map",
    "jax.random.KeyArray": "jax.Array",
    "jax.random.PRNGKeyArray": "jax.Array",
    "jax.numpy.DeviceArray": "jax.Array",
    "jax.interpreters.xla.DeviceArray": "jax.Array",
    "jax.numpy.product": "jax.numpy.prod",
    "jax.numpy.cumproduct": "jax.numpy.cumprod",
    "jax.numpy.round_": "jax.numpy.round",
    "jax.numpy.alltrue": "jax.numpy.all",
    "jax.numpy.sometrue": "jax.numpy.any",
    "jax.numpy.row_stack": "jax.numpy.vstack",
    "jax.numpy.trapz": "jax.numpy.trapezoid",
    "jax.numpy.fix": "jax.numpy.trunc",
    "jax.numpy.NaN": "jax.numpy.nan",
    "jax.numpy.NAN": "jax.numpy.nan",
    "jax.numpy.Inf": "jax.numpy.inf",
    "jax.numpy.Infinity": "jax.numpy.inf",
    "jax.numpy.infty": "jax.numpy.inf",
    "jax.numpy.PINF": "jax.numpy.inf",
    "jax.numpy.NINF": "-jax.numpy.inf",
    "jax.abstract_arrays.ShapedArray": "jax.core.ShapedArray",
    "jax.core.get_aval": "jax.typeof",
    "jax.clear_backends": "jax.extend.backend.clear_backends",
})
# types whose isinstance meaning widened: exact in annotations, a review elsewhere
_WIDER_TYPES = {"jax.random.KeyArray", "jax.random.PRNGKeyArray", "jax.numpy.DeviceArray",
                "jax.interpreters.xla.DeviceArray"}
_MOVED_MSG = re.compile(r"Use (jax\.[\w.]+?)\.?$|use (jax\.[\w.]+?) instead")


def _core_target(name: str, message: str) -> str | None:
    """Where a removed ``jax.core.<name>`` lives now, when it is the very same object."""
    mm = _MOVED_MSG.search(message) if f"jax.core.{name} " in message else None
    cands = [g for g in (mm.groups() if mm else ()) if g] + [f"jax.extend.core.{name}", f"jax.errors.{name}"]
    src = _lookup(f"jax._src.core.{name}")
    for cand in cands:
        obj = _lookup(cand)
        if obj is _MISSING:
            continue
        if cand.rsplit(".", 1)[-1] == name and (src is _MISSING or obj is not src):
            continue  # the same name elsewhere is not provably the same thing
        return cand
    return None


def _renamed(ctx: Context, full: str) -> str | None:
    """The replacement of a removed name, or None (unknown, still present, or the target is missing)."""
    if not full.startswith("jax.") or _lookup(full) is not _MISSING:
        return None
    new = _RENAMES.get(full)
    if new is None and full.count(".") == 2 and full.startswith("jax.core."):
        new = _core_target(full.rsplit(".", 1)[1], ctx.message)
    if new is None or _lookup(new.lstrip("-")) is _MISSING:
        return None
    return new


_FAILING_NAME = re.compile(r"has no attribute '(\w+)'|jax\.[\w.]*?(\w+) (?:was|is) deprecated")


def _new_node(ctx: Context, node: cst.Attribute, old: str, new: str, imports: list[str | None]) -> cst.BaseExpression:
    negate = new.startswith("-")
    new = new.lstrip("-")
    old_parent, new_parent = old.rsplit(".", 1)[0], new.rsplit(".", 1)[0]
    attr = new.rsplit(".", 1)[1]
    out: cst.BaseExpression
    if old_parent == new_parent:
        out = node.with_changes(attr=cst.Name(attr))  # same module, the cell's own spelling of it
    else:
        ref, stmt = _module_ref(ctx, new_parent, new_parent)
        imports.append(stmt)
        if new_parent.startswith("jax.extend") and not any(v.startswith("jax.extend") for v in ctx.imports.values()):
            imports.append(f"import {new_parent}")  # jax.extend is not loaded by ``import jax``
        out = _expr(f"{ref}.{attr}").with_changes(lpar=node.lpar, rpar=node.rpar)
    if negate:
        out = cst.UnaryOperation(cst.Minus(), out)
        parent = ctx.parent(node)
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Attribute, cst.Subscript,
                               cst.Comparison)) or (isinstance(parent, cst.Call) and parent.func is node):
            out = out.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return out


@rule("renamed-api")
def renamed_api(ctx: Context) -> Edit | None:
    """Every use of a removed JAX name in the cell becomes its current equivalent (same arguments)."""
    mm = _FAILING_NAME.search(ctx.message)
    failing = next((g for g in (mm.groups() if mm else ()) if g), None)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    changed: dict[str, str] = {}
    review: list[str] = []
    taken: set[int] = set()
    for node in ctx.nodes(cst.Attribute):
        if any(id(a) in taken for a in ctx.ancestors(node)):
            continue
        assert isinstance(node, cst.Attribute)
        old = _full(ctx, node)
        new = _renamed(ctx, old) if old else None
        if new is None:
            continue
        taken.add(id(node))
        pairs.append((node, _new_node(ctx, node, old, new, imports)))
        changed[old] = new
        if old in _WIDER_TYPES and not _in_annotation(ctx, node):
            review.append(old)
    if not pairs or failing is None or not any(failing in o.split(".") for o in changed):
        return None
    names = ", ".join(f"`{o}` -> `{n}`" for o, n in changed.items())
    count = f" ({len(pairs)} uses in the cell)" if len(pairs) > 1 else ""
    if review:
        return Edit(ctx.replace_many(pairs, imports), "review",
                    f"Renamed {names}{count}; check the isinstance tests: `jax.Array` also matches tracers "
                    "and raw uint32 keys, which the old type did not.")
    return Edit(ctx.replace_many(pairs, imports), "safe", f"Renamed the removed {names}{count}; arguments unchanged.")


# ---------------------------------------------------------------------------------------------- device_put_*

def _pure(ctx: Context, node: cst.BaseExpression) -> bool:
    """An expression cheap and safe to evaluate twice (a name, ``jax.devices()``, a slice of those)."""
    if isinstance(node, (cst.Name, cst.Attribute)):
        return True
    if isinstance(node, cst.Subscript):
        return _pure(ctx, node.value)
    if isinstance(node, cst.Call):
        return _full(ctx, node.func) in ("jax.devices", "jax.local_devices") and not any(
            not isinstance(a.value, (cst.Integer, cst.SimpleString, cst.Name)) for a in node.args)
    return False


@rule("device-put-sharding")
def device_put_sharding(ctx: Context) -> Edit | None:
    """``jax.device_put_replicated/sharded(x, devices)`` -> ``jax.device_put`` of the stacked value on a 1-D mesh.

    This is what those functions did internally (a NamedSharding over ``Mesh(devices)``), with a
    mesh axis of our own name.
    """
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    kinds: set[str] = set()
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        which = {"jax.device_put_replicated": "replicated", "jax.device_put_sharded": "sharded"}.get(
            _full(ctx, call.func))
        if which is None:
            continue
        names = [a.keyword.value if a.keyword else None for a in call.args]
        if len(call.args) != 2 or any(a.star for a in call.args) or names not in (
                [None, None], [None, "devices"]):
            return None
        x, devs = call.args[0].value, call.args[1].value
        if not _pure(ctx, devs):
            return None
        jax_ref, s1 = _module_ref(ctx, "jax", "jax")
        jnp, s2 = _module_ref(ctx, "jax.numpy", "jnp")
        (mesh, ns, pspec), s3 = _names_from(ctx, "jax.sharding", [("Mesh", "Mesh"), ("NamedSharding", "NamedSharding"),
                                                                 ("PartitionSpec", "P")])
        imports += [s1, s2, s3]
        d = ctx.code(devs)
        xv = _value(ctx, x)
        if which == "replicated":
            if _is_array(xv) or isinstance(xv, (int, float)):
                stacked = f"{jnp}.stack([{ctx.code(x)}] * len({d}))"
            else:
                stacked = f"{jax_ref}.tree.map(lambda leaf: {jnp}.stack([leaf] * len({d})), {ctx.code(x)})"
        else:
            if isinstance(xv, (list, tuple)) and all(_is_array(v) or isinstance(v, (int, float)) for v in xv):
                stacked = f"{jnp}.stack({ctx.code(x)})"
            else:
                stacked = f"{jax_ref}.tree.map(lambda *shards: {jnp}.stack(shards), *{ctx.code(_paren(x))})"
        new = _expr(f"{jax_ref}.device_put({stacked}, {ns}({mesh}({d}, ('devices',)), {pspec}('devices')))")
        pairs.append((call, new.with_changes(lpar=call.lpar, rpar=call.rpar)))
        kinds.add(which)
    if not pairs:
        return None
    names = " and ".join(f"`jax.device_put_{k}`" for k in sorted(kinds))
    return Edit(ctx.replace_many(pairs, imports), "review",
                f"{names} replaced by `jax.device_put` of the stacked value with a NamedSharding over the same "
                "devices (leading axis = one entry per device); check code that relied on the old sharding type.")


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
    return isinstance(_value(ctx, node), (list, tuple))


@rule("list-to-array")
def list_to_array(ctx: Context) -> Edit | None:
    """A Python list handed to a ``jax.numpy`` function is converted with ``jnp.asarray`` first."""
    fun = ctx.values.get("fun", "").rsplit(".", 1)[-1]
    try:
        pos = int(ctx.values.get("pos", "-1"))
    except ValueError:
        pos = -1
    calls = [c for c in _calls_on_line(ctx) if _full(ctx, c.func).startswith("jax.numpy.")]
    target: list[tuple[cst.Call, cst.Arg]] = []
    named = [c for c in calls if _full(ctx, c.func).rsplit(".", 1)[-1] == fun]
    for c in named:
        a = _arg(c, pos)
        if a is not None and _is_sequence(ctx, a.value):
            target.append((c, a))
    if len({ctx.code(a.value) for _, a in target}) != 1:
        target = []
        for c in calls:
            if _full(ctx, c.func).rsplit(".", 1)[-1] in _SEQ_OK:
                continue
            target += [(c, a) for a in c.args if a.keyword is None and not a.star and _is_sequence(ctx, a.value)]
        if len(target) != 1:
            return None
    call = target[0][0]
    args = [a for _, a in target]
    for c in calls:  # the same mistake elsewhere on the line would fail next: the first operand of a jnp call
        name = _full(ctx, c.func).rsplit(".", 1)[-1]
        pos_args = [a for a in c.args if a.keyword is None and not a.star]
        if name in _ELEMENTWISE:
            args += [a for a in pos_args if _is_sequence(ctx, a.value)]
        elif name not in _SEQ_OK and pos_args and _is_sequence(ctx, pos_args[0].value):
            args.append(pos_args[0])
    args = list({id(a): a for a in args}.values())
    args = [a for a in args if not any(b.value in ctx.ancestors(a.value) for b in args)]  # outermost only
    jnp, stmt = _module_ref(ctx, "jax.numpy", "jnp")
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(a.value, _wrap(f"{jnp}.asarray", a.value)) for a in args]
    what = ", ".join(dict.fromkeys(f"`{ctx.code(a.value)}`" for a in args))
    return Edit(ctx.replace_many(pairs, [stmt]), "safe",
                f"{what} converted with `{jnp}.asarray` before `{ctx.code(call.func)}`: the same values NumPy "
                "would compute from the list.")


@rule("list-index-to-array")
def list_index_to_array(ctx: Context) -> Edit | None:
    """``x[[0, 2]]`` -> ``x[jnp.array([0, 2])]`` (or ``x[tuple(seq)]``, as the message suggests)."""
    as_tuple = ctx.values.get("suggestion", "").startswith("tuple")
    stmt = _statement(ctx)
    if stmt is None:
        return None
    lo, hi = ctx.span(stmt)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    jnp, imp = _module_ref(ctx, "jax.numpy", "jnp")
    for sub in ctx.nodes(cst.Subscript):
        assert isinstance(sub, cst.Subscript)
        if not lo <= ctx.span(sub)[0] <= hi or len(sub.slice) != 1:
            continue
        el = sub.slice[0].slice
        if not isinstance(el, cst.Index) or not _is_sequence(ctx, el.value):
            continue
        if isinstance(_value(ctx, sub.value), (list, tuple, dict, str)):
            continue  # a Python container: not the JAX error
        pairs.append((el.value, _wrap("tuple" if as_tuple else f"{jnp}.array", el.value)))
    if not pairs:
        return None
    how = "`tuple(...)` (one index per axis)" if as_tuple else f"`{jnp}.array(...)` (picks those elements)"
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
        if _full(ctx, call.func) not in ("jax.numpy.array", "jax.numpy.asarray") or not call.args:
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


# ---------------------------------------------------------------------------------------------- PRNG keys

_NOT_KEY_TAKERS = {"key", "PRNGKey", "wrap_key_data", "key_impl", "default_prng_impl", "threefry2x32_key",
                   "rbg_key", "unsafe_rbg_key", "threefry_2x32"}


def _is_int(ctx: Context, node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Integer):
        return True
    v = _value(ctx, node)
    return isinstance(v, int) and not isinstance(v, bool)


def _key_kind(value: Any) -> str:
    """'typed' for a new-style key array, 'raw' for a uint32 (..., 2) key, '' otherwise."""
    if not _is_array(value):
        return ""
    try:
        import jax

        if jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):
            return "typed"
        if str(value.dtype) == "uint32" and len(value.shape) >= 1 and value.shape[-1] == 2:
            return "raw"
    except Exception:  # noqa: BLE001
        return ""
    return ""


def _random_calls(ctx: Context) -> list[tuple[cst.Call, cst.Arg, str]]:
    """jax.random calls that take a key, with their key argument and the cell's spelling of jax.random."""
    out = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        full = _full(ctx, call.func)
        if not full.startswith("jax.random.") or full.count(".") != 2 or full.rsplit(".", 1)[1] in _NOT_KEY_TAKERS:
            continue
        arg = _arg(call, 0, "key")
        if arg is None:
            continue
        if isinstance(call.func, cst.Attribute):
            prefix = ctx.code(call.func.value)
        else:
            prefix, _ = _module_ref(ctx, "jax.random", "jax.random")
        out.append((call, arg, prefix))
    return out


def _key_style(ctx: Context) -> str:
    """'PRNGKey' where the cell or its namespace already works with raw uint32 keys, else 'key'."""
    for node in ctx.nodes(cst.Attribute) + ctx.nodes(cst.Name):
        if _full(ctx, node) == "jax.random.PRNGKey":
            return "PRNGKey"
    for v in (ctx.namespace or {}).values():
        if _key_kind(v) == "raw":
            return "PRNGKey"
    return "key"


@rule("int-to-key")
def int_to_key(ctx: Context) -> Edit | None:
    """An int seed passed where a PRNG key goes is turned into a key (``jax.random.key(seed)``)."""
    bad = ctx.values.get("key_data", "")
    stmt = _statement(ctx)
    if stmt is None:
        return None
    lo, hi = ctx.span(stmt)
    calls = _random_calls(ctx)
    failing = [(c, a, p) for c, a, p in calls if lo <= ctx.span(c)[0] <= hi and _is_int(ctx, a.value)
               and str(a.value.evaluated_value if isinstance(a.value, cst.Integer) else _value(ctx, a.value)) == bad]
    if len({ctx.code(a.value) for _, a, _ in failing}) != 1:
        return None
    call, arg, prefix = failing[0]
    style = _key_style(ctx)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    fn = ctx.enclosing(call, cst.FunctionDef)
    param = None
    if isinstance(arg.value, cst.Name) and isinstance(fn, cst.FunctionDef):
        names = [p.name.value for p in fn.params.params]
        if arg.value.value in names:
            param = arg.value.value
    if param is not None and re.search(r"key|rng", param, re.I):
        # the function expects a key: fix the cell's calls that hand it an int
        assert isinstance(fn, cst.FunctionDef)
        idx = [p.name.value for p in fn.params.params].index(param)
        for site in ctx.nodes(cst.Call):
            assert isinstance(site, cst.Call)
            if not (isinstance(site.func, cst.Name) and site.func.value == fn.name.value):
                continue
            a = _arg(site, idx, param)
            if a is not None and _is_int(ctx, a.value):
                pairs.append((a.value, _wrap(f"{prefix}.{style}", a.value)))
        if not pairs:
            return None
        where = f"the calls of `{fn.name.value}`"
    else:
        same = ctx.code(arg.value)
        for c, a, p in calls:
            same_int = ctx.code(a.value) == same and _is_int(ctx, a.value) and ctx.enclosing(
                c, cst.FunctionDef) is fn
            if c is call or isinstance(a.value, cst.Integer) or same_int:
                pairs.append((a.value, _wrap(f"{p}.{style}", a.value)))
        where = "the `jax.random` calls"
    return Edit(ctx.replace_many(pairs), "review",
                f"Integer seeds passed to {where} are turned into keys with `{prefix}.{style}(seed)`; check that "
                "you did not mean to pass an existing key (its random numbers would differ).")


@rule("seed-to-int")
def seed_to_int(ctx: Context) -> Edit | None:
    """A float seed given to ``jax.random.key``/``PRNGKey`` is made an int (``1e3`` -> ``1000``)."""
    found = []
    for call in _calls_on_line(ctx):
        if _full(ctx, call.func) not in ("jax.random.key", "jax.random.PRNGKey"):
            continue
        a = _arg(call, 0, "seed")
        if a is None:
            continue
        v = a.value
        if isinstance(v, cst.Float):
            num = float(v.value.replace("_", ""))
            if num.is_integer():
                found.append((v, cst.Integer(str(int(num)))))
            else:
                found.append((v, _wrap("int", v)))
            continue
        val = _value(ctx, v)
        if isinstance(val, float) or (type(val).__module__ == "numpy" and "float" in type(val).__name__):
            found.append((v, _wrap("int", v)))
    if len(found) != 1:
        return None
    old, new = found[0]
    return Edit(ctx.replace(old, new), "review",
                f"The seed `{ctx.code(old)}` is made an integer (`{ctx.module.code_for_node(new)}`); "  # type: ignore[union-attr]
                "check it was a whole number: int() drops any fraction.")


@rule("wrap-key-data")
def wrap_key_data(ctx: Context) -> Edit | None:
    """Typed and raw keys mixed in one operation: the raw ones are wrapped into typed keys."""
    impl = ctx.values.get("impl", "")
    try:
        import jax

        default = str(jax.config.jax_default_prng_impl)
    except Exception:  # noqa: BLE001
        return None
    if impl not in ("fry", "") or "threefry" not in default:
        return None  # wrap_key_data uses the default implementation: only exact for threefry keys
    stmt = _statement(ctx)
    if stmt is None:
        return None
    lo, hi = ctx.span(stmt)
    raw: list[cst.CSTNode] = []
    typed = False
    for node in ctx.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if not lo <= ctx.span(node)[0] <= hi:
            continue
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node or isinstance(parent, cst.Arg) and \
                parent.keyword is node or any(isinstance(a, cst.AssignTarget) for a in ctx.ancestors(node)):
            continue
        kind = _key_kind(_value(ctx, node))
        typed = typed or kind == "typed"
        if kind == "raw":
            raw.append(node)
    makers = [c for c in _calls_on_line(ctx) if _full(ctx, c.func) == "jax.random.PRNGKey"]
    typed = typed or any(_full(ctx, c.func) == "jax.random.key" for c in _calls_on_line(ctx))
    for node in ctx.nodes(cst.Name):  # a list of keys named on the line
        if lo <= ctx.span(node)[0] <= hi:
            v = _value(ctx, node)
            if isinstance(v, (list, tuple)):
                kinds = {_key_kind(x) for x in v}
                typed = typed or "typed" in kinds
    if not typed or not (raw or makers):
        return None
    rnd = ctx.ref("jax.random")
    if rnd is None:
        return None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(n, _wrap(f"{rnd}.wrap_key_data", n)) for n in raw]  # type: ignore[arg-type]
    for c in makers:
        assert isinstance(c.func, (cst.Attribute, cst.Name))
        new_func = c.func.with_changes(attr=cst.Name("key")) if isinstance(c.func, cst.Attribute) else _expr(
            f"{rnd}.key")
        pairs.append((c, c.with_changes(func=new_func)))
    return Edit(ctx.replace_many(pairs), "safe",
                "Raw uint32 keys on this line are made typed keys (`wrap_key_data`, `PRNGKey(s)` -> `key(s)`): "
                "the same key bits, so the same random numbers.")


@rule("key-fold-in")
def key_fold_in(ctx: Context) -> Edit | None:
    """``key + i`` on a typed key -> ``jax.random.fold_in(key, i)``; ``typed == raw`` compares key data."""
    stmt = _statement(ctx)
    rnd = ctx.ref("jax.random")
    if stmt is None or rnd is None:
        return None
    lo, hi = ctx.span(stmt)

    def on_line(n: cst.CSTNode) -> bool:
        return lo <= ctx.span(n)[0] <= hi

    for node in ctx.nodes(cst.BinaryOperation):
        assert isinstance(node, cst.BinaryOperation)
        if not on_line(node) or not isinstance(node.operator, cst.Add):
            continue
        left, right = _key_kind(_value(ctx, node.left)), _key_kind(_value(ctx, node.right))
        if left == "typed" and not right:
            key, data = node.left, node.right
        elif right == "typed" and not left:
            key, data = node.right, node.left
        else:
            continue
        new = _expr(f"{rnd}.fold_in(a, b)").with_changes(lpar=node.lpar, rpar=node.rpar)
        assert isinstance(new, cst.Call)
        new = new.with_changes(args=[cst.Arg(key, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                     cst.Arg(data)])
        return Edit(ctx.replace(node, new), "review",
                    f"`{ctx.code(node)}` -> `{rnd}.fold_in(...)`: a key derived from the pair; the numbers differ from "
                    "arithmetic on raw key bits, check nothing relied on those.")
    for node in ctx.nodes(cst.AugAssign):
        assert isinstance(node, cst.AugAssign)
        if on_line(node) and isinstance(node.operator, cst.AddAssign) and isinstance(node.target, cst.Name) and \
                _key_kind(_value(ctx, node.target)) == "typed":
            call = _expr(f"{rnd}.fold_in({node.target.value}, a)")
            assert isinstance(call, cst.Call)
            call = call.with_changes(args=[call.args[0], call.args[1].with_changes(value=node.value)])
            new = cst.Assign(targets=[cst.AssignTarget(node.target)], value=call)
            return Edit(ctx.replace(node, new), "review",
                        f"`{ctx.code(node)}` -> `fold_in`: a new key derived from the old one and the number; "
                        "check nothing relied on raw key arithmetic.")
    for node in ctx.nodes(cst.Comparison):
        assert isinstance(node, cst.Comparison)
        if not on_line(node) or len(node.comparisons) != 1 or not isinstance(
                node.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
            continue
        left, right = node.left, node.comparisons[0].comparator
        kinds = (_key_kind(_value(ctx, left)), _key_kind(_value(ctx, right)))
        if kinds == ("typed", "raw"):
            new = node.with_changes(left=_wrap(f"{rnd}.key_data", left))
        elif kinds == ("raw", "typed"):
            new = node.with_changes(comparisons=[node.comparisons[0].with_changes(
                comparator=_wrap(f"{rnd}.key_data", right))])
        else:
            continue
        return Edit(ctx.replace(node, new), "safe",
                    "The typed key is compared through its raw data (`key_data`), the representation of the other side.")
    return None


@rule("randint-for-int-dtype")
def randint_for_int_dtype(ctx: Context) -> Edit | None:
    """``uniform(key, shape, minval, maxval, dtype=int32)`` -> ``randint(key, shape, minval, maxval, dtype=int32)``."""
    for call in _calls_on_line(ctx):
        if _full(ctx, call.func) != "jax.random.uniform" or not isinstance(call.func, cst.Attribute):
            continue
        key, shape = _arg(call, 0, "key"), _arg(call, 1, "shape")
        # uniform(key, shape, dtype, minval, maxval) -> randint(key, shape, minval, maxval, dtype)
        dtype, lo_, hi_ = _arg(call, 2, "dtype"), _arg(call, 3, "minval"), _arg(call, 4, "maxval")
        if None in (key, shape, lo_, hi_, dtype):
            return None
        args = [cst.Arg(a.value) for a in (key, shape, lo_, hi_)]  # type: ignore[union-attr]
        args.append(cst.Arg(dtype.value, keyword=cst.Name("dtype"),  # type: ignore[union-attr]
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + [
            args[-1]]
        new = call.with_changes(func=call.func.with_changes(attr=cst.Name("randint")), args=args)
        return Edit(ctx.replace(call, new), "review",
                    "Integers are drawn with `randint` (uniform over [minval, maxval)); `uniform` only makes floats. "
                    "Check the upper bound: randint excludes maxval.")
    return None


# ---------------------------------------------------------------------------------------------- NumPy on tracers

# NumPy functions whose jnp twin cannot run under jit with the same call (data-dependent output shapes)
_NP_EXCLUDE = {"unique", "nonzero", "argwhere", "flatnonzero", "extract", "compress", "setdiff1d", "union1d",
               "intersect1d", "setxor1d", "trim_zeros", "array_equal", "array_equiv"}


def _traced_names(ctx: Context, scope: cst.CSTNode) -> set[str]:
    """Names holding traced values in ``scope``: tracers among the failing frame's locals, and what they flow into."""
    import jax

    tainted: set[str] = set()
    if ctx.locals:
        for k, v in ctx.locals.items():
            try:
                leaves = jax.tree_util.tree_leaves(v)[:1000]
            except Exception:  # noqa: BLE001
                leaves = [v]
            if any(isinstance(x, jax.core.Tracer) for x in leaves):
                tainted.add(k)
    elif isinstance(scope, (cst.FunctionDef, cst.Lambda)):
        tainted = {p.name.value for p in scope.params.params}
    assigns: list[tuple[set[str], set[str]]] = []  # (targets, names read)

    class _V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            assigns.append(({x for t in n.targets for x in _names_in(t.target)}, _traced_reads(n.value)))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            assigns.append((_names_in(n.target), _traced_reads(n.value)))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            if n.value is not None:
                assigns.append((_names_in(n.target), _traced_reads(n.value)))

        def visit_For(self, n: cst.For) -> None:
            assigns.append((_names_in(n.target), _traced_reads(n.iter)))

        def visit_CompFor(self, n: cst.CompFor) -> None:
            assigns.append((_names_in(n.target), _traced_reads(n.iter)))

        def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
            assigns.append((_names_in(n.target), _traced_reads(n.value)))

    scope.visit(_V())
    grew = True
    while grew:
        grew = False
        for targets, reads in assigns:
            if reads & tainted and not targets <= tainted:
                tainted |= targets
                grew = True
    return tainted


def _jax_twin(ctx: Context, full: str, call: cst.Call) -> str | None:
    """'jax.numpy.sin' for 'numpy.sin', 'jax.scipy.special.expit' for 'scipy.special.expit', when it exists."""
    if full.startswith("numpy."):
        rest = full[len("numpy."):]
        if rest.split(".")[0] in ("random", "testing", "ma", "char", "rec", "lib", "polynomial") or \
                rest in _NP_EXCLUDE or (rest == "where" and len(call.args) == 1):
            return None
        new = f"jax.numpy.{rest}"
    elif full.startswith("scipy."):
        new = f"jax.{full}"
    else:
        return None
    obj = _lookup(new)
    return new if obj is not _MISSING and callable(obj) else None


@rule("numpy-to-jnp")
def numpy_to_jnp(ctx: Context) -> Edit | None:
    """NumPy (or SciPy) calls on traced values in the failing function become their ``jax.numpy`` twins."""
    for scope in ctx.at_line((cst.FunctionDef, cst.Lambda)):
        edit = _numpy_to_jnp_in(ctx, scope)
        if edit is not False:
            return edit  # type: ignore[return-value]
    return None


def _numpy_to_jnp_in(ctx: Context, scope: cst.CSTNode) -> Edit | None | bool:
    """The edit for one function (or lambda); False when no NumPy call of the failing line is in it."""
    tainted = _traced_names(ctx, scope)
    stmt = _statement(ctx)
    lo, hi = ctx.span(stmt) if stmt is not None else (ctx.line or 0, ctx.line or 0)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    on_line = blocked = scipy = False
    done: list[str] = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if scope not in ctx.ancestors(call):
            continue
        full = _full(ctx, call.func)
        if not full.startswith(("numpy.", "scipy.")):
            continue
        reads = set().union(*[_traced_reads(a.value) for a in call.args]) if call.args else set()
        if not reads & tainted:
            continue
        here = lo <= ctx.span(call)[0] <= hi
        on_line = on_line or here
        new = _jax_twin(ctx, full, call)
        if new is None:
            blocked = True  # no twin: a rewrite would only move the error
            continue
        if new.startswith("jax.numpy."):
            jnp, stmt_ = _module_ref(ctx, "jax.numpy", "jnp")
            expr = f"{jnp}.{new[len('jax.numpy.'):]}"
        else:
            scipy = True
            mod = new.rsplit(".", 1)[0]
            jax_ref, stmt_ = _module_ref(ctx, "jax", "jax")
            expr = f"{jax_ref}{mod[len('jax'):]}.{new.rsplit('.', 1)[1]}"
            if not any(v == mod or v.startswith(mod + ".") for v in ctx.imports.values()):
                imports.append(f"import {mod}")
        imports.append(stmt_)
        pairs.append((call.func, _expr(expr)))
        done.append(f"`{ctx.code(call.func)}` -> `{expr}`")
    if not on_line:
        return False
    if blocked:
        return None
    fname = scope.name.value if isinstance(scope, cst.FunctionDef) else "the lambda"
    listed = ", ".join(dict.fromkeys(done))
    if scipy:
        return Edit(ctx.replace_many(pairs, imports), "review",
                    f"Traced values in `{fname}` go through JAX, not NumPy/SciPy: {listed}; check the jax.scipy "
                    "function supports the arguments you pass.")
    return Edit(ctx.replace_many(pairs, imports), "safe",
                f"NumPy cannot compute on traced values in `{fname}`: {listed} (same functions in jax.numpy).")


# ---------------------------------------------------------------------------------------------- dtypes

_DTYPES = re.compile(r"[a-z]+\d*")


def _promoted(a: str, b: str) -> str | None:
    try:
        import jax.numpy as jnp

        return str(jnp.promote_types(a, b))
    except Exception:  # noqa: BLE001
        return None


def _cast(ctx: Context, operand: cst.BaseExpression, other: cst.BaseExpression, dtype: str,
          imports: list[str | None]) -> cst.BaseExpression:
    """``operand`` converted to ``dtype`` (spelled ``other.dtype`` when ``other`` is a plain array name)."""
    if isinstance(operand, cst.Integer) and dtype.startswith(("float", "bfloat", "complex")):
        return cst.Float(operand.value + ".0")
    if _is_array(_value(ctx, other)) and isinstance(other, (cst.Name, cst.Attribute)):
        target = f"{ctx.code(other)}.dtype"
    else:
        jnp, stmt = _module_ref(ctx, "jax.numpy", "jnp")
        imports.append(stmt)
        target = f"{jnp}.{dtype}"
    v = _value(ctx, operand)
    if _is_array(v) or isinstance(operand, cst.Call) and _full(ctx, operand.func).startswith("jax."):
        return cst.Call(func=cst.Attribute(_paren(operand), cst.Name("astype")), args=[cst.Arg(_expr(target))])
    jnp, stmt = _module_ref(ctx, "jax.numpy", "jnp")
    imports.append(stmt)
    return _expr(f"{jnp}.asarray(a, {target})").with_changes(args=[
        cst.Arg(operand, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(_expr(target))])


@rule("lax-dtype-cast")
def lax_dtype_cast(ctx: Context) -> Edit | None:
    """``lax.add(int_x, float_y)`` -> the operand of the narrower dtype cast to the other's dtype."""
    op = ctx.values.get("op") or ctx.values.get("name", "")
    dts = _DTYPES.findall(ctx.values.get("dtypes", ""))
    if len(dts) != 2 or not op:
        return None
    found = [c for c in _calls_on_line(ctx) if _full(ctx, c.func) == f"jax.lax.{op}"]
    if len(found) != 1:
        return None
    call = found[0]
    pos = [a for a in call.args if a.keyword is None and not a.star]
    if len(pos) != 2 or len(call.args) != 2:
        return None
    target = _promoted(*dts)
    if target is None or target not in dts or dts[0] == dts[1]:
        return None
    i = 0 if dts[1] == target else 1  # the operand to convert
    imports: list[str | None] = []
    new_val = _cast(ctx, pos[i].value, pos[1 - i].value, target, imports)
    return Edit(ctx.replace(pos[i].value, new_val, imports), "review",
                f"`{ctx.code(pos[i].value)}` ({dts[i]}) is cast to {target} to match the other operand of "
                f"`lax.{op}`; check {target} is the precision you want (or use the jnp function, which promotes).")


@rule("strict-dtype-cast")
def strict_dtype_cast(ctx: Context) -> Edit | None:
    """Under strict promotion, ``a * b`` of two dtypes -> the narrower operand cast to the wider dtype."""
    dts = re.findall(r"'(\w+)'", ctx.values.get("dtypes", ""))
    if len(dts) != 2 or dts[0] == dts[1]:
        return None
    target = _promoted(*dts)
    if target is None or target not in dts:
        return None
    stmt = _statement(ctx)
    if stmt is None:
        return None
    lo, hi = ctx.span(stmt)
    cands: list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]] = []
    for node in ctx.nodes(cst.BinaryOperation):
        assert isinstance(node, cst.BinaryOperation)
        if lo <= ctx.span(node)[0] <= hi:
            cands.append((node, node.left, node.right))
    for call in _calls_on_line(ctx):
        pos = [a for a in call.args if a.keyword is None and not a.star]
        if _full(ctx, call.func).startswith("jax.numpy.") and len(pos) == 2:
            cands.append((call, pos[0].value, pos[1].value))
    hits = []
    for node, a, b in cands:
        va, vb = _value(ctx, a), _value(ctx, b)
        if _is_array(va) and _is_array(vb) and {str(va.dtype), str(vb.dtype)} == set(dts):
            hits.append((node, a, b, str(va.dtype)))
    if len(hits) != 1:
        return None
    _, a, b, da = hits[0]
    operand, other = (a, b) if da != target else (b, a)
    imports: list[str | None] = []
    new = _cast(ctx, operand, other, target, imports)
    src = ctx.code(operand)
    return Edit(ctx.replace(operand, new, imports), "review",
                f"`{src}` is cast to {target} explicitly, as strict promotion requires; check {target} is the "
                "dtype you want the result in.")
