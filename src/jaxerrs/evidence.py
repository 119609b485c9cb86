"""Evidence: everything known about one error, gathered once, from a live exception or from text."""

from __future__ import annotations

import builtins
import os
import re
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import lru_cache
from types import TracebackType

DOCS_LINK = re.compile(r"\n?See (https://(?:docs\.jax\.dev|jax\.readthedocs\.io)/\S+)\s*$")
# JAX's quiet_remove_frames mode appends this note; the frames it speaks of are gone.
FILTER_NOTE = "For simplicity, JAX has removed its internal frames"
OLD_FILTER_NOTE = "The stack trace above excludes JAX-internal frames."  # JAX 0.2's FilteredStackTrace says this
MAX_MESSAGE = 100_000  # characters of a message we keep
MATCH_CHARS = 4_000  # characters of a message that templates are matched against


@dataclass(frozen=True)
class Frame:
    filename: str
    lineno: int
    function: str  # co_qualname where known, else the name as printed
    kind: str  # "jax", "lib" (stdlib, numpy…), "user"
    line: str = ""  # the source line, when known
    hidden: bool = False  # JAX marked it __tracebackhide__

    @property
    def jax_path(self) -> str | None:
        return jax_relpath(self.filename)


@dataclass
class Evidence:
    exc_class: str  # short name: "TracerBoolConversionError"
    module: str | None  # "jax.errors", "builtins", None when unknown (text)
    classes: list[str]  # short class names, most specific first
    message: str  # without JAX's trailing "See https://…" line and JAX's notes
    doc_url: str | None
    frames: list[Frame]  # outermost first, hidden ones included
    source: str  # "live" or "text"
    jax_version: str | None
    frames_removed: bool = False  # JAX filtered its frames away (quiet_remove_frames)
    user_frame: Frame | None = None  # the user's frame that made the failing JAX call
    raise_frame: Frame | None = None  # innermost frame that is not stdlib/numpy
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    exc: BaseException | None = field(default=None, repr=False, compare=False)  # the live exception
    # Its ``__cause__``, unless it was raised before (``raised_before``): then that may be an earlier raise's.
    cause: BaseException | None = field(default=None, repr=False, compare=False)
    text: str = field(default="", repr=False, compare=False)  # the pasted text, for the release it came from
    # The pasted message with lines a terminal may have cut at its width joined back (``_unwrap``); None
    # when no line is that long. Which reading JAX's words fit better, the matcher decides.
    unwrapped: str | None = field(default=None, repr=False, compare=False)
    # Live: the library whose class the raising code was generated for (a frozen dataclass's ``__setattr__``).
    generated_for: str | None = None

    @property
    def match_text(self) -> str:
        return match_text_of(self.message)

    @property
    def logged_by_xla(self) -> bool:
        """A pasted line the C++ JAX runs (XLA) logged, no exception raised (``_jax_log_message``)."""
        return self.source == "text" and self.exc_class == "Warning" and self.module == XLA_LOG_MODULE


_ELIDED_START = re.compile(r"^\s*(?:\.\.\.|…)\s*(?=\w)")


def match_text_of(message: str) -> str:
    """The head of a message, and its tail when it is long: JAX's templates live there (a callback's
    error ends with JAX's own line after the user's embedded traceback), and matching stays fast. An ellipsis a
    person put for the words they left out at its start ("... expected shapes should be …") is no part of it."""
    message = _ELIDED_START.sub("", message)
    if len(message) <= MATCH_CHARS:
        return message
    tail = MATCH_CHARS // 4
    return message[:MATCH_CHARS - tail] + "\n" + message[-tail:]


# ---------------------------------------------------------------------------- frames

_STDLIB = tuple(
    os.path.normcase(os.path.realpath(p)) for p in {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
)
_LIB_PACKAGES = ("numpy", "scipy", "ml_dtypes", "opt_einsum")


def jax_relpath(filename: str) -> str | None:
    """'jax/_src/core.py' for a file inside the jax or jaxlib package, else None."""
    return package_relpath(filename, ("jax", "jaxlib"))


def package_relpath(filename: str, packages: tuple[str, ...]) -> str | None:
    """'pkg/sub/x.py' for a file inside one of ``packages``: installed, a source checkout, or a path printed
    relative to the package's parent (``flax/nnx/variablelib.py``); else None.

    Below a folder of that name (``~/packages/jax/try.py``, ``~/chex/runs/a.py``) a file is the package's only
    when the installed package has that module or subpackage. A path that starts with the package's name is
    taken at its word: a traceback prints a user's script by its absolute path or bare name.
    """
    norm = filename.replace("\\", "/")
    if "site-packages/" in norm or "dist-packages/" in norm:
        tail = re.split(r"(?:site|dist)-packages/", norm)[-1]
        return tail if tail.split("/", 1)[0] in packages and tail.endswith(".py") else None
    if not norm.endswith(".py"):
        return None
    parts = norm.split("/")
    # The last component named like the package, so that a checkout at ~/src/jax/jax/_src/x.py reads jax/_src/x.py.
    idx = next((i for i in range(len(parts) - 2, -1, -1) if parts[i] in packages), None)
    if idx is None:
        return None
    rel = "/".join(parts[idx:])
    # A folder of the package's name holding the package (~/src/equinox/equinox/…) is its source checkout,
    # whatever modules the installed release has.
    if idx > 0 and parts[idx - 1] != parts[idx] and not _package_has(*parts[idx:idx + 2]):
        return None  # a user's own script in a folder named jax (~/packages/jax/try.py, ~/chex/runs/a.py)
    return rel


@lru_cache(maxsize=256)
def _package_has(pkg: str, name: str) -> bool:
    """Whether the installed package ``pkg`` has the module or subpackage ``name`` (nothing is imported);
    True when ``pkg`` is not installed here: the path's word is all there is."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(pkg)
    except (ImportError, ValueError):
        return True  # no package to ask: keep the path's word for it
    if spec is None or not spec.submodule_search_locations:
        return True
    return any(os.path.exists(os.path.join(d, name)) for d in spec.submodule_search_locations)


# Python's own library as other machines lay it out (a pasted traceback): lib/python3.11/…, pyenv's and conda's
# versions of it, Windows' Lib\; never a site-packages below it.
_STDLIB_LAYOUT = re.compile(r"(?:^|/)(?:lib/python\d+(?:\.\d+)?|Lib)/(?![^/]*-packages/)(?:[\w.-]+/)*[\w.-]+\.py$")
# Windows names folders in any case: Anaconda's standard library is ``C:\\ProgramData\\Anaconda3\\lib\\contextlib.py``.
# There a ``lib`` folder is Python's when what it holds is one of Python's own modules.
_WINDOWS_LIB = re.compile(r"^[A-Za-z]:/(?:[^/]+/)*?lib/(?P<module>\w+)(?:/|\.py$)", re.I)


def frame_kind(filename: str) -> str:
    if jax_relpath(filename):
        return "jax"
    norm = filename.replace("\\", "/")
    if package_relpath(norm, _LIB_PACKAGES):
        return "lib"
    if "-packages/" not in norm:
        real = os.path.normcase(filename)
        if real.startswith(_STDLIB) or filename.startswith("<frozen ") or _STDLIB_LAYOUT.search(norm):
            return "lib"
        windows = _WINDOWS_LIB.match(norm)
        if windows and windows["module"] in sys.stdlib_module_names:
            return "lib"
    return "user"


def _locate(frames: list[Frame]) -> tuple[Frame | None, Frame | None]:
    """(raise frame, user frame): the innermost frame that is not stdlib/numpy, and the innermost user frame
    above the raise (or the raise frame itself for user errors)."""
    raise_frame = next((f for f in reversed(frames) if f.kind != "lib"), frames[-1] if frames else None)
    user = None
    if raise_frame is not None:
        idx = frames.index(raise_frame)
        if raise_frame.kind == "user" and not _installed(raise_frame):
            user = raise_frame
        else:
            user = _user_above(frames, idx)
    return raise_frame, user


def relocate(ev: Evidence, frames: list[Frame]) -> None:
    """Give ``ev`` these frames (some read anew) and find its raise and user frames again."""
    ev.frames = frames
    ev.raise_frame, ev.user_frame = _locate(frames) if frames else (None, None)


def _user_above(frames: list[Frame], idx: int) -> Frame | None:
    """The innermost of the user's own frames above ``frames[idx]``. Frames of installed libraries (Flax, Optax, …)
    are never the user's own code; nor is code Python generated (a dataclass's ``__init__``: "<string>")."""
    beside = _beside_a_checkout(frames)
    return next((f for f in reversed(frames[:idx]) if f.kind == "user" and not _is_ipython(f)
                 and (not _installed(f) or f.filename in beside) and f.filename != "<string>"), None)


def _beside_a_checkout(frames: list[Frame]) -> frozenset[str]:
    """Files read as a library's only because a folder of its name holds them, when another frame of the same
    traceback shows the library's package inside that folder (``~/git/numpyro/numpyro/infer/x.py``): the
    folder is the library's source checkout, and its other files (``~/git/numpyro/playground/run.py``, its
    tests and examples) are the user's."""
    packages = set()
    for f in frames:
        parts = f.filename.replace("\\", "/").split("/")
        packages.update("/".join(parts[:i + 1]) + "/" for i in range(1, len(parts) - 1)
                        if parts[i] == parts[i - 1] and parts[i] in ECOSYSTEM)
    out = set()
    for f in frames:
        norm = f.filename.replace("\\", "/")
        if any(norm.startswith(p.rstrip("/").rsplit("/", 1)[0] + "/") and not norm.startswith(p) for p in packages):
            out.add(f.filename)
    return frozenset(out)


