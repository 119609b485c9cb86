"""``grad`` with respect to integer inputs: make the differentiated argument a float."""

from __future__ import annotations

import re
import sys
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.cst_tools import keyword_arg, positional_args
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules.autodiff.common import (
    _GRADS,
    _JACS,
    _PUBLIC,
    _add_arg,
    _argnums,
    _edit,
    _fn_params,
    _grad_use,
    _GradUse,
    _int,
    _kw,
    _ref,
    _rule,
    _target_fn,
)
from jaxerrs.rewrite.values import MISSING, lookup

# ---------------------------------------------------------------------------------------------- integer inputs


def _float_dtype() -> str:
    jax = sys.modules.get("jax")
    try:
        return "float64" if jax is not None and jax.config.read("jax_enable_x64") else "float32"
    except Exception:  # noqa: BLE001 - an older config API: the default float type
        return "float32"


def _int_literals(e: cst.BaseExpression) -> bool:
    if _int(e) is not None:
        return True
    if isinstance(e, (cst.List, cst.Tuple)) and e.elements:
        return all(not isinstance(x, cst.StarredElement) and _int_literals(x.value) for x in e.elements)
    return False


def _literal_ints(e: cst.BaseExpression) -> Any:
    """The integers of a literal (a number or nested lists/tuples of numbers), as nested lists."""
    v = _int(e)
    if v is not None:
        return v
    return [_literal_ints(x.value) for x in e.elements]  # type: ignore[attr-defined]


