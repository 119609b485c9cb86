"""Raise-site history: where every JAX release from 0.2.0 on raises what, read from JAX's tagged sources.

A user may paste a traceback from any release. This index says, for a message or a frame from another
release, which site raised it in *that* release and what the installed JAX does instead (same site, moved,
reworded, removed). It ships as ``data/site_history.json.gz`` and is regenerated from a git mirror of
github.com/jax-ml/jax with ``python -m jaxerrs.history build --git-dir DIR --out PATH``. The libraries built on
JAX (``LIBRARY_SOURCES``: Flax, Equinox, Optax, Chex, Orbax) have the same index over their releases from 2022 on,
``data/site_history-NAME.json.gz``, from their own tags (``build --source NAME``).

Data layout (compact: strings deduplicated, per-release facts stored as runs of consecutive releases)::

    releases   ["0.2.0", …]                   in release order; a release is referred to by its index
    paths, functions, classes, templates, kinds   string tables
    sites      [[path, function, class, template|-1, kind, ordinal], …]   a raise site's identity
    files      [[path, [[runs, lines, funcs, raises], …]], …]   one entry per distinct content of the file:
               runs = [start, count, …]: the releases start .. start+count-1 that ship this content;
               lines: its number of lines;
               funcs = [function, first line - previous first line, last line - first line, …];
               raises = [site, line - previous line, extra lines of the statement, …]
               (deltas keep the numbers small and successive contents alike, so gzip packs them well)
    markers    {name: [pattern, runs]}        runs = [start, count, 1, …]: text evidence of a release
    python_min [7, …]                         JAX's only: per release, the oldest Python 3 minor version
                                              its ``python_requires`` admits (null where unknown)

A site's identity across releases is (path, function, exception class name, template, ordinal), where the
ordinal tells apart several raises of the same message in one function. A raise whose words are written
elsewhere takes them as its template: a class that words its own message in ``__init__`` (``class_messages``),
and the factory of a module ``__getattr__`` its table of removed names (``getattr_tables``), one site per message.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import gzip
import json
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from jaxerrs import catalog, templates

FORMAT_VERSION = 1
DATA_FILE = "site_history.json.gz"
FIRST_RELEASE = (0, 2, 0)
LAST_RELEASE = (0, 10, 2)  # the default build's last tag (0.11.0 sources need Python 3.12 to parse)
TAG = re.compile(r"^jax-v(\d+(?:\.\d+)+)$")

# Text in a traceback that only some releases produce, with the source fact that decides it per release:
# name -> (regex on the traceback text, files to read at the tag, substring that must be there).
MARKER_RULES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "jaxlib.xla_extension": (r"\bjaxlib\.xla_extension\b", ("jax/_src/lib/__init__.py",), "xla_extension"),
    "jaxlib._jax": (r"\bjaxlib\._jax\b", ("jax/_src/lib/__init__.py",), "jaxlib._jax"),
    "JaxRuntimeError": (r"\bJaxRuntimeError\b", ("jax/errors.py", "jax/_src/lib/__init__.py"), "JaxRuntimeError"),
    "docs.jax.dev errors page": (r"docs\.jax\.dev/en/latest/errors\.html", ("jax/_src/errors.py",),
                                 "docs.jax.dev/en/latest/errors.html"),
    "readthedocs errors page": (r"jax\.readthedocs\.io/en/latest/errors\.html", ("jax/_src/errors.py",),
                                "jax.readthedocs.io/en/latest/errors.html"),
    # The exception an older release printed above a filtered traceback ("FilteredStackTrace: ValueError: …").
    "FilteredStackTrace": (r"(?<![A-Za-z])FilteredStackTrace\b", ("jax/traceback_util.py", "jax/_src/traceback_util.py"),
                           "class FilteredStackTrace"),
    # A trace's repr with its levels, as tracers printed it ("…with<DynamicJaxprTrace(level=1/0)>").
    "trace level repr": (r"Trace\(level=\d+/\d+\)", ("jax/core.py", "jax/_src/core.py"), "(level={}/{})"),
}
# A release's ``python_requires`` (``>=3.9``), read from the files at the repository's root: a Python older than
# that cannot install it, so a Python version a traceback's paths show bounds its release from above.
_PYTHON_REQUIRES = re.compile(rb"(?:python_requires|requires-python)\s*=\s*['\"]>=\s*3\.(\d+)")
_PYTHON_SHOWN = re.compile(r"(?i)\bpython ?3\.(\d{1,2})(?!\d)")  # /usr/lib/python3.10/…, "Python 3.10.12"


def version_key(version: str) -> tuple[int, ...]:
    """``"0.4.30"`` -> ``(0, 4, 30)``; a suffix such as ``.dev1`` or ``rc1`` is ignored."""
    out = []
    for part in version.split("."):
        m = re.match(r"\d+", part)
        if not m:
            break
        out.append(int(m.group()))
    return tuple(out)


# --------------------------------------------------------------------------- building


class Source(NamedTuple):
    """A repository whose release tags are indexed: JAX's own, or an ecosystem library's."""

    name: str  # the package: "jax", "flax", …
    repo: str
    tag: re.Pattern[str]  # a final-release tag; group 1 is the version
    roots: tuple[tuple[str, str], ...]  # (directory in the repository, the same directory under site-packages)
    first: tuple[int, ...]
    last: tuple[int, ...] | None
    data_file: str
    # Raises of a class that builds its message in ``__init__`` (``raise errors.ScopeParamShapeError(...)``,
    # ``raise TracerIntegerConversionError(self)``) take that message as their template: what the raise printed
    # in each release, so a pasted older wording is placed at its own release's site.
    class_messages: bool = True


_V_TAG = re.compile(r"^v(\d+(?:\.\d+)+)$")
JAX = Source("jax", "https://github.com/jax-ml/jax", TAG, (("jax", "jax"), ("jaxlib", "jaxlib")), FIRST_RELEASE,
             LAST_RELEASE, DATA_FILE)
# The libraries' releases from 2022 on (what users still paste from): ``data/site_history-NAME.json.gz``, regenerated
# by ``python -m jaxerrs.history build --source NAME --git-dir DIR`` from a mirror of ``repo``.
LIBRARY_SOURCES = {s.name: s for s in (
    Source("flax", "https://github.com/google/flax", _V_TAG, (("flax", "flax"),), (0, 4, 0), None,
           "site_history-flax.json.gz"),
    Source("equinox", "https://github.com/patrick-kidger/equinox", _V_TAG, (("equinox", "equinox"),), (0, 1, 6),
           None, "site_history-equinox.json.gz"),
    Source("optax", "https://github.com/google-deepmind/optax", _V_TAG, (("optax", "optax"),), (0, 1, 1), None,
           "site_history-optax.json.gz"),
    Source("chex", "https://github.com/google-deepmind/chex", _V_TAG, (("chex", "chex"),), (0, 1, 1), None,
           "site_history-chex.json.gz"),
    # Orbax's checkpointing package moved from the repository's root into checkpoint/ in 2023.
    Source("orbax", "https://github.com/google/orbax", _V_TAG, (("checkpoint/orbax/checkpoint", "orbax/checkpoint"),
                                                                ("orbax/checkpoint", "orbax/checkpoint")),
           (0, 0, 0), None, "site_history-orbax.json.gz"),
)}
SOURCES = {"jax": JAX, **LIBRARY_SOURCES}


def release_tags(git_dir: str | Path, first: tuple[int, ...] = FIRST_RELEASE,
                 last: tuple[int, ...] | None = LAST_RELEASE, source: Source = JAX) -> list[str]:
    """Every final-release tag of ``source`` (``jax-vX.Y.Z``) from ``first`` through ``last``, in release order
    (no rcs)."""
    out = subprocess.run(["git", "--git-dir", str(git_dir), "tag"], check=True, capture_output=True, text=True)
    tags = []
    for t in out.stdout.split():
        m = source.tag.match(t)
        if m and first <= version_key(m.group(1)) and (last is None or version_key(m.group(1)) <= last):
            tags.append(t)
    return sorted(tags, key=lambda t: version_key(source.tag.match(t).group(1)))  # type: ignore[union-attr]


def _wanted(path: str, source: Source = JAX) -> bool:
    """Python files of the packages users install (``jax/`` and jaxlib's Python parts; a library's package), no
    tests, examples or tools."""
    if not path.endswith(".py") or not any(path.startswith(root + "/") for root, _installed in source.roots):
        return False
    parts = path.split("/")
    skip = ("tests", "examples", "tools", "wheel") if parts[0] == "jaxlib" else ("tests", "examples")
    if any(p in skip for p in parts[:-1]):
        return False
    name = parts[-1]
    return not (name.endswith("_test.py") or name in ("setup.py", "conftest.py"))


def _installed_path(path: str, source: Source) -> str:
    """A repository path as it lies under site-packages (``checkpoint/orbax/checkpoint/x.py`` -> ``orbax/checkpoint/x.py``)."""
    for root, installed in source.roots:
        if path.startswith(root + "/"):
            return installed + path[len(root):]
    return path


class _Blobs:
    """Reads blobs from a bare git repository through one ``git cat-file --batch`` process."""

    def __init__(self, git_dir: str | Path) -> None:
        self.proc = subprocess.Popen(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read(self, sha: str) -> bytes:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            raise LookupError(f"not a blob: {sha}")
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)  # the newline after each object
        return data

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def _tree(git_dir: str | Path, tag: str, source: Source = JAX) -> list[tuple[str, str]]:
    """(path under site-packages, blob) of each wanted file at ``tag``."""
    roots = [root for root, _installed in source.roots]
    out = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", tag, "--", *roots],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind == "blob" and _wanted(path, source):
            rows.append((_installed_path(path, source), sha))
    return rows


def _python_requires(git_dir: str | Path, tag: str) -> int | None:
    """The oldest Python 3 minor version ``tag``'s ``python_requires`` admits (``pyproject.toml``, else
    ``setup.py``); None where neither states one."""
    for name in ("pyproject.toml", "setup.py"):
        shown = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{tag}:{name}"], capture_output=True)
        if shown.returncode == 0 and (m := _PYTHON_REQUIRES.search(shown.stdout)):
            return int(m.group(1))
    return None


def _runs(values: dict[int, tuple[int, ...]]) -> list[int]:
    """{release index: value tuple} -> flat runs [start, count, *value, …] of consecutive equal values."""
    out: list[int] = []
    prev_i, prev_v, start, count = None, None, 0, 0
    for i in sorted(values):
        v = values[i]
        if prev_v == v and prev_i == i - 1:
            count += 1
        else:
            if prev_v is not None:
                out += [start, count, *prev_v]
            start, count = i, 1
        prev_i, prev_v = i, v
    if prev_v is not None:
        out += [start, count, *prev_v]
    return out


class _Table:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, s: str) -> int:
        i = self.index.get(s)
        if i is None:
            i = self.index[s] = len(self.items)
            self.items.append(s)
        return i


def class_messages(module: ast.Module) -> dict[str, str]:
    """{class name: message template} for each exception class of a module that builds its message in
    ``__init__`` (``super().__init__(f"…")``, ``Base.__init__(self, f"…")``): what ``raise Class(args)`` prints."""
    out: dict[str, str] = {}
    for node in ast.walk(module):
        if not isinstance(node, ast.ClassDef):
            continue
        init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None:
            continue
        assigns = catalog.function_assigns(init)
        for call in ast.walk(init):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"):
                continue
            owner = call.func.value
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                arg = call.args[0] if call.args else None
            elif isinstance(owner, (ast.Name, ast.Attribute)):
                arg = call.args[1] if len(call.args) > 1 else None
            else:
                continue
            tmpl, _kind = catalog._template(arg, assigns)
            if tmpl and templates.literal_length(tmpl) >= 15:
                out[node.name] = tmpl
                break
    return out


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """A module's statements, with those under its top-level ``if``/``try`` (not inside functions or classes)."""
    for st in body:
        yield st
        if isinstance(st, ast.If):
            yield from _module_statements(st.body + st.orelse)
        elif isinstance(st, ast.Try):
            yield from _module_statements(st.body + st.orelse + st.finalbody
                                          + [s for h in st.handlers for s in h.body])