# Libraries built on JAX: an error raised inside one, or passing through one, names it (``ecosystem``).
ECOSYSTEM = ("flax", "optax", "equinox", "orbax", "chex", "haiku", "diffrax", "numpyro", "lineax",
             "optimistix", "jraph", "distrax", "jaxopt", "penzai", "treescope")


def ecosystem(ev: Evidence) -> str | None:
    """The JAX library that raised the error or sits between the user's frame and the raise."""
    frames = ev.frames
    start = frames.index(ev.user_frame) + 1 if ev.user_frame in frames else 0
    for f in frames[start:]:
        lib = frame_library(f)
        if lib is not None:
            return lib
    return ecosystem_origin(ev)


# Classes an ecosystem library defines under another module's name (Equinox builds its runtime error in builtins).
_ECOSYSTEM_CLASSES = {"EquinoxRuntimeError": "equinox"}


def frame_library(f: Frame) -> str | None:
    """The ecosystem library (``ECOSYSTEM``) a frame's file belongs to (installed or a source checkout), else None."""
    rel = package_relpath(f.filename, ECOSYSTEM)
    return rel.split("/", 1)[0] if rel else None


def ecosystem_origin(ev: Evidence) -> str | None:
    """The JAX library that defines the error's class or whose code raised it; such an error is a JAX error.

    Only the raise frame counts, not frames the error merely passed through: a user's own ``raise`` in a
    function that Optax calls back is the user's error.
    """
    top = (ev.module or "").split(".")[0]
    if top in ECOSYSTEM:
        return top
    for c in ev.classes or [ev.exc_class]:
        if c in _ECOSYSTEM_CLASSES:
            return _ECOSYSTEM_CLASSES[c]
    if ev.generated_for is not None:
        return ev.generated_for
    rf = ev.raise_frame
    lib = frame_library(rf) if rf is not None else None
    if lib is None and ev.source == "text" and rf is None:
        # No frames: words only a library's own messages carry (chex's ERR_PREFIX, a library's docs site).
        lib = next((name for name, rx in _LIBRARY_WORDS if rx.search(ev.message)), None)
    return lib


# Words a library's messages carry that no other package's do, from their sources: chex prefixes its assertions'
# messages with ERR_PREFIX = "[Chex] " (chex/_src/asserts_internal.py); Flax's, Orbax's and Equinox's errors link
# their own documentation.
_LIBRARY_WORDS = (
    ("chex", re.compile(r"^\s*\[Chex\] ")),
    ("flax", re.compile(r"https?://flax(?:-linen)?\.readthedocs\.io/")),
    ("orbax", re.compile(r"https?://orbax\.readthedocs\.io/")),
    ("equinox", re.compile(r"https?://docs\.kidger\.site/equinox/")),
)


def ecosystem_of_values(ev: Evidence, limit: int = 400) -> str | None:
    """For a live error: the library whose objects (an ``eqx.Module``, an ``nnx.Module``) JAX was handed.

    ``jax.jit(f)(model, x)`` over an Equinox model raises inside JAX with no Equinox frame in between;
    the arguments JAX's own frames hold still say whose objects they are.
    """
    exc = ev.exc
    if exc is None:
        return None
    seen = 0
    for tb in traceback_entries(exc):
        if seen >= limit:
            break
        frame = tb.tb_frame
        if frame_kind(frame.f_code.co_filename) != "jax":
            continue
        try:
            values = list(frame.f_locals.values())
        except Exception:  # noqa: BLE001 - a frame whose locals cannot be read tells nothing
            continue
        for v in values:
            items = list(v)[:32] if isinstance(v, tuple | list) else [v]
            for item in items:
                seen += 1
                lib = _library_of_type(type(item))
                if lib is not None:
                    return lib
    return None


