"""Imports of JAX modules and names that are gone -> the same objects where they live now.

``from jax.config import config``, ``import jax.experimental.maps``, ``from jax.experimental import
optimizers``, ``from jax import tree_map``... fail at the import line on a current JAX. Every failing
JAX import of the cell (at its top or inside functions) is rewritten to import the same object from
its current home, bound to the same name (``from jax import config``, ``from jax.tree_util import
tree_map``, ``from jax.example_libraries import optimizers``, ``from jax import sharding as maps``), so
the rest of the cell, and later cells, read the names they always did. Uses of the moved module through
its dotted path (``jax.experimental.optimizers.adam`` after ``import jax.experimental.optimizers``)
are respelled, and so are uses of removed top-level names the same cell makes (``jax.tree_map``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.rules.api.helpers import _expr, _in_annotation, _lookup
from jaxerrs.rewrite.rules.api.moved import (
    _MODULES,
    _REVIEW_MODULES,
    _WIDER,
    _X64,
    _has,
    _is_module,
    _renamed,
    resolve,
)
from jaxerrs.rewrite.rules.api.renamed import _WIDER_TYPES, _new_node
from jaxerrs.rewrite.values import MISSING

_KEY = "removed-jax-imports"


@dataclass
class _Plan:
    """How one failing import statement is rewritten."""

    node: cst.Import | cst.ImportFrom
    new: list[str] = field(default_factory=list)  # import statements replacing it, in order
    keep: list[cst.ImportAlias] = field(default_factory=list)  # aliases of a from-import that still work
    bound: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (old full name, new full name)
    paths: dict[str, str] = field(default_factory=dict)  # old dotted module path used through `jax.` -> new
    changed: dict[str, str] = field(default_factory=dict)  # old -> new, for the summary
    review: list[str] = field(default_factory=list)


def _alias_code(name: str, bound: str) -> str:
    return name if name == bound else f"{name} as {bound}"


def _plan(ctx: Context, node: cst.Import | cst.ImportFrom) -> _Plan | None | bool:
    """The plan for an import statement; False when it does not fail (or is not JAX's); None: no exact fix."""
    plan = _Plan(node)
    failing = False
    if isinstance(node, cst.Import):
        for alias in node.names:
            path = dotted_name(alias.name)
            if path.split(".")[0] != "jax":
                plan.new.append(f"import {ctx.code(alias).rstrip(', ')}")
                continue
            ok = _is_module(path)
            if ok is not False:
                plan.new.append(f"import {ctx.code(alias).rstrip(', ')}")
                continue
            failing = True
            new = resolve(ctx, path)
            if new is None:
                return None
            new_is_module = _is_module(new) is True
            if alias.asname is not None:
                bound = dotted_name(alias.asname.name)
                if new_is_module:
                    plan.new.append(f"import {new} as {bound}")
                else:
                    parent, _, last = new.rpartition(".")
                    plan.new.append(f"from {parent} import {_alias_code(last, bound)}")
                plan.bound[bound] = (path, new)
            else:
                plan.new.append(f"import {new}" if new_is_module else f"import {new.split('.')[0]}")
                plan.paths[path] = new
            plan.changed[path] = new
            if path in _REVIEW_MODULES:
                plan.review.append(_REVIEW_MODULES[path])
        return plan if failing else False
    if node.relative or node.module is None:
        return False
    module = dotted_name(node.module)
    if module.split(".")[0] != "jax":
        return False
    mod_ok = _is_module(module)
    if isinstance(node.names, cst.ImportStar):
        if mod_ok is not False:
            return False
        home = _MODULES.get(module)
        if home is None or home[1] is not None or _is_module(home[0]) is not True:
            return None
        plan.new.append(f"from {home[0]} import *")
        plan.changed[module] = home[0]
        return plan
    groups: dict[str, list[str]] = {}
    for alias in node.names:
        name = dotted_name(alias.name)
        bound = dotted_name(alias.asname.name) if alias.asname is not None else name
        if mod_ok is not False and _has(module, name) is not False:
            plan.keep.append(alias)
            continue
        failing = True
        old = f"{module}.{name}"
        new = resolve(ctx, old)
        if new is None:
            return None
        parent, _, last = new.rpartition(".")
        groups.setdefault(parent, []).append(_alias_code(last, bound))
        plan.bound[bound] = (old, new)
        plan.changed[old] = new
        if old in _REVIEW_MODULES:
            plan.review.append(_REVIEW_MODULES[old])
        if old in _X64 and not _with_calls_only(ctx, bound):
            return None
        if old in _WIDER and not _only_annotations(ctx, bound):
            plan.review.append(f"`{bound}` is now `jax.Array`, which also matches tracers and raw uint32 keys "
                               "in isinstance tests")
    if not failing:
        return False
    plan.new.extend(f"from {parent} import {', '.join(names)}" for parent, names in groups.items())
    return plan


def _only_annotations(ctx: Context, name: str) -> bool:
    """Whether the cell uses ``name``, and only in annotations (unused: later cells may test isinstance)."""
    uses = [n for n in ctx.nodes(cst.Name) if n.value == name and not _in_import(ctx, n)]  # type: ignore[attr-defined]
    return bool(uses) and all(_in_annotation(ctx, n) for n in uses)


def _with_calls_only(ctx: Context, name: str) -> bool:
    """Whether every use of ``name`` in the cell is ``with name()`` / ``with name(flag)``."""
    for n in ctx.nodes(cst.Name):
        if n.value != name or _in_import(ctx, n):  # type: ignore[attr-defined]
            continue
        call = ctx.parent(n)
        if not isinstance(call, cst.Call) or call.func is not n or len(call.args) > 1 or any(
                a.keyword is not None or a.star for a in call.args):
            return False
        if not isinstance(ctx.parent(call), cst.WithItem):
            return False
    return True


def _in_import(ctx: Context, node: cst.CSTNode) -> bool:
    return any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in ctx.ancestors(node))


