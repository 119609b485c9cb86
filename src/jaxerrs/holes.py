"""User-facing names for the holes of a raise site's message template ("In your code" values).

The catalog names a hole after its expression the cheap way (``catalog._hole_name``), and those names
are part of each template's identity (the release history index compares templates), so they stay.
For the panel, the hole's expression in the installed source gets a name a user can read: the thing
a call formats, not the call (``{', '.join(names)}`` is ``names``, ``{type(x).__name__}`` is
``type(x)``, ``{len(args)}`` is ``len(args)``, ``{aval.str_short()}`` is ``aval``), and an expression
with no such name (arithmetic, a conditional of two things) gets "" so its value is not shown as if
it had one.
"""

from __future__ import annotations

import ast
import linecache
import re
from functools import lru_cache
from pathlib import Path

from jaxerrs import templates
from jaxerrs.catalog import _hole_name, function_spans

# Calls that only convert or format their first argument: the hole is that argument.
_FORMATS = {"str", "repr", "ascii", "format", "list", "tuple", "sorted", "set", "frozenset", "dict", "int",
            "float", "bool", "abs", "reversed", "iter", "next", "np.asarray", "asarray", "array"}
# Calls whose result is a property of their argument: the hole is the call as written, ``len(args)``.
_OF = {"len", "type", "id", "sum", "max", "min", "any", "all", "hash", "ndim", "shape", "prod"}
# Method calls that format their object: the hole is the object.
_METHODS = {"format", "strip", "rstrip", "lstrip", "lower", "upper", "title", "replace", "tolist", "item",
            "str_short", "__repr__", "__str__", "__format__"}
_FORMATTER = re.compile(r"^_*(str|repr|pp|pprint|fmt|format|show|render)(_|$)|(repr|str|string|short)$", re.I)
_DUNDER_NAMES = {"__name__", "__qualname__"}


def label(node: ast.AST, owner: str = "") -> str:
    """A name for the value ``node`` computes, as a user reads it; "" when it has none.

    ``owner``: the class whose method holds the raise (``self`` is one of those)."""
    if isinstance(node, ast.FormattedValue):
        return label(node.value, owner)
    if isinstance(node, ast.Name):
        return owner if node.id in ("self", "cls") else node.id.lstrip("_")
    if isinstance(node, ast.Attribute):
        if node.attr in _DUNDER_NAMES:
            return label(node.value, owner)
        if node.attr == "__class__":
            inner = label(node.value, owner)
            return f"type({inner})" if inner else ""
        return node.attr.lstrip("_")
    if isinstance(node, ast.Subscript):
        return label(node.value, owner)
    if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
        return label(node.generators[0].iter, owner)
    if isinstance(node, ast.IfExp):
        body, orelse = label(node.body, owner), label(node.orelse, owner)
        return body if body == orelse else ""
    if isinstance(node, ast.Call):
        return _call_label(node, owner)
    return ""


def _call_label(node: ast.Call, owner: str) -> str:
    first = label(node.args[0], owner) if node.args else ""
    f = node.func
    if isinstance(f, ast.Attribute):
        if f.attr == "join":
            return first
        if f.attr in _METHODS or _FORMATTER.search(f.attr):
            return label(f.value, owner)
        name = f"{f.value.id}.{f.attr}" if isinstance(f.value, ast.Name) else f.attr
    elif isinstance(f, ast.Name):
        name = f.id
    else:
        return ""
    short = name.rsplit(".", 1)[-1]
    if name in ("map", "filter") and len(node.args) > 1:
        return label(node.args[1], owner)
    if name == "getattr" and len(node.args) > 1:
        key = node.args[1]
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return first if key.value in _DUNDER_NAMES else key.value.lstrip("_")
        return first
    if name in _FORMATS or short in _FORMATS or _FORMATTER.search(short):
        return first
    if short in _OF:
        return f"{short}({first})" if first else ""
    return short.lstrip("_")


def _holes(tree: ast.AST) -> list[ast.AST]:
    """The expressions that fill message holes: f-string parts, ``%`` and ``.format`` arguments."""
    out: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            out.extend(v.value for v in node.values if isinstance(v, ast.FormattedValue))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
                and isinstance(node.left.value, str):
            out.extend(node.right.elts if isinstance(node.right, ast.Tuple) else [node.right])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            out.extend(node.args)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and (_text(node.left) or _text(node.right)):
            out.extend(side for side in (node.left, node.right) if not _text(side)
                       and not (isinstance(side, ast.BinOp) and isinstance(side.op, ast.Add)))
    return sorted(out, key=lambda n: (n.lineno, n.col_offset))


def _text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _parse(filename: str, lo: int, hi: int) -> ast.AST | None:
    """Lines ``lo..hi`` of a file, parsed with their line numbers kept."""
    lines = linecache.getlines(filename)[lo - 1:hi]
    if not lines:
        return None
    indented = lines[0][:1].isspace()
    source = "".join((["if 1:\n"] if indented else []) + lines)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    ast.increment_lineno(tree, lo - 1 - (1 if indented else 0))
    return tree


@lru_cache(maxsize=256)
def hole_labels(root: str, path: str, line: int, end_line: int, function: str, template: str) -> tuple[str, ...]:
    """A user-facing name for each hole of ``template`` (the raise at ``path:line``), in order.

    The hole's expressions are looked for in the raise statement first, then in its function (a message
    built in a variable above the raise); a hole whose expression cannot be told apart keeps its name."""
    try:
        names = [n for _lit, n in templates.parts(template) if n is not None]
    except ValueError:
        return ()
    filename = str(Path(root) / path)
    spans = [(lo, hi) for lo, hi, q, _d in function_spans(filename) if q == function and lo <= line <= hi]
    lo, hi = spans[-1] if spans else (line, end_line)
    tree = _parse(filename, lo, hi)
    if tree is None:
        return tuple(names)
    parts = function.split(".")
    owner = parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else ""
    here: dict[str, list[str]] = {}
    elsewhere: dict[str, set[str]] = {}
    for node in _holes(tree):
        name = _hole_name(node)
        if line <= node.lineno <= end_line:
            here.setdefault(name, []).append(label(node, owner))
        else:
            elsewhere.setdefault(name, set()).add(label(node, owner))
    seen: dict[str, int] = {}
    out = []
    for name in names:
        k = seen.get(name, 0)
        seen[name] = k + 1
        if k < len(here.get(name, [])):
            out.append(here[name][k])
        elif len(elsewhere.get(name, ())) == 1:
            out.append(next(iter(elsewhere[name])))
        else:
            out.append(name if name not in here and name not in elsewhere else "")
    return tuple(out)