def _library_of_type(cls: type) -> str | None:
    for c in getattr(cls, "__mro__", ()):
        top = (getattr(c, "__module__", "") or "").split(".")[0]
        if top in ECOSYSTEM:
            return top
    return None


def _library_of_class(cls: type) -> str | None:
    """The library a class belongs to: one of its bases is the library's, or the library's decorator gave it
    methods (``flax.struct.dataclass`` adds ``replace``, ``chex.dataclass`` ``replace``, ``to_tuple``, …)."""
    lib = _library_of_type(cls)
    if lib is not None:
        return lib
    try:
        methods = [v for v in vars(cls).values() if callable(v)]
    except TypeError:
        return None
    tops = {(getattr(v, "__module__", "") or "").split(".")[0] for v in methods}
    return next((lib for lib in ECOSYSTEM if lib in tops), None)


def _generated_for(tb: TracebackType) -> str | None:
    """The library whose class a raise in generated code (``<string>``: the ``__setattr__`` of a frozen dataclass)
    was generated for, read from the instance it ran on."""
    frame = tb.tb_frame
    if frame.f_code.co_filename != "<string>":
        return None
    try:
        obj = frame.f_locals.get("self")
    except Exception:  # noqa: BLE001 - a frame whose locals cannot be read tells nothing
        return None
    return _library_of_class(type(obj)) if obj is not None else None


def _installed(f: Frame) -> bool:
    """A frame of an installed package, or of a JAX library's source: never the user's own code."""
    n = f.filename.replace("\\", "/")
    return "/site-packages/" in n or "/dist-packages/" in n or frame_library(f) is not None


def _is_ipython(f: Frame) -> bool:
    n = f.filename.replace("\\", "/")
    return "/IPython/" in n or "/ipykernel/" in n


# ---------------------------------------------------------------------------- live


