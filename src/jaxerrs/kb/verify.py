"""Execution checks for records: reproducers raise, the matcher maps them home, fixes run clean.

The checks run in worker processes (one per core) that share one JAX each. Workers set
``JAX_TRACEBACK_FILTERING=tracebackhide`` (what JAX uses under IPython, which keeps every frame)
and four host CPU devices for the sharding records, before JAX is imported.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jaxerrs.kb.records import Record, installed_jax, requirement_met

WORKER_ENV = {
    "JAX_TRACEBACK_FILTERING": "tracebackhide",
    "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
    "JAX_PLATFORMS": "cpu",
}
TIMEOUT_S = 900


@dataclass
class Result:
    id: str
    ok: bool
    checks: dict[str, str] = field(default_factory=dict)  # check name -> "ok" or what failed
    seconds: float = 0.0
    skipped: str = ""  # why it was not checked here (its library is missing or out of range)

    @property
    def failures(self) -> list[str]:
        return [f"{k}: {v}" for k, v in self.checks.items() if v != "ok"]


_CONFIG_FLAGS = (
    "jax_debug_nans", "jax_debug_infs", "jax_enable_checks", "jax_enable_x64", "jax_disable_jit",
    "jax_numpy_rank_promotion", "jax_numpy_dtype_promotion", "jax_debug_key_reuse",
    "jax_traceback_filtering", "jax_check_tracer_leaks", "jax_default_matmul_precision",
)


# Flags that older JAX releases (0.8.3 and before) left out of the compilation cache's key: a function compiled
# earlier in the process with the flag off runs unchecked once it is on. A snippet that turns one on
# starts from empty caches, as in the fresh kernel its record describes (another record's
# jax.random.normal((3,)) would otherwise let a reused key pass on 0.4.38-0.8.3).
_UNKEYED_FLAGS = ("debug_key_reuse",)


def _run(code: str) -> BaseException | None:
    """Run ``code`` in a fresh namespace; restore the JAX config flags it may have changed."""
    return _run_checked(code, "")[0]


_SNIPPETS = itertools.count(1)


def _compiled(code: str, role: str) -> types.CodeType:
    """``code`` compiled under a name of its own (``<reproducer-12>``), its source kept in ``linecache`` as
    IPython keeps a cell's: code that reads its own source (``inspect.getsource``: ``chex.assert_max_traces``
    keys its counter by it) runs as in a notebook, and its frames show their lines.

    The name is new for each snippet, as each cell's is in IPython: a frame of an earlier snippet that reaches a
    later traceback still finds its own lines. One does: checkify raises one module-level exception object each
    time, whose traceback keeps every earlier raise's frames. Under one shared name such a frame found the later
    snippet's lines, and IPython's formatter, looking for its line there, raised."""
    import linecache

    name = f"<{role}-{next(_SNIPPETS)}>"
    linecache.cache[name] = (len(code), None, code.splitlines(keepends=True), name)
    return compile(code, name, "exec", dont_inherit=True)


def _run_checked(code: str, check: str) -> tuple[BaseException | None, BaseException | None]:
    """Run ``code``, then ``check`` in the same namespace (each once): (what code raised, what check raised).
    The check does not run when the code raised. JAX config flags the two changed are restored. Both run in a
    scratch working directory of their own, removed after: a snippet that saves to a relative path, as users'
    code does (``CheckpointManager('runs/exp1')``), leaves nothing where ``kb check`` was started, and two
    snippets saving to the same relative path do not meet. (A worker also runs in a scratch directory of its
    own: an async save's thread may make its folder after the snippet returned.)"""
    with _scratch_directory():
        return _run_checked_here(code, check)


@contextlib.contextmanager
def _scratch_directory() -> Iterator[None]:
    start = os.getcwd()
    scratch = tempfile.mkdtemp(prefix="jaxerrs-kb-")
    os.chdir(scratch)
    try:
        yield
    finally:
        os.chdir(start)
        shutil.rmtree(scratch, ignore_errors=True)


def _run_checked_here(code: str, check: str) -> tuple[BaseException | None, BaseException | None]:
    import jax

    saved = {}
    for name in _CONFIG_FLAGS:
        try:
            saved[name] = getattr(jax.config, name)
        except AttributeError:
            pass
    if any(flag in code for flag in _UNKEYED_FLAGS):
        jax.clear_caches()
    # A module of its own, found in sys.modules as a notebook's __main__ is: dataclasses (Flax and Equinox
    # modules) under ``from __future__ import annotations`` and pickle look the module up by name.
    module = types.ModuleType("__jaxerrs_check__")
    namespace = module.__dict__
    sys.modules[module.__name__] = module
    try:
        try:
            exec(_compiled(code, "reproducer"), namespace)
        except Exception as e:  # noqa: BLE001 - any error is the answer
            return e, None
        if check:
            try:
                exec(_compiled(check, "check"), namespace)
            except Exception as e:  # noqa: BLE001
                return None, e
        return None, None
    finally:
        sys.modules.pop(module.__name__, None)
        for name, value in saved.items():
            try:
                jax.config.update(name, value)
            except Exception:  # noqa: BLE001
                pass


def _record_class(record: Record) -> type | None:
    """The class ``error_class`` names, imported (``jax.errors.JaxRuntimeError``), or None when it cannot be."""
    import builtins
    import importlib

    module, _, name = record.error_class.rpartition(".")
    if not module:
        found = getattr(builtins, name, None)
        return found if isinstance(found, type) else None
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None
    return found if isinstance(found, type) else None


def _class_ok(exc: BaseException, record: Record) -> bool:
    """By identity and MRO where the class imports (one class has had several names across releases:
    ``jax.errors.JaxRuntimeError`` is ``XlaRuntimeError`` in older ones); by name otherwise."""
    from jaxerrs.matcher import ALIASES

    cls = _record_class(record)
    if cls is not None:
        return isinstance(exc, cls)
    mro = type(exc).__mro__
    names = {c.__name__ for c in mro} | {f"{c.__module__}.{c.__qualname__}" for c in mro}
    names |= {ALIASES.get(n, n) for n in names}
    return record.error_class in names or record.class_name in names or ALIASES.get(record.class_name) in names


def _raised(exc: BaseException | None, record: Record) -> str:
    if exc is None:
        return "ran clean"
    return "ok" if _class_ok(exc, record) else f"raised {type(exc).__name__}: {str(exc)[:200]}"


def _home(d: Any, record: Record) -> str:
    """"ok" when the diagnosis names this record first.

    A record about one library that shares JAX's words (a dot_general error inside ``nnx.Linear``) may
    yield to the JAX record where the text does not show that library: that is the right answer there;
    a bare final line in Python's own words (``cannot assign to field``) may go unclaimed.
    """
    if d.record is not None and d.record.id == record.id:
        return "ok"
    if (record.requires and d.is_jax and d.record is not None and not d.record.requires
            and d.ecosystem != record.library):
        return "ok"
    # Python's own words (a frozen dataclass) without JAX's or the library's frames are rightly not claimed: a
    # bare final line, or frames of the user's code and of the code Python generated for a class (``<string>``).
    # A library's record may quote more than Python's words; any record whose pattern spells no more may.
    from jaxerrs.evidence import frame_library

    if (not d.is_jax and d.ecosystem is None
            and not any(f.kind == "jax" or frame_library(f) for f in d.evidence.frames)):
        from jaxerrs.matcher import _foreign, _letters

        specific = max((_letters(p) for p in record.patterns), default=0)
        if ((record.requires and not d.evidence.frames and _foreign(d.evidence.match_text))
                or _foreign(d.evidence.match_text, specific)):
            return "ok"
    return f"got {d.record.id if d.record else None} (is_jax={d.is_jax})"


def _run_as_script(code: str) -> BaseException | None:
    """``code`` as a script runs it: JAX's default traceback filtering outside IPython removes its frames."""
    import jax

    saved = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", "quiet_remove_frames")
    try:
        return _run(code)
    finally:
        jax.config.update("jax_traceback_filtering", saved)


_IPYTHON_TB: Any = None


def ipython_text(exc: BaseException) -> str:
    """The traceback as IPython prints it in a notebook (no colours)."""
    global _IPYTHON_TB
    if _IPYTHON_TB is None:
        from IPython.core.ultratb import AutoFormattedTB

        _IPYTHON_TB = AutoFormattedTB(mode="Context")
        if hasattr(_IPYTHON_TB, "set_theme_name"):  # IPython >= 9
            _IPYTHON_TB.set_theme_name("nocolor")
        else:  # IPython 8
            _IPYTHON_TB.set_colors("NoColor")
    tb = _IPYTHON_TB
    return tb.stb2text(tb.structured_traceback(type(exc), exc, exc.__traceback__))


def _forms(code: str, exc: BaseException, record: Record, label: str, c: dict[str, str]) -> None:
    """The error must land on ``record`` in four forms: live, IPython's text, a script's, the final line."""
    from jaxerrs import templates
    from jaxerrs.matcher import diagnose_exception, diagnose_from_text

    message = str(exc)
    if not any(templates.match(p, message) for p in record.patterns_for(installed_jax())):
        c[f"{label} pattern"] = f"no pattern for JAX {installed_jax()} matches {message[:160]!r}"
    c[f"{label} live"] = _home(diagnose_exception(exc), record)
    text = ipython_text(exc)
    c[f"{label} ipython text"] = _home(diagnose_from_text(text), record)
    _capture(record, label, text, c[f"{label} live"] == "ok")
    script = _run_as_script(code)
    c[f"{label} script text"] = (_home(diagnose_from_text("".join(traceback.format_exception(script))), record)
                                 if script is not None else "ran clean as a script")
    c[f"{label} final line"] = _home(diagnose_from_text("".join(traceback.format_exception_only(exc))), record)


CAPTURE_ENV = "JAXERRS_KB_CAPTURE"


def _capture(record: Record, label: str, text: str, ok: bool) -> None:
    """With ``kb check --capture DIR``: keep the reproducer's traceback, as IPython printed it, for tests."""
    folder = os.environ.get(CAPTURE_ENV)
    if not folder or label != "reproducer" or not ok:
        return
    from pathlib import Path

    path = Path(folder) / f"{record.id}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def check_record(record: Record) -> Result:
    """Every check for one record, in this process."""
    from jaxerrs import templates
    from jaxerrs.catalog import get as get_catalog
    from jaxerrs.matcher import diagnose_exception, diagnose_from_text

    res = Result(record.id, True)
    res.checks.update(prose_checks(record))  # form, not execution: checked whatever is installed
    res.ok = all(v == "ok" for v in res.checks.values())
    if record.requires and not requirement_met(record.requires):
        res.skipped = f"needs {record.requires}"
        res.checks["requires"] = f"skipped: needs {record.requires}"
        return res
    if not record.holds_for(installed_jax()):
        res.skipped = f"out of range: holds for jax{record.jax_versions}, installed {installed_jax()}"
        res.checks["jax_versions"] = f"skipped: {res.skipped}"
        return res
    unmet = record.unmet_needs(installed_jax())
    if unmet:  # its code cannot show what it claims here (``needs``: absl-py for jax.export before 0.6.2, …)
        res.skipped = "; ".join(unmet)
        res.checks["needs"] = f"skipped: {res.skipped}"
        return res
    start = time.perf_counter()
    c = res.checks
    cat = get_catalog(progress=False)
    if record.all_sites and not record.sites:
        c["sites"] = f"no site holds for JAX {installed_jax()}"
    for s in record.sites:
        if not s.path.startswith(("jax/", "jaxlib/")):
            c[f"site {s.path}:{s.function}"] = _library_site_check(s.path, s.function)
            continue
        found = cat.in_function(s.path, s.function) or cat.function_line(s.path, s.function)
        c[f"site {s.path}:{s.function}"] = "ok" if found else (
            f"stale: no function {s.function} in {s.path} in JAX {cat.jax_version}")
    if record.verified == "message":
        msg = record.sample_message
        for p in record.patterns:
            c[f"pattern {p[:40]!r}"] = "ok" if templates.match(p, msg) else "does not match sample_message"
        c["diagnose(sample) top-1"] = _home(diagnose_from_text(f"{record.class_name}: {msg}"), record)
        # Its fix.before needs hardware this machine lacks: shown in the panel, not run here.
    else:
        exc = _run(record.reproducer)
        c["reproducer raises"] = _raised(exc, record)
        messages = []
        if exc is not None:
            messages.append(str(exc))
            _forms(record.reproducer, exc, record, "reproducer", c)
        for i, case in enumerate(record.cases, 1):
            got = _run(case)
            c[f"case {i} raises"] = _raised(got, record)
            if got is not None and _class_ok(got, record):
                messages.append(str(got))
                _forms(case, got, record, f"case {i}", c)
        _patterns_exercised(record, messages, c)
        before = _run(record.fix.before)
        c["fix.before raises"] = _raised(before, record)
        if before is not None:
            c["fix.before diagnosed"] = _home(diagnose_exception(before), record)
    checked = record.fix.check if record.verified != "message" else ""
    after, failed = _run_checked(record.fix.after, checked)
    c["fix.after runs clean"] = "ok" if after is None else f"raised {type(after).__name__}: {str(after)[:200]}"
    if checked and after is None:
        c["fix.check passes"] = "ok" if failed is None else f"{type(failed).__name__}: {str(failed)[:200]}"
    if record.reviewed:
        _reviewed_checks(record, c)
    if record.verified != "message":
        _demo_checks(record, c)
        _near_miss_checks(record, c)
    res.ok = all(v == "ok" for v in c.values())
    res.seconds = time.perf_counter() - start
    return res


def prose_checks(record: Record) -> dict[str, str]:
    """Its prose renders as written (CommonMark, as the panel shows it): ``{"prose": "ok" or the slips}``.

    Fast (no code runs): ``{rid: prose_checks(r) for rid, r in all_records().items()}`` checks every record."""
    from jaxerrs.prose import problems

    fields: list[tuple[str, str, bool]] = [("title", record.title, True), ("explanation", record.explanation, False),
                                           ("defensive.strategy", record.defensive.strategy, False)]
    for name in ("triggers", "situations", "solutions", "prevention"):
        fields += [(f"{name} {i}", text, True) for i, text in enumerate(getattr(record, name), 1)]
    found = [f"{name}: {p}" for name, text, inline in fields for p in problems(text, inline=inline)]
    return {"prose": "; ".join(found) if found else "ok"}


def _patterns_exercised(record: Record, messages: list[str], c: dict[str, str]) -> None:
    """Each current pattern is the wording of some snippet's message, unless this release words it the old way."""
    from jaxerrs import templates

    if not messages:
        return
    older = any(templates.match(p, m) for p in record.legacy_patterns for m in messages)
    for p in record.patterns:
        if any(templates.match(p, m) for m in messages):
            c[f"pattern {p[:40]!r}"] = "ok"
        elif not older:
            c[f"pattern {p[:40]!r}"] = f"matches no snippet's message (reproducer: {messages[0][:120]!r})"


def _library_site_check(path: str, function: str) -> str:
    """A site in an ecosystem library: the function must exist in the installed library's source (ast)."""
    import importlib.util
    from pathlib import Path

    from jaxerrs.catalog import function_spans

    top = path.split("/", 1)[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    if not roots:
        return f"stale: library {top} is not installed"
    for root in roots:
        file = Path(root).parent / path
        if file.is_file():
            if any(q == function for _lo, _hi, q, _def in function_spans(str(file))):
                return "ok"
            return f"stale: no function {function} in {path}"
    return f"stale: no file {path} in the installed {top}"


_CODE_SPAN = re.compile(r"`([^`]+)`")


def shows_code(solution: str) -> bool:
    """Whether a solution shows code to copy: a fenced block, or a code span with a call, an assignment or an
    index (`jnp.where(m, x, 0)`, `x = x.at[i].set(v)`); a name alone (`jax.vmap`) is not code."""
    if "```" in solution:
        return True
    return any(ch in span for span in _CODE_SPAN.findall(solution) for ch in "(=[")


def undemonstrated(record: Record) -> tuple[list[int], list[int]]:
    """(the cases no demo fixes, the solutions that show code and have no demo), by number from 1. A solution
    demonstrated only on other releases (its demos scoped there, its situation absent here) is not missing."""
    fixed = {d.case for d in record.demos}
    shown = {d.solution for d in record.demos} | set(record.demoed_elsewhere)
    return ([j for j in range(1, len(record.cases) + 1) if j not in fixed],
            [i for i, text in enumerate(record.solutions, 1) if shows_code(text) and i not in shown])


def _demo_checks(record: Record, c: dict[str, str]) -> None:
    """Each demo's code runs clean and passes its check; every case is fixed by one and every solution that
    shows code is demonstrated (issue #18: a record without demos fails when it has a case or shows code, unless
    its demos are all scoped to other releases)."""
    for i, d in enumerate(record.demos, 1):
        label = f"demo {i} (solution {d.solution} on case {d.case})"
        exc, failed = _run_checked(d.code, d.check)
        if exc is not None:
            c[label] = f"raised {type(exc).__name__}: {str(exc)[:200]}"
            continue
        c[label] = "ok" if failed is None else f"check failed: {type(failed).__name__}: {str(failed)[:200]}"
    unfixed, bare = undemonstrated(record)
    if not record.demos and (record.demoed_elsewhere or not (unfixed or bare)):
        return  # its demos are all for other releases (a [[variants]] release without its own): not judged here
    c["every case fixed by a demo"] = "ok" if not unfixed else f"no demo fixes case(s) {unfixed}"
    c["every code solution demonstrated"] = "ok" if not bare else f"solution(s) {bare} show code but have no demo"


def _near_miss_checks(record: Record, c: dict[str, str]) -> None:
    """Each near miss raises and lands on the record it names (or on none), not on this one."""
    from jaxerrs.matcher import diagnose_exception

    for i, n in enumerate(record.near_misses, 1):
        want = n.record or "no record"
        exc = _run(n.code)
        if exc is None:
            c[f"near miss {i} ({want})"] = "ran clean: a near miss must raise"
            continue
        d = diagnose_exception(exc)
        got = d.record.id if d.record is not None else ""
        c[f"near miss {i} ({want})"] = "ok" if got == n.record else (
            f"lands on {got or 'no record'}: {type(exc).__name__}: {str(exc)[:120]}")


def _most_hit() -> set[str]:
    from jaxerrs.kb.records import RECORDS_DIR

    path = RECORDS_DIR.parent / "most_hit.txt"
    return {ln.split("#")[0].strip() for ln in path.read_text().splitlines() if ln.split("#")[0].strip()}


def _reviewed_checks(record: Record, c: dict[str, str]) -> None:
    """What a reviewed record also promises: cases for its triggers, a checked fix, defensive code that runs.

    ``defensive.validation`` and ``defensive.try_except`` demonstrate themselves on bad input, so they
    must raise (a clearer error, or the guarded one re-raised: never swallowed); ``type_guard`` runs clean.
    """
    if record.verified == "message":
        return
    need = 3 if record.id in _most_hit() else 1
    c["cases"] = "ok" if len(record.cases) >= need else f"{len(record.cases)} case(s), a reviewed record needs {need}"
    c["fix.check present"] = "ok" if record.fix.check.strip() else "missing: a fix needs an intent check"
    d = record.defensive
    for name, code, must_raise in (("validation", d.validation, True), ("try_except", d.try_except, True),
                                   ("type_guard", d.type_guard, False)):
        if not code.strip():
            continue
        exc = _run(code)
        if must_raise:
            c[f"defensive.{name} raises"] = "ok" if exc is not None else "ran clean: it must show the error it guards"
        else:
            c[f"defensive.{name} runs"] = "ok" if exc is None else f"raised {type(exc).__name__}: {str(exc)[:160]}"


def _check_one(record: Record) -> None:
    _freeze_heap()
    try:
        res = check_record(record)
    except BaseException as e:  # noqa: BLE001 - report, never stop the batch
        res = Result(record.id, False, {"check": f"crashed: {type(e).__name__}: {e}"[:300]})
    print("JAXERRS-RESULT " + json.dumps(res.__dict__), flush=True)


FRESH_ENV = "JAXERRS_KB_FRESH"


def _worker(ids: Iterable[str]) -> None:
    """Check records in turn, each snippet in a fresh namespace with JAX's config flags restored after it.

    With ``kb check --fresh`` each record is checked in a fresh process instead: a child forked from this
    one, which has imported JAX, jaxerrs and the libraries but started no JAX backend (forking after one has
    started can hang). A record's code can then change nothing another record's checks see (caches,
    monkeypatches, leaked tracers) and a crash fails that record alone. It is not the default because every
    process compiles again what the others compiled: about 2.6 s of CPU more per record (measured on 10
    records, 40 s against 14 s), half an hour more over the four releases CI checks.
    """
    from jaxerrs.kb.records import all_records

    # The worker's own working directory, for its life: what a snippet's background threads write after the
    # snippet returned (an async checkpoint's folder, made relative to the directory current then) lands here.
    scratch = tempfile.mkdtemp(prefix="jaxerrs-kb-worker-")
    os.chdir(scratch)
    atexit.register(shutil.rmtree, scratch, True)
    records = all_records()
    _load_once()
    if not hasattr(os, "fork") or not os.environ.get(FRESH_ENV) or _backend_started():
        # (with --fresh: a library started a backend at import, so forking now could hang: run here)
        for rid in ids:
            _check_one(records[rid])
        return
    for rid in ids:
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:  # the child: one record, then out without running the parent's exit handlers
            code = 0
            try:
                _check_one(records[rid])
            except BaseException:  # noqa: BLE001
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        status = _wait(pid, TIMEOUT_S)
        if status is None:
            print("JAXERRS-RESULT " + json.dumps(Result(rid, False, {"check": f"timed out after {TIMEOUT_S}s"}).__dict__),
                  flush=True)
        elif status != 0 and not os.WIFEXITED(status):
            why = f"its process died (signal {os.WTERMSIG(status)})" if os.WIFSIGNALED(status) else "its process died"
            print("JAXERRS-RESULT " + json.dumps(Result(rid, False, {"check": why}).__dict__), flush=True)


# Imported once before forking, so each record's process starts with them (a record's code imports them).
_PRELOAD = ("IPython.core.interactiveshell", "numpy", "scipy", "flax", "flax.linen", "flax.nnx", "optax",
            "equinox", "chex", "orbax.checkpoint")


def _load_once() -> None:
    """JAX, the libraries, the catalog and the history, loaded before the first record, then frozen out of
    the garbage collector's reach (``gc.freeze``): JAX's leak checker walks every tracked object for each
    tracer (``gc.get_referrers``), which took a minute for one record over this heap (measured: 12.8 s to 1.3 s
    for tracer-leak-checker alone, in a worker that had loaded these)."""
    import jax  # noqa: F401 - imported once, before forking; no backend is started here

    from jaxerrs import history, matcher  # noqa: F401
    from jaxerrs.catalog import get as get_catalog

    get_catalog(progress=False)
    history.load()
    _preload()
    _freeze_heap()


def _freeze_heap() -> None:
    """What is alive now (after a collection) moves out of the collector's reach; what the next record creates
    is tracked, collected and searched for leaks as in a notebook. Before each record as well: what earlier
    records left (compiled functions, caches) made the leak checker's walk over them nearly a minute."""
    import gc

    gc.collect()
    gc.freeze()


def _preload() -> None:
    import importlib

    for name in _PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - not installed, or broken on this release: the record will say
            pass


def _backend_started() -> bool:
    try:
        from jax._src import xla_bridge

        return bool(getattr(xla_bridge, "_backends", None))
    except Exception:  # noqa: BLE001 - cannot tell: do not fork
        return True


def _wait(pid: int, timeout: float) -> int | None:
    """The child's wait status, or None after killing it at ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def check(records: list[Record], jobs: int | None = None, capture: str | None = None,
          fresh: bool = False) -> list[Result]:
    """Check records in ``jobs`` worker processes (default: one per core, at most 4), each handed the next
    record when it reports one (``_drive``).

    ``capture``: a folder where each reproducer's traceback, as IPython prints it, is written (ID.txt).
    ``fresh``: each record in a process of its own (see ``_worker``).
    """
    if not records:
        return []
    jobs = max(1, min(jobs or os.cpu_count() or 1, 4, len(records)))
    from jaxerrs.catalog import get as get_catalog

    get_catalog()  # build the cache once here, not in every worker
    ids = sorted(r.id for r in records)
    env = {**os.environ, **WORKER_ENV}
    if capture:
        env[CAPTURE_ENV] = os.path.abspath(capture)
    if fresh:
        env[FRESH_ENV] = "1"
    queue = collections.deque(ids)
    results: dict[str, Result] = {}
    lock = threading.Lock()
    threads = [threading.Thread(target=_drive, args=(queue, lock, results, env)) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for rid in ids:
        results.setdefault(rid, Result(rid, False, {"worker": "not checked: every worker died"}))
    return [results[i] for i in ids]


def _drive(queue: collections.deque[str], lock: threading.Lock, results: dict[str, Result],
           env: dict[str, str]) -> None:
    """Feed one worker process the next record id whenever it reports one, so a slow record holds up its own
    worker only (a fixed split of the ids left one worker a minute and a half behind the other). A worker
    that dies or passes ``TIMEOUT_S`` on one record fails that record; a new one takes the rest."""
    for _ in range(4):
        with lock:
            if not queue:  # (a worker loads JAX and the libraries first: none for an empty queue)
                return
        proc = subprocess.Popen([sys.executable, "-m", "jaxerrs.kb.verify", "-"], env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        errors: collections.deque[str] = collections.deque(maxlen=40)
        drain = threading.Thread(target=errors.extend, args=(proc.stderr,), daemon=True)
        drain.start()
        rid = started = None
        try:
            while True:
                with lock:
                    rid = queue.popleft() if queue else None
                if rid is None:
                    break
                started = time.monotonic()
                timer = threading.Timer(TIMEOUT_S, proc.kill)
                timer.start()
                try:
                    proc.stdin.write(rid + "\n")
                    proc.stdin.flush()
                    line = _result_line(proc.stdout)
                except OSError:
                    line = None
                finally:
                    timer.cancel()
                if line is None:
                    break
                data: dict[str, Any] = json.loads(line)
                results[data["id"]] = Result(**data)
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass
            if rid is not None:
                proc.kill()
            proc.wait()
            drain.join(timeout=5)
        if rid is None:
            return
        why = (f"timed out after {TIMEOUT_S}s" if time.monotonic() - started >= TIMEOUT_S
               else "its worker died: " + ("".join(errors).strip().splitlines()[-1:] or ["no output"])[0][:200])
        results[rid] = Result(rid, False, {"worker": why})


def _result_line(stdout: Any) -> str | None:
    """The next result a worker prints (a record's code may print too), or None when its output ends."""
    for line in stdout:
        if line.startswith("JAXERRS-RESULT "):
            return line[len("JAXERRS-RESULT "):]
    return None


def table(results: list[Result]) -> str:
    width = max((len(r.id) for r in results), default=10)
    lines = [f"{'record':<{width}}  result  seconds  detail"]
    for r in results:
        detail = "; ".join(r.failures)[:300]
        verdict = "FAIL" if not r.ok else ("range" if r.skipped.startswith("out of range") else "skip") if (
            r.skipped) else "ok"
        lines.append(f"{r.id:<{width}}  {verdict:<6}  {r.seconds:7.2f}  {detail}")
    out_of_range = sum(r.skipped.startswith("out of range") for r in results)
    skipped = sum(bool(r.skipped) for r in results) - out_of_range
    passed = sum(r.ok and not r.skipped for r in results)
    lines.append(f"{passed}/{len(results)} records pass on JAX {installed_jax()}"
                 + (f", {out_of_range} out of their range" if out_of_range else "")
                 + (f", {skipped} skipped (a package they need missing or present)" if skipped else ""))
    return "\n".join(lines)


if __name__ == "__main__":  # ``-``: the ids come on stdin, one per line, as check() hands them out
    _worker((line.strip() for line in iter(sys.stdin.readline, "")) if sys.argv[1:] == ["-"] else sys.argv[1:])