def getattr_tables(module: ast.Module) -> dict[tuple[str, str], list[str]]:
    """{(factory's module, factory's name): message templates} for a module whose ``__getattr__`` a factory builds
    from a table of names, ``__getattr__ = deprecation_getattr(__name__, _deprecations)`` (JAX, Optax).

    The table maps a name to ``(message, object)``. An entry with no object (``None``: a name removed) makes
    the factory's inner function raise ``AttributeError(message)``; those messages are what that raise
    prints, module by module and release by release. The other entries only warn."""
    statements = list(_module_statements(module.body))
    imported = {a.asname or a.name: (st.module, a.name) for st in statements
                if isinstance(st, ast.ImportFrom) and st.module and not st.level for a in st.names}
    assigns: dict[str, list[tuple[ast.AST, bool, int]]] = {}
    for st in statements:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            assigns.setdefault(st.targets[0].id, []).append((st.value, False, st.lineno))
    out: dict[tuple[str, str], list[str]] = {}
    for value, _aug, _line in assigns.get("__getattr__", []):
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in imported
                and len(value.args) == 2 and isinstance(value.args[1], ast.Name)):
            continue
        tables = [v for v, _a, _l in assigns.get(value.args[1].id, []) if isinstance(v, ast.Dict)]
        found = out.setdefault(imported[value.func.id], [])
        for entry in (e for table in tables for e in table.values):
            if (isinstance(entry, ast.Tuple) and len(entry.elts) >= 2 and isinstance(entry.elts[1], ast.Constant)
                    and entry.elts[1].value is None):
                tmpl, _kind = catalog._template(entry.elts[0], assigns)
                if tmpl and templates.literal_length(tmpl) >= 15:
                    found.append(tmpl)
    return out


