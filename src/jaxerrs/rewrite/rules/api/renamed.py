"""Renamed and removed APIs (checked against the installed JAX) and ``device_put`` with a sharding."""

from __future__ import annotations

import re

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.api.helpers import (
    _expr,
    _in_annotation,
    _is_array,
    _lookup,
    _module_ref,
    _names_from,
    _paren,
)
from jaxerrs.rewrite.values import MISSING, live_value

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


def _core_target(name: str, message: str) -> tuple[str, bool] | None:
    """Where a removed ``jax.core.<name>`` lives now, and whether it is provably the very same object
    (``jax._src.core.<name>``): a name the message suggests under another name is not."""
    mm = _MOVED_MSG.search(message) if f"jax.core.{name} " in message else None
    cands = [g for g in (mm.groups() if mm else ()) if g] + [f"jax.extend.core.{name}", f"jax.errors.{name}"]
    src = _lookup(f"jax._src.core.{name}")
    for cand in cands:
        obj = _lookup(cand)
        if obj is MISSING:
            continue
        same = src is not MISSING and obj is src
        if cand.rsplit(".", 1)[-1] == name and not same:
            continue  # the same name elsewhere is not provably the same thing
        return cand, same
    return None


def _renamed(ctx: Context, full: str) -> tuple[str, bool] | None:
    """(the replacement of a removed name, whether it is provably the same: a table entry or the very
    object), or None (unknown, still present, or the target is missing)."""
    if not full.startswith("jax.") or _lookup(full) is not MISSING:
        return None
    new = _RENAMES.get(full)
    proven = True
    if new is None and full.count(".") == 2 and full.startswith("jax.core."):
        got = _core_target(full.rsplit(".", 1)[1], ctx.message)
        new, proven = got if got is not None else (None, False)
    if new is None or _lookup(new.lstrip("-")) is MISSING:
        return None
    return new, proven


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
    """Every use of a removed JAX name in the cell becomes its current equivalent (same arguments).

    Why the same values: ``_RENAMES`` holds only names JAX (or NumPy, for the ``jnp`` aliases) removed in
    favour of a function documented as the same one with the same signature (``jax.tree_map`` was
    ``jax.tree_util.tree_map``, which ``jax.tree.map`` is; ``jnp.product`` was ``prod``; ``jnp.fix`` rounds
    toward zero, which is ``trunc``; ``jnp.NINF`` is ``-inf``, parenthesised where an operator would bind
    tighter), and a removed ``jax.core.<name>`` is replaced only by the very object (``is``) that
    ``jax._src.core.<name>`` is. A replacement is used only when the old name is gone from the installed
    JAX and the new one is there. Not proven, so ``review``: the old key/array types as ``jax.Array``
    outside annotations (``isinstance`` now also matches tracers and raw keys), and a ``jax.core`` name
    the message suggests under another name.
    """
    mm = _FAILING_NAME.search(ctx.message)
    failing = next((g for g in (mm.groups() if mm else ()) if g), None)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    changed: dict[str, str] = {}
    review: list[str] = []
    unproven: list[str] = []
    taken: set[int] = set()
    for node in ctx.nodes(cst.Attribute):
        if any(id(a) in taken for a in ctx.ancestors(node)):
            continue
        assert isinstance(node, cst.Attribute)
        old = full_name(ctx, node)
        got = _renamed(ctx, old) if old else None
        if got is None:
            continue
        new, proven = got
        taken.add(id(node))
        pairs.append((node, _new_node(ctx, node, old, new, imports)))
        changed[old] = new
        if old in _WIDER_TYPES and not _in_annotation(ctx, node):
            review.append(old)
        elif not proven:
            unproven.append(old)
    if not pairs or failing is None or not any(failing in o.split(".") for o in changed):
        return None
    names = ", ".join(f"`{o}` -> `{n}`" for o, n in changed.items())
    count = f" ({len(pairs)} uses in the cell)" if len(pairs) > 1 else ""
    if review:
        return Edit(ctx.replace_many(pairs, imports), "review",
                    f"Renamed {names}{count}; check the isinstance tests: `jax.Array` also matches tracers "
                    "and raw uint32 keys, which the old type did not.")
    if unproven:
        return Edit(ctx.replace_many(pairs, imports), "review",
                    f"Renamed {names}{count}; check that " + ", ".join(f"`{changed[o]}`" for o in unproven)
                    + " (the name the error message suggests) does what the removed one did.")
    return Edit(ctx.replace_many(pairs, imports), "safe", f"Renamed the removed {names}{count}; arguments unchanged.")


# ---------------------------------------------------------------------------------------------- device_put_*

def _pure(ctx: Context, node: cst.BaseExpression) -> bool:
    """An expression cheap and safe to evaluate twice (a name, ``jax.devices()``, a slice of those)."""
    if isinstance(node, (cst.Name, cst.Attribute)):
        return True
    if isinstance(node, cst.Subscript):
        return _pure(ctx, node.value)
    if isinstance(node, cst.Call):
        return full_name(ctx, node.func) in ("jax.devices", "jax.local_devices") and not any(
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
            full_name(ctx, call.func))
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
        xv = live_value(ctx, x, attrs="getattr", scoped=True)
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
