"""A traced value formatted into a printed string -> ``jax.debug.print`` with the same format.

Inside ``jit``, ``vmap``, ``grad`` or a ``scan``/``fori_loop`` body the values are tracers: ``f"{loss:.4f}"``,
``"{:.2f}".format(x)`` and ``"%d" % n`` raise (a tracer has no digits to format), and so do ``float(x)``,
``int(x)`` and ``x.item()``. When all the formatting only feeds ``print``, the print becomes
``jax.debug.print`` with one format string holding every part of the printed line: the same literal text,
the same format specs, the values passed as arguments, so the real numbers are printed each time the
function runs. Formatting used for anything else (a log call, a progress bar, a returned string) is not
rewritten: there is no runtime value to give it.
"""

from __future__ import annotations

import builtins
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.rules.api.helpers import _traced_reads
from jaxerrs.rewrite.rules.api.print_format import _CONVERT, _PRINTF, _has_spec, _literal, to_debug_print
from jaxerrs.rewrite.rules.api.tracers import _traced_names
from jaxerrs.rewrite.values import MISSING, lookup_dotted

# ---------------------------------------------------------------------------------------------- the scope


def _scope(ctx: Context, node: cst.CSTNode) -> cst.CSTNode | None:
    """The function (or lambda) ``node`` runs in."""
    return next((a for a in ctx.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)


def _is_print(ctx: Context, call: cst.CSTNode) -> bool:
    return (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "print"
            and lookup_dotted(ctx, "print") in (builtins.print, MISSING))


class _Tainted:
    """Which expressions of one function read traced values."""

    def __init__(self, ctx: Context, scope: cst.CSTNode) -> None:
        self.ctx = ctx
        self.names = _traced_names(ctx, scope)

    def __call__(self, e: cst.CSTNode) -> bool:
        if _traced_reads(e) & self.names:
            return True
        from jaxerrs.rewrite.rules.control_flow.common import _traced

        return _traced(self.ctx, e) is True


# ---------------------------------------------------------------------------------------------- finding the cause


def _causes(node: cst.CSTNode, traced: _Tainted) -> list[cst.CSTNode]:
    """The sub-expressions of ``node`` that format or convert a traced value (each raises under a transform)."""
    out: list[cst.CSTNode] = []

    class _V(cst.CSTVisitor):
        def visit_FormattedStringExpression(self, n: cst.FormattedStringExpression) -> None:
            if n.format_spec and traced(n.expression):
                out.append(n)

        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if isinstance(f, cst.Name) and f.value in _CONVERT and len(n.args) == 1 and traced(n.args[0].value):
                out.append(n)
            elif isinstance(f, cst.Attribute) and f.attr.value == "item" and not n.args and traced(f.value):
                out.append(n)
            elif isinstance(f, cst.Attribute) and f.attr.value == "format" and _literal(f.value) is not None \
                    and any(traced(a.value) for a in n.args) and _has_spec(_literal(f.value) or ""):
                out.append(n)

        def visit_BinaryOperation(self, n: cst.BinaryOperation) -> None:
            if isinstance(n.operator, cst.Modulo) and _literal(n.left) is not None and traced(n.right) \
                    and any(mm["type"] not in "sr%" for mm in _PRINTF.finditer(_literal(n.left) or "")):
                out.append(n)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

    node.visit(_V())
    return out


def _in_print(ctx: Context, node: cst.CSTNode, scope: cst.CSTNode) -> cst.Call | None:
    """The print call (a statement of its own, in ``scope``) whose arguments hold ``node``."""
    for a in ctx.ancestors(node):
        if a is scope:
            return None
        if _is_print(ctx, a):
            par = ctx.parent(a)
            if isinstance(par, cst.Expr) and _scope(ctx, a) is scope:
                return a  # type: ignore[return-value]
            return None
    return None


def detect_print_format(ctx: Context, key: Any = None) -> Found | None:
    """Prints of the function on the failing line that format or convert traced values (fixable), and the
    same formatting anywhere else in that function (unfixable: its string feeds something else)."""
    fresh = key is None
    if key is None:
        scope = next((f for f in ctx.at_line((cst.FunctionDef, cst.Lambda))), None)
        if not isinstance(scope, cst.FunctionDef):
            return None
        key = ("print-format", scope.name.value)
    else:
        scope = ctx.function_named(key[1])
        if scope is None:
            return None
    traced = _Tainted(ctx, scope)
    found = Found(key)
    prints: list[cst.Call] = []
    for c in _causes(scope.body, traced):
        p = _in_print(ctx, c, scope)
        if p is None:
            found.unfixable.append(c)
        elif p not in prints:
            prints.append(p)
    found.fixable.extend(prints)
    if fresh:
        line = ctx.line
        spans = [ctx.span(n) for n in (*found.fixable, *found.unfixable)]
        if line is None or not any(lo <= line <= hi for lo, hi in spans):
            return None  # the failing line formats nothing traced: not this rule's cause
    return found


@rule("debug-print", detect=detect_print_format)
def debug_print(ctx: Context) -> Edit | None:
    """Every ``print`` of the failing function that formats or converts a traced value -> ``jax.debug.print``.

    Not ``safe``: the line is now printed when the compiled function runs, once per call (per element
    under ``vmap``, per iteration in a loop body), instead of once while tracing, and a value that was a
    Python float (``float(x)``) is printed from a float32 array (fewer digits). The literal text, the
    separators and each format spec are kept.
    """
    found = detect_print_format(ctx)
    if not found or found.unfixable:
        return None
    scope = next((f for f in ctx.at_line(cst.FunctionDef)), None)
    if not isinstance(scope, cst.FunctionDef):
        return None
    traced = _Tainted(ctx, scope)
    have = ctx.ref("jax.debug.print")
    imports: list[str | None] = []
    if have is None:
        jax_ref, imp = ctx.need("jax", "jax")
        have = f"{jax_ref}.debug.print"
        imports.append(imp)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for p in found.fixable:
        assert isinstance(p, cst.Call)
        new = to_debug_print(ctx, p, traced, have)
        if new is None:
            return None
        pairs.append((p, new))
    n = len(pairs)
    where = f"`{scope.name.value}`" + (f" ({n} prints)" if n > 1 else "")
    return Edit(ctx.replace_many(pairs, imports), "review",
                f"print in {where} became `jax.debug.print` with the same text and format specs: it prints the "
                "real values each time the function runs (once per call, per element under vmap, per loop "
                "step), not once while tracing.", cause=found.key)
