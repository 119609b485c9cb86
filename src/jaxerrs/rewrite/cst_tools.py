"""Small LibCST building blocks the rule families share: call arguments in and out, a function's own returns.

Each rule writes the user's code back with LibCST; these helpers keep the reading and the writing of
arguments the same everywhere (keywords as ``name=value``, positions unknowable past a ``*args``).
"""

from __future__ import annotations

import libcst as cst


def positional_args(call: cst.Call) -> list[cst.Arg] | None:
    """The positional arguments, or None when a ``*args``/``**kw`` makes positions unknowable."""
    if any(a.star for a in call.args):
        return None
    return [a for a in call.args if a.keyword is None]


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value`` as a call argument, spaced as keywords are (no spaces around ``=``)."""
    return cst.Arg(value=value, keyword=cst.Name(name),
                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))


def own_returns(fn: cst.FunctionDef) -> list[cst.Return]:
    """The return statements of ``fn`` itself (not of functions or lambdas nested in it)."""
    out: list[cst.Return] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            out.append(node)

    fn.visit(_V())
    return out
