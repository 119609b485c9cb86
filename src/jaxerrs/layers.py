"""Which layer of the user's model got an input of the wrong size, read from a live traceback's frames.

A shape error raised inside ``nnx.Linear`` or ``eqx.nn.Linear`` (JAX's dot_general words) names shapes,
not layers. The layer's frame still holds the layer (``self``) and its input; the frame that called it
holds the model whose attribute the layer is. That gives "``l2`` expects 4 input features; its input has 8".
Only facts read from those objects are stated; nothing is guessed about which layer is wrong.
"""

from __future__ import annotations

from types import FrameType
from typing import Any

from jaxerrs.evidence import traceback_entries

# (module prefix of the layer's class, attribute with the expected input size, name of the input argument)
_LAYERS = (
    ("flax.nnx", "in_features", ("inputs", "x")),
    ("equinox.nn", "in_features", ("x",)),
    ("flax.nnx", "in_channels", ("inputs", "x")),
    ("equinox.nn", "in_channels", ("x",)),
)
_MAX_FRAMES = 400


def _layer_kind(obj: Any) -> tuple[str, tuple[str, ...]] | None:
    module = type(obj).__module__ or ""
    for prefix, attr, args in _LAYERS:
        if module.startswith(prefix) and isinstance(getattr(obj, attr, None), int):
            return attr, args
    return None


def _name_in(layer: Any, frame: FrameType) -> str | None:
    """The name the calling frame knows ``layer`` by: ``self.l2``, ``model.layers[1]`` or a local name."""
    try:
        local = dict(frame.f_locals)
    except Exception:  # noqa: BLE001 - unreadable locals: no name
        return None
    for name, value in local.items():
        if value is layer:
            return name
        try:
            attrs = vars(value)
        except TypeError:
            continue
        for attr, sub in attrs.items():
            if sub is layer:
                return f"{name}.{attr}"
            if isinstance(sub, list | tuple):
                for i, item in enumerate(sub):
                    if item is layer:
                        return f"{name}.{attr}[{i}]"
    return None


def _sibling_with_output(layer: Any, frame: FrameType, size: int) -> str | None:
    """The one other layer of the calling model whose output size is ``size`` (``out_features``), if exactly one."""
    try:
        attrs = vars(frame.f_locals["self"])
    except Exception:  # noqa: BLE001 - no model there, or one without attributes
        return None
    found = [name for name, sub in attrs.items()
             if sub is not layer and _layer_kind(sub) is not None and getattr(sub, "out_features", None) == size]
    return found[0] if len(found) == 1 else None


def layer_notes(exc: BaseException | None) -> list[str]:
    """Notes for a shape error raised inside a Flax NNX or Equinox layer: the layer, what it expects, what it got."""
    if exc is None:
        return []
    frames = [tb.tb_frame for tb in traceback_entries(exc)][:_MAX_FRAMES]
    for i, frame in enumerate(frames):
        if frame.f_code.co_name != "__call__":
            continue
        try:
            local = frame.f_locals
        except Exception:  # noqa: BLE001
            continue
        layer = local.get("self")
        kind = _layer_kind(layer) if layer is not None else None
        if kind is None:
            continue
        attr, args = kind
        value = next((local[a] for a in args if a in local), None)
        shape = getattr(value, "shape", None)
        if not isinstance(shape, tuple) or not shape:
            continue
        # channels-last for NNX Conv; Equinox Conv takes channels first
        axis = 0 if attr == "in_channels" and type(layer).__module__.startswith("equinox") else -1
        got, want = shape[axis], getattr(layer, attr)
        if not isinstance(got, int) or got == want:
            continue
        # The frame that holds the layer by name: the caller, or one a few wrappers further out.
        caller, name = None, None
        for outer in reversed(frames[max(0, i - 6):i]):
            name = _name_in(layer, outer)
            if name:
                caller = outer
                break
        who = f"`{name}` ({type(layer).__name__})" if name else f"This {type(layer).__name__}"
        what = "input features" if attr == "in_features" else "input channels"
        note = (f"{who} expects {want} {what} ({attr}={want}); the input it was called with has {got} "
                f"(shape {tuple(shape)}).")
        sibling = _sibling_with_output(layer, caller, got) if caller is not None else None
        if sibling:
            note += f" `{sibling}` has out_features={got}."
        return [note]
    return []
