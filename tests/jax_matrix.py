"""The JAX version matrix: a virtualenv per older JAX release, built once and kept in the clone's cache folder.

Each venv holds one JAX release and what a notebook user has (IPython, ipykernel, nbclient, ipywidgets,
LibCST); jaxerrs itself comes from this checkout on ``PYTHONPATH``, so the code under test is the code
here. In each, the matrix runs ``jaxerrs kb check`` (capturing every reproducer's traceback), the gallery
notebook and a handler smoke test (``jax_matrix_worker.py``), and returns the figures. The newest release
is the one the test environment itself installs (README's test command): the rest of the suite checks it,
and reports its figures into the same table (``REPORT``).

By hand: ``python tests/jax_matrix.py [--capture] [VERSION …]`` prints the table (``--capture`` also
refreshes the tracebacks kept in tests/data/releases/).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from jaxerrs.history import version_key  # noqa: F401 - the table's order (conftest)

ROOT = Path(__file__).resolve().parents[1]
# The oldest release we claim and two between; the newest is the test environment's own.
MATRIX = ("0.4.38", "0.6.2", "0.8.3")
PACKAGES = ("ipython", "ipykernel", "nbclient", "nbformat", "ipywidgets", "libcst>=1.0",
            "pygments", "packaging", "markdown-it-py>=3")
# Releases whose jax.export imports absl without declaring it (0.4.38-0.6.1: a plain `pip install jax` lacks
# it). Installed here so the export-* records' claims run on them; export-needs-absl-py, the record about
# its absence, is then reported "skip" (its `needs`), and is checked in a venv without it
# (docs/review/absl-gap.md).
EXTRA = {"0.4.38": ("absl-py",)}
CAPTURED = ROOT / "tests" / "data" / "releases"
# Records and gallery cells known to fail on a release, written by ``python tests/jax_matrix.py --known``
# from a full run: the matrix tests fail on anything else, and the list says what is left to do.
KNOWN = ROOT / "tests" / "data" / "matrix_known_failures.json"


def known_failures() -> dict[str, dict[str, list[str]]]:
    """{version: {"kb": [record ids], "gallery": [expected records]}} (empty when the file is missing)."""
    try:
        return json.loads(KNOWN.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def cache_root() -> Path:
    base = os.environ.get("JAXERRS_CACHE_DIR") or str(ROOT / ".pytest_cache" / "jaxerrs")
    return Path(base) / "jax-matrix"


def _python(venv: Path) -> Path:
    return venv / "bin" / "python"


def venv_for(version: str, log=print, root: Path | None = None) -> Path:
    """The venv for JAX ``version`` under ``root`` (default :func:`cache_root`), built unless a finished one is
    cached (its ``ready`` file names it)."""
    venv = (root or cache_root()) / f"jax-{version}"
    want = json.dumps({"jax": version, "packages": [*PACKAGES, *EXTRA.get(version, ())]})
    ready = venv / "ready"
    if ready.is_file() and ready.read_text() == want and _python(venv).exists():
        return venv
    if venv.exists():
        shutil.rmtree(venv)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    pip = subprocess.run([str(_python(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                          f"jax[cpu]=={version}", *PACKAGES, *EXTRA.get(version, ())], capture_output=True, text=True)
    if pip.returncode != 0:
        raise subprocess.CalledProcessError(pip.returncode, pip.args, stderr=pip.stderr[-2000:])
    ready.write_text(want)
    log(f"[jax-matrix] built the JAX {version} venv in {time.perf_counter() - start:.0f}s")
    return venv


@dataclass
class Outcome:
    version: str
    kb: dict[str, int] = field(default_factory=dict)  # pass / fail / range / skip
    kb_failures: dict[str, list[str]] = field(default_factory=dict)
    gallery: tuple[int, int] = (0, 0)  # cells with the right record, error cells
    gallery_misses: list[str] = field(default_factory=list)
    smoke: list[str] | None = None  # what failed; empty when all passed; None: not run
    seconds: float = 0.0
    error: str = ""


def _env(venv: Path, capture: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "VIRTUAL_ENV", "JAXERRS_KB_PATH")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")])
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    # Each release indexes its own raise sites, in its own folder.
    env["JAXERRS_CACHE_DIR"] = str(venv / "cache")
    env["JAX_PLATFORMS"] = "cpu"
    return env


def run(version: str, jobs: int = 1, capture: Path | None = None, log=print, root: Path | None = None) -> Outcome:
    """kb check, the gallery and the smoke test under JAX ``version`` (its venv under ``root``)."""
    out = Outcome(version)
    start = time.perf_counter()
    try:
        venv = venv_for(version, log, root)
    except subprocess.CalledProcessError as e:
        out.error = f"could not build the venv: {e} {(e.stderr or '')[-600:]}"
        return out
    py = str(_python(venv))
    cap = capture / version if capture else None
    if cap is not None and cap.exists():
        shutil.rmtree(cap)
    cmd = [py, "-m", "jaxerrs", "kb", "check", "--format", "json", "--jobs", str(jobs)]
    if cap is not None:
        cmd += ["--capture", str(cap)]
    kb = subprocess.run(cmd, env=_env(venv), capture_output=True, text=True, cwd=ROOT)
    try:
        data = json.loads(kb.stdout)
    except ValueError:
        out.error = f"kb check printed no JSON (exit {kb.returncode}): {kb.stderr.strip()[-500:]}"
        return out
    counts = {"pass": 0, "fail": 0, "range": 0, "skip": 0}
    for r in data["results"]:
        if r["skipped"]:
            counts["range" if r["skipped"].startswith("out of range") else "skip"] += 1
        elif r["ok"]:
            counts["pass"] += 1
        else:
            counts["fail"] += 1
            out.kb_failures[r["id"]] = [f"{k}: {v}" for k, v in r["checks"].items() if v != "ok"]
    out.kb = counts
    worker = subprocess.run([py, str(ROOT / "tests" / "jax_matrix_worker.py")], env=_env(venv),
                            capture_output=True, text=True, cwd=ROOT, timeout=900)
    try:
        w = json.loads(worker.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        out.error = f"the matrix worker printed no JSON (exit {worker.returncode}): {worker.stderr.strip()[-800:]}"
        return out
    out.gallery = (w["gallery_right"], w["gallery_cells"])
    out.gallery_misses = w["gallery_misses"]
    out.smoke = w["smoke_failures"]
    out.seconds = time.perf_counter() - start
    return out


# version -> figures, filled by the matrix tests and, for the test environment's JAX, by test_kb/test_notebooks.
REPORT: dict[str, Outcome] = {}


def report_kb(version: str, results: list) -> None:
    """Count kb check results (verify.Result) into ``REPORT``."""
    o = REPORT.setdefault(version, Outcome(version))
    o.kb = {"pass": 0, "fail": 0, "range": 0, "skip": 0}
    for r in results:
        if r.skipped:
            o.kb["range" if r.skipped.startswith("out of range") else "skip"] += 1
        else:
            o.kb["pass" if r.ok else "fail"] += 1
            if not r.ok:
                o.kb_failures[r.id] = r.failures


def report_gallery(version: str, right: int, total: int) -> None:
    REPORT.setdefault(version, Outcome(version)).gallery = (right, total)


def report_smoke(version: str, failures: list[str]) -> None:
    REPORT.setdefault(version, Outcome(version)).smoke = failures


def table(outcomes: list[Outcome]) -> str:
    lines = ["JAX      kb check: pass  fail  out-of-range  lib-missing   gallery   smoke    seconds"]
    for o in outcomes:
        if o.error:
            lines.append(f"{o.version:<8} ERROR {o.error[:150]}")
            continue
        k = o.kb or {"pass": "-", "fail": "-", "range": "-", "skip": "-"}
        gallery = f"{o.gallery[0]:>3}/{o.gallery[1]:<3}" if o.gallery[1] else "   -   "
        lines.append(f"{o.version:<8} {k['pass']:>14} {k['fail']:>5} {k['range']:>13} {k['skip']:>12}"
                     f"   {gallery}  {'-' if o.smoke is None else 'FAIL' if o.smoke else 'ok':<6} {o.seconds:8.0f}")
    return "\n".join(lines)


def start(versions: tuple[str, ...] = MATRIX, capture: Path | None = None):
    """Run the matrix in a background thread (one release at a time, one kb worker each), so that it
    overlaps the rest of the suite; returns {version: Future[Outcome]}. The cache folder is read now: a test
    that points ``JAXERRS_CACHE_DIR`` elsewhere meanwhile must not make the thread build venvs there."""
    from concurrent.futures import Future, ThreadPoolExecutor

    root = cache_root()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jax-matrix")
    futures: dict[str, Future] = {v: pool.submit(run, v, 1, capture, lambda *_: None, root) for v in versions}
    pool.shutdown(wait=False)
    return futures


def gallery_record(miss: str) -> str:
    """The expected record of a gallery miss line ("cell 13: expected X, got Y (…)")."""
    return miss.split("expected ", 1)[1].split(",", 1)[0]


def main(argv: list[str]) -> int:
    capture = CAPTURED if "--capture" in argv else None
    versions = [a for a in argv if not a.startswith("--")] or list(MATRIX)
    outcomes = [run(v, jobs=2, capture=capture) for v in versions]
    if "--known" in argv:
        known = known_failures()
        for o in outcomes:
            known[o.version] = {"kb": sorted(o.kb_failures), "gallery": sorted(gallery_record(m) for m in o.gallery_misses)}
        KNOWN.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(table(outcomes))
    for o in outcomes:
        for rid, why in o.kb_failures.items():
            print(f"{o.version} kb FAIL {rid}: {'; '.join(why)[:400]}")
        for miss in o.gallery_misses:
            print(f"{o.version} gallery miss: {miss}")
        for s in o.smoke or []:
            print(f"{o.version} smoke FAIL: {s}")
    return 0 if all(not o.error and not o.kb_failures and not o.gallery_misses and o.smoke == []
                    for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