def _table_templates(tables: dict[tuple[str, str], set[str]], path: str, skey: tuple) -> list[str]:
    """The messages of the name tables (``getattr_tables``) a raise with no template of its own prints: an
    ``AttributeError`` raised in the inner function of the factory the tables were handed to."""
    _path, function, cls, template, _ordinal = skey
    if template is not None or cls != "AttributeError":
        return []
    module = path[:-3].replace("/", ".")
    found: set[str] = set()
    for (factory_module, factory), messages in tables.items():
        if factory_module == module and function.startswith(factory + "."):
            found |= messages
    return sorted(found)


def build(git_dir: str | Path, tags: Sequence[str] | None = None, progress: bool = False,
          source: Source = JAX) -> dict[str, object]:
    """The history data for ``tags`` (default: every release tag of ``source`` from its first through its last)
    of a git mirror of ``source.repo``."""
    tags = list(tags) if tags is not None else release_tags(git_dir, source.first, source.last, source)
    releases = [m.group(1) if (m := source.tag.match(t)) else t for t in tags]
    blobs = _Blobs(git_dir)
    rules = MARKER_RULES if source is JAX else {}
    marker_paths = {p for _pattern, paths, _needle in rules.values() for p in paths}
    # (path, blob) -> (raises as (site key, line, extra lines), {function: (first, last)}, lines in the file,
    # {class: message its __init__ builds}, {(factory module, factory): messages of its name tables})
    parsed: dict[tuple[str, str], tuple[list[tuple[tuple, int, int]], dict[str, tuple[int, int]], int,
                                        dict[str, str], dict[tuple[str, str], list[str]]]] = {}
    # (path, content) -> what the builder emits for it: the blob's raises with the release's class messages
    content: dict[tuple[str, tuple], tuple[list[tuple[tuple, int, int]], dict[str, tuple[int, int]], int]] = {}
    versions: dict[str, dict[tuple, list[int]]] = {}  # path -> content -> release indices
    kinds: dict[tuple, str] = {}
    defined: set[str] = set()  # exception classes the package defines (any release)
    markers: dict[str, dict[int, tuple[int, ...]]] = {}
    python_min: list[int | None] = []
    skipped: dict[str, str] = {}
    try:
        for ri, tag in enumerate(tags):
            if source is JAX:
                python_min.append(_python_requires(git_dir, tag))
            tree = _tree(git_dir, tag, source)
            texts: dict[str, bytes] = {}
            for path, sha in tree:
                key = (path, sha)
                if key not in parsed or path in marker_paths:
                    code = blobs.read(sha)
                    if path in marker_paths:
                        texts[path] = code
                if key not in parsed:
                    raises: list[tuple[tuple, int, int]] = []
                    spans: dict[str, tuple[int, int]] = {}
                    messages: dict[str, str] = {}
                    tables: dict[tuple[str, str], list[str]] = {}
                    try:
                        module = ast.parse(code, filename=path)
                        messages = class_messages(module) if source.class_messages else {}
                        tables = getattr_tables(module)
                        defined.update(n.name for n in ast.walk(module) if isinstance(n, ast.ClassDef)
                                       and n.name.endswith(("Error", "Exception")) and not n.name.startswith("_"))
                        ordinals: dict[tuple[str, str, str | None], int] = {}
                        for site in sorted(catalog.extract_source(module, path), key=lambda s: s.line):
                            base = (site.function, site.class_name, site.template)
                            n = ordinals[base] = ordinals.get(base, -1) + 1
                            skey = (path, site.function, site.class_name, site.template, n)
                            raises.append((skey, site.line, site.end_line - site.line))
                            kinds.setdefault(skey, site.kind)
                        for lo, hi, qual, _def_line in catalog.tree_function_spans(module):
                            old = spans.get(qual)  # a name defined twice (if/else): the span of both
                            spans[qual] = (min(lo, old[0]), max(hi, old[1])) if old else (lo, hi)
                    except (SyntaxError, ValueError, RecursionError) as e:
                        skipped[f"{releases[ri]}:{path}"] = type(e).__name__
                    parsed[key] = (raises, spans, code.count(b"\n") + 1, messages, tables)
            release_messages = {c: t for path, sha in tree for c, t in parsed[(path, sha)][3].items()}
            release_tables: dict[tuple[str, str], set[str]] = {}
            for path, sha in tree:
                for factory, found in parsed[(path, sha)][4].items():
                    release_tables.setdefault(factory, set()).update(found)
            for path, sha in tree:
                raises, spans, nlines, _messages, _tables = parsed[(path, sha)]
                emitted = []
                for skey, line, extra in raises:
                    message = release_messages.get(skey[2]) if skey[3] is None else None
                    if message is not None:  # a class that words its own message: raises print that
                        skey = (*skey[:3], message, skey[4])
                        kinds.setdefault(skey, "class message")
                    emitted.append((skey, line, extra))
                    for tmpl in _table_templates(release_tables, _installed_path(path, source), skey):
                        tkey = (*skey[:3], tmpl, 0)  # each removed name's message, raised at this line
                        kinds.setdefault(tkey, "name table")
                        emitted.append((tkey, line, extra))
                ckey = (sha, tuple(emitted))
                content[(path, ckey)] = (emitted, spans, nlines)
                versions.setdefault(path, {}).setdefault(ckey, []).append(ri)
            for name, (_pattern, paths, needle) in rules.items():
                if any(needle.encode() in texts.get(p, b"") for p in paths):
                    markers.setdefault(name, {})[ri] = (1,)
            if progress:
                print(f"{tag}: {len(tree)} files, {len(parsed)} file versions so far", file=sys.stderr, flush=True)
    finally:
        blobs.close()

    P, F, C, T, K = _Table(), _Table(), _Table(), _Table(), _Table()
    first_seen: dict[tuple, int] = {}
    for path, per in versions.items():
        for ckey, indices in per.items():
            for skey, _line, _extra in content[(path, ckey)][0]:
                first_seen[skey] = min(first_seen.get(skey, 1 << 30), indices[0])
    site_index: dict[tuple, int] = {}
    site_rows = []
    for skey in sorted(first_seen, key=lambda k: (k[0], k[1], first_seen[k], k[2], k[3] or "", k[4])):
        path, function, cls, template, ordinal = skey
        site_index[skey] = len(site_rows)
        site_rows.append([P(path), F(function), C(cls), -1 if template is None else T(template),
                          K(kinds[skey]), ordinal])
    file_rows = []
    for path in sorted(versions):
        rows = []
        for ckey, indices in sorted(versions[path].items(), key=lambda kv: kv[1][0]):
            raises, spans, nlines = content[(path, ckey)]
            funcs_flat: list[int] = []
            prev = 0
            for qual, (lo, hi) in sorted(spans.items(), key=lambda kv: (kv[1][0], kv[0])):
                funcs_flat += [F(qual), lo - prev, hi - lo]
                prev = lo
            sites_flat: list[int] = []
            prev = 0
            for skey, line, extra in raises:
                sites_flat += [site_index[skey], line - prev, extra]
                prev = line
            rows.append([_runs({i: () for i in indices}), nlines, funcs_flat, sites_flat])
        file_rows.append([P(path), rows])
    return {
        "format": FORMAT_VERSION,
        "source": f"{source.repo} tags " + ", ".join(tags),
        "package": source.name,
        "defined_classes": sorted(defined),
        "releases": releases,
        "paths": P.items, "functions": F.items, "classes": C.items, "templates": T.items, "kinds": K.items,
        "sites": site_rows,
        "files": file_rows,
        "markers": {name: [MARKER_RULES[name][0], _runs(per)] for name, per in sorted(markers.items())},
        **({"python_min": python_min} if source is JAX else {}),
        "skipped": skipped,
    }