def _is_int_value(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    dtype = getattr(v, "dtype", None)
    kind = getattr(dtype, "kind", "")
    return kind in ("i", "u") and hasattr(v, "shape")


def _exact(v: Any) -> bool:
    """Whether the integers of ``v`` (an int, a list of them, an int array) are all exact in the float
    dtype they become: |v| <= 2**24 in float32, 2**53 in float64."""
    limit = 2 ** (53 if _float_dtype() == "float64" else 24)
    try:
        import numpy as np

        return bool(np.all(np.abs(np.asarray(v, dtype=np.int64)) <= limit))
    except (TypeError, ValueError, OverflowError):
        return False


def _floatify(ctx: Context, e: cst.BaseExpression) -> tuple[cst.BaseExpression, str | None, str] | None:
    """A float version of an integer argument with the same values: (expression, import, how it changed);
    None unless every integer it holds is exact in the float dtype (``_exact``)."""
    v = _int(e)
    if v is not None:
        if not _exact(v):
            return None
        lit = f"{abs(v)}.0"
        new: cst.BaseExpression = cst.Float(lit)
        if v < 0:
            new = cst.UnaryOperation(cst.Minus(), new)
        return new.with_changes(lpar=e.lpar, rpar=e.rpar), None, f"`{v}` -> `{v}.0`"
    dtype = _float_dtype()
    if isinstance(e, cst.Call):
        name = full_name(ctx, e.func, known=_PUBLIC)
        pos = positional_args(e)
        if name not in ("jax.numpy.array", "jax.numpy.asarray", "jax.numpy.arange", "functools.partial") or pos is None or not pos:
            return None
        if _kw(e, "dtype") is not None or (name != "jax.numpy.arange" and len(pos) > 1):
            return None
        if name == "jax.numpy.arange":
            if any(isinstance(a.value, cst.Float) for a in pos) or len(pos) > 3:
                return None
            if not all(_int(a.value) is not None and _exact(_int(a.value)) for a in pos):
                return None  # bounds the cell does not spell: their size is unknown
        elif not _int_literals(pos[0].value) or not _exact(_literal_ints(pos[0].value)):
            return None
        dt, imp = _ref(ctx, f"jax.numpy.{dtype}")
        return _add_arg(e, keyword_arg("dtype", dt)), imp, f"`{name.rsplit('.', 1)[1]}` now builds {dtype} values"
    if isinstance(e, cst.Name):
        val = lookup(ctx, e.value)
        if val is MISSING or not _is_int_value(val) or not _exact(val):
            return None
        if isinstance(val, int):
            return cst.Call(cst.Name("float"), [cst.Arg(e)]), None, f"`{e.value}` is passed as a float"
        dt, imp = _ref(ctx, f"jax.numpy.{dtype}")
        new = cst.Call(cst.Attribute(e, cst.Name("astype")), [cst.Arg(dt)])
        return new, imp, f"`{e.value}` is passed as {dtype}"
    return None


_PARAMS_NAME = re.compile(r"^(params|parameters|weights|w|theta|p|model_params|variables|coeffs?)$|param")


def _float_tree(v: Any) -> bool:
    jax = sys.modules.get("jax")
    if jax is None or v is MISSING:
        return False
    leaves = jax.tree_util.tree_leaves(v)
    return bool(leaves) and all(getattr(getattr(x, "dtype", None), "kind", "") in ("f", "c") for x in leaves)


@_rule("grad-float-input")
def grad_float_input(ctx: Context) -> Edit | None:
    """An integer literal or int array at the call site becomes float (same points); argnums on an int arg moves.

    Why the same values: the function is evaluated, and differentiated, at the very numbers it was given
    (``3`` -> ``3.0``, an int array cast to float), which is what ``grad`` at an integer point means; checked
    (``_exact``): every integer is exact in the float dtype (|v| <= 2**24 for float32), and the function is
    a def or lambda of the cell that does not use the argument as an integer (an index, a size, ``//``,
    ``%``, a key: ``_used_as_int``). A function the cell does not define cannot be read: ``review``.
    Moving ``argnums`` to another argument differentiates something else: ``review``.
    """
    use = _grad_use(ctx, {**_GRADS, **_JACS})
    if use is None:
        return None
    argnums = _argnums(use.make)
    pos = positional_args(use.apply)
    if argnums is None or pos is None or any(i >= len(pos) or i < 0 for i in argnums):
        return None
    moved = _argnums_to_params(ctx, use, argnums, pos)
    if moved is not None:
        return moved
    fn, _ = _target_fn(ctx, (positional_args(use.make) or [cst.Arg(cst.Name("_"))])[0].value)
    params = _fn_params(fn) if fn is not None else None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    notes = []
    for i in argnums:
        if fn is not None and (params is None or i >= len(params) or _used_as_int(fn, params[i])):
            return None  # the function needs that argument as an integer (an index, a count)
        done = _floatify(ctx, pos[i].value)
        if done is not None:
            pairs.append((pos[i].value, done[0]))
            imports.append(done[1])
            notes.append(done[2])
    if not pairs:
        return None
    if fn is None:
        return Edit(_edit(ctx, pairs, imports=imports), "review",
                    "; ".join(notes) + ": the derivative is taken at the same points, now as floats; check that "
                    "the function does not use that argument as an integer (an index, a count).")
    return Edit(_edit(ctx, pairs, imports=imports), "safe",
                "; ".join(notes) + ": the derivative is taken at the same points, now as floats.")


_INT_USES = re.compile(r"(^|\.)(take|take_along_axis|one_hot|arange|range|zeros|ones|full|eye|repeat|tile|"
                       r"dynamic_slice|dynamic_index_in_dim|bincount|segment_sum|fori_loop|PRNGKey|key|fold_in)$")


def _used_as_int(fn: cst.FunctionDef | cst.Lambda, name: str) -> bool:
    """Whether the function uses parameter ``name`` as an integer: an index, a size, a count, a key."""
    body = fn.body
    for sub in m.findall(body, m.Subscript()):
        assert isinstance(sub, cst.Subscript)
        if any(m.findall(el, m.Name(name)) for el in sub.slice):
            return True
    for call in m.findall(body, m.Call()):
        assert isinstance(call, cst.Call)
        if _INT_USES.search(dotted_name(call.func)) and any(m.findall(a, m.Name(name)) for a in call.args):
            return True
    for op in m.findall(body, m.BinaryOperation(operator=m.FloorDivide() | m.Modulo() | m.BitAnd() | m.BitOr()
                                                 | m.BitXor() | m.LeftShift() | m.RightShift())):
        if m.findall(op, m.Name(name)):
            return True
    return False


def _argnums_to_params(ctx: Context, use: _GradUse, argnums: tuple[int, ...], pos: list[cst.Arg]) -> Edit | None:
    """``grad(loss)(tokens, params)`` with integer tokens: differentiate the float ``params`` argument instead."""
    if argnums != (0,) or _kw(use.make, "argnums") is not None or len(positional_args(use.make) or []) != 1:
        return None
    fn, name = _target_fn(ctx, use.make.args[0].value)
    params = _fn_params(fn) if fn is not None else None
    if params is None or len(params) < len(pos) or fn is None:
        return None
    first = pos[0].value
    if not (_int(first) is not None or isinstance(first, cst.Name) and _is_int_value(lookup(ctx, first.value))):
        return None
    floats = [i for i in range(1, len(pos)) if isinstance(pos[i].value, cst.Name)
              and _float_tree(lookup(ctx, pos[i].value.value))]
    fits = [i for i in floats if _PARAMS_NAME.search(params[i])]
    if not fits and _used_as_int(fn, params[0]):
        fits = floats  # the integer is an index into the function's float data
    if len(fits) != 1:
        return None
    i = fits[0]
    new_make = _add_arg(use.make, keyword_arg("argnums", cst.Integer(str(i))))
    return Edit(_edit(ctx, [(use.make, new_make)]), "review",
                f"now differentiates `{name}` with respect to `{params[i]}` (argument {i}) instead of the integer "
                f"`{params[0]}`: check that the gradient's users expect the `{params[i]}` structure.")
