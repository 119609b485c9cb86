"""Which JAX releases have which public names: ``jax.shard_map`` is 0.6.1's and later, ``jax.tree_map`` left in 0.6.0.

Code written for a newer JAX than the one installed (a tutorial, a library's main branch, a Colab pinned
to an older release) fails with ``module 'jax' has no attribute 'shard_map'``, which reads like a
removal or a typo. This index, read from JAX's tagged sources, says in which releases a public module
(``jax``, ``jax.numpy``, ``jax.lax``, …) had a name, so the diagnosis can say "new in 0.6.1" or
"removed in 0.4.24" instead of guessing. It ships as ``data/api_names.json.gz`` and is regenerated
from a git mirror of github.com/jax-ml/jax with ``python -m jaxerrs.api_names build --git-dir DIR``.

A name counts as present in a release when the module's source binds it at top level (an import,
an assignment, a def or a class, also inside ``if``/``try`` blocks) or lists it in ``_deprecations``
with an object still behind it; a ``_deprecations`` entry whose object is ``None`` is a removal
that raises with a message, and counts as absent. Private names are left out.
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

from jaxerrs.history import _Blobs, release_tags, version_key

DATA = Path(__file__).parent / "data" / "api_names.json.gz"
FORMAT = 1


def _module_of(path: str) -> str | None:
    """``jax/numpy/__init__.py`` -> ``jax.numpy``; private modules (``jax/_src``) -> None."""
    if not path.startswith("jax/") or not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if any(p.startswith("_") for p in parts) or any(p in ("tests", "examples") for p in parts):
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

    def visit(body: Sequence[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                for a in st.names:
                    if a.name != "*":
                        names.add(a.asname or a.name.split(".")[0])
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(st.name)
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
            elif isinstance(st, ast.If):
                visit(st.body)
                visit(st.orelse)
            elif isinstance(st, ast.Try):
                visit(st.body)
                for h in st.handlers:
                    visit(h.body)
                visit(st.orelse)
                visit(st.finalbody)
            elif isinstance(st, ast.With):
                visit(st.body)

    visit(tree.body)
    return {n for n in names - gone if not n.startswith("_")}


def build(git_dir: str | Path, tags: Sequence[str] | None = None, progress: bool = False) -> dict[str, object]:
    """The index for ``tags`` (default: the releases the raise-site history covers) of a jax git mirror."""
    import subprocess

    tags = list(tags or release_tags(git_dir))
    releases = [t[len("jax-v"):] for t in tags]
    present: dict[str, dict[str, list[int]]] = {}  # module -> name -> release indices
    modules: dict[str, list[int]] = {}
    blobs = _Blobs(git_dir)
    try:
        for i, tag in enumerate(tags):
            if progress:
                print(f"{tag} ({i + 1}/{len(tags)})", file=sys.stderr)
            out = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", tag, "--", "jax"],
                                 check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                meta, path = line.split("\t", 1)
                _mode, kind, sha = meta.split()
                module = _module_of(path) if kind == "blob" else None
                if module is None:
                    continue
                modules.setdefault(module, []).append(i)
                for name in public_names(blobs.read(sha).decode("utf-8", "replace")):
                    present.setdefault(module, {}).setdefault(name, []).append(i)
    finally:
        blobs.close()
    return {"format": FORMAT, "releases": releases, "modules": {m: _runs(ix) for m, ix in sorted(modules.items())},
            "names": {m: {n: _runs(ix) for n, ix in sorted(ns.items())} for m, ns in sorted(present.items())}}


def _runs(indices: list[int]) -> list[list[int]]:
    """[0, 1, 2, 5, 6] -> [[0, 2], [5, 6]]: the releases as closed index ranges."""
    out: list[list[int]] = []
    for i in sorted(set(indices)):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def write(data: dict[str, object], out: str | Path = DATA) -> None:
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class NameFate:
    module: str
    name: str
    releases: tuple[str, ...]  # the indexed releases that have it (empty: none ever had it)
    first: str  # the first indexed release
    last: str  # the last indexed release

    def note(self, installed: str | None) -> str | None:
        """A sentence on where the name exists, relative to the installed release, or None when it says nothing."""
        dotted = f"`{self.module}.{self.name}`"
        if not self.releases:
            return None
        start, end = self.releases[0], self.releases[-1]
        key = version_key(installed) if installed else None
        if key is not None and key > version_key(self.last):
            return None  # a release newer than the index: it may have dropped the name since
        if end == self.last and start != self.first:
            if key is not None and key < version_key(start):
                return (f"{dotted} is new in JAX {start}; the installed JAX {installed} is older. The code "
                        f"was written for a newer JAX: upgrade JAX (at least {start}), or write it without {dotted}.")
            return f"{dotted} exists from JAX {start} on: the code ran on an older JAX than that."
        if end != self.last:
            after = _next_release(end)
            span = f"up to JAX {end}" + (f" (gone from {after})" if after else "")
            if start != self.first:
                span = f"only in JAX {start} to {end}" + (f" (gone from {after})" if after else "")
            return f"{dotted} existed {span}."
        return None


def _next_release(release: str) -> str | None:
    rels = _data()["releases"]
    i = rels.index(release)
    return rels[i + 1] if i + 1 < len(rels) else None


@lru_cache(maxsize=1)
def _data() -> dict:
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        data = json.load(f)
    if data.get("format") != FORMAT:
        raise ValueError(f"{DATA}: format {data.get('format')!r}, expected {FORMAT}")
    return data


def fate(module: str, name: str) -> NameFate | None:
    """Where ``module.name`` exists among the indexed releases; None when the module was never indexed."""
    data = _data()
    rels = data["releases"]
    if module not in data["modules"]:
        return None
    runs = data["names"].get(module, {}).get(name, [])
    have = tuple(rels[i] for lo, hi in runs for i in range(lo, hi + 1))
    return NameFate(module, name, have, rels[0], rels[-1])


def module_fate(module: str) -> NameFate | None:
    """Where the module ``module`` (``jax.experimental.maps``) exists, as a name of its parent."""
    data = _data()
    rels = data["releases"]
    runs = data["modules"].get(module)
    if runs is None:
        return None
    have = tuple(rels[i] for lo, hi in runs for i in range(lo, hi + 1))
    parent, _, leaf = module.rpartition(".")
    return NameFate(parent, leaf, have, rels[0], rels[-1])


_MISSING = (
    re.compile(r"module '(jax(?:\.\w+)*)' has no attribute '(\w+)'"),
    re.compile(r"cannot import name '(\w+)' from '(jax(?:\.\w+)*)'"),
)
_NO_MODULE = re.compile(r"No module named '(jax(?:\.\w+)+)'")


def note_for(message: str, installed: str | None) -> str | None:
    """For an AttributeError/ImportError about a JAX name, where that name exists across releases."""
    try:
        for i, rx in enumerate(_MISSING):
            m = rx.search(message)
            if m:
                module, name = (m.group(1), m.group(2)) if i == 0 else (m.group(2), m.group(1))
                f = fate(module, name)
                return f.note(installed) if f else None
        m = _NO_MODULE.search(message)
        if m:
            f = module_fate(m.group(1))
            return f.note(installed) if f else None
    except (OSError, ValueError):
        return None
    return None


def main(argv: list[str] | None = None) -> int:
    """``python -m jaxerrs.api_names build --git-dir DIR [--out PATH]`` | ``name MODULE NAME``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m jaxerrs.api_names", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="regenerate the index from a git mirror of github.com/jax-ml/jax")
    b.add_argument("--git-dir", required=True)
    b.add_argument("--out", default=str(DATA))
    n = sub.add_parser("name", help="the releases that have MODULE.NAME")
    n.add_argument("module")
    n.add_argument("name")
    args = p.parse_args(argv)
    if args.cmd == "build":
        data = build(args.git_dir, progress=True)
        write(data, args.out)
        print(f"{args.out}: {len(data['releases'])} releases, {len(data['modules'])} modules")
        return 0
    f = fate(args.module, args.name)
    if f is None:
        print(f"{args.module}: not an indexed module")
        return 1
    print(", ".join(f.releases) if f.releases else "in no indexed release")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