def write(data: dict[str, object], out: str | Path) -> None:
    """Write history data as deterministic gzipped JSON (no timestamp in the gzip header)."""
    raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, compresslevel=9, mtime=0) as gz:
        gz.write(raw)


# --------------------------------------------------------------------------- lookups


class SiteHit(NamedTuple):
    """One raise site over a range of consecutive releases in which it sits at the same line."""

    releases: tuple[str, str]  # (first, last), inclusive
    path: str
    function: str
    line: int
    template: str | None


@dataclass(frozen=True)
class _Site:
    path: str
    function: str
    cls: str
    template: str | None
    kind: str
    ordinal: int
    lines: dict[int, tuple[int, int]]  # release index -> (line, end line)

    @property
    def present(self) -> list[int]:
        return sorted(self.lines)


def _decode(runs: Sequence[int], width: int) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    step = 2 + width
    for i in range(0, len(runs), step):
        yield runs[i], runs[i + 1], tuple(runs[i + 2 : i + step])


# A traceback frame: `File ".../jax/_src/x.py", line 12, in f` or IPython's `File .../jax/_src/x.py:12, in f(…)`.
_FRAME = re.compile(r'File "?(?P<file>[^"\n]*?(?:^|[\\/])(?:jax|jaxlib)[\\/][^"\n]*?\.py)"?'
                    r'(?:, line |:)(?P<line>\d+)(?:, in (?P<func>[\w.<>]+))?')
_PKG_PATH = re.compile(r"(?:^|[\\/])((?:jax|jaxlib)[\\/].+\.py)$")
# A release stated beside the package's name: "jax==0.4.30", "jax: 0.4.30", "jax version 0.4.30", "jax-v0.4.30",
# and in prose "JAX v0.2.9" / "jax 0.4.30".
_VERSION_STATED = re.compile(r"\bjax(?:lib)?(?:\s*(?:==|:|version)\s*|-|\s+)v?(\d+\.\d+\.\d+(?:\.\d+)?)\b", re.I)