def _safe_str(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception as e:  # noqa: BLE001 - a hostile __str__ must not break us
        return f"<unprintable {type(exc).__name__} ({type(e).__name__} in __str__)>"
    if not isinstance(text, str):
        return f"<unprintable {type(exc).__name__}>"
    return text


MAX_TB_ENTRIES = 5000


def traceback_entries(exc: BaseException | None) -> list[TracebackType]:
    """The entries of ``exc``'s traceback, outermost first, that this raise of it added.

    An exception object raised again keeps its old traceback and gains new entries in front: checkify raises one
    module-level ``ValueError`` for every check it cannot stage, so the second cell that hits it shows the first
    cell's frames after its own, and its ``JaxStackTraceBeforeTransformation`` cause is the first cell's. The old
    part starts after an entry that stopped at a ``raise`` (nothing deeper belongs to that propagation), with a
    frame that walks again the code of a frame before it (IPython's ``run_code`` of an earlier cell). A ``raise e``
    that continues in a frame already shown (JAX re-raising with a filtered traceback) and an error kept by a
    ``Future`` (a worker thread's frames, none walked before) keep their older entries."""
    entries: list[TracebackType] = []
    codes: set[object] = set()
    frames: set[int] = set()
    tb = getattr(exc, "__traceback__", None)
    while tb is not None and len(entries) < MAX_TB_ENTRIES:
        frame = tb.tb_frame
        if (entries and frame.f_code in codes and id(frame) not in frames and _stopped_at_raise(entries[-1])):
            break
        codes.add(frame.f_code)
        frames.add(id(frame))
        entries.append(tb)
        tb = tb.tb_next
    return entries


def raised_before(exc: BaseException | None) -> bool:
    """Whether ``exc`` is an exception object raised again: its traceback holds an earlier raise's entries, and
    what it was chained to then (``__cause__``, ``__context__``) may be that raise's."""
    return _older_part_left(traceback_entries(exc))


def _older_part_left(entries: list[TracebackType]) -> bool:
    """``traceback_entries`` stopped before the traceback's end: what follows is an earlier raise's."""
    return bool(entries) and entries[-1].tb_next is not None and len(entries) < MAX_TB_ENTRIES


@lru_cache(maxsize=1)
def _raise_opcodes() -> frozenset[int]:
    import dis

    return frozenset(dis.opmap[name] for name in ("RAISE_VARARGS", "RERAISE") if name in dis.opmap)


def _stopped_at_raise(tb: TracebackType) -> bool:
    """Whether the entry's frame stopped at a ``raise`` (not at a call into a deeper frame)."""
    try:
        return tb.tb_lasti >= 0 and tb.tb_frame.f_code.co_code[tb.tb_lasti] in _raise_opcodes()
    except (IndexError, AttributeError):
        return False


def _tb_frames(entries: list[TracebackType]) -> list[Frame]:
    frames = []
    for tb in entries:
        f = tb.tb_frame
        code = f.f_code
        name = getattr(code, "co_qualname", code.co_name)
        try:
            hidden = bool(f.f_locals.get("__tracebackhide__", False))
        except Exception:  # noqa: BLE001
            hidden = False
        frames.append(Frame(code.co_filename, tb.tb_lineno, name, frame_kind(code.co_filename), "", hidden))
    return frames


def split_message(text: str) -> tuple[str, str | None]:
    """(message without JAX's trailing docs link, the link)."""
    m = DOCS_LINK.search(text)
    if m:
        return text[: m.start()].rstrip(), m.group(1)
    return text.rstrip(), None


def from_exception(exc: BaseException) -> Evidence:
    """Evidence from a live exception; never raises for a well-formed BaseException."""
    cls = type(exc)
    mro = [c.__name__ for c in cls.__mro__ if c is not object]
    raw = _safe_str(exc)
    truncated = len(raw) > MAX_MESSAGE
    message, url = split_message(raw[:MAX_MESSAGE])
    notes = [n for n in (getattr(exc, "__notes__", None) or []) if isinstance(n, str)]
    frames_removed = any(FILTER_NOTE in n for n in notes)
    entries = traceback_entries(exc)
    cause = None if _older_part_left(entries) else exc.__cause__
    # remove_frames mode: the full traceback hangs on an UnfilteredStackTrace cause.
    if cause is not None and type(cause).__name__ == "UnfilteredStackTrace":
        entries = traceback_entries(cause) or entries
        frames_removed = False
    frames = _tb_frames(entries)
    ev = Evidence(
        exc_class=cls.__name__,
        module=getattr(cls, "__module__", None),
        classes=mro,
        message=message,
        doc_url=url,
        frames=frames,
        source="live",
        jax_version=_jax_version(),
        frames_removed=frames_removed,
        truncated=truncated,
        notes=notes,
        exc=exc,
        cause=cause,
    )
    ev.raise_frame, ev.user_frame = _locate(frames)
    if ev.raise_frame is not None and ev.raise_frame.filename == "<string>" and not frames_removed:
        at = next(i for i, f in enumerate(frames) if f is ev.raise_frame)
        ev.generated_for = _generated_for(entries[at])
        if ev.generated_for is not None:  # code a library's class was given: the user's frame is the caller's
            ev.user_frame = _user_above(frames, at)
    # Errors raised while lowering carry JaxStackTraceBeforeTransformation: its frames show the user's line.
    if cause is not None and type(cause).__name__ == "JaxStackTraceBeforeTransformation":
        before = _tb_frames(traceback_entries(cause))
        user = next((f for f in reversed(before) if f.kind == "user" and not _is_ipython(f)), None)
        if user is not None:
            ev.user_frame = user
    return ev


def _jax_version() -> str | None:
    jax = sys.modules.get("jax")
    version = getattr(jax, "__version__", None)
    if version:
        return str(version)
    from jaxerrs.catalog import installed_jax_version

    return installed_jax_version()


# ---------------------------------------------------------------------------- text

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
_PLAIN_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$')
_IPY_FRAME = re.compile(r"^\s*File (?P<file>\S.*?):(?P<line>\d+)(?:, in (?P<func>[^\s(]+)(?:\(.*)?)?\s*$")
# A paste that starts inside a frame's header, its `  File "` cut off: only ever a text's first line.
# (IPython's header cut the same way: "klujax.py:249, in analyze", its "File " gone.)
_CUT_FRAME = re.compile(r'^\s*(?P<file>[^"\s]+\.py)(?:", line (?P<line>\d+)(?:, in (?P<func>.+?))?'
                        r'|:(?P<line2>\d+), in (?P<func2>[^\s(]+)(?:\(.*)?)\s*$')
_IPY_CELL = re.compile(r"^\s*(?:Cell (?P<cell>In ?\[\d*\]), line (?P<line>\d+)|Input (?P<cell2>In ?\[\s*\d*\]), in .*)")
# Older IPython: "<ipython-input-4-d80…> in <module>" (the cell, no arguments shown), "…/module.py in f(self, x)".
# Colab's IPython names a cell's own frame "<cell line: 0>" (its first line, not the line that raised).
_IPY_OLD = re.compile(r"^(?P<file>\S+?\.py|<ipython-input-[^>]+>) in (?P<func><cell line: \d+>|[^\s(]+)(?:\(|\s*$)")
_EXC_LINE = re.compile(
    r"^(?P<cls>Exception(?=:)|[A-Za-z_][\w.]*?(?:Error|Exception|Exit|Interrupt|Warning|Iteration|Trace|Transformation)"
    # A dotted class; not a file name that starts a frame line ("klujax.py:249, in analyze").
    # Its last name is a class's, capitalised ("E.g." or "i.e." starting a sentence is none).
    r"|(?![\w.]*\.(?:py|pyx|pyc|so|cc|cpp|h)(?::|$))[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\.[A-Z]\w*"
    # Other CamelCase classes (JAX's InconclusiveDimensionOperation, ...), only with a message after them.
    r"|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+(?=:))(?::\s?(?P<msg>.*))?$"
)
_HEADER = re.compile(r"^\S+\s{3,}Traceback \(most recent call last\)")
_LOG_LINE = re.compile(r"^(?:\d{4}-\d\d-\d\d[ T]|\[?(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\b|[IWEF]\d{4} )")
_CHAIN = re.compile(r"^(?:The above exception was the direct cause of the following exception:|"
                    r"During handling of the above exception, another exception occurred:)\s*$")
_CODE_LINE = re.compile(r"^\s*(?:-+>\s*)?\d+\s")  # IPython's numbered source lines


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


# How tools other than Python and IPython print an error: pytest ("E   " lines, "FAILED t.py::x - Cls: msg"),
# VS Code's debugger ("Exception has occurred: Cls" over the message), Colab (frames as Markdown links).
_PYTEST_E = re.compile(r"^E(?: {1,7}|$)")
_PYTEST_SUMMARY = re.compile(r"^(?:FAILED|ERROR) \S+ - (?P<rest>\S.*?)(?:\.\.\.)?$")
_PYTEST_BANNER = re.compile(r"^([=_])\1{2,} .* \1{3,}$")
_VSCODE = re.compile(r"^Exception has occurred: (?P<cls>[\w.]+)\s*$")
_MD_LINK = re.compile(r"\[(?P<path>[^\]\n]+)\]\(https?://[^)\s]*\)")


# pytest's frame location: "path.py:12: in fn", "path.py:12: " or, innermost, "path.py:12: TypeError".
_PYTEST_LOC = re.compile(r"^(?P<file>(?:[A-Za-z]:)?[^\s:][^:]*\.py):(?P<line>\d+): ?"
                         r"(?:in (?P<func>[\w.<>]+)|[\w.]+)?\s*$")
# pdb's and ipdb's place in a frame: "> /path/file.py(22)fn()" (the current one) or "  /path/file.py(8)<module>()".
_PDB_FRAME = re.compile(r"^\s*>?\s*(?P<file>(?:[A-Za-z]:)?[^\s()<>]+\.py|<[^>\s]+>)\((?P<line>\d+)\)"
                        r"(?P<func>[\w.<>]+)\(\)\s*$")
_PDB_PROMPT = re.compile(r"^\s*(?:\(Pdb\)|ipdb>)")
_CARETS = re.compile(r"^\s*[\^~]+\s*$")  # Python 3.11's marks under the part of a line that raised
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\(")


def _unpytest(lines: list[str]) -> list[str]:
    """pytest's frames as Python's, for the failure whose ``E`` lines come last: ``--tb=short`` prints each as
    ``path.py:12: in fn`` over its line; ``--tb=long`` prints the source first, its line marked ``>``, then
    ``path.py:12: `` (the innermost: ``path.py:12: TypeError``, its function the last ``def`` shown)."""
    e_at = [i for i, ln in enumerate(lines) if _PYTEST_E.match(ln)]
    if not e_at or not any(_PYTEST_LOC.match(ln) for ln in lines):
        return lines
    heads = [i for i in range(e_at[-1]) if _PYTEST_BANNER.match(lines[i])]
    lo = heads[-1] + 1 if heads else 0
    hi = next((i for i in range(e_at[-1], len(lines)) if _PYTEST_BANNER.match(lines[i])), len(lines))
    frames: list[str] = []
    drop: set[int] = set()
    start = lo
    for i in range(lo, hi):
        m = _PYTEST_LOC.match(lines[i])
        if m is None:
            continue
        nxt = lines[i + 1] if i + 1 < hi else ""
        drop.add(i)
        if nxt.startswith(" ") and nxt.strip() and not _CARETS.match(nxt):  # short: its line follows
            code, func = nxt.strip(), m["func"] or "?"
            drop.add(i + 1)
        else:  # long: the entry's source and its '>' line are above
            entry = [ln[1:] if ln.startswith(">") else ln for ln in lines[start:i]]
            marked = [ln for ln in lines[start:i] if ln.startswith(">")]
            code = marked[-1][1:].strip() if marked else ""
            defs = [d["name"] for ln in entry if (d := _DEF.match(ln))]
            func = m["func"] or (defs[-1] if defs else "?")
        frames += [f'  File "{m["file"]}", line {m["line"]}, in {func}', f"    {code}"]
        start = i + 1
    if not frames:
        return lines
    first_e = next(i for i in e_at if i >= lo)
    # The entries' source and locals above the E lines are now the frames; the E lines and what follows stay.
    rest = [ln for i, ln in enumerate(lines[first_e:hi], first_e) if i not in drop and not _CARETS.match(ln)]
    return [*lines[:lo], "Traceback (most recent call last):", *frames, *rest, *lines[hi:]]


_QUOTED = re.compile(r"^\s*>(?!>)")
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})[\w+-]*\s*$")  # a Markdown code fence: it ends a message inside it


