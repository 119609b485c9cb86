"""Which releases have which public names: ``jax.shard_map`` is 0.6.1's and later, ``jax.tree_map`` left in 0.6.0.

Code written for a newer JAX than the one installed (a tutorial, a library's main branch, a Colab pinned
to an older release) fails with ``module 'jax' has no attribute 'shard_map'``, which reads like a
removal or a typo. This index, read from JAX's tagged sources, says in which releases a public module
(``jax``, ``jax.numpy``, ``jax.lax``, …) had a name, so the diagnosis can say "new in 0.6.1" or
"removed in 0.4.24" instead of guessing. It ships as ``data/api_names.json.gz`` and is regenerated
from a git mirror of github.com/jax-ml/jax with ``python -m jaxerrs.api_names build --git-dir DIR``.

The libraries users reach JAX through (``history.LIBRARY_SOURCES``: Flax, Equinox, Optax, Chex, Orbax) have the
same index over the releases their raise-site history covers, ``data/api_names-NAME.json.gz``
(``build --source NAME --git-dir DIR``): ``optax.lbfgs`` is 0.2.3's and later, so a notebook that reads it on an
older Optax is told to upgrade Optax, not that the name is wrong.

A name counts as present in a release when the module's source binds it at top level (an import,
an assignment, a def or a class, also inside ``if``/``try`` blocks) or lists it in ``_deprecations``
with an object still behind it; a ``_deprecations`` entry whose object is ``None`` is a removal
that raises with a message, and counts as absent. Private names are left out.

Each module's answer to a name it lacks is indexed too (``getattr_kind``: JAX's and Optax's deprecation getattr,
a lazy loader's, a module ``__getattr__`` of its own, or none, so that Python's own lookup raises): a pasted
``module 'M' has no attribute 'N'`` is placed where every release without N answers it the same way.
"""

from __future__ import annotations

import ast
import gzip
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jaxerrs.diagnosis import PACKAGE_NAMES
from jaxerrs.history import JAX, SOURCES, Source, _Blobs, _installed_path, release_tags, version_key

DATA = Path(__file__).parent / "data" / "api_names.json.gz"
FORMAT = 3
PACKAGES = tuple(SOURCES)  # "jax" and the libraries, each with an index of its own


def data_file(package: str) -> Path:
    """The index of ``package``'s releases: JAX's ``api_names.json.gz``, a library's ``api_names-NAME.json.gz``."""
    return DATA if package == "jax" else DATA.with_name(f"api_names-{package}.json.gz")


def _module_of(path: str, package: str = "jax") -> str | None:
    """``jax/numpy/__init__.py`` -> ``jax.numpy`` (a path as the package installs it); private modules
    (``jax/_src``, ``optax/_src``) -> None."""
    if not path.startswith(package.split(".")[0] + "/") or not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if (any(p.startswith("_") for p in parts) or any(p in ("tests", "examples") for p in parts)
            or parts[-1].endswith("_test")):
        return None
    return ".".join(parts)


def _deprecated(node: ast.AST) -> tuple[set[str], set[str]]:
    """Names in a ``_deprecations = {...}`` dict: (still there, removed with a message)."""
    kept, gone = set(), set()
    if not isinstance(node, ast.Dict):
        return kept, gone
    for k, v in zip(node.keys, node.values, strict=False):
        if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
            continue
        obj = v.elts[1] if isinstance(v, ast.Tuple) and len(v.elts) >= 2 else None
        (gone if isinstance(obj, ast.Constant) and obj.value is None else kept).add(k.value)
    return kept, gone


def public_names(source: str) -> set[str]:
    """The public names a module's source binds at top level (see the module docstring)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    gone: set[str] = set()

    for st in _top_level(tree.body):
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            for a in st.names:
                if a.name != "*":
                    names.add(a.asname or a.name.split(".")[0])
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(st.name)
            if st.name == "__getattr__" and not isinstance(st, ast.ClassDef):
                names.update(_shim_names(st) or ())
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
                        if n.id == "_deprecations" and st.value is not None:
                            kept, removed = _deprecated(st.value)
                            names.update(kept)
                            gone.update(removed)
    return {n for n in names - gone if not n.startswith("_")}


def opaque(source: str) -> bool:
    """Whether the module may have public names its source does not bind by name: a star import, or a module
    ``__getattr__`` other than JAX's and Optax's ``_deprecation_getattr`` (whose names ``_deprecations`` lists),
    such as a lazy loader's. Where a release's module is opaque, a name's absence there is unknown."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    if any(isinstance(st, ast.ImportFrom) and any(a.name == "*" for a in st.names) for st in _top_level(tree.body)):
        return True
    # A shim (a ``def`` comparing with constants) and the deprecation getattr name what they serve; others do not.
    return any(kind == "lazy" or (kind == "function" and (not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
                                                          or _shim_names(st) is None))
               for kind, st in _getattr_bindings(tree.body))


