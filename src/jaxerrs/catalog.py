"""Raise-site catalog: every ``raise`` in the installed JAX, read from its source with ``ast``.

The catalog is built once per JAX version and cached as JSON in the user's cache directory.
Excerpts are not stored: the installed source is read on demand, so the cache stays small.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from jaxerrs import templates
from jaxerrs.guards import Guard, guard_of, literal_bindings, source_text

FORMAT_VERSION = 6
PACKAGES = ("jax", "jaxlib")
# The JAX libraries whose raise sites are indexed the same way when installed: import name -> distribution.
LIBRARIES = {"flax": "flax", "optax": "optax", "equinox": "equinox", "orbax": "orbax-checkpoint",
             "chex": "chex", "haiku": "dm-haiku"}


_GRAM = 6  # the shortest anchor a template is looked for by (shorter ones are too common to tell)


@dataclass(frozen=True)
class Site:
    """One ``raise`` statement in JAX's source."""

    path: str  # relative to site-packages, forward slashes: "jax/_src/core.py"
    line: int
    end_line: int
    function: str  # qualified, like ``co_qualname``: "Tracer.__bool__", "f.<locals>.g"
    exc_class: str  # as written: "TypeError", "errors.ConcretizationTypeError"
    template: str | None  # message template, literal braces doubled, holes as {name}
    kind: str  # literal, fstring, format, percent, concat, variable, helper, reraise, none

    @property
    def class_name(self) -> str:
        return self.exc_class.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(eq=False)  # identity hash: matcher caches per catalog
class Catalog:
    jax_version: str
    root: str  # the site-packages directory the paths are relative to
    sites: list[Site]
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why
    files: int = 0
    package: str = "jax"  # or the library (flax, optax, …) a library catalog indexes; jax_version is then its version
    guards: dict[str, Guard] = field(default_factory=dict)  # site key -> the check that guarded it (jaxerrs.guards)
    # A loaded catalog reads guards lazily, one source file's at a time, from a JSON-lines file beside it.
    guard_file: str = ""
    guard_index: dict[str, int] = field(default_factory=dict)  # path -> byte offset of its line in guard_file
    _guards_read: set[str] = field(default_factory=set)

    @cached_property
    def by_path(self) -> dict[str, list[Site]]:
        return _group(self.sites, lambda s: s.path)

    @cached_property
    def by_class(self) -> dict[str, list[Site]]:
        return _group(self.sites, lambda s: s.class_name)

    @cached_property
    def _anchored(self) -> list[tuple[str, Site]]:
        """(normalised longest literal, site) for every site whose template has usable text."""
        out = []
        for s in self.sites:
            if s.template:
                anchor = templates.unmarked(templates.anchor(s.template))  # a paste may lose Markdown's backticks
                if len(anchor) >= _GRAM:
                    out.append((anchor, s))
        return out

    def at(self, path: str, line: int) -> Site | None:
        """The raise statement covering ``line`` of ``path``."""
        for s in self.by_path.get(path, ()):
            if s.line <= line <= s.end_line:
                return s
        return None

    def in_function(self, path: str, function: str) -> list[Site]:
        return [s for s in self.by_path.get(path, ()) if s.function == function]

    @cached_property
    def _by_start(self) -> dict[str, list[int]]:
        """The ``_anchored`` entries by their anchor's first ``_GRAM`` characters (every anchor has that many)."""
        out: dict[str, list[int]] = {}
        for i, (anchor, _s) in enumerate(self._anchored):
            out.setdefault(anchor[:_GRAM], []).append(i)
        return out

    def text_candidates(self, message: str) -> list[Site]:
        """Sites whose template's longest literal occurs in ``message`` (cheap prefilter), in catalog order: only
        the anchors that start as some stretch of the message does are looked for."""
        norm = templates.unmarked(templates.normalise(message))
        by_start = self._by_start
        starts = {norm[i:i + _GRAM] for i in range(len(norm) - _GRAM + 1)}
        hits = sorted(i for g in starts if g in by_start for i in by_start[g])
        anchored = self._anchored
        return [anchored[i][1] for i in hits if anchored[i][0] in norm]

    def guard(self, site: Site) -> Guard | None:
        """The check that guarded ``site`` (jaxerrs.guards), or None (a raise at the top of a function)."""
        if site.path not in self._guards_read and site.path in self.guard_index:
            self._guards_read.add(site.path)
            try:
                with open(self.guard_file, "rb") as f:
                    f.seek(self.guard_index[site.path])
                    rows = json.loads(f.readline())
                self.guards.update({k: Guard.from_list(v) for k, v in rows.items()})
            except (OSError, ValueError, TypeError, KeyError):
                pass  # a damaged guards file costs the "why" section, nothing else
        return self.guards.get(site.key)

    def function_line(self, path: str, function: str) -> int | None:
        """The ``def`` line of a function in the installed source, raise or not (C++ errors' sites)."""
        return next((d for _lo, _hi, q, d in function_spans(str(Path(self.root) / path)) if q == function), None)

    def excerpt(self, site: Site, context: int = 3) -> str:
        return read_excerpt(Path(self.root) / site.path, site.line, site.end_line, context)

    def stats(self) -> dict[str, object]:
        kinds: dict[str, int] = {}
        for s in self.sites:
            kinds[s.kind] = kinds.get(s.kind, 0) + 1
        with_text = sum(1 for s in self.sites if s.template and templates.literal_length(s.template) > 0)
        return {
            "jax_version": self.jax_version,
            "files": self.files,
            "skipped_files": len(self.skipped),
            "raise_statements": len(self.sites),
            "with_literal_text": with_text,
            "by_kind": dict(sorted(kinds.items(), key=lambda kv: -kv[1])),
        }


