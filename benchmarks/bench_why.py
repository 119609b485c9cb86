""""Why it was raised" on live errors: the check, its values and the API called, against IPython's rendering.

(10) For each case of the blind corpus of uncurated errors (tests/why_corpus.py), raised live in this process:
     ``why.explain(diagnosis)`` (the raising frame found, the guard looked up in the catalog, the names of its
     test read from the frame's locals, "did you mean", the public function called found on the stack) vs
     IPython's ``structured_traceback`` + ``stb2text`` of the same error. Prints p50/p90 of both and of the
     ratio (target: the live values under 1 ms), and the one-off cost of the public-function index, paid on
     the first error after new public modules are imported.

Usage: python benchmarks/bench_why.py [--repeat N] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

os.environ.setdefault("JAX_TRACEBACK_FILTERING", "tracebackhide")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

from _common import best_of, median, ms, pct  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5, help="timings per error (the best is kept)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N cases")
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    from IPython.core.interactiveshell import InteractiveShell

    import jaxerrs
    from jaxerrs import catalog, why
    from why_corpus import CASES

    itb = InteractiveShell.instance().InteractiveTB
    cases = CASES[: args.limit] if args.limit else CASES
    errors = []
    for c in cases:
        try:
            exec(compile(c["code"], f"<{c['id']}>", "exec"), {"__name__": "__main__"})
        except Exception as e:  # noqa: BLE001 - the error is the subject
            errors.append((c["id"], e, jaxerrs.diagnose(e)))
    catalog.get()

    why._public_index.cache_clear()
    t0 = time.perf_counter()
    why._public_index(why._public_modules())
    index_once = time.perf_counter() - t0

    explain_t, ipy_t, ratio = [], [], []
    for _id, e, d in errors:
        t_ipy = best_of(lambda e=e: itb.stb2text(itb.structured_traceback(type(e), e, e.__traceback__)), args.repeat)
        t_why = best_of(lambda d=d: why.explain(d), args.repeat)
        explain_t.append(t_why)
        ipy_t.append(t_ipy)
        ratio.append(t_why / t_ipy)
    print(f"uncurated corpus errors: {len(errors)}; timings: best of {args.repeat}")
    print(f"(10) public-function index over {len(why._public_modules())} imported public modules, once: "
          f"{ms(index_once)}")
    print(f"     IPython structured_traceback+stb2text  p50 {ms(median(ipy_t))}  p90 {ms(pct(ipy_t, 90))}")
    print(f"     why.explain (check, values, API)       p50 {ms(median(explain_t))}  p90 {ms(pct(explain_t, 90))}"
          f"  max {ms(max(explain_t))}   (target: < 1 ms)")
    print(f"     ratio explain / IPython rendering      p50 {median(ratio):7.1%}  p90 {pct(ratio, 90):7.1%}")
    worst = sorted(zip(explain_t, (i for i, _e, _d in errors), strict=True), reverse=True)[:5]
    print("     slowest: " + ", ".join(f"{i} {t * 1000:.2f} ms" for t, i in worst))


if __name__ == "__main__":
    main()