def getattr_kind(source: str) -> str | None:
    """What answers a lookup of a name a module lacks: ``"deprecation"`` (JAX's and Optax's
    ``deprecation_getattr``), ``"lazy"`` (a lazy loader's ``attach``), ``"function"`` (a module ``__getattr__`` of
    its own), or None: no module ``__getattr__``, so Python's own lookup raises, at the line that reads it."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    return next((kind for kind, _st in _getattr_bindings(tree.body)), None)


def _getattr_bindings(body: Sequence[ast.stmt]) -> list[tuple[str, ast.stmt]]:
    """Each top-level binding of a module ``__getattr__`` (``_top_level``), with its ``getattr_kind``."""
    out: list[tuple[str, ast.stmt]] = []
    for st in _top_level(body):
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == "__getattr__":
            out.append(("function", st))
        elif isinstance(st, ast.Assign) and any(isinstance(n, ast.Name) and n.id == "__getattr__"
                                                for t in st.targets for n in ast.walk(t)):
            f = st.value.func if isinstance(st.value, ast.Call) else None
            called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            out.append(("deprecation" if called.endswith("deprecation_getattr")
                        else "lazy" if called == "attach" else "function", st))
    return out


def _shim_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str] | None:
    """The names a module ``__getattr__`` serves when it is a shim (Flax's for a renamed class): it compares its
    argument with string constants and ends by raising for any other name. None for any other ``__getattr__``."""
    if not fn.args.args or not fn.body or not isinstance(fn.body[-1], ast.Raise):
        return None
    arg = fn.args.args[0].arg
    served: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == arg:
            for c in node.comparators:
                items = c.elts if isinstance(c, (ast.Tuple, ast.List, ast.Set)) else [c]
                served |= {x.value for x in items if isinstance(x, ast.Constant) and isinstance(x.value, str)}
    return served


def _top_level(body: Sequence[ast.stmt]) -> list[ast.stmt]:
    """The statements a module runs at import, those inside ``if``/``try``/``with`` blocks included."""
    out: list[ast.stmt] = []
    for st in body:
        out.append(st)
        if isinstance(st, ast.If):
            out += _top_level(st.body) + _top_level(st.orelse)
        elif isinstance(st, ast.Try):
            out += _top_level(st.body) + [x for h in st.handlers for x in _top_level(h.body)]
            out += _top_level(st.orelse) + _top_level(st.finalbody)
        elif isinstance(st, ast.With):
            out += _top_level(st.body)
    return out


def build(git_dir: str | Path, tags: Sequence[str] | None = None, progress: bool = False,
          source: Source = JAX) -> dict[str, object]:
    """The index for ``tags`` (default: the releases the raise-site history covers) of a git mirror of
    ``source`` (JAX's, or a library's)."""
    import subprocess

    tags = list(tags or release_tags(git_dir, source.first, source.last, source))
    releases = [source.tag.match(t).group(1) for t in tags]  # type: ignore[union-attr]
    present: dict[str, dict[str, list[int]]] = {}  # module -> name -> release indices
    modules: dict[str, list[int]] = {}
    hidden: dict[str, list[int]] = {}  # module -> the releases where it is ``opaque``
    lookups: dict[str, dict[str, list[int]]] = {}  # module -> its ``getattr_kind`` -> the releases
    blobs = _Blobs(git_dir)
    try:
        for i, tag in enumerate(tags):
            if progress:
                print(f"{tag} ({i + 1}/{len(tags)})", file=sys.stderr)
            roots = [root for root, _installed in source.roots if root != "jaxlib"]
            out = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", tag, "--", *roots],
                                 check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                meta, path = line.split("\t", 1)
                _mode, kind, sha = meta.split()
                module = _module_of(_installed_path(path, source), source.name) if kind == "blob" else None
                if module is None:
                    continue
                modules.setdefault(module, []).append(i)
                source_text = blobs.read(sha).decode("utf-8", "replace")
                for name in public_names(source_text):
                    present.setdefault(module, {}).setdefault(name, []).append(i)
                if opaque(source_text):
                    hidden.setdefault(module, []).append(i)
                if (kind := getattr_kind(source_text)) is not None:
                    lookups.setdefault(module, {}).setdefault(kind, []).append(i)
    finally:
        blobs.close()
    return {"format": FORMAT, "package": source.name, "releases": releases,
            "modules": {m: _runs(ix) for m, ix in sorted(modules.items())},
            "names": {m: {n: _runs(ix) for n, ix in sorted(ns.items())} for m, ns in sorted(present.items())},
            "opaque": {m: _runs(ix) for m, ix in sorted(hidden.items())},
            "getattr": {m: {k: _runs(ix) for k, ix in sorted(ks.items())} for m, ks in sorted(lookups.items())}}


def _runs(indices: list[int]) -> list[list[int]]:
    """[0, 1, 2, 5, 6] -> [[0, 2], [5, 6]]: the releases as closed index ranges."""
    out: list[list[int]] = []
    for i in sorted(set(indices)):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def write(data: dict[str, object], out: str | Path) -> None:
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class NameFate:
    module: str
    name: str
    releases: tuple[str, ...]  # the indexed releases that have it (empty: none ever had it)
    first: str  # the first indexed release
    last: str  # the last indexed release
    unknown: tuple[str, ...] = ()  # releases without it by name whose module may bind it unseen (``opaque``)

    @property
    def package(self) -> str:
        return self.module.split(".")[0]

    def note(self, installed: str | None) -> str | None:
        """A sentence on where the name exists, relative to the installed release of its package, or None when
        it says nothing."""
        dotted = f"`{self.module}.{self.name}`"
        if not self.releases:
            return None
        pkg = PACKAGE_NAMES.get(self.package, self.package)
        start, end = self.releases[0], self.releases[-1]
        # A claim of absence holds only where every release it covers is known to lack the name.
        known_before = not any(version_key(r) < version_key(start) for r in self.unknown)
        known_after = not any(version_key(r) > version_key(end) for r in self.unknown)
        key = version_key(installed) if installed else None
        if key is not None and key > version_key(self.last) and end == self.last:
            return None  # a release newer than the index: it may have dropped the name since
        if end == self.last and start != self.first:
            if not known_before:
                return None
            if key is not None and key < version_key(start):
                return (f"{dotted} is new in {pkg} {start}; the installed {pkg} {installed} is older. The code "
                        f"was written for a newer {pkg}: upgrade {pkg} (at least {start}), or write it without "
                        f"{dotted}.")
            return f"{dotted} exists from {pkg} {start} on: the code ran on an older {pkg} than that."
        if end != self.last and known_after:
            after = _next_release(self.package, end)
            span = f"up to {pkg} {end}" + (f" (gone from {after})" if after else "")
            if start != self.first and known_before:
                span = f"only in {pkg} {start} to {end}" + (f" (gone from {after})" if after else "")
            return f"{dotted} existed {span}."
        return None


def _next_release(package: str, release: str) -> str | None:
    rels = _data(package)["releases"]
    i = rels.index(release)
    return rels[i + 1] if i + 1 < len(rels) else None


@lru_cache(maxsize=8)
def _data(package: str = "jax") -> dict:
    path = data_file(package)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: format {data.get('format')!r}, expected {FORMAT}")
    return data


def _indexed(module: str) -> dict | None:
    """The index of the package ``module`` belongs to; None for a package no index covers."""
    package = module.split(".")[0]
    return _data(package) if package in PACKAGES else None


def fate(module: str, name: str) -> NameFate | None:
    """Where ``module.name`` exists among the indexed releases; None when the module was never indexed."""
    data = _indexed(module)
    if data is None or module not in data["modules"]:
        return None
    rels = data["releases"]
    # A subpackage is a name of its parent too: ``from flax import nnx`` imports it where ``flax/nnx/`` exists.
    runs = [*data["names"].get(module, {}).get(name, []), *data["modules"].get(f"{module}.{name}", [])]
    have = {i for lo, hi in runs for i in range(lo, hi + 1)}
    unknown = {i for lo, hi in data["opaque"].get(module, []) for i in range(lo, hi + 1)} - have
    return NameFate(module, name, tuple(rels[i] for i in sorted(have)), rels[0], rels[-1],
                    tuple(rels[i] for i in sorted(unknown)))


def lookup_at(module: str, release: str) -> str | None:
    """The module's ``getattr_kind`` in ``release`` (None: none, or the release or module is not indexed)."""
    data = _indexed(module)
    if data is None or release not in data["releases"]:
        return None
    i = data["releases"].index(release)
    return next((kind for kind, runs in data["getattr"].get(module, {}).items()
                 if any(lo <= i <= hi for lo, hi in runs)), None)


def failed_lookup_releases(message: str, stated: str | None, installed: str | None) -> tuple[str, str, list[str]]:
    """For ``module 'M' has no attribute 'N'``: (M, N, the releases whose lookup may have raised it, as far as the
    index can tell). The release the text states; else every indexed release whose M lacks N (code written for
    an older or a newer release than the one it ran on); for a name no release had, the installed one. An empty
    list when the index cannot say (M not indexed, a private name, names hidden in those releases)."""
    named = missing_name(message)
    if named is None or named[1] is None or not _MISSING[0].search(message):
        return "", "", []
    module, name = named
    if name.startswith("_"):
        return module, name, []  # private names are not indexed: whether any release had one is unknown
    try:
        f = fate(module, name)
        data = _indexed(module)
    except (OSError, ValueError):
        return module, name, []
    if f is None or data is None:
        return module, name, []
    rels = data["releases"]
    have = {rels.index(r) for r in f.releases}
    if stated in rels:
        edges = [rels.index(stated)]
    elif not have:
        edges = [rels.index(installed)] if installed in rels else []
    else:
        edges = [i for i in range(len(rels)) if i not in have]
    unknown = set(f.unknown)
    if any(rels[i] in unknown or i in have for i in edges):
        return module, name, []
    present = {i for lo, hi in data["modules"].get(module, []) for i in range(lo, hi + 1)}
    return module, name, [rels[i] for i in edges if i in present]


def module_fate(module: str) -> NameFate | None:
    """Where the module ``module`` (``jax.experimental.maps``) exists, as a name of its parent."""
    data = _indexed(module)
    runs = None if data is None else data["modules"].get(module)
    if data is None or runs is None:
        return None
    rels = data["releases"]
    have = tuple(rels[i] for lo, hi in runs for i in range(lo, hi + 1))
    parent, _, leaf = module.rpartition(".")
    return NameFate(parent, leaf, have, rels[0], rels[-1])


_PACKAGE = "(?:" + "|".join(PACKAGES) + r")(?:\.\w+)*"
_MISSING = (
    # Flax's own module ``__getattr__`` words it ``Module flax.nnx has no attribute 'X'``.
    re.compile(rf"[Mm]odule '?({_PACKAGE})'? has no attribute '(\w+)'"),
    re.compile(rf"cannot import name '(\w+)' from '({_PACKAGE})'"),
)
_NO_MODULE = re.compile(rf"No module named '({_PACKAGE}\.\w+)'")


def missing_name(message: str) -> tuple[str, str | None] | None:
    """(module, name) a missing-name message is about; (module, None) for a missing module; None otherwise."""
    for i, rx in enumerate(_MISSING):
        m = rx.search(message)
        if m:
            return (m.group(1), m.group(2)) if i == 0 else (m.group(2), m.group(1))
    m = _NO_MODULE.search(message)
    return (m.group(1), None) if m else None


def named_package(message: str) -> str | None:
    """The indexed package (``jax``, ``optax``, …) whose missing name or module the message is about."""
    named = missing_name(message)
    return named[0].split(".")[0] if named else None


def note_for(message: str, installed: str | None) -> str | None:
    """For an AttributeError/ImportError about a name of an indexed package, where that name exists across
    releases; ``installed`` is the release of that package that ran the code, if known."""
    named = missing_name(message)
    if named is None:
        return None
    module, name = named
    try:
        f = fate(module, name) if name is not None else module_fate(module)
        return f.note(installed) if f else None
    except (OSError, ValueError):
        return None


def main(argv: list[str] | None = None) -> int:
    """``python -m jaxerrs.api_names build --git-dir DIR [--out PATH]`` | ``name MODULE NAME``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m jaxerrs.api_names", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="regenerate an index from a git mirror of its repository")
    b.add_argument("--git-dir", required=True)
    b.add_argument("--source", choices=PACKAGES, default="jax", help="the package: jax (default) or a library")
    b.add_argument("--out", help="where to write it (default: the shipped data file of the package)")
    n = sub.add_parser("name", help="the releases that have MODULE.NAME (MODULE of any indexed package)")
    n.add_argument("module")
    n.add_argument("name")
    args = p.parse_args(argv)
    if args.cmd == "build":
        data = build(args.git_dir, progress=True, source=SOURCES[args.source])
        out = args.out or data_file(args.source)
        write(data, out)
        print(f"{out}: {len(data['releases'])} releases, {len(data['modules'])} modules")
        return 0
    f = fate(args.module, args.name)
    if f is None:
        print(f"{args.module}: not an indexed module")
        return 1
    print(", ".join(f.releases) if f.releases else "in no indexed release")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
