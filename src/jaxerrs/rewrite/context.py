"""What a rewrite rule knows: the cell, its syntax tree with positions, the failing line, the error.

IPython magics (``%time``, ``!pip``) are not Python: their lines are masked as comments while the
rules run and put back afterwards, so a cell with magics can still be rewritten.
"""

from __future__ import annotations

import importlib.util
import linecache
import re
import sys
import types
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, ScopeProvider

from jaxerrs.evidence import raised_before, traceback_entries

if TYPE_CHECKING:
    from jaxerrs.diagnosis import Diagnosis

_MAGIC = re.compile(r"^(\s*)([%!].*)$")
_MASK = "#__jaxerrs_magic__ "


def mask_magics(source: str) -> str:
    return "\n".join(_MAGIC.sub(lambda mm: mm.group(1) + _MASK + mm.group(2), ln) for ln in source.split("\n"))


def unmask_magics(source: str) -> str:
    return source.replace(_MASK, "")


@dataclass
class Context:
    source: str  # the user's cell, as written
    line: int | None  # 1-based line of the failing statement in ``source``
    error_class: str = ""
    message: str = ""
    values: dict[str, str] = field(default_factory=dict)  # what the message's template holes hold
    record_id: str = ""
    exc: BaseException | None = None
    namespace: dict[str, Any] | None = None  # globals of the user's frame (the notebook namespace)
    locals: dict[str, Any] | None = None  # locals of the user's frame at the failing line
    label: str = ""
    ran: str = ""  # the cell that ran, when the failing code is defined in another (earlier) cell: "Cell In[5]"
    check: dict[str, Any] | None = None  # why it was raised (the contract's ``check``: accepted values, nearest)
    _by_type: dict[Any, list[cst.CSTNode]] = field(default_factory=dict, repr=False)

    def derive(self, source: str, line: int | None = None) -> Context:
        """A context for another version of the cell (an edit of it): same error, frame and namespace,
        a fresh tree; ``line`` is the line to look at in it (None: no failing line)."""
        return Context(source=source, line=line, error_class=self.error_class, message=self.message,
                       values=self.values, record_id=self.record_id, exc=self.exc, namespace=self.namespace,
                       locals=self.locals, label=self.label, ran=self.ran, check=self.check)

    # ------------------------------------------------------------------ the tree

    @cached_property
    def wrapper(self) -> MetadataWrapper | None:
        try:
            return MetadataWrapper(cst.parse_module(mask_magics(self.source)))
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            return None

    @property
    def module(self) -> cst.Module | None:
        w = self.wrapper
        return w.module if w is not None else None

    @cached_property
    def positions(self) -> Any:
        return self.wrapper.resolve(PositionProvider) if self.wrapper is not None else {}

    @cached_property
    def parents(self) -> Any:
        return self.wrapper.resolve(ParentNodeProvider) if self.wrapper is not None else {}

    @cached_property
    def scopes(self) -> Any:
        """Node -> its LibCST scope (``libcst.metadata.ScopeProvider``): which binding a name reads."""
        return self.wrapper.resolve(ScopeProvider) if self.wrapper is not None else {}

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """(first line, last line) of ``node``, 1-based."""
        r = self.positions[node]
        return r.start.line, r.end.line

    def code(self, node: cst.CSTNode) -> str:
        assert self.module is not None
        return self.module.code_for_node(node)

    def restore(self, source: str) -> str:
        return unmask_magics(source)

    # ------------------------------------------------------------------ finding nodes

    def nodes(self, matcher: Any) -> list[cst.CSTNode]:
        """Every node matching a LibCST matcher (or a node class), in source order."""
        if self.module is None:
            return []
        if isinstance(matcher, (type, tuple)):
            found = self._by_type.get(matcher)
            if found is None:
                found = [n for n in self.positions if isinstance(n, matcher)]
                self._by_type[matcher] = found
        else:
            found = m.findall(self.module, matcher)
        return sorted(found, key=lambda n: (self.positions[n].start.line, self.positions[n].start.column))

    def at_line(self, matcher: Any, line: int | None = None, exact_start: bool = False) -> list[cst.CSTNode]:
        """Nodes matching ``matcher`` that contain the failing line (or ``line``), innermost first."""
        line = self.line if line is None else line
        if line is None:
            return []
        out = []
        for n in self.nodes(matcher):
            lo, hi = self.span(n)
            if (lo == line) if exact_start else (lo <= line <= hi):
                out.append(n)
        return sorted(out, key=lambda n: self.span(n)[1] - self.span(n)[0])

    def one_at_line(self, matcher: Any, line: int | None = None) -> cst.CSTNode | None:
        """The single node matching ``matcher`` that starts on the failing line; None when 0 or several."""
        found = self.at_line(matcher, line, exact_start=True)
        return found[0] if len(found) == 1 else None

    def statement(self, *also: type) -> cst.CSTNode | None:
        """The innermost simple statement on the failing line (or innermost node of the ``also`` kinds,
        such as ``cst.If`` for a compound statement's header) that contains it."""
        found = self.at_line((cst.SimpleStatementLine, *also))
        return found[0] if found else None

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        out = []
        p = self.parent(node)
        while p is not None:
            out.append(p)
            p = self.parent(p)
        return out

    def enclosing(self, node: cst.CSTNode, kind: type) -> cst.CSTNode | None:
        return next((a for a in self.ancestors(node) if isinstance(a, kind)), None)

    def function_at_line(self, line: int | None = None) -> cst.FunctionDef | None:
        found = self.at_line(cst.FunctionDef, line)
        return found[0] if found else None  # type: ignore[return-value]

    def function_named(self, name: str) -> cst.FunctionDef | None:
        found = [f for f in self.nodes(cst.FunctionDef) if f.name.value == name]  # type: ignore[attr-defined]
        return found[0] if len(found) == 1 else None  # type: ignore[return-value]

    # ------------------------------------------------------------------ names and imports

    @cached_property
    def imports(self) -> dict[str, str]:
        """Name bound in the cell (or the namespace) -> the module it is: {"jnp": "jax.numpy", "jax": "jax"}."""
        out: dict[str, str] = {}
        for name, value in (self.namespace or {}).items():
            if isinstance(value, types.ModuleType) and isinstance(name, str):
                out[name] = value.__name__
            elif name == "partial" and getattr(value, "__module__", "") == "functools":
                out[name] = "functools.partial"
            elif isinstance(name, str) and "jax" in sys.modules and value is getattr(sys.modules["jax"], "jit", None):
                out[name] = "jax.jit"  # `from jax import jit` in an earlier cell
            elif isinstance(name, str) and callable(value) and str(getattr(value, "__module__", "")).startswith("jax"):
                # a JAX function an earlier cell imported by name (`from jax.tree_util import tree_map`)
                for mod in ("jax.numpy", "jax.nn", "jax.lax", "jax.scipy.special", "jax.tree", "jax.tree_util", "jax"):
                    if getattr(sys.modules.get(mod), name, None) is value:
                        out[name] = f"{mod}.{name}"
                        break
        for node in self.nodes(m.Import() | m.ImportFrom()):
            if isinstance(node, cst.Import):
                for alias in node.names:
                    full = _dotted(alias.name)
                    if alias.asname is not None:
                        out[_dotted(alias.asname.name)] = full
                    else:
                        out[full.split(".")[0]] = full.split(".")[0]
            elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
                base = _dotted(node.module)
                if isinstance(node.names, cst.ImportStar):
                    continue
                for alias in node.names:
                    name = _dotted(alias.name)
                    bound = _dotted(alias.asname.name) if alias.asname else name
                    out[bound] = f"{base}.{name}"
        return out

    def ref(self, dotted: str) -> str | None:
        """How the cell can name ``dotted`` ("jax.numpy", "jax.lax.cond") with what is already imported."""
        best: str | None = None
        for bound, full in self.imports.items():
            if dotted == full:
                return bound
            if dotted.startswith(full + "."):
                cand = bound + dotted[len(full):]
                if best is None or len(cand) < len(best):
                    best = cand
        return best

    def bound(self, name: str) -> bool:
        """Whether ``name`` is bound in the cell or the namespace (so a new import must not take it)."""
        if self.namespace and name in self.namespace:
            return True
        return any(getattr(n, "value", None) == name for n in self.nodes(m.Name(value=name)))

    def need(self, dotted: str, alias: str) -> tuple[str, str | None]:
        """(expression naming ``dotted``, an import statement to add or None).

        ``need("jax.numpy", "jnp")`` gives ("jnp", None) when the cell already has jnp, else
        ("jnp", "import jax.numpy as jnp") when that name is free.
        """
        have = self.ref(dotted)
        if have is not None:
            return have, None
        parent, _, last = dotted.rpartition(".")
        try:
            is_module = importlib.util.find_spec(dotted) is not None
        except (ImportError, ValueError):
            is_module = False
        if parent and (alias == last or not is_module):  # a class or function: from-import it
            stmt = f"from {parent} import {last}" + ("" if alias == last else f" as {alias}")
        else:
            stmt = f"import {dotted} as {alias}" if alias != dotted else f"import {dotted}"
        if self.bound(alias.split(".")[0]) and alias != dotted:
            return dotted, f"import {dotted.split('.')[0]}"
        return alias, stmt

    # ------------------------------------------------------------------ producing the edit

    def replace(self, old: cst.CSTNode, new: cst.CSTNode, imports: list[str | None] | None = None,
                module: cst.Module | None = None) -> str:
        """Source with ``old`` replaced by ``new`` (identity within this context's tree), imports added."""
        base = module if module is not None else self.module
        assert base is not None
        if module is None and old not in self.positions:
            raise ValueError("replace(): the node is not in this cell's tree (a with_changes copy?)")
        out = base.deep_replace(old, new)
        assert isinstance(out, cst.Module)
        return add_imports(out, [i for i in (imports or []) if i]).code

    def replace_many(self, pairs: list[tuple[cst.CSTNode, Any]], imports: list[str | None] | None = None) -> str:
        """Several replacements at once: each new value is a node, a Flatten/Removal sentinel, or a function of
        the updated node (so edits nested inside a replaced node are kept)."""
        assert self.module is not None
        mapping = dict(pairs)

        class _T(cst.CSTTransformer):
            def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Any:
                new = mapping.get(original)
                if new is None:
                    return updated
                return new(updated) if callable(new) else new

        out = self.module.visit(_T())
        return add_imports(out, [i for i in (imports or []) if i]).code


