"""Live values of the cell's expressions, read from the failing frame: one place for every rule family.

A rule may only propose what it can check, and what it checks is often the value a name holds right now
(an int seed, a config dict, an array's dtype). Nothing here calls user code beyond attribute reads.
"""

from __future__ import annotations

import ast
import builtins
import sys
from typing import TYPE_CHECKING, Any

import libcst as cst

if TYPE_CHECKING:
    from jaxerrs.rewrite.context import Context

MISSING: Any = object()  # "no value known" (None is a value a name can hold)


def lookup(ctx: Context, name: str, with_builtins: bool = False) -> Any:
    """What ``name`` holds in the failing frame: its locals, then the namespace (then builtins); MISSING."""
    scopes = (ctx.locals, ctx.namespace, vars(builtins) if with_builtins else None)
    for scope in scopes:
        if scope is not None and name in scope:
            return scope[name]
    return MISSING


def lookup_dotted(ctx: Context, dotted: str) -> Any:
    """The value of ``a.b.c`` in the failing frame (locals, namespace, builtins), or MISSING."""
    if not dotted:
        return MISSING
    head, *rest = dotted.split(".")
    obj = lookup(ctx, head, with_builtins=True)
    if obj is MISSING:
        return MISSING
    try:
        for part in rest:
            obj = getattr(obj, part)
    except Exception:  # noqa: BLE001 - a property that raises: unknown
        return MISSING
    return obj


def literal(node: cst.BaseExpression) -> Any:
    """A string or (possibly negated) number written in the cell, or MISSING."""
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float)) or (
            isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
            and isinstance(node.expression, (cst.Integer, cst.Float))):
        try:
            return ast.literal_eval(cst.Module([]).code_for_node(node))
        except (ValueError, SyntaxError):
            return MISSING
    return MISSING


def frame_function(ctx: Context) -> cst.CSTNode | None:
    """The function (or lambda) whose frame ``ctx.locals`` belongs to: the innermost at the failing line."""
    found = ctx.at_line((cst.FunctionDef, cst.Lambda))
    return found[0] if found else None


def locals_of(fn: cst.CSTNode) -> set[str]:
    """Parameters and assigned names of a function or lambda (its locals)."""
    params = fn.params  # type: ignore[attr-defined]
    out = {p.name.value for p in params.params + params.kwonly_params + params.posonly_params}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.add(star.name.value)

    def names(target: cst.CSTNode) -> set[str]:
        return read_names(target)

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            out.update(names(n.target))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            out.update(names(n.target))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            out.update(names(n.target))

        def visit_For(self, n: cst.For) -> None:
            out.update(names(n.target))

    fn.visit(_V())
    return out


def read_names(node: cst.CSTNode) -> set[str]:
    """Names that appear in an expression (not attribute names, not keyword names)."""
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


def live_value(ctx: Context, node: cst.CSTNode, attrs: str = "instance", numbers: bool = False,
          scoped: bool = False) -> Any:
    """The live value of a name, ``obj.attr``, ``d["key"]``/``seq[i]`` (or a number, a tuple), or MISSING.

    ``attrs`` says which attributes are read: "getattr" (any), "instance" (the instance ``__dict__``
    only, so no property runs), "instance-or-module". ``numbers`` also evaluates number literals and
    tuples/lists of values. ``scoped`` reads a name from the failing frame's locals only when the name
    sits in that frame's function (a local of another function has no live value).
    """
    def again(n: cst.CSTNode) -> Any:
        return live_value(ctx, n, attrs, numbers, scoped)

    if isinstance(node, cst.Name):
        if not scoped:
            return lookup(ctx, node.value)
        home = next((a for a in ctx.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        here = frame_function(ctx)
        scopes = (ctx.locals, ctx.namespace) if home is here else (ctx.namespace,)
        if home is not None and home is not here and node.value in locals_of(home):
            scopes = ()  # a local of another function: its frame is gone
        for scope in scopes:
            if scope is not None and node.value in scope:
                return scope[node.value]
        return MISSING
    if numbers and isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if numbers and isinstance(node, (cst.Tuple, cst.List)) and not any(
            isinstance(e, cst.StarredElement) for e in node.elements):
        items = [again(e.value) for e in node.elements]
        if any(v is MISSING for v in items):
            return MISSING
        return tuple(items) if isinstance(node, cst.Tuple) else items
    if isinstance(node, cst.Attribute):
        base = again(node.value)
        if base is MISSING:
            return MISSING
        attr = node.attr.value
        if attrs == "getattr":
            try:
                return getattr(base, attr)
            except Exception:  # noqa: BLE001
                return MISSING
        inst = getattr(base, "__dict__", None)
        if isinstance(inst, dict) and attr in inst:
            return inst[attr]
        if attrs == "instance-or-module" and type(base).__name__ == "module":
            return getattr(base, attr, MISSING)
        return MISSING
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(
            node.slice[0].slice, cst.Index):
        base = again(node.value)
        key = literal(node.slice[0].slice.value)
        if key is MISSING or not isinstance(base, (dict, list, tuple)):
            return MISSING
        try:
            return base[key]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return MISSING


def is_tracer(v: Any) -> bool:
    """Whether ``v`` is a JAX tracer (a value only known while tracing), without importing JAX."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(v, jax.core.Tracer)
