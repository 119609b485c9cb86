"""Why it was raised: the guarding check of the raise site, the values it read, what it accepts, and the API called.

For a live error the raising frame is still on the traceback: the names in the check are read from its
``f_locals`` (then ``f_globals``), never by calling anything of the user's. Only plain values are shown
as they are (numbers, short strings, short tuples, dtypes); arrays and tracers by shape and dtype, other
objects by type. An attribute is read only from JAX's, NumPy's or the libraries' own objects, and only
one of a few data attributes (``shape``, ``dtype``…), so no property of the user's runs. From text, the
values are those the message carries.

The API is the first public function (``jax.numpy.pad``, ``flax.nnx.Linear.__call__``) on the stack
below the user's frame, found by code object among the public modules already imported: what the
user called, even when the raise sits in a private helper under it.
"""

from __future__ import annotations

import difflib
import enum
import inspect
import sys
import types
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from jaxerrs.evidence import traceback_entries
from jaxerrs.guards import Guard

if TYPE_CHECKING:
    from jaxerrs.diagnosis import Diagnosis

MAX_REPR = 120
SAFE_ATTRS = frozenset({"shape", "ndim", "dtype", "size", "weak_type", "name", "kind", "itemsize", "aval"})
_OWN_MODULES = ("jax", "jaxlib", "numpy", "ml_dtypes", "flax", "optax", "equinox", "chex", "orbax", "builtins")
PUBLIC_MODULES = (
    "jax.numpy", "jax.lax", "jax.nn", "jax.random", "jax.numpy.linalg", "jax.numpy.fft", "jax.scipy.special",
    "jax.scipy.linalg", "jax.scipy.signal", "jax.image", "jax.tree_util", "jax.tree", "jax.sharding", "jax.debug",
    "jax.dtypes", "jax.export", "jax.experimental.checkify", "jax.experimental.pallas", "jax.experimental.shard_map",
    "jax", "flax.nnx", "flax.linen", "flax.training.train_state", "optax", "equinox", "equinox.nn", "chex",
    "orbax.checkpoint",
)


# ---------------------------------------------------------------------------- values, safely

def describe(value: Any, depth: int = 0) -> str:
    """A short, safe description of a value: no user ``__repr__`` runs."""
    t = type(value)
    if value is None or t in (bool, int, float, complex):
        return _cap(repr(value))
    if t is str:
        return repr(value) if len(value) <= MAX_REPR else repr(value[:MAX_REPR]) + "…"
    if isinstance(value, enum.Enum) and _own(t):
        return f"{t.__name__}.{value.name}"
    if isinstance(value, type):
        return value.__qualname__ if _own(value) else f"<class {value.__qualname__}>"
    if t in (tuple, list, set, frozenset):
        items = list(value)
        if depth == 0 and len(items) <= 8 and all(_plain(x) for x in items):
            inner = ", ".join(describe(x, 1) for x in (sorted(items, key=repr) if t in (set, frozenset) else items))
            text = {tuple: f"({inner}{',' if len(items) == 1 else ''})", list: f"[{inner}]"}.get(t, "{" + inner + "}")
            return _cap(text)
        return f"{t.__name__} of {len(items)} items"
    if t is dict:
        keys = [k for k in value if _plain(k)]
        shown = ", ".join(describe(k, 1) for k in keys[:8])
        return f"dict with {len(value)} keys: {shown}{', …' if len(value) > 8 else ''}"
    mod = getattr(t, "__module__", "") or ""
    if _own(t):
        shape, dtype = _attr(value, "shape"), _attr(value, "dtype")
        if isinstance(shape, tuple) and dtype is not None:
            return f"{t.__name__} of shape {shape} and dtype {dtype}"
        if mod.startswith("numpy") and t.__name__.startswith(("dtype", "Float", "Int", "UInt", "Bool", "Complex")):
            return str(value)
        if t.__module__ == "numpy" or mod.startswith("numpy."):
            return _cap(repr(value))
        return f"<{t.__name__}>"
    return f"<{t.__name__} object>"


def _plain(x: Any) -> bool:
    return x is None or type(x) in (bool, int, float, str) or (isinstance(x, enum.Enum) and _own(type(x)))


def _own(t: type) -> bool:
    return (getattr(t, "__module__", "") or "").split(".")[0] in _OWN_MODULES


