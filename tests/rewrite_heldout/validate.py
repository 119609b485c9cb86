"""Prove every held-out case, each step in a fresh subprocess (no jaxerrs involved).

For each case:
  raise  setup + cell must raise; the message is matched against the ``patterns`` of the
         kb records (src/jaxerrs/kb/records/*.toml, data only) and must land on ``kind``;
  alt#i  setup + alt fix + check must pass;
  wrong  setup + wrong_fix + check must fail (the fix raises or the check rejects it).

Usage: python tests/rewrite_heldout/validate.py [-j N] [ID_SUBSTRING ...]
Exit status 0 when every row is good.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
RECORDS = TESTS.parent / "src" / "jaxerrs" / "kb" / "records"
sys.path.insert(0, str(TESTS))

from rewrite_heldout import fixed_run, load_cases  # noqa: E402

CHILD = r"""
import json, sys, traceback
job = json.load(sys.stdin)
ns = {"__name__": "__main__"}
def run(src, label):
    exec(compile(src, label, "exec"), ns)
res = {"stage": "setup"}
try:
    run(job["setup"], "<setup>")
    res["stage"] = "body"
    run(job["body"], "<cell>")
    if job.get("check"):
        res["stage"] = "check"
        run(job["check"], "<check>")
    res["ok"] = True
except BaseException as e:
    res.update(ok=False, exc=type(e).__name__, module=type(e).__module__, msg=str(e)[:4000],
               tb=traceback.format_exc()[-1500:])
print("@@RESULT@@" + json.dumps(res))
"""


def _run(setup: str, body: str, check: str = "", timeout: int = 120) -> dict:
    env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="3")
    p = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(dict(setup=setup, body=body, check=check)),
                       capture_output=True, text=True, timeout=timeout, env=env)
    for line in p.stdout.splitlines():
        if line.startswith("@@RESULT@@"):
            return json.loads(line[len("@@RESULT@@"):])
    return {"ok": False, "stage": "crash", "exc": "crash", "msg": p.stderr[-1500:]}


def _load_records() -> list[tuple[str, str, re.Pattern, int]]:
    out = []
    for f in sorted(RECORDS.glob("*.toml")):
        rec = tomllib.loads(f.read_text())
        cls = str(rec.get("error_class", "")).rsplit(".", 1)[-1]
        for pat in rec.get("patterns", []):
            if not isinstance(pat, str):
                continue
            parts = re.split(r"\{[^{}]*\}", pat)
            parts = [re.sub(r"\s+", " ", p) for p in parts]
            rx = re.compile(".*?".join(re.escape(p) for p in parts), re.S)
            out.append((rec.get("id", f.stem), cls, rx, sum(len(p) for p in parts)))
    return out


RECS = _load_records()


def classify(exc: str, msg: str) -> str:
    msg = re.sub(r"\s+", " ", msg)  # messages break lines where patterns have a space
    hits = [(score, rid, cls) for rid, cls, rx, score in RECS if rx.search(msg)]
    if not hits:
        return "?"
    same = [h for h in hits if h[2] == exc] or hits
    return max(same)[1]


def prove(c) -> dict:
    row = {"id": c.id, "kind": c.kind, "module": c.module, "cited": not c.source.startswith("written for")}
    r = _run(c.setup + ("\n" + c.earlier if c.earlier else ""), c.cell)
    if r.get("ok") or r.get("stage") != "body":
        row["raise"] = f"NO ({'ran clean' if r.get('ok') else r.get('stage') + ': ' + r.get('exc', '')})"
        row["raise_ok"] = False
    else:
        landed = classify(r["exc"], r["msg"])
        row["exc"] = r["exc"]
        row["landed"] = landed
        row["raise_ok"] = landed == c.kind
        row["raise"] = r["exc"] + ("" if landed == c.kind else f" -> {landed}")
        row["raise_msg"] = r["msg"].splitlines()[0][:160]
    row["alts"] = []
    for fix in c.alt_fixes:
        a = _run(*fixed_run(c, fix), c.check)
        row["alts"].append("ok" if a.get("ok") else f"FAIL({a.get('stage')}: {a.get('exc')}: {a.get('msg', '')[:200]})")
    w = _run(*fixed_run(c, c.wrong_fix), c.check)
    if w.get("ok"):
        row["wrong"], row["wrong_ok"] = "PASSED (check has no teeth)", False
    else:
        row["wrong"] = "raises" if w.get("stage") == "body" else ("rejected" if w.get("stage") == "check" else w.get("stage"))
        row["wrong_ok"] = w.get("stage") in ("body", "check")
        row["wrong_exc"] = w.get("exc")
    row["good"] = row["raise_ok"] and bool(c.alt_fixes) and all(a == "ok" for a in row["alts"]) and row["wrong_ok"]
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", type=int, default=min(8, os.cpu_count() or 2))
    ap.add_argument("--json", help="write the rows to this file")
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    cases = [c for c in load_cases() if not a.only or any(s in c.id for s in a.only)]
    with ThreadPoolExecutor(a.j) as ex:
        rows = list(ex.map(prove, cases))
    w = max(len(r["id"]) for r in rows)
    print(f"{'id':<{w}}  {'kind':<36} {'raise':<34} {'alts':<8} {'wrong':<9} good")
    for r in rows:
        alts = "ok" * 0 + (f"{sum(x == 'ok' for x in r['alts'])}/{len(r['alts'])}")
        print(f"{r['id']:<{w}}  {r['kind']:<36} {r['raise']:<34} {alts:<8} {r['wrong']:<9} {'yes' if r['good'] else 'NO'}")
        for x in r["alts"]:
            if x != "ok":
                print("    alt:", x)
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    good = sum(r["good"] for r in rows)
    print(f"\n{good}/{len(rows)} good; cited {sum(r['cited'] for r in rows)}/{len(rows)}")
    for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {n:3d}  {k}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0 if good == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
