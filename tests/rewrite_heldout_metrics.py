"""Fix my cell on the held-out set (tests/rewrite_heldout): figures only, never a test to tune against.

The set was written blind to src/jaxerrs/rewrite/ from public threads (each case cites its source) and
frozen before the rules it measures were changed. ``python tests/rewrite_heldout_metrics.py [--json F]``
runs every cell in a real InteractiveShell with jaxerrs loaded (tests/rewrite_worker.py), then each
rewrite with the case's intent check in a fresh (forked) process (tests/rewrite_check.py), and prints per kind:
cells, rewrites, rewrites passing their check, `safe` rewrites and `safe` ones failing, and rewrites that
leave the cell raising the same error class. Reading a miss moves that case to the tuning side: say so.
"""

from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from rewrite_check import CheckPool  # noqa: E402
from rewrite_heldout import load_cases, side  # noqa: E402
from test_rewrite import WORKERS, _env  # noqa: E402

# Held-out cases that are not unseen any more, with why: they count on the tuning side, never in the held-out
# figures.
SEEN = {
    "markov-ring-transition-matrix": "issue #17's own example; the cell matches the tuning-side proof case "
                                     "markov-ring-two-setitems line for line (2026-12-01)",
    **{cid: "a held-out `safe` failure read to find its cause (siblings: the same error again on another "
            "array, list or optimizer of the cell; 2026-12-02)"
       for cid in ("euler-trajectory-two-tables", "oa-setitem-earlier-lqr-rollout-buffers",
                   "best-epoch-argmin-min-of-list", "oc-nnx-gan-two-optimizers-without-wrt")},
    "random-features-two-dims": "a held-out rewrite lost by a new precondition of static-argnames (it read the "
                                "PRNG key on the failing line as a size); read to find why (2026-12-03)",
    "ob-linen-opt-init-on-variables": "read while looking for that loss: its record had no rewrite rule "
                                      "(2026-12-03)",
}


def _worker(ids: list[str]) -> list[dict]:
    p = subprocess.run([sys.executable, str(HERE / "rewrite_worker.py"), "--set", "rewrite_heldout", *ids],
                       capture_output=True, text=True, env=_env(), timeout=3600)
    if "@@REWRITE-RESULTS@@" not in p.stdout:
        raise RuntimeError(f"rewrite worker failed:\n{p.stdout[-3000:]}\n{p.stderr[-6000:]}")
    return json.loads(p.stdout.split("@@REWRITE-RESULTS@@", 1)[1])


def _check(case, cell: str, checks: CheckPool) -> str | None:
    setup = case.setup
    if case.earlier:  # the rewrite is of the earlier cell or of the cell: run it in its place
        if difflib.SequenceMatcher(None, cell, case.earlier).ratio() > difflib.SequenceMatcher(None, cell, case.cell).ratio():
            cell = cell + "\n" + case.cell
        else:
            setup = setup + "\n" + case.earlier
    return checks.ask({"setup": setup, "runs": {"rewrite": cell}, "check": case.check})["rewrite"]


def _side(c) -> str:
    return "tuning" if c.id in SEEN else side(c)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--side", choices=("held", "tuning", "all"), default="all",
                    help="which half to run (see rewrite_heldout.side); 'all' prints each half's figures apart")
    args = ap.parse_args()
    cases = {c.id: c for c in load_cases() if not c.negative and (args.side == "all" or _side(c) == args.side)}
    ids = list(cases)
    with ThreadPoolExecutor(WORKERS) as pool:
        rows = {r["id"]: r for chunk in pool.map(_worker, [ids[i::WORKERS] for i in range(WORKERS)]) for r in chunk}
    offered = [i for i in ids if rows[i]["rewrite"]]
    with CheckPool(WORKERS, _env()) as checks, ThreadPoolExecutor(WORKERS) as pool:
        for i, res in zip(offered, pool.map(lambda i: _check(cases[i], rows[i]["rewrite"]["cell"], checks),
                                            offered), strict=True):
            rows[i]["check"] = res
    lines: list[str] = []
    for half in ("held", "tuning"):
        half_ids = [i for i in ids if _side(cases[i]) == half]
        if half_ids:
            lines += [f"== {half} ({'never read' if half == 'held' else 'misses may be read'})",
                      *_table(cases, rows, half_ids)]
    unexpected = [i for i in ids if rows[i]["error"] or not rows[i]["is_jax"]]
    if unexpected:
        lines.append(f"cells not diagnosed as JAX errors or that did not raise: {len(unexpected)}")
    lines += [f"moved to tuning (seen): {cid}: {why}" for cid, why in SEEN.items()]
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


def _table(cases: dict, rows: dict, ids: list[str]) -> list[str]:
    per: dict[str, list[int]] = defaultdict(lambda: [0] * 6)  # cells, rewrites, passed, safe, safe failing, same error
    for i in ids:
        r, row = rows[i], per[cases[i].kind]
        row[0] += 1
        if not r["rewrite"]:
            continue
        ok = r.get("check") is None
        safe = r["rewrite"]["safety"] == "safe"
        raised = (r["raised"] or "").split(":", 1)[0]
        again = not ok and r["check"].startswith("cell:") and raised and f" {raised}" in r["check"][:80]
        row[1:] = [row[1] + 1, row[2] + ok, row[3] + safe, row[4] + (safe and not ok), row[5] + bool(again)]
    head = f"{'kind':36} cells rewrites passed safe safe-failing same-error-again"
    lines = [head] + [f"{k:36} {v[0]:5} {v[1]:8} {v[2]:6} {v[3]:4} {v[4]:12} {v[5]:16}" for k, v in sorted(per.items())]
    tot = [sum(v[j] for v in per.values()) for j in range(6)]
    lines.append(f"{'total':36} {tot[0]:5} {tot[1]:8} {tot[2]:6} {tot[3]:4} {tot[4]:12} {tot[5]:16}")
    lines.append(f"coverage {tot[1] / max(1, tot[0]):.1%}, rewrites passing {tot[2] / max(1, tot[1]):.1%}, "
                 f"safe failing {tot[4]}, left failing with the same error {tot[5]}")
    return lines


if __name__ == "__main__":
    main()
