"""Helpers shared by the benchmark scripts (plain scripts: they print figures, they assert nothing)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
TESTS = ROOT / "tests"
for p in (str(SRC), str(TESTS)):
    if p not in sys.path:
        sys.path.insert(0, p)


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (0..100), nearest rank."""
    s = sorted(values)
    if not s:
        return float("nan")
    k = max(0, min(len(s) - 1, round(q / 100 * (len(s) - 1))))
    return s[k]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def env(**extra: str) -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(SRC)] + [p for p in e.get("PYTHONPATH", "").split(os.pathsep) if p])
    e.setdefault("JAX_PLATFORMS", "cpu")
    e.update(extra)
    return e


def run_python(code: str, **extra_env: str) -> str:
    """Run ``code`` in a fresh interpreter; return its stdout (raise with its stderr on failure)."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(**extra_env))
    if proc.returncode != 0:
        raise RuntimeError(f"subprocess failed:\n{proc.stderr[-3000:]}")
    return proc.stdout


def best_of(fn: Callable[[], object], repeat: int, reset: Callable[[], object] | None = None) -> float:
    """The fastest of ``repeat`` timings of ``fn()`` in seconds; ``reset()`` runs before each, untimed."""
    times = []
    for _ in range(repeat):
        if reset is not None:
            reset()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def forget_messages() -> None:
    """Each timing sees its message for the first time, as a new error would: jaxerrs' per-message caches
    are emptied (the per-record ones, such as highlighted record code, stay: they are paid once per record)."""
    from jaxerrs import matcher, templates

    matcher._pattern_hits.cache_clear()
    matcher._ranked.cache_clear()
    templates._prepared.cache_clear()