def _dotted(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return ""


def dotted_name(node: cst.CSTNode) -> str:
    """'jax.numpy.sum' for an attribute chain of names, '' for anything else."""
    return _dotted(node)


def add_imports(module: cst.Module, statements: list[str]) -> cst.Module:
    """Add import statements after the cell's leading imports (or at the top); existing ones are kept."""
    have = {module.code_for_node(s).strip() for s in module.body if m.matches(s, m.SimpleStatementLine(
        body=[m.Import() | m.ImportFrom()]))}
    new = [cst.parse_statement(s + "\n") for s in dict.fromkeys(statements) if s.strip() not in have]
    if not new:
        return module
    body = list(module.body)
    at = 0
    for i, stmt in enumerate(body):
        if m.matches(stmt, m.SimpleStatementLine(body=[m.Import() | m.ImportFrom()])):
            at = i + 1
        elif i == 0 and m.matches(stmt, m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
            at = 1
        else:
            break
    if at == 0 and body:
        # keep the first statement's leading comments above the new imports
        first = body[0]
        lead = getattr(first, "leading_lines", ())
        if lead:
            new[0] = new[0].with_changes(leading_lines=lead)
            body[0] = first.with_changes(leading_lines=())
    rest = body[at:]
    if rest and isinstance(rest[0], (cst.FunctionDef, cst.ClassDef)) and not rest[0].leading_lines:
        rest[0] = rest[0].with_changes(leading_lines=[cst.EmptyLine()])
    return module.with_changes(body=body[:at] + new + rest)


def _chain(exc: BaseException) -> tuple[BaseException | None, ...]:
    """``exc`` and what it is chained to, unless it was raised before (then those may be that raise's)."""
    return (exc,) if raised_before(exc) else (exc, exc.__cause__, exc.__context__)


def _user_tb_frame(exc: BaseException, filename: str, lineno: int) -> Any:
    """The live frame of ``exc``'s traceback (or its unfiltered cause) at ``filename:lineno``."""
    for e in _chain(exc):
        found = None
        for tb in traceback_entries(e):
            f = tb.tb_frame
            if f.f_code.co_filename == filename and tb.tb_lineno == lineno and f.f_globals:
                found = f
        if found is not None:
            return found
    return None


def _file_globals(exc: BaseException, filename: str) -> dict[str, Any] | None:
    """Globals of the innermost real frame of ``filename``.

    Errors raised while JAX transposes or lowers carry stand-in frames (JaxStackTraceBeforeTransformation)
    with the right file and line but empty globals and locals.
    """
    for e in _chain(exc):
        found = None
        for tb in traceback_entries(e):
            if tb.tb_frame.f_code.co_filename == filename and tb.tb_frame.f_globals:
                found = tb.tb_frame.f_globals
        if found is not None:
            return found
    return None


def is_cell(filename: str) -> bool:
    """Whether a frame's file is a notebook or IPython cell (a module file is never rewritten as a cell)."""
    if filename.startswith("<ipython-input-"):
        return True
    try:
        from IPython import get_ipython

        ip = get_ipython()
        return ip is not None and filename in ip.compile._filename_map
    except Exception:  # noqa: BLE001
        return False


def cell_source(filename: str) -> str | None:
    """The source of a cell (as the user typed it, magics included) or of a file, through linecache."""
    lines = linecache.getlines(filename)
    if not lines:
        return None
    code = "".join(lines)
    try:  # IPython caches the transformed cell; the raw one (with its magics) is in the history
        from IPython import get_ipython

        ip = get_ipython()
        number = ip.compile._filename_map.get(filename) if ip is not None else None
        raw = ip.history_manager.input_hist_raw[number] if number is not None else None
        if isinstance(raw, str) and raw.strip() and len(raw.splitlines()) == len(lines):
            return raw if raw.endswith("\n") else raw + "\n"
    except Exception:  # noqa: BLE001 - the transformed cell is the fallback
        pass
    return code


def build_context(d: Diagnosis, source: str | None = None, line: int | None = None,
                  exc: BaseException | None = None) -> Context | None:
    """The rewrite context for a diagnosis: the user's cell (given, or read through linecache)."""
    from jaxerrs.views import frame_label

    ev = d.evidence
    uf = ev.user_frame
    exc = exc if exc is not None else ev.exc
    label = ran = ""
    namespace = local = None
    if uf is not None:
        label = frame_label(uf, with_line=False)
        if source is None and uf.kind == "user" and is_cell(uf.filename):
            source = cell_source(uf.filename)
            ran = _ran_from(ev.frames, uf)
        if line is None:
            line = uf.lineno or None
        if exc is not None:
            frame = _user_tb_frame(exc, uf.filename, uf.lineno)
            if frame is not None:
                namespace, local = frame.f_globals, frame.f_locals
            else:
                namespace = _file_globals(exc, uf.filename)
    if not source or len(source) > 200_000:
        return None
    return Context(source=source, line=line, error_class=ev.exc_class, message=ev.message, values=dict(d.values),
                   record_id=d.record.id if d.record else "", exc=exc, namespace=namespace, locals=local,
                   label=label, ran=ran, check=_check_of(d))


def _check_of(d: Diagnosis) -> dict[str, Any] | None:
    try:
        return d.check
    except Exception:  # noqa: BLE001 - a rule that needs the check goes without it
        return None


def _ran_from(frames: list[Any], uf: Any) -> str:
    """The label of the cell that ran ("Cell In[5]") when the user's failing frame is in another cell (a
    function an earlier cell defined, called from this one); '' when it is the same cell."""
    from jaxerrs.views import frame_label

    outer = next((f for f in frames if f.kind == "user" and is_cell(f.filename)), None)
    if outer is None or outer.filename == uf.filename:
        return ""
    return frame_label(outer, with_line=False)