_HEADING = re.compile(r"^#{1,6}\s+(?P<rest>\S.*)$")


def _unheaded(line: str) -> str:
    """An exception line a user made a Markdown heading of ("# ValueError: …"), without the marks."""
    m = _HEADING.match(line)
    return m["rest"] if m and ":" in m["rest"] and _EXC_LINE.match(m["rest"].rstrip()) else line


def _unquote(lines: list[str]) -> list[str]:
    """A paste quoted as Markdown (``> `` before most lines, nested too) without its quote marks."""
    while True:
        said = [ln for ln in lines if ln.strip()]
        if len(said) < 2 or sum(bool(_QUOTED.match(ln)) for ln in said) < 0.8 * len(said):
            return lines
        lines = [re.sub(r"^\s*> ?", "", ln) if _QUOTED.match(ln) else ln for ln in lines]


_RICH_TOP = re.compile(r"^\s*╭─+ Traceback \(most recent call last\) ─+╮\s*$")
_RICH_FRAME = re.compile(r"^(?P<file>\S.*?\.py|<[^>]+>):(?P<line>\d+) in (?P<func>[\w.<>]+)$")
_RICH_ARROW = re.compile(r"^❱\s*\d+\s*│\s?(?P<code>.*)$")


def _unbox_rich(lines: list[str]) -> list[str]:
    """Rich's boxed traceback (``rich.traceback``: ``│ path.py:12 in fn │``, ``│ ❱ 12 │ code │``) as Python's."""
    if not any(_RICH_TOP.match(ln) for ln in lines):
        return lines
    out, inside = [], False
    for ln in lines:
        if _RICH_TOP.match(ln):
            inside = True
            out.append("Traceback (most recent call last):")
        elif inside and ln.strip().startswith("╰"):
            inside = False
        elif inside:
            body = ln.strip().strip("│").strip()
            if m := _RICH_FRAME.match(body):
                out.append(f'  File "{m["file"]}", line {m["line"]}, in {m["func"]}')
            elif m := _RICH_ARROW.match(body):
                out.append("    " + m["code"].replace("│", " ").strip())  # its indent guides are no code
        else:
            out.append(ln)
    return out


_LINE_SPAN = re.compile(r"^(?P<indent>\s*)`(?P<body>[^`]*)`\s*$")


def _unquote_lines(text: str) -> str:
    """A traceback pasted with each line as an inline code span (`Cell In[20], line 2`), as it was printed."""
    lines = text.split("\n")
    filled = [ln for ln in lines if ln.strip()]
    if len(filled) < 2 or not all(_LINE_SPAN.match(ln) for ln in filled):
        return text
    return "\n".join(m["body"] if (m := _LINE_SPAN.match(ln)) else ln for ln in lines)


def _normalise(text: str) -> str:
    """The traceback as Python or IPython would print it, from pytest's, VS Code's, Colab's or Rich's rendering."""
    import textwrap

    text = "\n".join(_unbox_rich(_MD_LINK.sub(r"\g<path>", text).split("\n")))
    text = _unquote_lines(text)
    inline = text.strip()
    if len(inline) > 2 and inline[0] == inline[-1] == "`" and not inline.startswith("``") and "`" not in inline[1:-1]:
        text = inline[1:-1]  # a traceback pasted as one inline code span: `File "…", line 3 … Error: …`
    lines = _unpytest([_unheaded(ln) for ln in _unquote(text.split("\n"))])
    e_lines = [ln for ln in lines if _PYTEST_E.match(ln)]
    full = bool(e_lines) and any(_EXC_LINE.match(_PYTEST_E.sub("", ln).strip()) for ln in e_lines)
    if full:
        lines = [_PYTEST_E.sub("", ln) if _PYTEST_E.match(ln) else ln for ln in lines]
    summary = [i for i, ln in enumerate(lines) if _PYTEST_SUMMARY.match(ln)]
    if summary:
        # The "E" lines above hold the whole message; else the last summary line is the error (cut short).
        last = _PYTEST_SUMMARY.match(lines[summary[-1]])
        tail = [] if full or last is None else [last.group("rest")] + lines[summary[-1] + 1:]
        lines = [ln for ln in lines[:summary[0]] + tail
                 if not _PYTEST_BANNER.match(ln) and not _PYTEST_SUMMARY.match(ln)]
    stripped = textwrap.dedent("\n".join(lines)).split("\n")
    for i, ln in enumerate(stripped):
        m = _VSCODE.match(ln.strip())
        if m and i + 1 < len(stripped) and stripped[i + 1].strip():
            stripped[i:i + 2] = [f"{m.group('cls')}: {stripped[i + 1].strip()}"]
            return "\n".join(stripped)
    return "\n".join(lines)