def _attr(obj: Any, name: str) -> Any:
    """``obj.name`` for JAX's, NumPy's and the libraries' own objects and data attributes only."""
    if name not in SAFE_ATTRS or not _own(type(obj)):
        return None
    try:
        return getattr(obj, name)
    except Exception:  # noqa: BLE001
        return None


def _cap(text: str) -> str:
    return text if len(text) <= MAX_REPR else text[:MAX_REPR - 1] + "…"


_MISSING = object()


def resolve(chain: str, frame: types.FrameType) -> Any:
    """The value of ``name`` or ``name.attr…`` in ``frame`` (locals, then globals), or _MISSING."""
    head, *attrs = chain.split(".")
    scope = frame.f_locals
    if head in scope:
        value = scope[head]
    elif head in frame.f_globals:
        value = frame.f_globals[head]
        if isinstance(value, (types.ModuleType, types.FunctionType)) and attrs:
            return _MISSING  # a module's attribute is not a value of this call
    else:
        return _MISSING
    for a in attrs:
        value = _attr(value, a)
        if value is None:
            return _MISSING
    return value


# ---------------------------------------------------------------------------- the guard and its values

def raising_frame(d: Diagnosis) -> types.FrameType | None:
    """The live frame of the raise site: the innermost traceback frame in the site's file and function."""
    ev, site = d.evidence, d.site
    if ev.exc is None or site is None:
        return None
    for e in (ev.exc, ev.cause):
        found = []
        for tb in traceback_entries(e):
            code = tb.tb_frame.f_code
            if code.co_filename.replace("\\", "/").endswith("/" + site.path) and \
                    getattr(code, "co_qualname", code.co_name) == site.function:
                found.append(tb.tb_frame)
        if found:
            return found[-1]
    return None


def guard_for(d: Diagnosis, frame: types.FrameType | None) -> Guard | None:
    """The site's guard: from the catalog, else read from the live frame's function source."""
    site = d.site
    if site is None:
        return None
    from jaxerrs import catalog

    cats = []
    try:
        if site.library_version:
            cats = [c for c in catalog.library_catalogs() if site.path.startswith(c.package + "/")]
        else:
            cats = [catalog.get_nowait()]
    except Exception:  # noqa: BLE001
        cats = []
    for cat in cats:
        s = cat.at(site.path, site.line)
        if s is not None and s.line == site.line:
            g = cat.guard(s)
            if g is not None:
                return g
    return _guard_from_frame(frame, site.line) if frame is not None else None


def _guard_from_frame(frame: types.FrameType, line: int) -> Guard | None:
    """The guard read from the live frame's function source, by the catalog's own extractor (for a raise the
    catalog does not hold yet: its first build still running, or a library it does not index)."""
    import textwrap

    from jaxerrs.catalog import extract_source

    try:
        lines, first = inspect.getsourcelines(frame.f_code)
        guards: dict[str, Guard] = {}
        extract_source(textwrap.dedent("".join(lines)), "<frame>", guards)
    except (OSError, TypeError, SyntaxError, ValueError, RecursionError):
        return None
    return guards.get(f"<frame>:{line - first + 1 if first else line}")


def explain(d: Diagnosis) -> tuple[dict[str, Any] | None, dict[str, Any] | None, str]:
    """(the contract's ``check`` object, its ``api`` object, the called function's docstring entry for a
    parameter the check reads): the raising frame and the guard found once, for both."""
    frame = raising_frame(d)
    guard = guard_for(d, frame)
    api, doc = _api(d, guard) or (None, "")
    return _check(d, frame, guard), api, doc


def _check(d: Diagnosis, frame: types.FrameType | None, g: Guard | None) -> dict[str, Any] | None:
    """The ``check`` object (None when the site is unknown or has no guard)."""
    if g is None:
        return None
    values: dict[str, str] = {}
    subject_value: Any = _MISSING
    accepted = list(g.accepted)
    if frame is not None:
        for name in g.names:
            v = resolve(name, frame)
            if v is not _MISSING and not isinstance(v, (types.ModuleType, types.FunctionType, type(len))):
                values[name] = describe(v)
        if g.subject and all(p.isidentifier() for p in g.subject.split(".")):
            subject_value = resolve(g.subject, frame)
        if g.table and all(p.isidentifier() for p in g.table.split(".")):
            live = resolve(g.table, frame)
            if isinstance(live, (dict, set, frozenset, tuple, list)) and 0 < len(live) <= 200:
                keys = [k for k in live if _plain(k)]
                if keys:
                    accepted = [describe(k, 1) for k in (sorted(keys, key=repr) if isinstance(live, (set, frozenset))
                                                          else keys)]
            elif isinstance(live, type) and issubclass(live, enum.Enum):
                accepted = [repr(m.value) for m in live]
    else:  # from text: what the message carries, under the names its template gives them
        values = {k: v for k, v in d.values.items() if k in g.names or k == g.subject} or dict(d.values)
        if g.subject and g.subject in d.values:
            subject_value = d.values[g.subject].strip("'\"")
    nearest = None
    if accepted and subject_value is not _MISSING and isinstance(subject_value, str):
        plain = {a.strip("'\""): a for a in accepted}
        close = difflib.get_close_matches(subject_value, list(plain), n=1, cutoff=0.6)
        nearest = plain[close[0]] if close else None
    return {"code": g.code, "words": g.words, "values": values, "accepted": accepted[:60], "did_you_mean": nearest}


