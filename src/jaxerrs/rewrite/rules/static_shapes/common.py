"""What the static-shape rules share: names, shapes of expressions, the call sites of a jitted function."""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import (
    NOPE,
    JitSite,
    name_of,
    param_names,
    py_literal,
)
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.values import MISSING, lookup

_ORIGIN = re.compile(r"The error occurred while tracing the function (?P<fn>\S+) at (?P<file>.+?):(?P<line>\d+)"
                     r" for (?P<kind>\w+)\.")
_ARGS = re.compile(r"depends on the values? of the arguments? (?P<args>.+?)\.(?:\s|$)")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_SHAPE_ATTRS = ("shape", "ndim", "size", "dtype")

# ---------------------------------------------------------------------------------------------- names


def _jnp_name(ctx: Context, func: cst.CSTNode) -> str:
    """'zeros' for ``jnp.zeros`` / ``jax.numpy.zeros``; '' when ``func`` is not a jax.numpy function."""
    full = full_name(ctx, func, keep=True)
    return full[len("jax.numpy."):] if full.startswith("jax.numpy.") and full.count(".") == 2 else ""


def _names_in(node: cst.CSTNode) -> list[str]:
    """Names read in ``node``, skipping attribute names and names only used for ``.shape``/``.ndim``."""
    out: list[str] = []

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> bool:
            if isinstance(n.value, cst.Name) and n.attr.value in _SHAPE_ATTRS:
                return False
            n.value.visit(self)
            return False

        def visit_Name(self, n: cst.Name) -> None:
            out.append(n.value)

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

    node.visit(_V())
    return out


def _lookup(ctx: Context, name: str) -> Any:
    """The value of ``name`` in the failing frame, None when unknown."""
    v = lookup(ctx, name)
    return None if v is MISSING else v


def _within(ctx: Context, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
    return node is outer or outer in ctx.ancestors(node)


# ---------------------------------------------------------------------------------------------- shapes


def _shape(ctx: Context, e: cst.CSTNode, attrs: bool = False) -> tuple[int, ...] | None:
    """The static shape of a simple expression from the failing frame's locals, or None. ``attrs`` also
    reads a name of the frame's function and an instance attribute (``self.threshold``) live."""
    if isinstance(e, (cst.Integer, cst.Float)):
        return ()
    if isinstance(e, cst.Name):
        got = _value_shape(_lookup(ctx, e.value))
        if got is not None or not attrs:
            return got
    if attrs and isinstance(e, (cst.Name, cst.Attribute)):
        from jaxerrs.rewrite.values import live_value

        v = live_value(ctx, e, attrs="instance", scoped=True)
        return None if v is MISSING else _value_shape(v)
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Name) and len(e.slice) == 1:
        key = e.slice[0].slice
        if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString):
            d = _lookup(ctx, e.value.value)
            if isinstance(d, dict):
                return _value_shape(d.get(key.value.evaluated_value))
        return None
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value in ("ravel", "flatten") \
            and not e.args:
        inner = _shape(ctx, e.func.value)
        return None if inner is None else (_prod(inner),)
    parts: list[cst.CSTNode]
    if isinstance(e, cst.Comparison):
        parts = [e.left] + [c.comparator for c in e.comparisons]
    elif isinstance(e, cst.BinaryOperation):
        parts = [e.left, e.right]
    elif isinstance(e, cst.UnaryOperation):
        parts = [e.expression]
    elif isinstance(e, cst.Call) and _jnp_name(ctx, e.func) in _ELEMENTWISE and all(a.keyword is None for a in e.args):
        parts = [a.value for a in e.args]
    else:
        return None
    shapes = [_shape(ctx, p, attrs) for p in parts]
    if any(s is None for s in shapes):
        return None
    try:
        import numpy as np

        return tuple(np.broadcast_shapes(*shapes))  # type: ignore[arg-type]
    except ValueError:
        return None


def _prod(shape: tuple[int, ...]) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def _value_shape(v: Any) -> tuple[int, ...] | None:
    if isinstance(v, (bool, int, float)):
        return ()
    shape = getattr(v, "shape", None) if hasattr(v, "dtype") else None
    return tuple(shape) if isinstance(shape, tuple) else None


def _dtype_kind(ctx: Context, e: cst.CSTNode) -> str:
    """'f', 'i', 'b'... (NumPy kind) of a name's value in the failing frame, '' when unknown."""
    if isinstance(e, cst.Name):
        v = _lookup(ctx, e.value)
        kind = getattr(getattr(v, "dtype", None), "kind", "")
        return kind if isinstance(kind, str) else ""
    return ""