def from_text(text: str) -> Evidence:
    """Evidence from a pasted traceback, a log holding one, or a final ``Class: message`` line."""
    text = _normalise(strip_ansi(text.replace("\r\n", "\n").replace("\r", "\n")))
    truncated = len(text) > 4 * MAX_MESSAGE
    if truncated:
        # A huge log: the error is at the end; keep the head of the last traceback in view too.
        idx = text.rfind("Traceback (most recent call last)")
        text = text[idx:] if 0 <= idx and len(text) - idx <= 4 * MAX_MESSAGE else text[-4 * MAX_MESSAGE:]
    lines = text.split("\n")
    # Only the last exception of a chain is the error; earlier blocks may still show the user's line.
    starts = [i + 1 for i, ln in enumerate(lines) if _CHAIN.match(ln.strip())]
    block_start = starts[-1] if starts else 0
    earlier, block = lines[:block_start], lines[block_start:]
    exc_idx = _find_exception_line(block)
    cut_block: list[str] | None = None  # the last block, when the paste stops before its exception line
    if exc_idx is None and starts and _inline_exception(block) is None:
        # The paste stops inside the last block, before its exception line: an earlier block says which error
        # (JAX's UnfilteredStackTrace block names the same error as the filtered one after it).
        # each earlier block, to the chain line after it
        bounds = list(zip([0, *starts[:-1]], [s - 1 for s in starts], strict=True))
        for start, end in reversed(bounds):
            found = _find_exception_line(lines[start:end])
            if found is not None and not _is_filter_note(lines[start + found]):
                cut_block, earlier, block, exc_idx = block, lines[:start], lines[start:end], found
                break
    if exc_idx is None and (inline := _inline_exception(block)) is not None:
        exc_idx, line, closed = inline
        block = block[:exc_idx] + [line] + ([] if closed else block[exc_idx + 1:])
    quoted = _quote_holding(block, exc_idx) if exc_idx is not None else None
    if quoted is not None:
        exc_idx = None  # the line is the last of a message quoted from above it, without its class
    # Frames after the exception line belong to a traceback inside the message.
    frames = _parse_frames(block if exc_idx is None else block[:exc_idx])
    if cut_block is not None and exc_idx is not None and (shown := _parse_frames(cut_block)):
        frames = shown  # the frames the paste ends with are where that error surfaced
    cls, message, module, offset = "", "", None, 0
    if exc_idx is not None:
        m = _EXC_LINE.match(block[exc_idx].rstrip())
        assert m is not None
        qual, first = m.group("cls"), m.group("msg") or ""
        # JAX's traceback wrappers of older releases print the real class after theirs.
        wrapped = False
        while qual.rsplit(".", 1)[-1] in _WRAPPERS and (inner := _EXC_LINE.match(first)) and inner.group("msg"):
            qual, first, wrapped = inner.group("cls"), inner.group("msg"), True
        cls = qual.rsplit(".", 1)[-1]
        # The error came out through JAX's traceback filtering: JAX's, as the wrapper class said before.
        module = qual.rsplit(".", 1)[0] if "." in qual else ("jax._src.traceback_util" if wrapped else None)
        rest = [first]
        for j, ln in enumerate(block[exc_idx + 1:], exc_idx + 1):
            if _LOG_LINE.match(ln) or _CHAIN.match(ln.strip()) or _FENCE.match(ln):
                break
            if _PDB_FRAME.match(ln) or _PDB_PROMPT.match(ln):
                # A debugger opened after the error (IPython's %debug, pdb.post_mortem): not the message. Where
                # it stands is a frame of this error, the only one shown when the paste has no traceback.
                frames = frames or _pdb_frames(block[j:])
                break
            rest.append(ln)
        message = "\n".join(rest).strip("\n")
        offset = len(block[exc_idx]) - len(first)
    else:
        log = _jax_log_message(block)
        if quoted is not None:
            message = quoted
        elif log is not None:
            # No exception at all, but JAX logged a warning or error (a backend that failed to start).
            cls, module, message = "Warning", log[0], log[1]
        elif frames and (header := _header_class(block)):
            # A traceback the paste stops in, before its exception line: IPython's header named the class,
            # and nothing it printed is the message.
            cls = header
        else:
            inside = _unfenced(block)
            message = "\n".join(inside).strip()
            if not frames and len(inside) <= 3:
                cls, message = _from_prose(message)
            elif not frames and (fenced := _fenced_message(block)) is not None:
                message = fenced
    message, url = split_message(message)
    if not cls and (anchor := _DOCS_CLASS.search(url or message)):
        # No class pasted, but the link to the error's page names it (JAX's "See …", or the link Flax's errors
        # end with: "(https://flax.readthedocs.io/…/flax.errors.html#flax.errors.ScopeParamShapeError)").
        cls, module = anchor.group(2), anchor.group(1)
    notes = []
    for note in (FILTER_NOTE, OLD_FILTER_NOTE):
        if note in message:
            cut = message.find("--------------------\n" + note)
            cut = cut if cut >= 0 else message.find(note)
            notes.append(message[cut:])
            message = message[:cut].rstrip()
    ev = Evidence(
        exc_class=cls,
        module=module,
        classes=[cls] if cls else [],
        message=message[:MAX_MESSAGE],
        doc_url=url,
        frames=frames,
        source="text",
        jax_version=None,
        frames_removed=bool(notes),
        truncated=truncated or len(message) > MAX_MESSAGE,
        notes=notes,
        text=text,
    )
    unwrapped = _unwrap(ev.message.split("\n"), offset)
    ev.unwrapped = unwrapped if unwrapped != ev.message else None
    ev.raise_frame, ev.user_frame = _locate(frames) if frames else (None, None)
    if earlier and (ev.user_frame is None or ev.user_frame.kind != "user"):
        before = _parse_frames(earlier)
        user = next((f for f in reversed(before) if f.kind == "user"), None)
        ev.user_frame = user or ev.user_frame
    return ev


# JAX's own log lines: Python logging ("WARNING:jax._src.xla_bridge:…") and absl ("W1129 … xla_bridge.py:879] …"),
# and those of the C++ it runs (XLA, TSL, jaxlib): absl's ("E1129 … cuda_dnn.cc:522] …", the file's name only) and
# TensorFlow's older layout, which names the file's path ("2024-03-01 10:11:12.3: W external/xla/xla/…/x.cc:760] …").
_JAX_LOG = (
    re.compile(r"^(?P<level>WARNING|ERROR|CRITICAL):(?P<logger>jax(?:lib)?(?:\.[\w.]+)?):(?P<msg>.+)$"),
    # (xla_bridge logs a backend that failed to start at INFO level in some releases)
    re.compile(r"^(?P<level>[IWEF])\d{4} [\d:.]+\s+\d+ (?P<file>xla_bridge|dispatch|compiler|pjit)\.py:\d+\] (?P<msg>.+)$"),
    re.compile(r"^(?P<level>[WEF])\d{4} [\d:.]+\s+\d+ (?P<cc>\w+\.cc):\d+\] (?P<msg>.+)$"),
    re.compile(r"^\d{4}-\d\d-\d\d [\d:.]+: (?P<level>[WEF]) (?P<cc>(?:external/(?:local_)?)?(?:xla|tsl|jaxlib)/\S+\.cc)"
               r":\d+\] (?P<msg>.+)$"),
)


XLA_LOG_MODULE = "jaxlib"  # the module a C++ log line is named by: the package that ships XLA


