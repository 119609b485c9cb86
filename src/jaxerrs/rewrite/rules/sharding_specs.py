"""A ``PartitionSpec`` naming an axis the mesh does not have: name the mesh's axis instead, in every spec.

``P("batch", None)`` for ``jax.make_mesh((4,), ("data",))`` is a spec written for another mesh (or a
typo, ``"device"`` for ``"devices"``). When the cell's one mesh has exactly one axis the name can stand
for (the only axis, or the only close spelling), every spec of the cell that names the missing axis
names that one, and so does every collective (``psum``, ``all_gather``...) that names it; a spec that
already splits another dimension over that axis gets ``None`` there instead (no axis splits two
dimensions). Refused: several meshes in the cell, several candidate axes, a name the mesh does have
(``shard_map(..., axis_names=...)`` leaving it out is another mistake).
"""

from __future__ import annotations

import difflib
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.values import MISSING, lookup

_SPECS = {"jax.sharding.PartitionSpec", "jax.P", "jax.sharding.PartitionSpec.__new__"}
_COLLECTIVES = {"psum": 1, "pmean": 1, "pmax": 1, "pmin": 1, "all_gather": 1, "psum_scatter": 1,
                "all_to_all": 1, "ppermute": 1, "axis_index": 0, "axis_size": 0, "pbroadcast": 1, "pvary": 1}


def _meshes(ctx: Context) -> list[tuple[str, ...]]:
    """The axis names of every mesh the cell names (live values), without repeats."""
    out: dict[tuple[str, ...], None] = {}
    for name in {n.value for n in ctx.nodes(cst.Name)}:  # type: ignore[attr-defined]
        v = lookup(ctx, name)
        if v is MISSING or type(v).__name__ not in ("Mesh", "AbstractMesh") or not str(
                type(v).__module__).startswith("jax"):
            continue
        names = getattr(v, "axis_names", None)
        if isinstance(names, tuple) and all(isinstance(x, str) for x in names):
            out[names] = None
    return list(out)


def _is_spec(ctx: Context, call: cst.Call) -> bool:
    full = full_name(ctx, call.func, keep=True)
    if full in _SPECS:
        return True
    v = lookup(ctx, full.split(".")[0]) if full and "." not in full else MISSING
    try:
        import jax

        return v is jax.sharding.PartitionSpec
    except Exception:  # noqa: BLE001
        return False


def _spec_strings(call: cst.Call) -> list[list[cst.SimpleString]]:
    """Per dimension of ``P(...)``, its axis-name literals (a tuple entry splits one dimension over several)."""
    out = []
    for a in call.args:
        if a.keyword is not None or a.star:
            continue
        v = a.value
        items = [e.value for e in v.elements] if isinstance(v, cst.Tuple) else [v]
        out.append([x for x in items if isinstance(x, cst.SimpleString)])
    return out


def _collective_strings(ctx: Context) -> list[cst.SimpleString]:
    out = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        full = full_name(ctx, call.func, keep=True)
        mod, _, fname = full.rpartition(".")
        if mod != "jax.lax" or fname not in _COLLECTIVES:
            continue
        pos = [a for a in call.args if a.keyword is None and not a.star]
        arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "axis_name"), None)
        if arg is None and len(pos) > _COLLECTIVES[fname]:
            arg = pos[_COLLECTIVES[fname]].value
        if isinstance(arg, cst.SimpleString):
            out.append(arg)
        elif isinstance(arg, cst.Tuple):
            out.extend(e.value for e in arg.elements if isinstance(e.value, cst.SimpleString))
    return out


def _value(s: cst.SimpleString) -> Any:
    try:
        return s.evaluated_value
    except Exception:  # noqa: BLE001
        return None


def _plan(ctx: Context, axes: tuple[str, ...]) -> dict[str, str | None]:
    """Missing axis name -> the mesh axis it stands for, or None (that dimension is not split).

    A close spelling of one mesh axis is that axis (a typo); otherwise the spec was written for another
    mesh: on a one-axis mesh that no spec of the cell names yet, the missing name is that axis
    (``"batch"`` for ``("data",)``); when the specs name the mesh's axes and also another one (written for a
    bigger mesh), that dimension is left unsplit (None); else "" (not clear: nothing is offered).
    """
    specs = [c for c in ctx.nodes(cst.Call) if isinstance(c, cst.Call) and _is_spec(ctx, c)]
    named = {_value(x) for c in specs for dim in _spec_strings(c) for x in dim}
    missing = sorted({v for v in named if isinstance(v, str) and v not in axes})
    out: dict[str, str | None] = {}
    for v in missing:
        close = difflib.get_close_matches(v, axes, n=2, cutoff=0.6)
        if len(close) == 1:
            out[v] = close[0]
        elif not close and len(axes) == 1 and axes[0] not in named and len(missing) == 1:
            out[v] = axes[0]
        elif not close and named & set(axes):
            out[v] = None  # the specs use the mesh's axes and one more, which this mesh does not have
        else:
            out[v] = ""  # which axis it stands for is not clear
    return out