_ELEMENTWISE = {"abs", "absolute", "square", "sqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tanh",
                "isnan", "isfinite", "isinf", "logical_not", "logical_and", "logical_or", "logical_xor",
                "negative", "sign", "maximum", "minimum", "power", "clip"}

# ---------------------------------------------------------------------------------------------- jit sites


# ---------------------------------------------------------------------------------------------- call sites


def _call_sites(ctx: Context, site: JitSite) -> list[cst.Call]:
    if site.inline is not None:
        return [site.inline]
    out = []
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if site.method:
            if isinstance(c.func, cst.Attribute) and c.func.attr.value in site.names:
                out.append(c)
        elif isinstance(c.func, cst.Name) and c.func.value in site.names:
            out.append(c)
    return out


def _arg_for(call: cst.Call, fn: cst.FunctionDef, param: str, method: bool = False) -> cst.Arg | None | bool:
    """The Arg passed for ``param`` at ``call``; False when it cannot be told (``*args``), None when defaulted."""
    pos, _ = param_names(fn)
    if method:
        pos = pos[1:]
    for a in call.args:
        if a.star:
            return False
        if a.keyword is not None and a.keyword.value == param:
            return a
    if param in pos:
        i = pos.index(param)
        positional = [a for a in call.args if a.keyword is None]
        if i < len(positional):
            return positional[i]
    return None


_PY_CALLS = {"len", "int", "round", "min", "max", "abs", "sum"}


def _py_value(ctx: Context, e: cst.BaseExpression, inside: bool) -> str:
    """'py' (a hashable Python value), 'wrapped' (``jnp.int32(3)``), 'scalar-array', 'array', 'unknown'."""
    lit = py_literal(e)
    if lit is not NOPE:
        return "py" if not isinstance(lit, (list, dict, set)) else "unknown"
    if isinstance(e, cst.Name):
        v = None if inside else (ctx.namespace or {}).get(e.value, NOPE)
        if v is NOPE or v is None:
            return "unknown"
        if isinstance(v, (bool, int, float, str, tuple)):
            return "py"
        if hasattr(v, "dtype") and hasattr(v, "shape"):
            if not type(v).__module__.startswith("jax"):
                return "py" if v.shape == () else "array"  # NumPy scalars hash fine
            return "scalar-array" if v.shape == () and getattr(v.dtype, "kind", "") in "iu" else "array"
        return "unknown"
    if isinstance(e, cst.Call):
        if isinstance(e.func, cst.Name) and e.func.value in _PY_CALLS:
            return "py"
        if _jnp_name(ctx, e.func) in ("int32", "int64", "array", "asarray", "int16", "int8", "uint32") \
                and len(e.args) == 1 and isinstance(e.args[0].value, cst.Integer):
            return "wrapped"
        if full_name(ctx, e.func, keep=True).startswith("jax."):
            return "array"  # jnp.float32(2.0), jnp.array(n), jax.random...: array data, never static
        return "unknown"
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape":
        return "py"
    if isinstance(e, cst.BinaryOperation):
        a, b = _py_value(ctx, e.left, inside), _py_value(ctx, e.right, inside)
        return "py" if a == b == "py" else "unknown"
    return "unknown"


def _transformed(ctx: Context, fn: cst.FunctionDef) -> bool:
    """Whether ``fn`` runs under a JAX transformation (jitted, or passed as a function to some call)."""
    if fn.decorators:
        return True
    name = fn.name.value
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if any(isinstance(a.value, cst.Name) and a.value.value == name for a in c.args):
            return True
    return False


def _body_assignments(fn: cst.FunctionDef, name: str) -> list[cst.CSTNode]:
    """Statements in ``fn`` (not nested functions) that bind ``name``."""
    out: list[cst.CSTNode] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                if any(isinstance(x, cst.Name) and x.value == name for x in _target_names(t.target)):
                    out.append(n)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            if name_of(n.target) == name:
                out.append(n)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            if name_of(n.target) == name:
                out.append(n)

        def visit_For(self, n: cst.For) -> None:
            if any(x.value == name for x in _target_names(n.target)):
                out.append(n)

    fn.visit(_V())
    return out


def _target_names(t: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(t, cst.Name):
        return [t]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for e in t.elements for n in _target_names(e.value)]
    return []