@lru_cache(maxsize=64)
def function_spans(filename: str) -> tuple[tuple[int, int, str, int], ...]:
    """(first line, last line, co_qualname, def line) of every function in a source file, innermost last."""
    try:
        tree = ast.parse(Path(filename).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    return tree_function_spans(tree)


def tree_function_spans(tree: ast.AST) -> tuple[tuple[int, int, str, int], ...]:
    """``function_spans`` of an already parsed module."""
    out: list[tuple[int, int, str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.append((first, child.end_lineno or child.lineno, qual, child.lineno))
                visit(child, qual + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return tuple(out)


def _group(sites: list[Site], key: Callable[[Site], str]) -> dict[str, list[Site]]:
    out: dict[str, list[Site]] = {}
    for s in sites:
        out.setdefault(key(s), []).append(s)
    return out


def read_excerpt(path: Path, line: int, end_line: int, context: int = 3) -> str:
    import linecache

    lines = linecache.getlines(str(path))  # cached per file, as tracebacks do
    lo, hi = max(0, line - 1 - context), min(len(lines), end_line + context)
    return "\n".join(ln.rstrip("\r\n") for ln in lines[lo:hi])


# --------------------------------------------------------------------------- extraction


def _hole_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _hole_name(node.func)
    if isinstance(node, ast.Subscript):
        return _hole_name(node.value)
    if isinstance(node, ast.FormattedValue):
        return _hole_name(node.value)
    return "value"


def _lit(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


_PERCENT = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?[sdrifgexXoc%]")
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def _percent_template(fmt: str, args: ast.AST) -> str:
    names = [_hole_name(a) for a in args.elts] if isinstance(args, ast.Tuple) else [_hole_name(args)]
    out, pos, i = [], 0, 0
    for m in _PERCENT.finditer(fmt):
        out.append(_lit(fmt[pos : m.start()]))
        if m.group(0) == "%%":
            out.append("%")
        else:
            name = m.group(1) or (names[i] if i < len(names) else "value")
            i += 1
            out.append("{" + name + "}")
        pos = m.end()
    out.append(_lit(fmt[pos:]))
    return "".join(out)


def _format_template(fmt: str, call: ast.Call) -> str:
    names = [_hole_name(a) for a in call.args]
    counter = iter(range(1000))

    def field_name(m: re.Match[str]) -> str:
        if m.group(0) in ("{{", "}}"):
            return m.group(0)
        spec = m.group(1).split("!")[0].split(":")[0]
        if spec == "":
            i = next(counter)
            return "{" + (names[i] if i < len(names) else "value") + "}"
        if spec.isdigit():
            i = int(spec)
            return "{" + (names[i] if i < len(names) else "value") + "}"
        return "{" + re.split(r"[.\[]", spec)[0] + "}"

    return _FORMAT_FIELD.sub(field_name, fmt)


def _constant_str(node: ast.AST, assigns: dict[str, list[tuple[ast.AST, bool, int]]]) -> str | None:
    """A string literal, directly or through a local assigned a literal (``msg = "…"; msg.format(…)``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        literals = [v.value for v, aug, _line in assigns.get(node.id, [])
                    if not aug and isinstance(v, ast.Constant) and isinstance(v.value, str)]
        if literals:
            return max(literals, key=len)
    return None


def _named_part(part: ast.FormattedValue, assigns: dict[str, list[tuple[ast.AST, bool, int]]],
                depth: int) -> str | None:
    """The words of an f-string's named part (``f"{ERR_PREFIX}{default_msg}{detail}"``) where the code spells
    them: a module's string constant the function does not rebind, or the one string value a local is given,
    once, on the way to the line (read as it stood there, so ``msg = f"{msg} …"`` reads the earlier ``msg``).
    None for a value, a repr, a parameter, or a local bound more than once."""
    if not isinstance(assigns, _LazyAssigns) or not isinstance(part.value, ast.Name):
        return None
    if part.conversion not in (-1, ord("s")) or part.format_spec:
        return None
    name, visitor = part.value.id, assigns.visitor
    bound = visitor.bindings().get(name, 0)
    if not bound:  # the module's, unless a function around this one binds the name (a closure)
        text = visitor.module_strings.get(name)
        outer = any(visitor.bindings(f).get(name) for f in visitor.functions)
        return _lit(text) if text and not outer else None
    values = assigns.get(name)
    if bound != 1 or not values or len(values) != 1 or values[0][1] or not visitor.on_path(values[0][2], assigns.line):
        return None
    value, _aug, line = values[0]
    if not isinstance(value, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.IfExp)):
        return None  # another name, a call, an attribute: a value, not words the code spells
    tmpl, kind = _template(value, assigns.at(line), depth + 1)
    return tmpl if tmpl and templates.literal_length(tmpl) > 0 else None


def _template(node: ast.AST | None, assigns: dict[str, list[tuple[ast.AST, bool, int]]], depth: int = 0) -> tuple[str | None, str]:
    """(template, kind) for a message expression."""
    if node is None or depth > 4:
        return None, "none"
    if isinstance(node, ast.Constant):
        return (_lit(node.value), "literal") if isinstance(node.value, str) else (None, "none")
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(_lit(str(v.value)))
            else:
                parts.append(_named_part(v, assigns, depth) or "{" + _hole_name(v) + "}")
        return "".join(parts), "fstring"
    if isinstance(node, ast.IfExp) and getattr(assigns, "optional_words", False):
        # Words or nothing (``f"Assertion {name} failed: " if include_default else ""``), read only for a message
        # with no words of its own otherwise (``_Visitor.visit_Raise``): the words, as the usual case.
        empty = [isinstance(b, ast.Constant) and b.value == "" for b in (node.body, node.orelse)]
        if sum(empty) == 1:
            return _template(node.orelse if empty[0] else node.body, assigns, depth + 1)[0], "variable"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, lk = _template(node.left, assigns, depth + 1)
        right, rk = _template(node.right, assigns, depth + 1)
        if left is None and right is None:
            return None, "helper"
        left = left if left is not None else "{" + _hole_name(node.left) + "}"
        right = right if right is not None else "{" + _hole_name(node.right) + "}"
        return left + right, "concat"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        fmt = _constant_str(node.left, assigns)
        if fmt is not None:
            return _percent_template(fmt, node.right), "percent"
        return None, "helper"
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "format":
            fmt = _constant_str(f.value, assigns)
            if fmt is not None:
                return _format_template(fmt, node), "format"
        if isinstance(f, ast.Attribute) and f.attr == "join":
            return None, "helper"
        # A helper builds the message: keep the literal text we can see in its arguments.
        literal = [t for t, _ in (_template(a, assigns, depth + 1) for a in node.args) if t]
        return ("{value}".join(literal) if literal else None), "helper"
    if isinstance(node, ast.Name):
        values = assigns.get(node.id, [])

        def at(line: int) -> dict[str, list[tuple[ast.AST, bool, int]]]:  # the names as they stood at that line
            return assigns.at(line) if isinstance(assigns, _LazyAssigns) else assigns

        # The assignment that reaches the raise (see _LazyAssigns.get), then its `+=` parts.
        plain = [t for t, _ in (_template(v, at(line), depth + 1) for v, aug, line in values if not aug) if t]
        # Behind words of its own, a `+=` in a block the raise is not in (``if version == (0, 1, 23): msg += …``)
        # only may have run: its words are no part of the template every call matches.
        sure = (lambda ln: assigns.visitor.on_path(ln, assigns.line)) if plain and isinstance(
            assigns, _LazyAssigns) else (lambda ln: True)
        extra = [t for t, _ in (_template(v, at(line), depth + 1) for v, aug, line in values if aug and sure(line))
                 if t]
        base = max(plain, key=templates.literal_length) if plain else ""
        text = base + "".join(extra)
        return (text or None), "variable"
    return None, "none"


class _LazyAssigns(dict):
    """Looks assignments up only when a template needs them (most messages are literals)."""

    def __init__(self, visitor: _Visitor, line: int, optional_words: bool = False) -> None:
        super().__init__()
        self.visitor, self.line, self.optional_words = visitor, line, optional_words

    def at(self, line: int) -> _LazyAssigns:
        """The same function's names as they stood at another line."""
        return _LazyAssigns(self.visitor, line, self.optional_words)

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        """The value a local holds at the line: its last plain assignment above it, then ``+=`` parts. A later
        assignment in a branch the line is not in (``if custom: msg = f"{msg} [{custom}]"``) only may have run:
        the last one on the line's own path stands for the value."""
        values = sorted(self.visitor._assigns().get(key) or [], key=lambda v: v[2])  # ast.walk is breadth-first
        if not values:
            return default
        before = [v for v in values if v[2] < self.line] or values
        plain = [v for v in before if not v[1]]
        if not plain:
            return before
        on_path = [v for v in plain if self.visitor.on_path(v[2], self.line)]
        last = on_path[-1] if on_path else plain[-1]
        return [last] + [v for v in before if v[1] and v[2] > last[2]]


def function_assigns(fn: ast.AST) -> dict[str, list[tuple[ast.AST, bool, int]]]:
    """{name: [(value, is ``+=``, line)]} of a function's assignments to plain names."""
    found: dict[str, list[tuple[ast.AST, bool, int]]] = {}
    for sub in ast.walk(fn):
        if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name):
            found.setdefault(sub.targets[0].id, []).append((sub.value, False, sub.lineno))
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            found.setdefault(sub.target.id, []).append((sub.value, True, sub.lineno))
    return found


def _block_paths(fn: ast.AST) -> dict[int, frozenset[tuple[int, str]]]:
    """{line of a statement: the blocks it lies in, as (id of the statement owning the block, its field)}, in a
    function (the first statement of a line stands for it)."""
    found: dict[int, frozenset[tuple[int, str]]] = {}

    def walk(node: ast.AST, path: frozenset[tuple[int, str]]) -> None:
        for name, value in ast.iter_fields(node):
            if not isinstance(value, list):
                continue
            for item in value:
                if isinstance(item, ast.stmt):
                    inner = path | {(id(node), name)}
                    found.setdefault(item.lineno, inner)
                    if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        walk(item, inner)
                elif isinstance(item, ast.excepthandler):
                    walk(item, path | {(id(node), name)})

    walk(fn, frozenset())
    return found


def _function_bindings(fn: ast.AST) -> dict[str, int]:
    """{name: how often a function binds it}: its parameters, every store (assignments, loop, ``with`` and
    ``except`` targets, unpacking, ``:=``, imports, nested definitions), nested functions' too."""
    args = getattr(fn, "args", None)
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
             if a is not None] if isinstance(args, ast.arguments) else []
    for sub in ast.walk(fn):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.append(sub.id)
        elif isinstance(sub, (ast.Global, ast.Nonlocal)):
            names += list(sub.names) * 2
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            names.append(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in sub.names]
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and sub is not fn:
            names.append(sub.name)
    found: dict[str, int] = {}
    for n in names:
        found[n] = found.get(n, 0) + 1
    return found


class _Visitor(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.stack: list[str] = []
        self.functions: list[ast.AST] = []
        self.sites: list[Site] = []
        self.kinds: list[bool] = []  # is each enclosing scope a function?
        self.chain: list[ast.AST] = []  # the node being visited and its ancestors, outermost first
        self.guards: dict[str, Guard] = {}
        self.module_literals: dict[str, ast.AST] = {}
        self.module_strings: dict[str, str] = {}  # a module's names bound once to a string
        self._per_function: dict[tuple[int, Callable[[ast.AST], Any]], Any] = {}
        self._literal_cache: dict[int, dict[str, ast.AST]] = {}
        self.text: Callable[[ast.AST], str] = ast.unparse  # a node's code as written, when the source is at hand

    def visit(self, node: ast.AST) -> None:
        self.chain.append(node)
        try:
            super().visit(node)
        finally:
            self.chain.pop()

    def _literals(self) -> dict[str, ast.AST]:
        """Literal collections bound to names in the enclosing function, over its class's (as ``self.NAME``,
        ``cls.NAME`` and ``Class.NAME``), over the module's."""
        if not self.functions:
            return self.module_literals
        fn = self.functions[-1]
        found = self._literal_cache.get(id(fn))
        if found is None:
            cls = next((n for n in reversed(self.chain) if isinstance(n, ast.ClassDef)), None)
            of_class = {f"{owner}.{k}": v for k, v in literal_bindings(cls.body).items()
                        for owner in ("self", "cls", cls.name)} if cls is not None else {}
            body = [n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AnnAssign))]
            found = {**self.module_literals, **of_class, **literal_bindings(body)}  # type: ignore[arg-type]
            self._literal_cache[id(fn)] = found
        return found

    def _qualname(self) -> str:
        """The enclosing scope's name exactly as CPython's ``co_qualname`` spells it."""
        if not self.stack:
            return "<module>"
        out = self.stack[0]
        for name, parent_is_function in zip(self.stack[1:], self.kinds[:-1], strict=False):
            out += (".<locals>." if parent_is_function else ".") + name
        return out

    def _scope(self, node: ast.AST, name: str, is_function: bool) -> None:
        self.stack.append(name)
        self.kinds.append(is_function)
        if is_function:
            self.functions.append(node)
        self.generic_visit(node)
        if is_function:
            self.functions.pop()
        self.kinds.pop()
        self.stack.pop()

    def _of_function(self, build: Callable[[ast.AST], Any], fn: ast.AST | None = None) -> Any:
        """``build(fn)`` for a function (the enclosing one), once per function and builder; None at module level."""
        if fn is None:
            if not self.functions:
                return None
            fn = self.functions[-1]
        key = (id(fn), build)
        found = self._per_function.get(key)
        if found is None:
            found = self._per_function[key] = build(fn)
        return found

    def _assigns(self) -> dict[str, list[tuple[ast.AST, bool, int]]]:
        """Assignments in the enclosing function, gathered only when a message is held in a variable."""
        return self._of_function(function_assigns) or {}

    def on_path(self, line: int, target: int) -> bool:
        """Whether the statement at ``line`` runs on every way to the one at ``target``: it lies in no block that
        ``target`` lies outside of."""
        blocks = self._of_function(_block_paths)
        if blocks is None:
            return True
        mine, theirs = blocks.get(line), blocks.get(target)
        return mine is not None and theirs is not None and mine <= theirs

    def bindings(self, fn: ast.AST | None = None) -> dict[str, int]:
        """{name: how often a function (the enclosing one) binds it} (``_function_bindings``)."""
        return self._of_function(_function_bindings, fn) or {}

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scope(node, node.name, False)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._scope(node, node.name, True)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scope(node, "<lambda>", True)

    def _built(self, exc: ast.AST, line: int) -> ast.Call | None:
        """The exception a raised local holds, built on the raise's path by a class's call
        (``exc = TreePathError(f"…"); raise exc from e``), else None."""
        if not isinstance(exc, ast.Name):
            return None
        held = _LazyAssigns(self, line).get(exc.id)
        if not isinstance(held, list) or len(held) != 1 or held[0][1] or not isinstance(held[0][0], ast.Call):
            return None
        func = held[0][0].func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return held[0][0] if name[:1].isupper() else None

    def visit_Raise(self, node: ast.Raise) -> None:
        exc, line = node.exc, node.lineno
        if (built := self._built(exc, line)) is not None:
            exc, line = built, built.lineno
        if exc is None:
            cls, tmpl, kind = "", None, "reraise"
        elif isinstance(exc, ast.Call):
            cls = ast.unparse(exc.func)
            tmpl, kind = None, "none"
            for arg in exc.args:
                t, k = _template(arg, _LazyAssigns(self, line))
                if t is None or templates.literal_length(t) < OPTIONAL_WORDS_BELOW:
                    # Words the message holds unless a flag drops them ("Assertion … failed: " if … else ""):
                    # read where the message has next to no words of its own otherwise.
                    t2, k2 = _template(arg, _LazyAssigns(self, line, optional_words=True))
                    if t2 is not None and templates.literal_length(t2) > (templates.literal_length(t) if t else 0):
                        t, k = t2, k2
                if t is not None and templates.literal_length(t) > 0:
                    tmpl, kind = t, k
                    break
                if k != "none":
                    kind = k
        else:
            cls, tmpl, kind = ast.unparse(exc), None, "reraise"
        site = Site(self.path, node.lineno, node.end_lineno or node.lineno, self._qualname(), cls, tmpl, kind)
        self.sites.append(site)
        guard = guard_of(self.chain, self._literals(), self.text)
        if guard is not None:
            self.guards[site.key] = guard
        self.generic_visit(node)


def open_class(name: str) -> bool:
    """Whether a raise names no class of its own: a variable or a factory's call (``raise error_type(msg)``,
    ``raise exception_type(msg)``, ``raise make_error(msg)``), so that its caller chose the class printed."""
    last = name.rsplit(".", 1)[-1]
    return bool(last) and last[0].islower() and last.isidentifier() and last not in ("self", "cls")


OPTIONAL_WORDS_BELOW = 15  # literal characters under which a message's optional words are read into its template


def module_strings(body: list[ast.stmt]) -> dict[str, str]:
    """A module's names bound once, at its top level, to a string (``ERR_PREFIX = "[Chex] "``)."""
    seen: dict[str, list[ast.AST]] = {}
    for st in body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            seen.setdefault(st.targets[0].id, []).append(st.value)
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            seen.setdefault(st.target.id, []).append(st.value)
    return {k: v[0].value for k, v in seen.items()
            if len(v) == 1 and isinstance(v[0], ast.Constant) and isinstance(v[0].value, str) and v[0].value}


def extract_source(source: str | bytes | ast.Module, rel: str, guards: dict[str, Guard] | None = None) -> list[Site]:
    """Every raise statement in one module's source (text or parsed); ``rel``: path relative to site-packages.
    ``guards``, when given, receives the check that guarded each raise (by site key)."""
    tree = source if isinstance(source, ast.Module) else ast.parse(source, filename=rel)
    visitor = _Visitor(rel)
    if not isinstance(source, ast.Module):
        visitor.text = source_text(source)
    visitor.module_literals = literal_bindings(tree.body)
    visitor.module_strings = module_strings(tree.body)
    visitor.visit(tree)
    if guards is not None:
        guards.update(visitor.guards)
    return visitor.sites


def extract_file(path: Path, rel: str, guards: dict[str, Guard] | None = None) -> list[Site]:
    return extract_source(path.read_bytes(), rel, guards)


def _package_dirs(packages: tuple[str, ...] = PACKAGES) -> list[Path]:
    dirs = []
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec and spec.submodule_search_locations:
            dirs.extend(Path(p) for p in spec.submodule_search_locations)
    return dirs


@lru_cache(maxsize=1)
def installed_jax_version() -> str | None:
    """The installed JAX version, read without importing jax (once: metadata lookups cost milliseconds)."""
    try:
        from importlib.metadata import version

        return version("jax")
    except Exception:
        return None


def build(progress: bool = True, package: str = "jax") -> Catalog:
    """Extract every raise statement from the installed jax and jaxlib packages (or one library of ``LIBRARIES``)."""
    dirs = _package_dirs() if package == "jax" else _package_dirs((package,))
    if not dirs:
        raise LookupError(f"{package} is not installed in this environment")
    version = (installed_jax_version() if package == "jax" else _library_version(package)) or "unknown"
    root = dirs[0].parent
    sites: list[Site] = []
    guards: dict[str, Guard] = {}
    skipped: dict[str, str] = {}
    files = 0
    start = time.perf_counter()
    announced = False
    for d in dirs:
        for path in sorted(d.rglob("*.py")):
            rel = path.relative_to(d.parent).as_posix()
            files += 1
            try:
                sites.extend(extract_file(path, rel, guards))
            except (SyntaxError, ValueError, OSError, UnicodeDecodeError, RecursionError) as e:
                skipped[rel] = type(e).__name__
            if progress and not announced and time.perf_counter() - start > 1.0:
                print(f"jaxerrs: indexing the raise sites of {package} {version} (once per version)…",
                      file=sys.stderr, flush=True)
                announced = True
    return Catalog(version, str(root), sites, skipped, files, package, guards)


def _library_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(LIBRARIES[name])
    except (PackageNotFoundError, KeyError):
        return None


def library_catalogs(progress: bool = False) -> list[Catalog]:
    """A catalog per installed library of ``LIBRARIES`` (cached per library version, like JAX's)."""
    out = []
    for name in LIBRARIES:
        version = _library_version(name)
        if version is None or not _package_dirs((name,)):
            continue
        path = cache_dir() / f"catalog-{name}-{version}-v{FORMAT_VERSION}-{_extractor_digest()}.json"
        cat = None
        if path.exists():
            try:
                cat = load_file(path)
            except (OSError, ValueError, KeyError, TypeError):
                cat = None
        if cat is None:
            try:
                cat = build(progress=progress, package=name)
            except LookupError:
                continue
            try:
                save(cat, path)
            except OSError:
                pass
        out.append(cat)
    return out


def cache_dir() -> Path:
    base = os.environ.get("JAXERRS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "jaxerrs"
    )
    return Path(base)


@lru_cache(maxsize=1)
def _extractor_digest() -> str:
    """Changes whenever the extractor (this module, guards.py) changes, so an old cache is never reused."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update((Path(__file__).parent / "guards.py").read_bytes())
    return h.hexdigest()[:10]


def _cache_path(version: str) -> Path:
    return cache_dir() / f"catalog-jax-{version}-v{FORMAT_VERSION}-{_extractor_digest()}.json"


def save(cat: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": FORMAT_VERSION,
        "jax_version": cat.jax_version,
        "root": cat.root,
        "package": cat.package,
        "files": cat.files,
        "skipped": cat.skipped,
        "fields": list(Site.__dataclass_fields__),
        "sites": [list(asdict(s).values()) for s in cat.sites],
    }
    by_path: dict[str, dict[str, list[object]]] = {}
    for s in cat.sites:
        g = cat.guard(s)
        if g is not None:
            by_path.setdefault(s.path, {})[s.key] = g.to_list()
    index, chunks, offset = {}, [], 0
    for p, rows in by_path.items():
        line = (json.dumps(rows, separators=(",", ":")) + "\n").encode("utf-8")
        index[p] = offset
        chunks.append(line)
        offset += len(line)
    data["guard_index"] = index
    gpath = _guard_path(path)
    tmp = gpath.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(b"".join(chunks))
    os.replace(tmp, gpath)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)


def _guard_path(path: Path) -> Path:
    return path.with_name(path.stem + ".guards.jsonl")


def load_file(path: Path) -> Catalog:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT_VERSION:
        raise ValueError("old catalog format")
    sites = [Site(*row) for row in data["sites"]]
    return Catalog(data["jax_version"], data["root"], sites, data.get("skipped", {}), data.get("files", 0),
                   data.get("package", "jax"), guard_file=str(_guard_path(path)),
                   guard_index=data.get("guard_index", {}))


_CATALOG: Catalog | None = None


def get(rebuild: bool = False, progress: bool = True) -> Catalog:
    """The catalog of the installed JAX: from the cache, or built (and cached) on first need."""
    global _CATALOG
    version = installed_jax_version() or "unknown"
    if _CATALOG is not None and not rebuild and _CATALOG.jax_version == version:
        return _CATALOG
    path = _cache_path(version)
    cat = None
    if not rebuild and path.exists():
        try:
            cat = load_file(path)
            dirs = _package_dirs()
            if dirs and str(dirs[0].parent) != cat.root:
                cat = None  # same version installed elsewhere: rebuild so paths and excerpts are right
        except (OSError, ValueError, KeyError, TypeError):
            cat = None  # a damaged cache is rebuilt, never fatal
    if cat is None:
        cat = build(progress=progress)
        try:
            save(cat, path)
        except OSError:
            pass  # a read-only cache directory only costs a rebuild next time
    _CATALOG = cat
    return cat


_BUILDER: subprocess.Popen[bytes] | None = None


def get_nowait() -> Catalog:
    """The catalog if it is loaded or cached on disk; else an empty one, while another process builds it.

    The first JAX error in a fresh environment is explained at once (from its frames and the curated
    records) instead of waiting seconds for the index of JAX's source. The build runs in a separate
    process, not a thread: CPython 3.11's ``ast.parse`` is not safe to run in two threads at once, and
    IPython parses source with it while it formats the very traceback we are explaining.
    """
    global _BUILDER
    version = installed_jax_version() or "unknown"
    if _CATALOG is not None and _CATALOG.jax_version == version:
        return _CATALOG
    if _BUILDER is not None:
        _BUILDER.poll()  # reap it once it is done
    if _cache_path(version).exists():
        try:
            return get(progress=False)
        except LookupError:
            pass
    if _BUILDER is None:
        try:
            _BUILDER = subprocess.Popen([sys.executable, "-m", "jaxerrs", "catalog"], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            pass  # no background build: the next blocking get() builds in this process
    dirs = _package_dirs()
    return Catalog(version, str(dirs[0].parent) if dirs else "", [])