# ---------------------------------------------------------------------------- the API called

# Methods a class's constructor runs: the API called is the class itself (``jax.sharding.PartitionSpec``).
_CONSTRUCTORS = ("__init__", "__new__", "__init_subclass__", "__post_init__")


@dataclass
class _Index:
    """The public functions and classes of the imported public modules, found three ways: by code object; by
    file and qualified name (a closure a public function returns, such as ``vmap``'s ``vmap_f``, is that
    function's); and the classes, for a method JAX attaches to a public type's implementation
    (``jax.Array.__contains__`` lives on ``ArrayImpl`` and the tracers)."""

    by_code: dict[Any, tuple[str, Any]] = field(default_factory=dict)
    by_qualname: dict[tuple[str, str], tuple[str, Any]] = field(default_factory=dict)
    classes: list[tuple[str, type]] = field(default_factory=list)

    def add(self, name: str, obj: Any, closures: bool = True) -> None:
        code = _code(obj)
        if code is not None and code not in self.by_code:
            self.by_code[code] = (name, obj)
            if closures:
                self.by_qualname.setdefault((code.co_filename, getattr(code, "co_qualname", code.co_name)),
                                            (name, obj))


def _public_modules() -> tuple[str, ...]:
    """The public modules already imported: those listed first (their names win), then every other ``jax.…``
    module with no private part."""
    return _public_modules_among(len(sys.modules))


@lru_cache(maxsize=4)
def _public_modules_among(_count: int) -> tuple[str, ...]:  # recomputed when modules are imported
    extra = sorted(m for m in list(sys.modules) if m.startswith("jax.") and m not in PUBLIC_MODULES
                   and not any(part.startswith("_") for part in m.split(".")) and ".tests" not in m)
    return tuple(m for m in (*PUBLIC_MODULES, *extra) if m in sys.modules)


def _mirrored(obj: Any, modname: str) -> bool:
    """Whether ``obj`` comes from the module ``modname`` mirrors (``jax.nn.initializers`` re-exports
    ``jax._src.nn.initializers``), or from that module itself. Only then does a closure defined in it stand for it:
    another module may have imported a wrapper for its own use (``jax.experimental.colocated_python.func`` imports
    ``api_boundary``, whose closure every JAX API's frames run through), and that is nobody's API."""
    return str(getattr(obj, "__module__", "")).replace("._src", "") == modname


@lru_cache(maxsize=8)
def _public_index(loaded: tuple[str, ...]) -> _Index:
    out = _Index()
    # A class exported under several names is known by one bound under its own name (``jax.Array``, not
    # ``jax.numpy.ndarray``), from the first module listed.
    ranked: dict[int, tuple[tuple[int, int], str]] = {}
    for rank, modname in enumerate(loaded):
        for name, obj in list(vars(sys.modules.get(modname) or types).items()):
            if not name.startswith("_") and isinstance(obj, type) and _own(obj):
                key = (0 if name == str(getattr(obj, "__qualname__", "")).rsplit(".", 1)[-1] else 1, rank)
                if id(obj) not in ranked or key < ranked[id(obj)][0]:
                    ranked[id(obj)] = (key, f"{modname}.{name}")
    class_names = {k: v[1] for k, v in ranked.items()}
    for modname in loaded:
        mod = sys.modules.get(modname)
        if mod is None:
            continue
        for name, obj in list(vars(mod).items()):
            if name.startswith("_"):
                continue
            if isinstance(obj, type) and _own(obj):
                cname = class_names[id(obj)]
                out.classes.append((cname, obj))
                for meth, fn in list(vars(obj).items()):
                    if meth.startswith("_") and not (meth.startswith("__") and meth.endswith("__")):
                        continue
                    out.add(cname if meth in _CONSTRUCTORS else f"{cname}.{meth}", fn)
                continue
            out.add(f"{modname}.{name}", obj, closures=modname in PUBLIC_MODULES or _mirrored(obj, modname))
    return out