class History:
    """The raise-site history of JAX releases; see the module docstring for what it holds."""

    def __init__(self, data: dict) -> None:
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"site history format {data.get('format')!r}, expected {FORMAT_VERSION}")
        self.data = data
        self._releases: list[str] = list(data["releases"])
        self._index = {r: i for i, r in enumerate(self._releases)}

    # ---- tables

    def releases(self) -> list[str]:
        """Every release the index covers, oldest first."""
        return list(self._releases)

    def _contents(self) -> Iterator[tuple[str, list[int], int, list[int], list[int]]]:
        """(path, the release indices that ship this content, its number of lines, its functions, its raises),
        for each distinct content of each file."""
        paths = self.data["paths"]
        for p, contents in self.data["files"]:
            for runs, nlines, funcs_flat, raises_flat in contents:
                indices = [i for start, count, _ in _decode(runs, 0) for i in range(start, start + count)]
                yield paths[p], indices, nlines, funcs_flat, raises_flat

    @cached_property
    def _decoded(self) -> list[_Site]:
        """The sites with their lines per release. (The functions' spans, which most texts never ask for, are
        decoded apart, on first use: ``_spans``.)"""
        d = self.data
        paths, functions = d["paths"], d["functions"]
        lines: list[dict[int, tuple[int, int]]] = [{} for _ in d["sites"]]
        for _path, indices, _nlines, _funcs_flat, raises_flat in self._contents():
            line = 0
            for k in range(0, len(raises_flat), 3):
                site, dline, extra = raises_flat[k : k + 3]
                line += dline
                for i in indices:
                    lines[site][i] = (line, line + extra)
        return [_Site(paths[p], functions[f], d["classes"][c], None if t < 0 else d["templates"][t],
                      d["kinds"][k], ordinal, lines[n])
                for n, (p, f, c, t, k, ordinal) in enumerate(d["sites"])]

    @cached_property
    def _spans(self) -> tuple[dict[tuple[str, str], dict[int, tuple[int, int]]], dict[str, dict[int, int]]]:
        """(function spans per release, file lengths per release)."""
        functions = self.data["functions"]
        funcs: dict[tuple[str, str], dict[int, tuple[int, int]]] = {}
        files: dict[str, dict[int, int]] = {}
        for path, indices, nlines, funcs_flat, _raises_flat in self._contents():
            per_file = files.setdefault(path, {})
            for i in indices:
                per_file[i] = nlines
            lo = 0
            for k in range(0, len(funcs_flat), 3):
                f, dlo, length = funcs_flat[k : k + 3]
                lo += dlo
                per = funcs.setdefault((path, functions[f]), {})
                for i in indices:
                    per[i] = (lo, lo + length)
        return funcs, files

    @property
    def sites(self) -> list[_Site]:
        return self._decoded

    @cached_property
    def _by_function(self) -> dict[tuple[str, str], list[_Site]]:
        out: dict[tuple[str, str], list[_Site]] = {}
        for s in self.sites:
            out.setdefault((s.path, s.function), []).append(s)
        return out

    @cached_property
    def _by_path(self) -> dict[str, list[_Site]]:
        out: dict[str, list[_Site]] = {}
        for s in self.sites:
            out.setdefault(s.path, []).append(s)
        return out

    @cached_property
    def _by_template(self) -> dict[str, list[_Site]]:
        out: dict[str, list[_Site]] = {}
        for s in self.sites:
            if s.template:
                out.setdefault(templates.normalise(s.template), []).append(s)
        return out

    @cached_property
    def _anchored(self) -> list[tuple[str, str]]:
        """(anchor, normalised template) for every template with usable literal text."""
        out = []
        for norm in self._by_template:
            a = templates.unmarked(templates.anchor(norm))  # a paste may lose Markdown's backticks
            if len(a) >= 6:
                out.append((a, norm))
        return out

    @property
    def _funcs(self) -> dict[tuple[str, str], dict[int, tuple[int, int]]]:
        return self._spans[0]

    @property
    def _files(self) -> dict[str, dict[int, int]]:
        return self._spans[1]

    @cached_property
    def _markers(self) -> list[tuple[str, re.Pattern[str], frozenset[int]]]:
        out = []
        for name, (pattern, runs) in self.data["markers"].items():
            present = frozenset(i for start, count, _ in _decode(runs, 1) for i in range(start, start + count))
            out.append((name, re.compile(pattern), present))
        return out

    def release_index(self, release: str) -> int:
        """The index of a release; a version between or after indexed releases maps to the latest one before it.

        Raises ``KeyError`` for a version older than the first indexed release.
        """
        if release in self._index:
            return self._index[release]
        key = version_key(release)
        older = [i for i, r in enumerate(self._releases) if version_key(r) <= key]
        if not older:
            raise KeyError(f"JAX {release} is older than the first release indexed ({self._releases[0]})")
        return older[-1]

    def _range(self, indices: Iterable[int]) -> list[tuple[str, str]]:
        """Consecutive runs of release indices as (first, last) release names."""
        out: list[tuple[str, str]] = []
        prev = None
        for i in sorted(indices):
            if prev is not None and i == prev + 1:
                out[-1] = (out[-1][0], self._releases[i])
            else:
                out.append((self._releases[i], self._releases[i]))
            prev = i
        return out

    @cached_property
    def defined_classes(self) -> frozenset[str]:
        """The exception classes the package defines in any release indexed (``…Error``, ``…Exception``)."""
        return frozenset(self.data.get("defined_classes", ()))

    def format_releases(self, indices: Iterable[int]) -> str | None:
        """``"0.5.1"``, ``"0.4.35..0.4.38"``, or comma-separated ranges; None for no release."""
        ranges = self._range(indices)
        if not ranges:
            return None
        return ",".join(a if a == b else f"{a}..{b}" for a, b in ranges)

    # ---- what raises this text, and where

    def _template_matches(self, text: str, cls: str | None = None) -> list[tuple[float, str]]:
        """(score, normalised template) of every template that matches ``text``, best first.

        ``text`` is a message (or a template: its holes then match the template's holes). An identical
        template scores 2; otherwise the score is the share of the message the template's literal text
        covers; a match covering under a third of a long message is dropped unless what it leaves is mostly
        run-specific values (``templates.words_share``).
        """
        norm = templates.normalise(text)
        cls_name = cls.rsplit(".", 1)[-1] if cls else None
        found: dict[str, float] = {}
        if norm in self._by_template:
            found[norm] = 2.0
        bare = templates.unmarked(norm)
        for anchor, tmpl in self._anchored:
            if tmpl in found or anchor not in bare:
                continue
            m = templates.match(tmpl, norm)
            if m is None:
                continue
            if m.coverage < 1 / 3 and m.literal < 40 and templates.words_share(m) < 0.6:
                continue
            found[tmpl] = m.coverage
        if not found and len(norm) >= 30:
            # A message cut short (only its first line pasted): templates it is the start of.
            # (A person ending the part they quote with a full stop of their own.)
            clipped = norm[:-1].rstrip() if norm.endswith(".") and not norm.endswith("..") else None
            for tmpl, heads in self._heads:
                if any(h in norm for h in heads):
                    cov = max(_prefix_coverage(tmpl, norm), _prefix_coverage(tmpl, clipped) if clipped else 0.0)
                    if cov >= 0.8:
                        found[tmpl] = 0.9 * cov
        if not found and len(norm) >= CUT_HEAD_MIN:
            # A message whose start was left out (a user quoting the part that says what is wrong): templates
            # whose literal text holds its first words, the rest of the message matching the template's rest.
            head = norm[:CUT_HEAD_MIN]
            for tmpl in self._by_template:
                if head in tmpl:
                    cov = _tail_coverage(tmpl, norm)
                    if cov >= 0.8:
                        found[tmpl] = 0.9 * cov
        out = []
        for tmpl, score in found.items():
            if cls_name and not any(s.cls == cls_name or catalog.open_class(s.cls) for s in self._by_template[tmpl]):
                continue
            out.append((score, tmpl))
        out.sort(key=lambda st: (-st[0], -templates.literal_length(st[1]), st[1]))
        return out

    def template_matches(self, text: str, cls: str | None = None) -> list[tuple[float, str]]:
        """(score, template) of the templates matching ``text``, best first (see ``_template_matches``)."""
        return self._template_matches(text, cls)

    def sites_for(self, text: str, cls: str | None = None) -> list[SiteHit]:
        """Which releases raise a message matching ``text`` (a message or a template), and where.

        Best-matching template first; within one template, by path, function, then release. ``cls``
        (a class name, dotted or not) keeps only sites raising that class.
        """
        cls_name = cls.rsplit(".", 1)[-1] if cls else None
        out: list[SiteHit] = []
        for _score, tmpl in self._template_matches(text, cls):
            for s in sorted(self._by_template[tmpl], key=lambda s: (s.path, s.function, s.present[0])):
                if cls_name and s.cls != cls_name and not catalog.open_class(s.cls):
                    continue
                out.extend(self._hits(s))
        return out

    def _hits(self, s: _Site) -> list[SiteHit]:
        by_line: dict[int, list[int]] = {}
        for i, (line, _end) in s.lines.items():
            by_line.setdefault(line, []).append(i)
        out = []
        for line, indices in by_line.items():
            for first, last in self._range(indices):
                out.append(SiteHit((first, last), s.path, s.function, line, s.template))
        out.sort(key=lambda h: self._index[h.releases[0]])
        return out

    def where(self, path: str, function: str, release: str, template: str | None = None) -> int | None:
        """The line of the raise in ``function`` of ``path`` in ``release``; None when there is none.

        With ``template`` (a template or a message), the raise of that message; without, the function's
        first raise. ``release`` must be an indexed release.
        """
        ri = self._index.get(release)
        if ri is None:
            return None
        cands = [s for s in self._by_function.get((path, function), ()) if ri in s.lines]
        if template is not None:
            cands = self._pick(cands, template)
        lines = sorted(s.lines[ri][0] for s in cands)
        return lines[0] if lines else None

    def paths_of(self, function: str, release: str) -> list[str]:
        """The files that have a raise in a function of this qualified name in ``release``."""
        ri = self._index.get(release)
        return sorted({p for (p, f), sites in self._by_function.items()
                       if f == function and any(ri in s.lines for s in sites)})

    def templates_at(self, path: str, function: str, release: str) -> list[str | None]:
        """The message templates of the raises in ``function`` of ``path`` in ``release`` (None: one the index
        cannot read, such as a message built elsewhere)."""
        ri = self._index.get(release)
        return [s.template for s in self._by_function.get((path, function), ()) if ri in s.lines]

    def function_span(self, path: str, function: str, release: str) -> tuple[int, int] | None:
        """(first line, last line) of a function in ``release``, raise or not; None when it did not exist."""
        ri = self._index.get(release)
        return None if ri is None else self._funcs.get((path, function), {}).get(ri)

    def site_at(self, path: str, line: int, release: str) -> SiteHit | None:
        """The raise statement covering ``line`` of ``path`` in ``release``."""
        ri = self._index.get(release)
        if ri is None:
            return None
        for s in self._by_path.get(path, ()):
            span = s.lines.get(ri)
            if span and span[0] <= line <= span[1]:
                return next(h for h in self._hits(s) if self._index[h.releases[0]] <= ri <= self._index[h.releases[1]])
        return None

    def _pick(self, cands: list[_Site], template: str) -> list[_Site]:
        """The candidates whose template is ``template``, else those whose template matches it as a message."""
        norm = templates.normalise(template)
        exact = [s for s in cands if s.template and templates.normalise(s.template) == norm]
        if exact:
            return exact
        scored = []
        for s in cands:
            if s.template:
                m = templates.match(s.template, norm)
                if m is not None and (m.coverage >= 1 / 3 or m.literal >= 40):
                    scored.append((m.coverage, s))
        if not scored and len(norm) >= 20:
            # A truncated message or template: the start of a template's text.
            for s in cands:
                if s.template:
                    t = templates.normalise(s.template)
                    cov = 1.0 if norm in t else _prefix_coverage(t, norm)
                    if cov >= 0.8:
                        scored.append((cov, s))
        if not scored:
            return []
        best = max(c for c, _ in scored)
        return [s for c, s in scored if c == best]

    # ---- what the installed JAX does instead

    def fate(self, path: str, function: str, template: str, installed_version: str) -> dict[str, object]:
        """What became of a raise site (from any indexed release) by ``installed_version``.

        Returns ``{"status", "now", "removed_in", "changed_in", "as_of"}``:

        - ``same``: the same message is raised in the same function (``now`` says where, maybe another line);
        - ``moved``: the same message is raised from another function or file;
        - ``reworded``: a raise of the same class took its place with different wording (``now``), in the
          same function, or elsewhere when its wording is close and it appeared when the old one went;
        - ``removed``: nothing took its place; ``removed_in`` is the first release without it;
        - ``unknown``: no indexed release raises this message from this function (never a guess).

        ``now`` is ``{"path", "function", "line", "template", "class"}``; ``changed_in`` is the first release
        where the old form is gone (moved/reworded/removed); ``as_of`` the indexed release the answer is for
        (the installed version, or the latest indexed release before it). When the site took several steps
        (moved, then reworded), ``via`` lists them: ``[{"release", "path", "function", "line", …}, …]``.
        When only releases newer than ``as_of`` raise it, the status is ``unknown`` and ``added_in`` says
        since when. ``template`` may be a template or a message, also one cut short.
        """
        now_i = self.release_index(installed_version)
        answer: dict[str, object] = {"status": "unknown", "now": None, "removed_in": None, "changed_in": None,
                                     "as_of": self._releases[now_i]}
        old = self._pick(self._by_function.get((path, function), []), template)
        if not old:
            return answer
        here = [s for s in old if now_i in s.lines]
        if here:
            answer.update(status="same", now=self._now(sorted(here, key=lambda s: s.ordinal)[0], now_i))
            return answer
        before = [i for s in old for i in s.lines if i <= now_i]
        if not before:  # only releases newer than the installed one raise it
            answer["added_in"] = self._releases[min(i for s in old for i in s.lines)]
            return answer
        # Follow the site's lineage release by release: each time it goes, what took its place.
        site = max(old, key=lambda s: max((i for i in s.lines if i <= now_i), default=-1))
        gone = max(before) + 1
        answer["changed_in"] = self._releases[gone]
        via: list[dict[str, object]] = []
        for _step in range(len(self._releases)):
            nxt = self._successor(site, gone)
            if nxt is None:
                answer.update(status="removed", removed_in=self._releases[gone])
                break
            via.append({"release": self._releases[gone], **self._now(nxt, gone)})
            site = nxt
            if now_i in site.lines:
                same_text = templates.normalise(site.template or "") == templates.normalise(old[0].template or "")
                answer.update(status="moved" if same_text else "reworded", now=self._now(site, now_i))
                break
            gone = max(i for i in site.lines if i <= now_i) + 1
        if len(via) > 1 or answer["status"] == "removed" and via:
            answer["via"] = via
        return answer

    def _successor(self, old: _Site, gone: int) -> _Site | None:
        """The raise that took ``old``'s place in release ``gone`` (the first release without it), if any.

        The same message (same class) from another function or file, new in that release; else a new raise
        of the same class in the same function with similar wording; else, new in that release, a raise of
        similar wording in the same file or a function of the same name (nearly identical wording elsewhere).
        """
        def sim(s: _Site) -> float:
            return difflib.SequenceMatcher(None, templates.normalise(old.template or ""),
                                           templates.normalise(s.template or "")).ratio()

        def alive(s: _Site) -> bool:
            return gone in s.lines and s.cls == old.cls and s is not old

        long_enough = bool(old.template) and templates.literal_length(old.template or "") >= 12
        if long_enough:
            same = [s for s in self._by_template.get(templates.normalise(old.template or ""), []) if alive(s)]
            if same:
                return min(same, key=lambda s: (gone - 1 in s.lines, s.path != old.path, s.function, s.ordinal))
        same_fn = [s for s in self._by_function.get((old.path, old.function), []) if alive(s)]
        fresh = [s for s in same_fn if gone - 1 not in s.lines]
        for pool, bar in ((fresh, 0.45), (same_fn, 0.6)):
            if pool:
                best = max(pool, key=sim)
                if sim(best) >= bar:
                    return best
        if not long_enough:
            return None

        def related(s: _Site) -> bool:
            same_name = s.function.rsplit(".", 1)[-1] == old.function.rsplit(".", 1)[-1]
            return sim(s) >= (0.6 if same_name else 0.7 if s.path == old.path else 0.85)

        near = [s for s in self.sites if alive(s) and s.template and gone - 1 not in s.lines and related(s)]
        return max(near, key=sim) if near else None

    def _now(self, s: _Site, i: int) -> dict[str, object]:
        return {"path": s.path, "function": s.function, "line": s.lines[i][0], "template": s.template,
                "class": s.cls}

    # ---- which release produced this text

    def releases_from_text(self, text: str, wording: bool = True) -> list[str]:
        """The indexed releases consistent with a traceback's evidence (every release when it says nothing).

        Evidence: JAX frames (the function must exist in that release and span the line; the innermost
        frame, when it is a raise, must be a raise at that line), module names and URLs only some
        releases print, a stated ``jax==X.Y.Z``, and the final message's wording. Frames are strict: when
        no indexed release has them all, the answer is ``[]`` (an unindexed release, a dev build or a local
        patch). The softer evidence only narrows: where it would leave no release, it is ignored. With
        ``wording=False`` the final message's wording is left out (what the text shows of its release, not
        which releases say these words).
        """
        every = frozenset(range(len(self._releases)))
        possible = set(every)

        def narrow(found: Iterable[int]) -> None:
            nonlocal possible
            cut = possible & set(found)
            if cut:
                possible = cut

        for path, line, func, is_raise in self._frames(text):
            found = self._frame_releases(path, line, func, is_raise)
            if found is None:
                continue  # a file no indexed release has (jaxlib's compiled parts, a plugin): no evidence
            possible &= found
            if not possible:
                return []
        for _name, rx, present in self._markers:
            if rx.search(text):
                narrow(present)
        narrow(self._python_admits(text))
        # Every release the text states (a post may name the one it upgraded from, and the one that fails): any.
        narrow(self._index[m.group(1)] for m in _VERSION_STATED.finditer(text) if m.group(1) in self._index)
        message = _final_message(text) if wording else None
        if message:
            matches = self._template_matches(message)
            if matches and matches[0][0] >= 0.5:
                best = matches[0][0]
                top = [t for sc, t in matches if sc >= best - 1e-9]
                narrow(i for t in top for s in self._by_template[t] for i in s.lines)
        return [self._releases[i] for i in sorted(possible)]

    def _python_admits(self, text: str) -> Iterable[int]:
        """The releases that install on the newest Python the text's paths show (``python3.7/site-packages``):
        an older Python cannot install a release that requires a newer one. Every release when it shows none."""
        shown = [int(m.group(1)) for m in _PYTHON_SHOWN.finditer(text)]
        if not shown:
            return range(len(self._releases))
        need = self.data.get("python_min") or [None] * len(self._releases)
        return (i for i, v in enumerate(need) if v is None or v <= max(shown))

    @staticmethod
    def _frames(text: str) -> list[tuple[str, int, str | None, bool]]:
        """(JAX-relative path, line, function, whether the code shown is a ``raise``) of each JAX frame."""
        out = []
        for m in _FRAME.finditer(text):
            pm = _PKG_PATH.search(m.group("file").replace("\\", "/"))
            if pm:
                code = text[m.end():].split("\n", 2)
                is_raise = len(code) > 1 and code[0].strip() == "" and code[1].strip().startswith("raise ")
                out.append((pm.group(1), int(m.group("line")), m.group("func"), is_raise))
        return out

    def _frame_releases(self, path: str, line: int, func: str | None, is_raise: bool = False) -> set[int] | None:
        """The releases a frame is consistent with; None when no indexed release has the file."""
        files = self._files.get(path)
        if not files:
            return None
        if is_raise:  # the code shown is a raise: a raise statement must cover that line
            return {i for s in self._by_path.get(path, ()) if func is None or _same_function(s.function, func)
                    for i, (lo, hi) in s.lines.items() if lo <= line <= hi}
        if func is None or func.startswith("<"):  # <module>, <listcomp>, <genexpr>, <lambda>: no span stored
            return {i for i, n in files.items() if line <= n}
        # Tracebacks name a function by co_name ("error") or, in newer printers, co_qualname
        # ("concretization_function_error.<locals>.error"): accept either spelling.
        spans: dict[int, list[tuple[int, int]]] = {}
        for (_p, qual), per in self._funcs_by_path.get(path, {}).items():
            if _same_function(qual, func):
                for i, span in per.items():
                    spans.setdefault(i, []).append(span)
        return {i for i, ss in spans.items() if any(lo <= line <= hi for lo, hi in ss)}

    @cached_property
    def _heads(self) -> list[tuple[str, tuple[str, ...]]]:
        """(normalised template, the starts of its first literal runs) for the truncated-message search."""
        out = []
        for norm in self._by_template:
            lits = [x for x in templates.literals(norm) if len(x) >= 8][:2]
            if lits:
                out.append((norm, tuple(x[:24] for x in lits)))
        return out

    @cached_property
    def _funcs_by_path(self) -> dict[str, dict[tuple[str, str], dict[int, tuple[int, int]]]]:
        out: dict[str, dict[tuple[str, str], dict[int, tuple[int, int]]]] = {}
        for key, per in self._funcs.items():
            out.setdefault(key[0], {})[key] = per
        return out

    def has_file(self, path: str) -> bool:
        """Whether some indexed release has a function in ``path``."""
        return bool(self._funcs_by_path.get(path))

    def qualnames(self, path: str, name: str, line: int | None = None) -> list[str]:
        """Qualified names of the functions in ``path`` that a traceback prints as ``name`` (its co_name).

        With ``line``, only functions that span that line in some release."""
        out = []
        for (_p, qual), per in self._funcs_by_path.get(path, {}).items():
            if not _same_function(qual, name):
                continue
            if line is None or any(lo <= line <= hi for lo, hi in per.values()):
                out.append(qual)
        return sorted(set(out))

    def release_from_text(self, text: str) -> str | None:
        """The JAX release (``"0.5.1"``) or range (``"0.4.35..0.4.38"``) a traceback came from; None if unknown."""
        found = self.releases_from_text(text)
        if len(found) == len(self._releases):
            return None
        return self.format_releases(self._index[r] for r in found)


