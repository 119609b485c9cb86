"""Where removed JAX modules and names live now: the table ``removed-import`` rewrites with, checked live.

Each entry names the very object the old import gave (JAX re-exported these from where they still are),
or a module that moved whole. ``resolve`` answers only when the old name is really gone from the installed
JAX and the new one really exists; for a module that re-exported an internal one, an object counts as
moved only when the new home's object *is* the internal one.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from typing import Any

from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.rules.api import renamed as _renamed_mod
from jaxerrs.rewrite.rules.api.helpers import _lookup
from jaxerrs.rewrite.rules.api.renamed import _RENAMES, _WIDER_TYPES
from jaxerrs.rewrite.values import MISSING

# A removed module -> (the module or object that holds its objects now, the module the old one re-exported
# them from, or None when the whole module moved as it was). With a source, an object counts as moved only
# when the new home's object *is* the source's (so ``maps.Mesh`` moves, ``maps.xmap`` does not).
_MODULES: dict[str, tuple[str, str | None]] = {
    "jax.config": ("jax.config", None),  # a module re-exporting jax._src.config.config; now that object
    "jax.experimental.optimizers": ("jax.example_libraries.optimizers", None),
    "jax.experimental.stax": ("jax.example_libraries.stax", None),
    "jax.linear_util": ("jax.extend.linear_util", None),
    "jax.abstract_arrays": ("jax.core", "jax._src.core"),
    "jax.lib.xla_bridge": ("jax.extend.backend", "jax._src.xla_bridge"),
    "jax.experimental.maps": ("jax.sharding", "jax._src.mesh"),  # maps.Mesh was pxla.Mesh, now jax._src.mesh
}
# modules whose new home is an internal-looking API that changed signatures since: review
_REVIEW_MODULES = {"jax.linear_util": "`jax.extend.linear_util` has the same utilities, but some signatures "
                                      "changed (`wrap_init` takes `debug_info=`): check the calls"}
# removed names -> the very same object's current name (JAX re-exported these from where they still are)
_TREE = ("map", "leaves", "flatten", "unflatten", "structure", "transpose", "reduce", "all")
_NAMES: dict[str, str] = {f"jax.tree_{n}": f"jax.tree_util.tree_{n}" for n in _TREE}
_NAMES.update({
    "jax.config.config": "jax.config",
    "jax.tree_multimap": "jax.tree_util.tree_map",  # tree_map has taken several trees since tree_multimap went
    "jax.tree_util.tree_multimap": "jax.tree_util.tree_map",
    "jax.experimental.PartitionSpec": "jax.sharding.PartitionSpec",
    "jax.experimental.pjit.PartitionSpec": "jax.sharding.PartitionSpec",
    "jax.interpreters.pxla.PartitionSpec": "jax.sharding.PartitionSpec",
    "jax.interpreters.pxla.Mesh": "jax.sharding.Mesh",
    "jax.interpreters.pxla.ShardedDeviceArray": "jax.Array",
})
_WIDER = _WIDER_TYPES | {"jax.interpreters.pxla.ShardedDeviceArray"}
# context managers whose removed alias did ``with jax.enable_x64(new_val): yield``: the same only when the
# cell uses the name as ``with name(...)`` (no keywords: the old parameter was called ``new_val``)
_X64 = {"jax.experimental.enable_x64", "jax.experimental.x64_context.enable_x64"}
_NAMES.update({old: "jax.enable_x64" for old in _X64})


def _target_of(got: Any) -> str | None:
    """renamed-api's answer as a name: a string, or (name, proven) where only a proven one counts."""
    if isinstance(got, tuple):
        return got[0] if got[1] else None
    return got


def _renamed(ctx: Context, full: str) -> str | None:
    return _target_of(_renamed_mod._renamed(ctx, full))


def _core_target(name: str, message: str) -> str | None:
    return _target_of(_renamed_mod._core_target(name, message))


def _is_module(dotted: str) -> bool | None:
    """Whether ``dotted`` is an importable module (None: cannot tell)."""
    try:
        return importlib.util.find_spec(dotted) is not None
    except ModuleNotFoundError as e:
        return False if not e.name or dotted.startswith(e.name) else None
    except Exception:  # noqa: BLE001 - a parent that fails to import for another reason
        return None


def _has(module: str, name: str) -> bool | None:
    """Whether ``from module import name`` finds something (None: cannot tell)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mod = importlib.import_module(module)
            if hasattr(mod, name):
                return True
    except ModuleNotFoundError as e:
        if e.name and not module.startswith(e.name):
            return None  # the module exists but needs a package that is not installed (jax2tf: tensorflow)
        return False
    except Exception:  # noqa: BLE001 - the module exists but fails to import (a missing dependency)
        return None
    return _is_module(f"{module}.{name}")


def resolve(ctx: Context, old: str) -> str | None:
    """The current full name of the object the removed ``old`` named, or None when it has no exact home."""
    new: str | None = None
    parent, _, last = old.rpartition(".")
    if old in _NAMES:
        new = _NAMES[old]
    elif old in _MODULES:
        new = _MODULES[old][0]
    elif parent in _MODULES:
        home, source = _MODULES[parent]
        new = f"{home}.{last}"
        if source is not None:
            obj, src = _lookup(new), _lookup(f"{source}.{last}")
            if obj is MISSING or src is MISSING or obj is not src:
                return None
    elif old in _RENAMES:
        new = _RENAMES[old]
    elif old.startswith("jax.core.") and old.count(".") == 2:
        new = _core_target(last, ctx.message)
    elif old.count(".") >= 2:
        # a name of a module that still exists and was renamed there (renamed-api's table)
        new = _renamed(ctx, old)
    if new is None or new.startswith("-") or _lookup(new) is MISSING:
        return None
    return new