def _jax_log_message(lines: list[str]) -> tuple[str, str] | None:
    """(logger module, message) of the last error line that JAX, or the C++ it runs, logged; else of the last
    warning. A C++ line's module is ``jaxlib``, the package that ships XLA."""
    found = []
    for ln in lines:
        for rx in _JAX_LOG:
            m = rx.match(ln.strip())
            if m:
                logger = m["logger"] if "logger" in rx.groupindex else (
                    XLA_LOG_MODULE if "cc" in rx.groupindex else f"jax._src.{m.group('file')}")
                found.append((m["level"][0] in "EFC", logger, m.group("msg").strip()))
                break
    if not found:
        return None
    _error, logger, msg = max(reversed(found), key=lambda x: x[0])
    return logger, msg


def _parse_frames(lines: list[str]) -> list[Frame]:
    frames: list[Frame] = []
    first = next((i for i, ln in enumerate(lines) if ln.strip() and not _FENCE.match(ln)), -1)
    for i, ln in enumerate(lines):
        file = func = None
        lineno = 0
        m = _PLAIN_FRAME.match(ln) or _IPY_FRAME.match(ln) or (_CUT_FRAME.match(ln) if i == first else None)
        if m:
            d = m.groupdict()
            file, lineno, func = d["file"], int(d["line"] or d.get("line2") or 0), d["func"] or d.get("func2") or "?"
        else:
            c = _IPY_CELL.match(ln)
            if c:
                file = c.group("cell") or c.group("cell2")
                file = "Cell " + re.sub(r"\s+", "", file)
                lineno, func = int(c.group("line") or 0), "<module>"
            else:
                o = _IPY_OLD.match(ln)
                if o:
                    file, func = o.group("file"), o.group("func")
                    func = "<module>" if func.startswith("<cell line:") else func
        if file is None:
            continue
        file = os.path.expanduser(file) if file.startswith("~") else file
        code, arrow = _code_after(lines, i)
        # Older IPython prints no line in the frame's header, only on its '---->' line.
        frames.append(Frame(file, lineno or arrow, func or "?", frame_kind(file), code))
    return frames


def _pdb_frames(lines: list[str]) -> list[Frame]:
    """The frames a debugger's session printed ("> /path/f.py(22)fn()"), each with its line ("-> code", or
    ipdb's "---> 22 code"), outermost first: a post-mortem opens at the innermost frame, and ``up`` goes out."""
    frames = []
    for i, ln in enumerate(lines):
        if (m := _PDB_FRAME.match(ln)) is not None:
            file = os.path.expanduser(m["file"]) if m["file"].startswith("~") else m["file"]
            code, _arrow = _code_after(lines, i)
            frame = Frame(file, int(m["line"]), m["func"], frame_kind(file), code)
            if frame not in frames:
                frames.insert(0, frame)
    return frames


_ARROW = re.compile(r"^-+>\s*(\d*)\s?")


def _code_after(lines: list[str], i: int) -> tuple[str, int]:
    """The source line a frame points at (plain: next line; IPython: the '---->' line) and, on IPython's
    arrow line, its number (else 0)."""
    for ln in lines[i + 1: i + 12]:
        if _PLAIN_FRAME.match(ln) or _IPY_FRAME.match(ln) or _IPY_CELL.match(ln) or not ln.strip():
            if not ln.strip():
                continue
            break
        s = ln.strip()
        if (a := _ARROW.match(s)) is not None:
            return s[a.end():], int(a.group(1) or 0)
        if not _CODE_LINE.match(ln):
            return s, 0
    return "", 0


_DOCS_CLASS = re.compile(r"errors\.html#((?:jax|flax)\.errors)\.([A-Za-z]\w*)")
_WRAPPERS = frozenset({"FilteredStackTrace", "UnfilteredStackTrace", "JaxStackTraceBeforeTransformation"})
# A class and its message inside a line of prose or markup: "fails with `TypeError: …`", "optax valueError: …".
_INLINE_EXC = re.compile(r"(?P<open>[`'\"]?)(?<![\w.])(?P<cls>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning)):\s*"
                         r"(?P<msg>\S.*)$")


# Widths at which terminals and log viewers cut long lines.
_TERMINAL_WIDTHS = frozenset({80, 100, 120, 132, 160, 200})
# A line at least this long whose last word runs on, lower case, into the next line's first: cut at a width.
_CUT_MIN = 60
_CUT_IN_WORD = re.compile(r"[a-z]\n[a-z]{2}$")


def _unwrap(lines: list[str], first_offset: int = 0) -> str:
    """The message's lines joined, a run of lines that a terminal may have cut at its width (every line of
    the run but the last exactly 80, 100, … characters, the first counted with its class), or a long line cut
    inside a word at another width, without a break, as it was printed. Text wrapped at words can end a line
    at the width too: this is one reading, which the matcher keeps only when JAX's words fit it better."""
    widths = [len(ln) + (first_offset if i == 0 else 0) for i, ln in enumerate(lines)]
    joined = [False] * len(lines)  # joined[i]: line i runs on into line i + 1
    # Lines of a terminal's width: the terminal cut them, and the other breaks are the message's own.
    terminal = any(widths[k] == widths[k + 1] in _TERMINAL_WIDTHS for k in range(len(lines) - 1))
    i = 0
    while i < len(lines):
        j = i  # the run of lines i..j: each but the last of the same terminal width
        while j + 1 < len(lines) and widths[j] == widths[i] in _TERMINAL_WIDTHS and lines[j + 1][:1].strip():
            j += 1
        if j > i and widths[j] <= widths[i]:
            joined[i:j] = [True] * (j - i)
        elif (j == i and not terminal and i + 1 < len(lines) and widths[i] >= _CUT_MIN
              and _CUT_IN_WORD.search(lines[i] + "\n" + lines[i + 1][:2])):
            joined[i] = True  # a long line cut inside a word ("you d" / "efined"), at a width no terminal uses
        i = j + 1
    return "".join(ln + ("" if joined[k] or k + 1 == len(lines) else "\n") for k, ln in enumerate(lines))


# A user's sentence around the error: 'it throws the following error: "Submodules must be defined …"', or
# 'this leads to `CallCompactUnboundModuleError`'.
_QUOTED_ERROR = re.compile(r"\b(?:errors?|exceptions?|raises?|throws?|fails?|says?|message)\b[^\"“”`]{0,40}?"
                           r"(?:[\"“](?P<msg>[^\"“”]{20,})[\"”]|`(?P<span>[^`(){}\[\]=]{20,})`)", re.IGNORECASE)
_QUOTED_PARAGRAPH = re.compile(r"^\s*[\"“](?P<msg>[^\"“”\n]{40,})[\"”]\s*$", re.MULTILINE)
_PROSE_CLASS = re.compile(r"`(?:[A-Za-z_]\w*\.)*(?P<cls>[A-Z]\w*(?:Error|Exception))`")