CUT_HEAD_MIN = 40  # characters of a message's start that must lie inside one of a template's literals


def _tail_coverage(template: str, message: str) -> float:
    """The share of ``message`` a template's literal text covers when the message is the template's end, its
    start cut inside one of the template's literals (0 when it is not)."""
    try:
        parts = templates.parts(template)
    except ValueError:
        return 0.0
    head = message[:CUT_HEAD_MIN]
    for i, (lit, _name) in enumerate(parts):
        norm = templates.normalise(lit)
        at = norm.find(head)
        if at <= 0:
            continue  # not in this literal, or at its start (a whole match, which is found elsewhere)
        tail = norm[at:] + (" " if lit[-1:].isspace() else "")
        rest = [(tail, parts[i][1]), *parts[i + 1:]]
        m = templates.match("".join(x.replace("{", "{{").replace("}", "}}") + ("" if n is None else "{" + n + "}")
                                    for x, n in rest), message)
        return m.coverage if m is not None and m.start == 0 else 0.0
    return 0.0


def _prefix_coverage(template: str, message: str) -> float:
    """The share of ``message`` that is ``template``'s literal text, when the message is the template's start.

    The template's parts are found in order; the message must end inside a literal (or a hole) of it,
    and a hole stands for any text. 0 when the message is not a start of the template.
    """
    try:
        parts = templates.parts(template)
    except ValueError:
        return 0.0
    pos, matched, after_hole = 0, 0, True  # the template may start anywhere in the message, like a search
    # What a hole the template starts with holds (a library's constant prefix: "[Chex] ") is no unmatched text.
    lead = None if parts and not parts[0][0].strip() and parts[0][1] is not None else 0
    holes: list[str] = []  # what the holes after the first literal hold: run-specific values, not words
    for lit, name in parts:
        lit = templates.normalise(lit) if lit.strip() else ""
        if lit:
            i = message.find(lit, pos) if after_hole else (pos if message.startswith(lit, pos) else -1)
            if i < 0:
                rest = message[pos:].strip()
                # The message ends inside this literal: its tail is a start of it.
                for k in range(min(len(lit), len(rest)), 0, -1):
                    if rest.endswith(lit[:k]) and (after_hole or rest == lit[:k]):
                        values = templates.value_chars([*holes, rest[:len(rest) - k] if after_hole else ""])
                        return (matched + k) / max(1, len(message) - (lead or 0) - values)
                return 0.0
            if after_hole and pos and i > pos:
                holes.append(message[pos:i])
            lead = i if lead is None else lead
            pos, matched = i + len(lit), matched + len(lit)
            if message[pos:pos + 1] == " ":
                pos += 1
        after_hole = name is not None
    return 0.0  # the whole template is there: a full match, not a prefix


