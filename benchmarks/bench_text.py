"""Pasted error texts: how fast ``jaxerrs.diagnose_text`` is, and whether its confidence means what it says.

(11) speed: each text of a sample of the paste-style corpus (``tests/text_corpus.py``: the kept
tracebacks of older releases, each rendered the ways people paste them) diagnosed as a new error
(the per-message caches emptied), after a warm-up; the baseline, measured in the same run, is
IPython's rendering of one real JAX error. Also what the first text that needs it pays, once per process: reading
JAX's raise-site history (``data/site_history.json.gz``, 115 releases).
(12) reliability: for each confidence bucket, how many answers fall in it and the share right (an answer
that claims nothing false: its record, if any, and its site, if any, are the expected ones;
``tests/fit_confidence.py`` says it exactly), on each side: the tuning side (the tuning texts, the public
threads, the corpus's tuning part, those records' cases raised live), on which the confidence's weights are
fit, and the held side (the frozen held-out texts, the corpus's held part, its records' cases raised live).
Figures only: no row is printed. The panel presents an answer at confidence >= 0.5 as sure; the target there is 95% right.

Usage: python benchmarks/bench_text.py [--every N] [--repeat N]
"""

from __future__ import annotations

import argparse
import warnings

from _common import best_of as _best_of
from _common import forget_messages, median, ms, pct  # also puts src/ and tests/ on sys.path

BUCKETS = ((0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.01))


def _ipython_render_time(repeat: int) -> float:
    """IPython's rendering of one real JAX error (a shape mismatch raised here), best of ``repeat``."""
    import jax.numpy as jnp
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        jnp.ones(3) + jnp.ones(4)
    except Exception as e:  # noqa: BLE001 - the error is the input
        exc = e
    itb = shell.InteractiveTB
    return _best_of(lambda: itb.stb2text(itb.structured_traceback(type(exc), exc, exc.__traceback__)), repeat)


def reliability(rows: list[tuple[float, bool]]) -> list[str]:
    out = []
    for lo, hi in BUCKETS:
        got = [right for conf, right in rows if lo <= conf < hi]
        share = f"{sum(got) / len(got):.2f}" if got else "  - "
        out.append(f"      [{lo:.2f}, {min(hi, 1.0):.2f})  {len(got):5}  {share}")
    sure = [right for conf, right in rows if conf >= 0.5]
    out.append(f"      at >= 0.5: {len(sure)} answers, {sum(sure) / max(1, len(sure)):.1%} right (target 95%)")
    return out


def _read_history() -> None:
    """Read and decode JAX's history index afresh (what the first pasted text that needs it pays)."""
    from jaxerrs import history

    h = history._load.__wrapped__(str(history.data_path()))
    h.template_matches("Shapes must be 1D sequences of concrete values of integer type, got (8,).")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=8, help="time every Nth corpus text")
    ap.add_argument("--repeat", type=int, default=3, help="timings per text (the best is kept)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")

    import fit_confidence
    import jaxerrs
    import text_corpus

    items = list(text_corpus.items(text_corpus.KEPT))
    for it in items[:20]:  # warm-up: catalog, records, history and search index loaded
        jaxerrs.diagnose_text(it.text)
    t_ipy = _ipython_render_time(20)
    sample = items[:: args.every]
    times = [_best_of(lambda t=it.text: jaxerrs.diagnose_text(t), args.repeat, reset=forget_messages)
             for it in sample]
    print(f"(11) diagnose_text on {len(sample)} pasted texts (every {args.every}th of the corpus), after warm-up")
    print(f"    p50 {ms(median(times))}  p90 {ms(pct(times, 90))}  max {ms(max(times))}   (target p50 < 5 ms)")
    print(f"    IPython's rendering of one JAX error: {ms(t_ipy)} -> ratio p50 {median(times) / t_ipy:.1%}, "
          f"p90 {pct(times, 90) / t_ipy:.1%}")
    t_history = _best_of(_read_history, 3)
    print(f"    once per process, the first text that needs it: reading the raise-site history of JAX's releases "
          f"{ms(t_history)} ({t_history / t_ipy:.1f}x one IPython rendering)")
    print()
    print("(12) reliability: confidence bucket, answers, share right (claiming nothing false: the record and the")
    print("     site, where given, are the expected ones); weights fit on the tuning side (tests/fit_confidence.py)")
    for side in ("tuning", "held"):
        rows = fit_confidence.answers(side)
        for group, name in (("texts", "real texts"), ("threads", "public threads"), ("corpus", "paste-style corpus"),
                            ("live", "live errors (the records' reproducers and cases)")):
            part = [(r["confidence"], r["right"]) for r in rows if r["group"] == group]
            if part:
                print(f"    {side}: {name} ({len(part)} answers)")
                print("\n".join(reliability(part)))

if __name__ == "__main__":
    main()
