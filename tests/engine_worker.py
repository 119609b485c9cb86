"""Worker for ``tests/test_engine.py``: diagnose every corpus case of one device count, in every form.

Run as ``python tests/engine_worker.py --devices N [--only a,b]`` in a process whose environment has
``JAX_TRACEBACK_FILTERING=tracebackhide`` and, for N > 1, ``XLA_FLAGS=--xla_force_host_platform_device_count=N``
(both set before jax is imported; ``corpus_harness._child_env`` builds it). For each case it prints, after
the marker ``@@ENGINE-RESULTS@@``, a JSON list of::

    {"name": str, "forms": {FORM: {"is_jax": bool, "site": [path, function] | null,
                                   "candidates": [[path, function], ...], "record": str | null}},
     "texts": {FORM: str}}   # the text inputs, for the CLI sample and for debugging

FORM is ``live`` (``jaxerrs.diagnose(exc)``), ``ipython`` / ``ipython_color`` (an IPython shell's
``InteractiveTB.structured_traceback`` + ``stb2text``, without / with ANSI colours), ``plain``
(``traceback.format_exception``), ``final_short`` (``ShortClass: message`` as IPython prints it) and
``final_qual`` (``module.Class: message`` as plain Python prints it).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

MARKER = "@@ENGINE-RESULTS@@"
FORMS = ("live", "ipython", "ipython_color", "plain", "final_short", "final_qual")


def _shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.history_manager.enabled = False
    return ip


def _set_theme(tb, colour: bool) -> None:
    if hasattr(tb, "set_theme_name"):  # IPython >= 9
        tb.set_theme_name("linux" if colour else "nocolor")
    else:  # pragma: no cover - IPython 8
        tb.set_colors("Linux" if colour else "NoColor")


def ipython_text(ip, exc: BaseException, colour: bool) -> str:
    """The traceback exactly as an IPython shell renders it (InteractiveTB + stb2text)."""
    itb = ip.InteractiveTB
    _set_theme(itb, colour)
    stb = itb.structured_traceback(type(exc), exc, exc.__traceback__)
    return itb.stb2text(stb)


def final_lines(exc: BaseException) -> tuple[str, str]:
    """(IPython's ``Short: message``, plain Python's ``module.Qualified: message``) for the last exception."""
    qual = "".join(traceback.format_exception_only(type(exc), exc)).rstrip("\n")
    short = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return short, qual


def summarise(d) -> dict:  # noqa: ANN001 - a Diagnosis
    site = [d.site.path, d.site.function] if d.site is not None else None
    cands = []
    for c in d.candidates:
        if c.site is not None:
            pair = [c.site.path, c.site.function]
            if pair not in cands:
                cands.append(pair)
    return {"is_jax": bool(d.is_jax), "site": site, "candidates": cands,
            "record": d.record.id if d.record is not None else None}


def run(devices: int, only: set[str] | None) -> list[dict]:
    import warnings

    warnings.simplefilter("ignore")
    import jaxerrs
    from corpus import CASES
    from corpus_harness import run_case

    ip = _shell()
    out = []
    for case in CASES:
        if case.devices != devices or (only and case.name not in only):
            continue
        exc = run_case(case)
        short, qual = final_lines(exc)
        texts = {
            "ipython": ipython_text(ip, exc, colour=False),
            "ipython_color": ipython_text(ip, exc, colour=True),
            "plain": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
            "final_short": short,
            "final_qual": qual,
        }
        forms = {}
        try:
            forms["live"] = summarise(jaxerrs.diagnose(exc))
        except Exception as e:  # noqa: BLE001 - reported as a failure, not a crash
            forms["live"] = {"error": f"{type(e).__name__}: {e}"}
        for form, text in texts.items():
            try:
                forms[form] = summarise(jaxerrs.diagnose_text(text))
            except Exception as e:  # noqa: BLE001
                forms[form] = {"error": f"{type(e).__name__}: {e}"}
        out.append({"name": case.name, "forms": forms, "texts": texts})
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, required=True)
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    only = {n for n in args.only.split(",") if n} or None
    results = run(args.devices, only)
    sys.stdout.flush()
    sys.stdout.write(MARKER + json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