def _same_function(qual: str, name: str) -> bool:
    """Whether a traceback's function name (bare or qualified) names the function ``qual``."""
    if qual == name:
        return True
    if qual.rsplit(".", 1)[-1] != name.rsplit(".", 1)[-1]:
        return False
    return "." not in name or qual.endswith("." + name) or name.endswith("." + qual)


_EXC_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning)\b:\s*(?P<msg>.*)$")


def _final_message(text: str) -> str | None:
    """The message of the last ``Class: message`` line of a traceback, with what follows it."""
    lines = text.rstrip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        m = _EXC_LINE.match(lines[i].strip())
        if m:
            rest = "\n".join([m.group("msg")] + lines[i + 1 :])
            return re.sub(r"\s*See https://\S+/errors\.html#\S+\s*$", "", rest).strip() or None
    return None


# --------------------------------------------------------------------------- the shipped data


def data_path() -> Path:
    """Where the shipped history data lives."""
    return Path(str(resources.files("jaxerrs") / "data" / DATA_FILE))


@lru_cache(maxsize=16)  # JAX's index and each library's, read once each
def _load(path: str) -> History:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return History(json.load(fh))


def load(path: str | Path | None = None) -> History:
    """The history index (the shipped data file unless ``path`` is given); read once, then cached."""
    return _load(str(path or data_path()))