def _imports(ctx: Context) -> list[cst.Import | cst.ImportFrom]:
    return [n for n in ctx.nodes((cst.Import, cst.ImportFrom))]  # type: ignore[misc]


def _module_uses(ctx: Context) -> list[tuple[cst.Attribute, cst.Attribute | None, str | None]]:
    """Uses of a removed module through its dotted path without a failing import (``jax.linear_util.wrap_init``
    after ``import jax``): (the module path node, the node to replace, the new full name or None: no home)."""
    out: list[tuple[cst.Attribute, cst.Attribute | None, str | None]] = []
    for node in ctx.nodes(cst.Attribute):
        assert isinstance(node, cst.Attribute)
        if _in_import(ctx, node):
            continue
        path = full_name(ctx, node)
        if path == "jax.config.config" and _lookup(path) is MISSING:  # the old module's object, now jax.config
            out.append((node, node, resolve(ctx, path)))
            continue
        if path not in _MODULES or _lookup(path) is not MISSING or _is_module(path) is not False:
            continue
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            new = resolve(ctx, f"{path}.{parent.attr.value}")
            out.append((node, parent, new))
        else:  # the module itself as a value: only a module that moved whole has one home
            out.append((node, node, _MODULES[path][0] if _MODULES[path][1] is None else None))
    return out


def detect_removed_imports(ctx: Context, key: object = None) -> Found | None:
    """Every import of the cell that fails on the installed JAX, and every use of a removed module through
    its dotted path: fixable when its objects have an exact home."""
    found = Found(_KEY)
    on_line = False
    for node in _imports(ctx):
        plan = _plan(ctx, node)
        if plan is False:
            continue
        (found.fixable if plan is not None else found.unfixable).append(node)
        lo, hi = ctx.span(node)
        on_line = on_line or (ctx.line is not None and lo <= ctx.line <= hi)
    for node, _target, new in _module_uses(ctx):
        (found.fixable if new is not None else found.unfixable).append(node)
        lo, hi = ctx.span(node)
        on_line = on_line or (ctx.line is not None and lo <= ctx.line <= hi)
    if key is None and not on_line:
        return None
    return found


