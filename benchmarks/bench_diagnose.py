"""Diagnosis latency over the corpus, against IPython's own traceback rendering of the same errors.

(1) live: per corpus error, ``jaxerrs.diagnose(exc)`` vs an IPython shell's
    ``InteractiveTB.structured_traceback(...)`` + ``stb2text`` (what IPython does anyway on every error);
    prints the median and p90 of the per-error ratio (target: median <= 10%).
(2) text: ``jaxerrs.diagnose_text`` on the final ``Class: message`` line and on the full (plain Python)
    traceback of the same errors, with the full catalog and records loaded; median and p90, and as a
    ratio to the same IPython rendering.

Usage: python benchmarks/bench_diagnose.py [--repeat N] [--limit N]
All cases run in one process with 4 CPU devices (set here, before jax is imported).
"""

from __future__ import annotations

import argparse
import os
import time
import traceback
import warnings

os.environ["XLA_FLAGS"] = " ".join(
    [f for f in os.environ.get("XLA_FLAGS", "").split() if "device_count" not in f]
    + ["--xla_force_host_platform_device_count=4"])
os.environ["JAX_TRACEBACK_FILTERING"] = "tracebackhide"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

from _common import best_of as _best_of  # noqa: E402
from _common import forget_messages, median, ms, pct  # noqa: E402


def best_of(fn, repeat: int) -> float:  # noqa: ANN001
    return _best_of(fn, repeat, reset=forget_messages)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5, help="timings per error (the best is kept)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N cases")
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    from IPython.core.interactiveshell import InteractiveShell

    import jaxerrs
    from corpus import CASES
    from corpus_harness import run_case
    from engine_worker import _set_theme
    from jaxerrs import catalog
    from jaxerrs.kb.records import all_records

    ip = InteractiveShell.instance()
    itb = ip.InteractiveTB
    _set_theme(itb, True)

    cases = CASES[: args.limit] if args.limit else CASES
    errors = []
    for case in cases:
        errors.append((case, run_case(case)))

    t0 = time.perf_counter()
    catalog.get()
    all_records()
    jaxerrs.diagnose(errors[0][1])
    first = time.perf_counter() - t0

    def render(exc: BaseException) -> str:
        return itb.stb2text(itb.structured_traceback(type(exc), exc, exc.__traceback__))

    from jaxerrs.views import render_html

    def panel_html(exc: BaseException) -> str:
        """What the panel costs: diagnose + the panel's HTML (the rewrite is computed after it shows)."""
        return render_html(jaxerrs.diagnose(exc), with_rewrite=False)

    live, ipy, ratios = [], [], []
    panel_t, panel_r = [], []
    final_t, full_t, final_r, full_r = [], [], [], []
    for _case, exc in errors:
        t_ipy = best_of(lambda exc=exc: render(exc), args.repeat)
        t_diag = best_of(lambda exc=exc: jaxerrs.diagnose(exc), args.repeat)
        live.append(t_diag)
        ipy.append(t_ipy)
        ratios.append(t_diag / t_ipy)
        panel_html(exc)  # first render of this record: its code is highlighted once, then cached
        t_panel = best_of(lambda exc=exc: panel_html(exc), args.repeat)
        panel_t.append(t_panel)
        panel_r.append(t_panel / t_ipy)
        final = "".join(traceback.format_exception_only(type(exc), exc))
        full = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        t_final = best_of(lambda t=final: jaxerrs.diagnose_text(t), args.repeat)
        t_full = best_of(lambda t=full: jaxerrs.diagnose_text(t), args.repeat)
        final_t.append(t_final)
        full_t.append(t_full)
        final_r.append(t_final / t_ipy)
        full_r.append(t_full / t_ipy)

    n = len(errors)
    print(f"corpus errors: {n}; timings: best of {args.repeat}")
    print(f"first diagnosis in this process (catalog + records load, cold caches): {ms(first)}")
    print()
    print("(1) live: jaxerrs.diagnose(exc) vs IPython's own rendering of the same traceback")
    print(f"    IPython structured_traceback+stb2text  median {ms(median(ipy))}  p90 {ms(pct(ipy, 90))}")
    print(f"    jaxerrs.diagnose                       median {ms(median(live))}  p90 {ms(pct(live, 90))}")
    print(f"    ratio diagnose / IPython rendering     median {median(ratios):7.1%}  p90 {pct(ratios, 90):7.1%}  "
          f"max {max(ratios):7.1%}   (target: median <= 10%)")
    print(f"    diagnose + panel HTML                  median {ms(median(panel_t))}  p90 {ms(pct(panel_t, 90))}")
    print(f"    ratio (diagnose + HTML) / IPython       median {median(panel_r):7.1%}  p90 {pct(panel_r, 90):7.1%}  "
          "(target: median <= 10%)")
    print()
    print("(2) text: jaxerrs.diagnose_text with the full catalog and records loaded")
    print(f"    final line      median {ms(median(final_t))}  p90 {ms(pct(final_t, 90))}   "
          f"vs IPython rendering: median {median(final_r):7.1%}  p90 {pct(final_r, 90):7.1%}")
    print(f"    full traceback  median {ms(median(full_t))}  p90 {ms(pct(full_t, 90))}   "
          f"vs IPython rendering: median {median(full_r):7.1%}  p90 {pct(full_r, 90):7.1%}")
    worst = sorted(zip(ratios, (c.name for c, _ in errors), strict=True), reverse=True)[:5]
    print("    slowest live diagnoses relative to IPython: " + ", ".join(f"{nm} {r:.0%}" for r, nm in worst))


if __name__ == "__main__":
    main()
