"""Run the labelled JAX error corpus (``tests/corpus.py``) and check its labels.

``run_case(case)`` execs one case's code and returns the exception it raised.

``python3 tests/corpus_harness.py --verify`` runs every case, one process per
device count (``devices=4`` cases run in a subprocess with
``XLA_FLAGS=--xla_force_host_platform_device_count=4`` set before jax is
imported), always with ``JAX_TRACEBACK_FILTERING=tracebackhide`` so the
traceback keeps every frame, and checks each label against the traceback:

* JAX case: the innermost traceback frame lies inside the ``jax``/``jaxlib``
  package and its path (relative to site-packages) and ``co_qualname`` equal
  the case's ``path`` and ``function``.
* Non-JAX case: the innermost frame is not inside ``jax``/``jaxlib`` and the
  exception class is not defined there.

``--discover`` prints what each case actually raises (for labelling new cases).
This module does not import jax at import time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from corpus import CASES, Case  # noqa: E402

JAX_PACKAGES = ("jax", "jaxlib")
USER_FILENAME_PREFIX = "<corpus:"
CORPUS_MODULE = "__corpus__"


def _code_filename(case: Case) -> str:
    return f"{USER_FILENAME_PREFIX}{case.name}>"


def run_case(case: Case, *, traceback_filtering: str | None = "tracebackhide") -> BaseException:
    """Exec ``case.code`` in a fresh module and return the exception it raises.

    The code runs as module ``__corpus__`` (registered in ``sys.modules`` while it runs),
    compiled with the file name ``<corpus:NAME>``: frames with that file name are user frames.
    ``traceback_filtering`` is set as ``jax_traceback_filtering`` for the run and restored
    afterwards ("tracebackhide" keeps every frame on the traceback; None leaves it alone).

    Raises AssertionError if the code runs without raising, RuntimeError if the case needs
    more devices than this process has (start it with
    ``XLA_FLAGS=--xla_force_host_platform_device_count=4`` for ``devices=4`` cases).
    """
    import jax

    if case.devices > 1 and jax.device_count() < case.devices:
        raise RuntimeError(
            f"corpus case {case.name!r} needs {case.devices} devices, this process has "
            f"{jax.device_count()}; set XLA_FLAGS=--xla_force_host_platform_device_count="
            f"{case.devices} before importing jax"
        )
    previous_filtering = jax.config.jax_traceback_filtering
    if traceback_filtering is not None:
        jax.config.update("jax_traceback_filtering", traceback_filtering)
    try:
        return _exec_case(case)
    finally:
        jax.config.update("jax_traceback_filtering", previous_filtering)


def _exec_case(case: Case) -> BaseException:
    code = compile(case.code, _code_filename(case), "exec")
    # A real, registered module (like IPython's __main__), so that code which looks its
    # defining module up in sys.modules (dataclasses, pickle, ...) works as in a notebook.
    module = types.ModuleType(CORPUS_MODULE)
    module.__file__ = _code_filename(case)
    previous = sys.modules.get(CORPUS_MODULE)
    sys.modules[CORPUS_MODULE] = module
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # noqa: BLE001 - we want every error, KeyboardInterrupt aside
        if isinstance(exc, KeyboardInterrupt):
            raise
        return exc
    finally:
        if previous is None:
            sys.modules.pop(CORPUS_MODULE, None)
        else:
            sys.modules[CORPUS_MODULE] = previous
    raise AssertionError(f"corpus case {case.name!r} ran without raising")


def _site_packages_relative(filename: str) -> str | None:
    """Path relative to the site-packages dir holding a jax/jaxlib file, else None."""
    norm = filename.replace("\\", "/")
    for pkg in JAX_PACKAGES:
        marker = f"/{pkg}/"
        idx = norm.rfind(marker)
        while idx != -1:
            root = norm[:idx]
            if (Path(root) / pkg / "__init__.py").exists():
                return norm[idx + 1 :]
            idx = norm.rfind(marker, 0, idx)
    return None


def innermost_frame(exc: BaseException):
    tb = exc.__traceback__
    if tb is None:
        return None, None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame, tb.tb_lineno


def raise_site(exc: BaseException) -> tuple[str | None, str | None, int | None, str]:
    """(path, function, line, filename) of the innermost frame; path None if not in jax/jaxlib."""
    frame, lineno = innermost_frame(exc)
    if frame is None:
        return None, None, None, ""
    code = frame.f_code
    return _site_packages_relative(code.co_filename), code.co_qualname, lineno, code.co_filename


def check_case(case: Case, exc: BaseException) -> tuple[bool, str]:
    path, function, _line, filename = raise_site(exc)
    cls_module = type(exc).__module__ or ""
    cls_in_jax = cls_module.split(".")[0] in JAX_PACKAGES
    if case.is_jax:
        if path is None:
            return False, f"innermost frame not in jax: {filename}:{function}"
        if path != case.path or function != case.function:
            return False, f"got {path}:{function}"
        return True, ""
    if path is not None:
        return False, f"innermost frame is in jax: {path}:{function}"
    if cls_in_jax:
        return False, f"exception class defined in jax: {cls_module}.{type(exc).__qualname__}"
    if case.path is not None or case.function is not None:
        return False, "negative case must have path/function None"
    return True, ""


def _run_group(devices: int, names: list[str] | None = None, single: bool = False) -> list[dict]:
    """Run the cases with the given device count (all cases if ``single``) in this process."""
    assert os.environ.get("JAX_TRACEBACK_FILTERING") == "tracebackhide"
    results = []
    for case in CASES:
        if (case.devices != devices and not single) or (names and case.name not in names):
            continue
        t0 = time.perf_counter()
        try:
            exc = run_case(case)
        except AssertionError as e:
            results.append(
                dict(
                    name=case.name,
                    ok=False,
                    detail=str(e),
                    cls="-",
                    site="-",
                    line=None,
                    msg="",
                    seconds=time.perf_counter() - t0,
                    src="",
                )
            )
            continue
        ok, detail = check_case(case, exc)
        path, function, line, filename = raise_site(exc)
        src = ""
        if filename and line:
            try:
                src = Path(filename).read_text().splitlines()[line - 1].strip()
            except (OSError, IndexError):
                src = ""
        results.append(
            dict(
                name=case.name,
                ok=ok,
                detail=detail,
                cls=f"{type(exc).__module__}.{type(exc).__qualname__}",
                site=f"{path}:{function}" if path else f"(user/other) {function}",
                line=line,
                src=src,
                msg=str(exc).strip().splitlines()[0][:150] if str(exc).strip() else "",
                seconds=time.perf_counter() - t0,
            )
        )
    return results


def _child_env(devices: int) -> dict:
    env = dict(os.environ)
    env["JAX_TRACEBACK_FILTERING"] = "tracebackhide"
    env.setdefault("JAX_PLATFORMS", "cpu")
    flags = [f for f in env.get("XLA_FLAGS", "").split() if "xla_force_host_platform_device_count" not in f]
    if devices > 1:
        flags.append(f"--xla_force_host_platform_device_count={devices}")
    env["XLA_FLAGS"] = " ".join(flags)
    return env


def _run_all(names: list[str] | None = None, single: bool = False) -> list[dict]:
    """Run every device-count group in its own subprocess (so env is set before jax import).

    With ``single``, run every case in one subprocess that has the largest device count.
    """
    results: list[dict] = []
    counts = sorted({c.devices for c in CASES})
    for devices in counts[-1:] if single else counts:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--_group", str(devices)]
        if single:
            cmd.append("--single-process")
        if names:
            cmd += ["--only", ",".join(names)]
        proc = subprocess.run(cmd, env=_child_env(devices), capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            raise SystemExit(f"group devices={devices} crashed (rc={proc.returncode})")
        marker = "@@CORPUS-RESULTS@@"
        payload = proc.stdout[proc.stdout.rindex(marker) + len(marker) :]
        results.extend(json.loads(payload))
    order = {c.name: i for i, c in enumerate(CASES)}
    results.sort(key=lambda r: order[r["name"]])
    return results


def _family(name: str) -> str:
    return name.split(".", 1)[0]


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verify", action="store_true", help="run every case and check its label")
    ap.add_argument("--discover", action="store_true", help="print what each case raises")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument(
        "--single-process",
        action="store_true",
        help="run every case in one process with the largest device count",
    )
    ap.add_argument("--_group", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or None

    if args._group is not None:
        results = _run_group(args._group, names, single=args.single_process)
        sys.stdout.write("@@CORPUS-RESULTS@@" + json.dumps(results))
        return 0

    if not (args.verify or args.discover):
        ap.print_help()
        return 2
    seen = set()
    for c in CASES:
        assert c.name not in seen, f"duplicate case name {c.name}"
        seen.add(c.name)

    t0 = time.perf_counter()
    results = _run_all(names, single=args.single_process)
    elapsed = time.perf_counter() - t0

    if args.discover:
        for r in results:
            print(
                f"{r['name']}\n    {r['cls']}  @ {r['site']}:{r['line']}\n    src: {r['src']}\n    msg: {r['msg']}"
            )
        return 0

    w = max(len(r["name"]) for r in results)
    print(f"{'case':<{w}}  {'ok':<4} {'jax':<5} site / detail")
    by_name = {c.name: c for c in CASES}
    for r in results:
        case = by_name[r["name"]]
        status = "ok" if r["ok"] else "FAIL"
        info = r["site"] if r["ok"] else f"{r['detail']}  [{r['cls']}: {r['msg']}]"
        print(f"{r['name']:<{w}}  {status:<4} {str(case.is_jax):<5} {info}")
    n_ok = sum(r["ok"] for r in results)
    n_jax = sum(by_name[r["name"]].is_jax for r in results)
    families: dict[str, int] = {}
    for r in results:
        families[_family(r["name"])] = families.get(_family(r["name"]), 0) + 1
    sites = {r["site"] for r in results if by_name[r["name"]].is_jax}
    print()
    print("families: " + ", ".join(f"{k}={v}" for k, v in families.items()))
    print(
        f"summary: {n_ok}/{len(results)} passed ({n_jax} JAX errors at {len(sites)} distinct raise sites, "
        f"{len(results) - n_jax} non-JAX) in {elapsed:.1f}s"
    )
    expected = len(CASES) if not names else len(names)
    return 0 if n_ok == len(results) == expected else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