_CODE_STATEMENT = re.compile(r"^\s*(?:import|from|def|class|return|for|while|if|with|@|print\()|^\s*[\w.\[\], ]+ = ")


def _quote_holding(lines: list[str], i: int) -> str | None:
    """When the exception line ``i`` closes a backtick quote opened on a line above it (`` `Non-hashable static
    arguments … The error was:`` / ``TypeError: unhashable type: 'list'` ``), the quoted text: a message whose
    last lines name the error it wraps, pasted without its own class."""
    if not lines[i].rstrip().endswith("`") or lines[i].rstrip().endswith("``"):
        return None
    above = [ln for ln in lines[:i] if not _FENCE.match(ln)]
    opened = next((k for k in range(len(above) - 1, -1, -1) if above[k].count("`") % 2), None)
    if opened is None or sum(ln.count("`") for ln in above) % 2 == 0 or lines[i].count("`") != 1:
        return None
    before = [above[opened][above[opened].rindex("`") + 1:], *above[opened + 1:]]
    if not "".join(before).strip():
        return None  # the quote holds only the exception line: it is the error, with its class
    return "\n".join([*before, lines[i].rstrip()[:-1]]).strip()


def _unfenced(lines: list[str]) -> list[str]:
    """The lines inside a Markdown code fence that holds the whole block (a message pasted as a fenced block,
    whatever its lines read like); the block itself otherwise."""
    inner = lines[1:-1]
    if len(lines) >= 3 and _FENCE.match(lines[0]) and _FENCE.match(lines[-1]) and not any(map(_FENCE.match, inner)):
        return inner
    return lines


def _fenced_message(lines: list[str]) -> str | None:
    """The message a post quotes in a code fence of its own, with no class printed ("throws the following
    error:" and a fenced line): the last fenced block of a few lines in which no line reads as code."""
    blocks, inside, current = [], False, []
    for ln in lines:
        if _FENCE.match(ln):
            if inside:
                blocks.append(current)
            inside, current = not inside, []
        elif inside:
            current.append(ln)
    for body in reversed(blocks):
        text = "\n".join(body).strip()
        if text and len(body) <= 6 and not any(_CODE_STATEMENT.match(ln) for ln in body):
            return text
    return None


def _from_prose(text: str) -> tuple[str, str]:
    """(class, message) a sentence without an exception line speaks of: the message it quotes after words
    such as "error:", or, with no message quoted, the one exception class it names in backticks."""
    quoted = _QUOTED_ERROR.search(text)
    if quoted is not None and (quoted["msg"] or len(quoted["span"].split()) >= 4):
        return "", (quoted["msg"] or quoted["span"]).strip()
    named = {m.group("cls") for m in _PROSE_CLASS.finditer(text)}
    cls = named.pop() if len(named) == 1 else ""
    # A paragraph that is one quoted passage, after the sentence that names the error: the message it printed.
    alone = _QUOTED_PARAGRAPH.search(text)
    if alone is not None:
        return cls, alone["msg"].strip()
    return (cls, "") if cls else ("", text)


def _inline_exception(lines: list[str]) -> tuple[int, str, bool] | None:
    """The last line that holds ``Class: message`` after other words or a quote, as the exception line it
    stands for: the class's case repaired (``valueError``), the message cut at the quote that closes it
    (then True: the lines after it are no part of the message)."""
    for i in range(len(lines) - 1, -1, -1):
        m = _INLINE_EXC.search(lines[i])
        if m is None:
            continue
        cls, msg, opener = m.group("cls"), m.group("msg").rstrip(), m.group("open")
        closed = bool(opener) and opener in msg
        if closed:
            msg = msg[:_closing_quote(msg, opener)]
        short = cls.rsplit(".", 1)[-1]
        fixed = short[0].upper() + short[1:]
        if short[0].islower() and isinstance(getattr(builtins, fixed, None), type):
            cls = cls[: len(cls) - len(short)] + fixed
        elif short[0].islower():
            continue  # a word like "myError: …" is no class
        return i, f"{cls}: {msg.strip()}", closed
    return None


def _closing_quote(msg: str, opener: str) -> int:
    """Where the quote that opened before the class closes in the rest of its line: for a backtick, the first one
    outside pairs of the message's own (`` use `jax.jit` ``) that prose follows ("… pytree` when custom …");
    otherwise, and failing that, the last one."""
    if opener == "`":
        for k, ch in enumerate(msg):
            if ch == "`" and msg[:k].count("`") % 2 == 0 and (k + 1 == len(msg) or not msg[k + 1].isalnum()):
                return k
    return msg.rindex(opener)


def _is_filter_note(line: str) -> bool:
    """JAX's ``SimplifiedTraceback`` line, chained between an error and its filtered re-raise: a note, not the
    error."""
    m = _EXC_LINE.match(line.rstrip())
    return m is not None and m.group("cls").rsplit(".", 1)[-1] == "SimplifiedTraceback"


def _header_class(lines: list[str]) -> str:
    """The class IPython's last traceback header names (``ValueError      Traceback (most recent call
    last)``), or ""."""
    for ln in reversed(lines):
        if _HEADER.match(ln.strip()):
            name = ln.split()[0].rsplit(".", 1)[-1]
            return name if _CLASS_NAME.fullmatch(name) and name not in _WRAPPERS else ""
    return ""


_CLASS_NAME = re.compile(r"[A-Z]\w*")


def _find_exception_line(lines: list[str]) -> int | None:
    """Index of the final ``Class: message`` line."""
    # A message that embeds a traceback (a callback's error inside JaxRuntimeError) is the outer error.
    for i, ln in enumerate(lines):
        if ln and not ln[0].isspace() and ln.rstrip().endswith("Traceback (most recent call last):"):
            m = _EXC_LINE.match(ln.rstrip())
            if m and m.group("msg"):
                return i
    last_frame = -1
    for i, ln in enumerate(lines):
        if _PLAIN_FRAME.match(ln) or _IPY_FRAME.match(ln) or _IPY_CELL.match(ln) or _IPY_OLD.match(ln):
            last_frame = i
    for i in range(max(0, last_frame + 1), len(lines)):
        ln = lines[i].rstrip()
        if not ln or ln[0].isspace() or _HEADER.match(ln) or _CODE_LINE.match(ln) or ln.startswith("Traceback"):
            continue
        if _EXC_LINE.match(ln):
            return i
    if last_frame < 0:
        # A bare "Class: message" anywhere (a log without frames): take the last one.
        for i in range(len(lines) - 1, -1, -1):
            ln = lines[i].rstrip()
            if ln and not ln[0].isspace() and _EXC_LINE.match(ln) and ":" in ln:
                return i
    return None