def _attr_uses(ctx: Context, plans: list[_Plan]) -> tuple[list[tuple[cst.CSTNode, cst.CSTNode]], list[str]] | None:
    """Replacements for uses of the moved names, with the imports they need; None when a use has no home."""
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str] = []
    bound = {b: on for p in plans for b, on in p.bound.items()}
    paths = {old: new for p in plans for old, new in p.paths.items()}
    for node in ctx.nodes(cst.Attribute):
        assert isinstance(node, cst.Attribute)
        if _in_import(ctx, node):
            continue
        if isinstance(node.value, cst.Name) and node.value.value in bound:
            old, new = bound[node.value.value]
            if _is_module(new) is not True and _lookup(new) is MISSING:
                return None
            attr = node.attr.value
            got = resolve(ctx, f"{old}.{attr}") if old in _MODULES else None
            if old in _MODULES and got != f"{new}.{attr}":
                return None  # `maps.xmap`: the old module's object has no home in the new one
            if old not in _MODULES:
                target = _lookup(new)
                if target is MISSING or not _hasattr(target, attr):
                    return None  # `config.FLAGS`: the object now bound has no such attribute
            continue
        d = dotted_name(node)
        if d in paths and not isinstance(ctx.parent(node), cst.Attribute):
            return None  # the moved module itself used as a value through its dotted path
        parent = ctx.parent(node)
        if d in paths and isinstance(parent, cst.Attribute) and parent.value is node:
            new = resolve(ctx, f"{d}.{parent.attr.value}")
            if new is None:
                return None
            if new != f"{d}.{parent.attr.value}":
                home = new.rpartition(".")[0]
                if _is_module(home) is True:
                    imports.append(f"import {home}")
                pairs.append((parent, _expr(new).with_changes(lpar=parent.lpar, rpar=parent.rpar)))
    return pairs, imports