def _lookup(index: _Index, frame: types.FrameType) -> tuple[str, Any] | None:
    """The public function or method this frame runs, or None."""
    code = frame.f_code
    hit = index.by_code.get(code)
    qual = getattr(code, "co_qualname", code.co_name)
    while hit is None and ".<locals>." in qual:
        qual = qual.rsplit(".<locals>.", 1)[0]
        hit = index.by_qualname.get((code.co_filename, qual))
    if hit is None and code.co_argcount and code.co_varnames[0] == "self":
        hit = _method_of_public_type(index, frame)
    return hit


def _method_of_public_type(index: _Index, frame: types.FrameType) -> tuple[str, Any] | None:
    """``jax.Array.__contains__`` for a frame running the function a public type's implementation class
    holds under that name (found by code object on ``type(self)``'s MRO: no attribute of ``self`` is read)."""
    cls = type(frame.f_locals.get("self"))
    if not _own(cls):
        return None
    attr = next((k for klass in cls.__mro__ for k, v in vars(klass).items() if _code(v) is frame.f_code), None)
    if attr is None:
        return None
    mro = cls.__mro__
    found = []
    for name, public in index.classes:
        try:
            if issubclass(cls, public):  # a real base first, nearest first; then a registered one; shortest name
                found.append(((mro.index(public) if public in mro else len(mro), len(name)), name, public))
        except TypeError:
            continue
    if found:
        _rank, name, public = min(found, key=lambda t: t[0])
        fn = getattr(public, attr, None) or vars(cls).get(attr)
        return (name if attr in _CONSTRUCTORS else f"{name}.{attr}"), fn
    return None


def _code(obj: Any) -> Any:
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    if obj is None or isinstance(obj, (type, types.ModuleType)):
        return None
    try:
        fn = inspect.unwrap(obj) if callable(obj) else None
    except ValueError:
        return None
    fn = getattr(fn, "__func__", fn)
    return getattr(fn, "__code__", None)


def _api(d: Diagnosis, guard: Guard | None) -> tuple[dict[str, Any], str] | None:
    """(the ``api`` object, the docstring's paragraph on a parameter ``guard`` reads, or "")."""
    ev = d.evidence
    if ev.exc is None:
        return None
    frames = []
    for e in (ev.exc, ev.cause):
        frames.extend(tb.tb_frame for tb in traceback_entries(e))
        if frames:
            break
    uf = ev.user_frame
    start = 0
    if uf is not None:
        for i, f in enumerate(frames):
            if f.f_code.co_filename == uf.filename:
                start = i + 1
    index = _public_index(_public_modules())
    for f in frames[start:]:
        hit = _lookup(index, f)
        if hit is None:
            continue
        name, obj = hit
        try:
            sig = f"{name.rsplit('.', 1)[-1]}{inspect.signature(obj)}"
        except (TypeError, ValueError):
            sig = name.rsplit(".", 1)[-1] + "(…)"
        sig = sig if len(sig) <= 300 else sig[:299] + "…"
        url = f"https://docs.jax.dev/en/latest/_autosummary/{name}.html" if name.startswith("jax.") and \
            name.count(".") <= 3 else None
        doc = _param_doc(obj, guard.names if guard else ())
        return {"name": name, "signature": sig, "url": url}, doc
    return None


def _param_doc(obj: Any, names: tuple[str, ...]) -> str:
    """The docstring's entry for the first parameter of ``obj`` that the check reads ("mode: …")."""
    doc = inspect.getdoc(obj) or ""
    try:
        params = list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        params = []
    wanted = [n for n in names if n in params]
    if not wanted or not doc:
        return ""
    lines = doc.splitlines()
    for name in wanted:
        for i, ln in enumerate(lines):
            s = ln.strip()
            if s.startswith((f"{name}:", f"{name} :", f"{name} (")):
                indent = len(ln) - len(ln.lstrip())
                body = [s]
                for nxt in lines[i + 1:]:
                    if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                        break
                    body.append(nxt.strip())
                text = " ".join(b for b in body if b)
                return text if len(text) <= 500 else text[:499] + "…"
    return ""
