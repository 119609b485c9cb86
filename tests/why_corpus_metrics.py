"""Why it was raised, measured on errors no record covers (tests/why_corpus.py, labelled blind to jaxerrs).

``python tests/why_corpus_metrics.py [--json F]`` runs every case's code in this process (JAX as IPython runs
it: every frame kept), diagnoses the live error and the error's final line as text, and prints, against the
labels read from JAX's source: the failing condition named (live, text), at least one value involved shown
(live), the public API named (live), and "did you mean" right where the label has one. Figures only: the
labels are never tuned against on the held half.

The corpus is split in two by a hash of the case id (``side``), frozen on 2026-12-03 before any miss was read:
the "tuning" half (a third) may be read and tuned on, the "held" half never; ``--side`` picks one, and the
default prints both apart. Reading a held miss moves that case to the tuning side (``SEEN``, with why).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("JAX_TRACEBACK_FILTERING", "tracebackhide")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


# Held cases that are not unseen any more, with why: they count on the tuning side.
SEEN: dict[str, str] = {}


def side(case_id: str) -> str:
    """"held" (measured, never read) or "tuning" (a third of the corpus: its misses may be read)."""
    if case_id in SEEN:
        return "tuning"
    return "tuning" if hashlib.sha256(case_id.encode()).digest()[0] % 3 == 0 else "held"


def _norm(code: str) -> str:
    return "".join(code.split())


def _condition_ok(label: str, check: dict | None) -> bool:
    if not label:
        return check is None
    return check is not None and _norm(label) in _norm(check["code"])


def _value_ok(names: list[str], check: dict | None) -> bool:
    if check is None or not names:
        return False
    return any(k == n or k.startswith(n + ".") for k in check["values"] for n in names)


def _dym_ok(label: str | None, check: dict | None) -> bool:
    got = (check or {}).get("did_you_mean")
    return (got or "").strip("'\"") == (label or "")


def run_case(c: dict) -> dict:
    import jaxerrs

    row = {"id": c["id"]}
    ns: dict = {"__name__": "__main__"}
    try:
        exec(compile(c["code"], f"<{c['id']}>", "exec"), ns)
        row["error"] = "did not raise"
        return row
    except Exception as e:  # noqa: BLE001 - the error is the subject
        live = jaxerrs.diagnose(e).to_dict()
    text = jaxerrs.diagnose_text(c["text"]).to_dict()
    row.update(
        curated=live["record"] is not None,
        live_condition=_condition_ok(c["condition"], live["check"]),
        text_condition=_condition_ok(c["condition"], text["check"]),
        live_value=_value_ok(c["names"], live["check"]),
        api=(live["api"] or {}).get("name") == c["api"],
        has_dym=bool(c.get("did_you_mean")),
        live_dym=_dym_ok(c.get("did_you_mean"), live["check"]),
        text_dym=_dym_ok(c.get("did_you_mean"), text["check"]),
        got={"check": live["check"] and live["check"]["code"], "api": (live["api"] or {}).get("name")},
    )
    return row


def _figures(rows: list[dict], cases: list[dict]) -> list[str]:
    ok = [r for r in rows if "error" not in r]
    with_cond = [r for r, c in zip(rows, cases, strict=True) if "error" not in r and c["condition"]]
    dym = [r for r in ok if r["has_dym"]]

    def share(key: str, of: list[dict]) -> str:
        return f"{sum(r[key] for r in of)}/{len(of)} ({sum(r[key] for r in of) / max(1, len(of)):.0%})"

    return [f"cases: {len(rows)} ({len(rows) - len(ok)} did not raise); curated by a record: "
            f"{sum(r['curated'] for r in ok)}",
            f"failing condition named, live: {share('live_condition', ok)}; from text: {share('text_condition', ok)}",
            f"a value involved shown (live, cases with a condition): {share('live_value', with_cond)}",
            f"public API named (live): {share('api', ok)}",
            f"did you mean right (live): {share('live_dym', dym)}; from text: {share('text_dym', dym)}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--side", choices=("held", "tuning", "all"), default="all",
                    help="which half to run; 'all' prints each half's figures apart, then the whole")
    args = ap.parse_args()
    from why_corpus import CASES

    cases = [c for c in CASES if args.side == "all" or side(c["id"]) == args.side]
    rows = [run_case(c) for c in cases]
    for r in rows:
        r["side"] = side(r["id"])
    lines: list[str] = []
    for half in ("held", "tuning"):
        pairs = [(r, c) for r, c in zip(rows, cases, strict=True) if r["side"] == half]
        if pairs:
            lines += [f"== {half} ({'never read' if half == 'held' else 'misses may be read'})",
                      *_figures([r for r, _ in pairs], [c for _, c in pairs])]
    if args.side == "all":
        lines += ["== whole corpus", *_figures(rows, cases)]
    lines += [f"moved to tuning (seen): {cid}: {why}" for cid, why in SEEN.items()]
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
