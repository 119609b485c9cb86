"""What a name in the cell stands for: ``jnp.sum`` -> "jax.numpy.sum", through the cell's imports and the
namespace of earlier cells (``from jax import jit``, ``partial``, functions imported by name).

Every rule keys its decisions on full dotted names, never on how the user spelled them; this is the one
place that turns the spelling into the name.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxerrs.rewrite.context import dotted_name
from jaxerrs.rewrite.values import MISSING, lookup, lookup_dotted

if TYPE_CHECKING:
    from jaxerrs.rewrite.context import Context


def _objects(dotted: tuple[str, ...]) -> dict[int, str]:
    """id(object) -> dotted name, for the objects among ``dotted`` (in modules already loaded)."""
    out: dict[int, str] = {}
    for name in dotted:
        head = name.split(".")[0]
        obj: Any = sys.modules.get(head)
        if obj is None:
            continue
        for part in name.split(".")[1:]:
            obj = getattr(obj, part, None)
        if obj is not None:
            out[id(obj)] = name
    return out


def full_name(ctx: Context, node: cst.CSTNode, known: tuple[str, ...] = (), modules: tuple[str, ...] = (),
              keep: bool = False, methods: bool = False) -> str:
    """The full dotted name an expression stands for (``tu.tree_map`` -> "jax.tree_util.tree_map"), or ''.

    A head the cell's imports (and the namespace's modules, ``jit``, ``partial``...) do not bind is
    looked up further only as asked: ``known`` dotted names recognised by identity when the namespace
    binds one bare (``scan = jax.lax.scan``); ``modules`` searched for a bare name's live value (a
    function an earlier cell imported by name); ``keep`` returns the unresolved spelling instead of '';
    ``methods`` gives ".mean" for a method of any expression (``params["w"].mean``).
    """
    dotted = dotted_name(node)
    if not dotted:
        return f".{node.attr.value}" if methods and isinstance(node, cst.Attribute) else ""
    head, _, rest = dotted.partition(".")
    base = ctx.imports.get(head)
    if base is not None:
        return f"{base}.{rest}" if rest else base
    if not rest and known and ctx.namespace and head in ctx.namespace:
        obj = ctx.namespace[head]
        if "functools.partial" in known and getattr(obj, "__module__", None) == "functools" \
                and getattr(obj, "__name__", "") == "partial":
            return "functools.partial"
        found = _objects(known).get(id(obj))
        if found:
            return found
    if not rest and modules:
        found = public_name(ctx, head, modules)
        if found:
            return found
    return dotted if keep else ""


def public_name(ctx: Context, name: str, modules: tuple[str, ...]) -> str | None:
    """'jax.nn.logsumexp' for a bare name an earlier cell imported with ``from jax.nn import logsumexp``."""
    obj = lookup(ctx, name)
    if obj is MISSING or not callable(obj) or not str(getattr(obj, "__module__", "")).startswith("jax"):
        return None
    for mod in modules:
        try:
            if getattr(importlib.import_module(mod), name, None) is obj:
                return f"{mod}.{name}"
        except ImportError:
            continue
    return None


def refers_to(ctx: Context, node: cst.CSTNode, target: str) -> bool:
    """Whether ``node`` (a dotted name) is ``target`` ("jax.jit"): by its live value when the frame has
    one, else by the cell's imports."""
    d = dotted_name(node)
    if not d or "" in d.split("."):
        return False
    v = lookup_dotted(ctx, d)
    if v is not MISSING:
        mod, _, attr = target.rpartition(".")
        try:
            return v is getattr(importlib.import_module(mod), attr)
        except Exception:  # noqa: BLE001
            return False
    head = d.split(".")[0]
    full = ctx.imports.get(head)
    return (full + d[len(head):] if full else d) == target