def _hasattr(obj: Any, attr: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(obj, attr)
            return True
        except Exception:  # noqa: BLE001
            return False


def _renamed_uses(ctx: Context, skip: set[int]) -> tuple[list[tuple[cst.CSTNode, cst.CSTNode]], list[str | None],
                                                          dict[str, str], bool]:
    """Uses of removed JAX names through attributes (``jax.tree_map``), as renamed-api rewrites them."""
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    imports: list[str | None] = []
    changed: dict[str, str] = {}
    wider = False
    taken: set[int] = set(skip)
    for node in ctx.nodes(cst.Attribute):
        assert isinstance(node, cst.Attribute)
        if _in_import(ctx, node) or any(id(a) in taken for a in ctx.ancestors(node)) or id(node) in taken:
            continue
        old = full_name(ctx, node)
        new = _renamed(ctx, old) if old else None
        if new is None:
            continue
        taken.add(id(node))
        pairs.append((node, _new_node(ctx, node, old, new, imports)))
        changed[old] = new
        wider = wider or (old in _WIDER_TYPES and not _in_annotation(ctx, node))
    return pairs, imports, changed, wider


def _lines(stmts: list[str], like: cst.SimpleStatementLine) -> list[cst.SimpleStatementLine]:
    out = [cst.parse_statement(s + "\n") for s in stmts]
    lines = [s for s in out if isinstance(s, cst.SimpleStatementLine)]
    if not lines:
        return []
    lines[0] = lines[0].with_changes(leading_lines=like.leading_lines)
    lines[-1] = lines[-1].with_changes(trailing_whitespace=like.trailing_whitespace)
    return lines


@rule("removed-import", detect=detect_removed_imports)
def removed_import(ctx: Context) -> Edit | None:
    """Every JAX import of the cell that fails on the installed JAX imports the same object from its new home.

    Why the values are the same: each replacement names the very object the old import gave. The old
    modules re-exported objects that still exist (``jax.config`` was a module holding ``jax._src.config``'s
    config object, which ``jax.config`` is now; ``jax.tree_map`` was ``jax.tree_util.tree_map``;
    ``jax.experimental.optimizers`` moved whole to ``jax.example_libraries``); where an old module
    re-exported from an internal one, an object counts as moved only when the new home's object is that
    internal object (checked live). The names bound stay the same, and every attribute the cell reads
    from a rebound module or object must exist on the new one, so no use of the old name changes meaning.
    ``review`` where the new object is wider (``jax.Array`` for a removed array or key type, outside
    annotations) or its signatures changed (``jax.extend.linear_util``).
    """
    found = detect_removed_imports(ctx)
    if not found or found.unfixable:
        return None
    plans = []
    for node in found.fixable:
        if not isinstance(node, (cst.Import, cst.ImportFrom)):
            continue  # a dotted use of a removed module: below
        plan = _plan(ctx, node)  # type: ignore[arg-type]
        if not isinstance(plan, _Plan):
            return None
        plans.append(plan)
    uses = _attr_uses(ctx, plans)
    if uses is None:
        return None
    pairs, imports = uses
    handled = {old for p in plans for old in p.paths}
    moved_uses: dict[str, str] = {}
    use_review: list[str] = []
    for node, target, new in _module_uses(ctx):
        path = full_name(ctx, node)
        if path in handled or target is None or new is None:
            continue
        home = new if _is_module(new) is True else new.rpartition(".")[0]
        if _is_module(home) is True and home != "jax":
            imports.append(f"import {home}")
        pairs.append((target, _expr(new).with_changes(lpar=target.lpar, rpar=target.rpar)))
        moved_uses[ctx.code(target)] = new
        if path in _REVIEW_MODULES:
            use_review.append(_REVIEW_MODULES[path])
    mapping: list[tuple[cst.CSTNode, Any]] = list(pairs)
    for plan in plans:
        node = plan.node
        stmts = list(plan.new)
        if isinstance(node, cst.ImportFrom) and plan.keep:
            keep = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in plan.keep]
            kept = cst.Module([]).code_for_node(node.with_changes(names=keep, lpar=None, rpar=None))
            stmts.insert(0, kept)
        line = ctx.parent(node)
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            new_lines = _lines(stmts, line)
            if not new_lines:
                return None
            mapping.append((line, cst.FlattenSentinel(new_lines)))
        else:
            smalls = [cst.parse_statement(s + "\n").body[0] for s in stmts]  # type: ignore[attr-defined]
            mapping.append((node, cst.FlattenSentinel(smalls)))
    more, more_imports, renamed, wider = _renamed_uses(ctx, {id(n) for n, _ in pairs})
    mapping.extend(more)
    review = [r for p in plans for r in p.review] + use_review
    if wider:
        review.append("`jax.Array` also matches tracers and raw uint32 keys in isinstance tests")
    source = ctx.replace_many(mapping, [*imports, *more_imports])
    moved = {k: v for p in plans for k, v in p.changed.items()} | moved_uses
    listed = ", ".join(f"`{o}` -> `{n}`" for o, n in moved.items())
    if renamed:
        listed += "; uses renamed: " + ", ".join(f"`{o}` -> `{n}`" for o, n in renamed.items())
    if review:
        return Edit(source, "review", f"Moved in this JAX ({listed}); {'; '.join(dict.fromkeys(review))}.",
                    cause=_KEY)
    if any(o in _WIDER for o in moved):
        note = " (`jax.Array` is used in annotations only)"
    elif any(o in _X64 for o in moved):
        note = " (`with enable_x64(...)` enters the same `jax.enable_x64` setting the old alias did)"
    elif plans:
        note = " (the same objects, bound to the same names)"
    else:
        note = " (the same objects)"
    return Edit(source, "safe", f"Moved in this JAX: {listed}{note}.", cause=_KEY)
