"""Fix my cell: rewrite latency per failing cell, and what LibCST costs to import.

(1) Every proof-set cell (tests/rewrite_cases) runs in one InteractiveShell; per cell with a rewrite,
    ``rewrite_for(diagnosis)`` is timed (best of N, after a warm-up rewrite) against IPython's own
    traceback rendering of the same error; prints p50/p90 of the time and of the ratio (aim: p50 < 20 ms).
(2) In fresh interpreters: importing LibCST and the rules, against ``import jax`` (the warm-up pays it
    once, in the background, after the user imports jax).

Usage: python benchmarks/bench_rewrite.py [--repeat N] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import warnings

os.environ["XLA_FLAGS"] = " ".join(
    [f for f in os.environ.get("XLA_FLAGS", "").split() if "device_count" not in f]
    + ["--xla_force_host_platform_device_count=4"])
os.environ.setdefault("JAX_PLATFORMS", "cpu")

from _common import best_of, median, ms, pct, run_python  # noqa: E402

IMPORT_TIME = """
{pre}
import time
t0 = time.perf_counter()
import {mod}
print(time.perf_counter() - t0)
"""


def import_cost(mod: str, repeat: int, pre: str = "") -> float:
    """Seconds to import ``mod`` in a fresh interpreter, after ``pre`` ran (not timed)."""
    return min(float(run_python(IMPORT_TIME.format(mod=mod, pre=pre)).strip().splitlines()[-1])
               for _ in range(repeat))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    import jaxerrs
    from jaxerrs.rewrite import rewrite_for
    from rewrite_cases import load_cases

    ip = InteractiveShell.instance()
    itb = ip.InteractiveTB
    cases = [c for c in load_cases() if not c.negative]
    cases = cases[: args.limit] if args.limit else cases
    errors = []
    for c in cases:
        ip.reset(new_session=False)
        with capture_output():
            ip.run_cell(c.setup)
            r = ip.run_cell(c.cell)
        if r.error_in_exec is not None:
            d = jaxerrs.diagnose(r.error_in_exec)
            if d.rewrite is not None:  # also the warm-up of this cell's rule
                errors.append((r.error_in_exec, d))

    rw_t, ratios = [], []
    for exc, d in errors:
        t_rw = best_of(lambda d=d: rewrite_for(d), args.repeat)
        t_ipy = best_of(lambda exc=exc: itb.stb2text(itb.structured_traceback(type(exc), exc, exc.__traceback__)), args.repeat)
        rw_t.append(t_rw)
        ratios.append(t_rw / t_ipy)
    print(f"(1) rewrite per cell, {len(rw_t)} proof-set cells with a rewrite (best of {args.repeat}):")
    print(f"    p50 {ms(median(rw_t))}   p90 {ms(pct(rw_t, 90))}   max {ms(max(rw_t))}")
    print(f"    vs IPython's own traceback rendering of the same error: p50 {median(ratios):.0%}, "
          f"p90 {pct(ratios, 90):.0%}")

    jax_t = import_cost("jax", 3)
    cst_t = import_cost("libcst, libcst.matchers, libcst.metadata", 3)
    rules_t = import_cost("jaxerrs.rewrite.rules", 3, pre="import jax")  # the warm-up runs after jax
    print("(2) imports in a fresh interpreter (best of 3):")
    print(f"    import jax                       {ms(jax_t)}  (baseline)")
    print(f"    import libcst (+matchers, metadata) {ms(cst_t)}  = {cst_t / jax_t:.0%} of import jax")
    print(f"    import jaxerrs.rewrite.rules, jax already imported {ms(rules_t)}  = {rules_t / jax_t:.0%} of import jax")


if __name__ == "__main__":
    main()