def detect_spec_axes(ctx: Context, key: Any) -> Found | None:
    """Axis-name literals of the cell's specs (and collectives) that the cell's one mesh lacks; a name that
    must become None inside a tuple of axes, or in a collective, is not fixable."""
    meshes = _meshes(ctx)
    if key is None:
        if len(meshes) != 1:
            return None
        axes = meshes[0]
    else:
        axes = key[1]
    found = Found(("spec-axis", axes))
    plan = _plan(ctx, axes)
    specs = [c for c in ctx.nodes(cst.Call) if isinstance(c, cst.Call) and _is_spec(ctx, c)]
    for call in specs:
        for dim in _spec_strings(call):
            for s in dim:
                v = _value(s)
                if isinstance(v, str) and v not in axes:
                    ok = bool(plan.get(v)) or plan.get(v) is None and len(dim) == 1 and not _in_tuple(ctx, s)
                    (found.fixable if ok else found.unfixable).append(s)
    if key is None and not found:
        return None
    if found:
        for s in _collective_strings(ctx):
            v = _value(s)
            if isinstance(v, str) and v not in axes:
                (found.fixable if plan.get(v) else found.unfixable).append(s)
    return found if found else None


def _in_tuple(ctx: Context, s: cst.SimpleString) -> bool:
    return isinstance(ctx.parent(ctx.parent(s)), cst.Tuple) if isinstance(ctx.parent(s), cst.Element) else False


def _quoted(s: cst.SimpleString, text: str) -> cst.SimpleString:
    q = s.quote
    return s.with_changes(value=f"{s.prefix}{q}{text}{q}")


@rule("spec-axis-name", detect=detect_spec_axes)
def spec_axis_name(ctx: Context) -> Edit | None:
    """Every spec (and collective) of the cell that names an axis the mesh lacks names the mesh's axis, or
    leaves that dimension unsplit (None) when no axis of the mesh stands for it.

    Review: the layout is a choice (which dimension is split over which axis), though outside ``shard_map``
    any valid layout computes the same values.
    """
    found = detect_spec_axes(ctx, None)
    if not found or found.unfixable:
        return None
    axes = found.key[1]
    plan = _plan(ctx, axes)
    pairs: list[tuple[cst.CSTNode, Any]] = []
    for s in found.fixable:
        new = plan.get(_value(s))
        pairs.append((s, _quoted(s, new) if new is not None else cst.Name("None")))
    if not pairs:
        return None
    renamed = [f"'{a}' → '{b}'" for a, b in plan.items() if b]
    unsplit = [f"'{a}'" for a, b in plan.items() if b is None]
    parts = []
    if renamed:
        parts.append(f"the specs name the mesh's own axis ({', '.join(renamed)})")
    if unsplit:
        parts.append(f"the dimensions split over {', '.join(unsplit)}, which the mesh lacks, are not split (None)")
    return Edit(ctx.replace_many(pairs), "review",
                f"{'; '.join(parts)}; check that this is the layout you meant (the mesh's axes: {', '.join(axes)}).",
                cause=found.key)


# ---------------------------------------------------------------------------- one axis on two dimensions

_PER_SHARD = ("shard_map", "smap", "pmap", "xmap")


def detect_duplicate_axes(ctx: Context, key: Any) -> Found | None:
    """The axis-name literals of the cell's specs that repeat an axis an earlier dimension of the same spec
    already names. A repeat inside a tuple of axes is not fixable; nor is any of them in a cell that maps a
    function per shard (``shard_map``, ``pmap``): there a spec sets the shapes the function sees."""
    found = Found(("duplicate-spec-axis",))
    per_shard = any(n.value in _PER_SHARD for n in ctx.nodes(cst.Name)) or any(  # type: ignore[attr-defined]
        a.attr.value in _PER_SHARD for a in ctx.nodes(cst.Attribute))  # type: ignore[attr-defined]
    for call in ctx.nodes(cst.Call):
        if not (isinstance(call, cst.Call) and _is_spec(ctx, call)):
            continue
        seen: set[str] = set()
        for dim in _spec_strings(call):
            later = []
            for s in dim:
                v = _value(s)
                if isinstance(v, str) and v in seen:
                    later.append(s)
            for s in later:
                ok = not per_shard and len(dim) == 1 and not _in_tuple(ctx, s)
                (found.fixable if ok else found.unfixable).append(s)
            seen |= {v for v in map(_value, dim) if isinstance(v, str)}
    return found if found else None


@rule("spec-duplicate-axis", detect=detect_duplicate_axes)
def spec_duplicate_axis(ctx: Context) -> Edit | None:
    """A mesh axis a ``PartitionSpec`` names for two dimensions keeps the first; each later dimension that
    names it alone is not split (None), in every spec of the cell.

    Review: which dimension is split is a layout choice. Outside per-shard functions (refused in a cell with
    ``shard_map`` or ``pmap``) a sharding changes where values live, not the values computed.
    """
    found = detect_duplicate_axes(ctx, None)
    if not found or found.unfixable:
        return None
    axes = sorted({str(_value(s)) for s in found.fixable})
    names = ", ".join(f"'{a}'" for a in axes)
    return Edit(ctx.replace_many([(s, cst.Name("None")) for s in found.fixable]), "review",
                f"Each spec keeps {names} on the first dimension that names it; the later dimension is not split "
                f"(None); check that this is the dimension you meant to split over {names} (the layout changes, "
                "the values do not).", cause=found.key)