def load_library(name: str) -> History | None:
    """The shipped history index of one library of ``LIBRARY_SOURCES`` (flax, optax, …); None when it is not
    shipped or cannot be read (the libraries' histories are extra knowledge)."""
    path = Path(str(resources.files("jaxerrs") / "data" / LIBRARY_SOURCES[name].data_file))
    try:
        return _load(str(path))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def releases() -> list[str]:
    """Every JAX release the shipped index covers, oldest first."""
    return load().releases()


def sites_for(text: str, cls: str | None = None) -> list[SiteHit]:
    """See :meth:`History.sites_for`."""
    return load().sites_for(text, cls)


def where(path: str, function: str, release: str, template: str | None = None) -> int | None:
    """See :meth:`History.where`."""
    return load().where(path, function, release, template)


def fate(path: str, function: str, template: str, installed_version: str | None = None) -> dict[str, object]:
    """See :meth:`History.fate`; ``installed_version`` defaults to the installed JAX."""
    version = installed_version or catalog.installed_jax_version() or load().releases()[-1]
    return load().fate(path, function, template, version)


def release_from_text(text: str) -> str | None:
    """See :meth:`History.release_from_text`."""
    return load().release_from_text(text)


# --------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    """``python -m jaxerrs.history build --git-dir DIR [--out PATH] [--tags T …]`` | ``sites TEXT`` | ``function P F``."""
    parser = argparse.ArgumentParser(prog="python -m jaxerrs.history", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="regenerate the history data from a git mirror of github.com/jax-ml/jax "
                                     "(or of a library's repository, with --source)")
    b.add_argument("--git-dir", required=True, help="the repository's git directory (a bare mirror is fine)")
    b.add_argument("--source", default="jax", choices=sorted(SOURCES), help="whose releases (default jax)")
    b.add_argument("--out", default=None, help="output file (default: the package's data/ file for --source)")
    b.add_argument("--tags", nargs="*", default=None,
                   help="tags to index (default: every release tag from --first through --last)")
    b.add_argument("--first", default=None, help="first release (default: the source's, 0.2.0 for jax)")
    b.add_argument("--last", default=None, help="last release, or 'all' (default: the source's)")
    q = sub.add_parser("sites", help="which releases raise a message (or template), and where")
    q.add_argument("text")
    q.add_argument("--class", dest="cls", default=None, help="only sites raising this class")
    f = sub.add_parser("function", help="the releases in which a function exists in a file")
    f.add_argument("path", help="e.g. jax/_src/numpy/indexing.py")
    f.add_argument("function", help="qualified name, e.g. NDIndexer.expand_bool_indices")
    args = parser.parse_args(argv)
    if args.command == "sites":
        for hit in load().sites_for(args.text, args.cls):
            first, last = hit.releases
            print(f"{first}..{last}  {hit.path}:{hit.line}  {hit.function}  {hit.template!r}")
        return 0
    if args.command == "function":
        h = load()
        present = [i for i, r in enumerate(h.releases()) if h.function_span(args.path, args.function, r)]
        print(h.format_releases(present) or f"no release from {h.releases()[0]} to {h.releases()[-1]} has it")
        return 0
    source = SOURCES[args.source]
    first = version_key(args.first) if args.first else source.first
    last = source.last if args.last is None else (None if args.last == "all" else version_key(args.last))
    tags = args.tags or release_tags(args.git_dir, first, last, source)
    data = build(args.git_dir, tags, progress=True, source=source)
    out = Path(args.out) if args.out else Path(__file__).parent / "data" / source.data_file
    write(data, out)
    print(f"{out}: {len(data['releases'])} releases, {len(data['sites'])} sites, "
          f"{len(data['templates'])} templates, {out.stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
