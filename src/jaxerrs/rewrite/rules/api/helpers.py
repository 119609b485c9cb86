"""What the API rules share: the live object a dotted name stands for, calls on the failing line, arrays."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import libcst as cst

from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.values import MISSING

# ---------------------------------------------------------------------------------------------- helpers


def _lookup(dotted: str) -> Any:
    """The live object named ``dotted`` (importing modules as needed), or ``MISSING``."""
    parts = dotted.split(".")
    obj: Any = MISSING
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001 - not a module: try a shorter prefix
            continue
        rest = parts[i:]
        break
    else:
        return MISSING
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for attr in rest:
            try:
                obj = getattr(obj, attr)
            except Exception:  # noqa: BLE001 - AttributeError or a deprecation error
                return MISSING
    return obj


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


def _calls_on_line(ctx: Context) -> list[cst.Call]:
    """Calls that sit on the failing statement (the whole statement, so multi-line calls count)."""
    stmt = ctx.statement(cst.If, cst.While, cst.For, cst.With, cst.Return)
    if stmt is None:
        return []
    lo, hi = ctx.span(stmt)
    if isinstance(stmt, (cst.If, cst.While, cst.For, cst.With)):
        hi = lo  # the header only
    return [c for c in ctx.nodes(cst.Call) if lo <= ctx.span(c)[0] <= hi]  # type: ignore[misc]


def _in_annotation(ctx: Context, node: cst.CSTNode) -> bool:
    return any(isinstance(a, cst.Annotation) for a in ctx.ancestors(node))


def _is_array(value: Any) -> bool:
    return value is not MISSING and hasattr(value, "dtype") and hasattr(value, "shape") \
        and not isinstance(value, (int, float, complex, bool))
