"""Fix my cell: the proof set (tests/rewrite_cases) run for real.

Each failing cell runs in a real InteractiveShell with jaxerrs loaded; the rewrite is taken from
``jaxerrs.diagnose(exc).to_dict()["rewrite"]`` (and must equal the panel's); then setup + rewrite +
check run in a fresh process (forked from a server that has imported JAX, before any backend starts),
and so do setup + wrong_fix + check, which must fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from rewrite_cases import load_cases  # noqa: E402
from rewrite_check import CheckPool  # noqa: E402

# REWRITE_ONLY=mod1,mod2 runs the cases of those modules of tests/rewrite_cases only (while writing rules).
ONLY = [x for x in os.environ.get("REWRITE_ONLY", "").split(",") if x]
CASES = [c for c in load_cases() if not ONLY or c.module in ONLY]
BY_ID = {c.id: c for c in CASES}
WORKERS = 2


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4").strip()
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    return env


def _worker(ids: list[str]) -> list[dict]:
    p = subprocess.run([sys.executable, str(HERE / "rewrite_worker.py"), *ids], capture_output=True, text=True,
                       env=_env(), timeout=1800)
    if "@@REWRITE-RESULTS@@" not in p.stdout:
        raise RuntimeError(f"rewrite worker failed:\n{p.stdout[-3000:]}\n{p.stderr[-6000:]}")
    return json.loads(p.stdout.split("@@REWRITE-RESULTS@@", 1)[1])


def _check(cid: str, rewrite: str | None, checks: CheckPool) -> dict:
    c = BY_ID[cid]
    runs = {"wrong_fix": c.wrong_fix} if c.wrong_fix.strip() else {}
    if rewrite is not None:
        runs["rewrite"] = rewrite
    if not runs:
        return {}
    return checks.ask({"setup": c.setup, "runs": runs, "check": c.check})


@pytest.fixture(scope="session")
def proof() -> dict[str, dict]:
    ids = [c.id for c in CASES]
    chunks = [ids[i::WORKERS] for i in range(WORKERS)]
    with ThreadPoolExecutor(WORKERS) as pool:
        rows = [r for chunk in pool.map(_worker, chunks) for r in chunk]
    results = {r["id"]: r for r in rows}
    with CheckPool(WORKERS, _env()) as checks, ThreadPoolExecutor(WORKERS) as pool:
        checks_of = dict(zip(ids, pool.map(
            lambda i: _check(i, (results[i]["rewrite"] or {}).get("cell"), checks), ids), strict=True))
    for i in ids:
        results[i]["check"] = checks_of[i]
    print("\n" + report(results))
    return results


def report(results: dict[str, dict]) -> str:
    """Coverage and correctness per kind, and overall."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # cells, rewrites, passed, safe
    for c in CASES:
        if c.negative:
            continue
        r = results[c.id]
        row = per[c.kind]
        row[0] += 1
        if r["rewrite"]:
            row[1] += 1
            row[2] += r["check"].get("rewrite", "x") is None
            row[3] += r["rewrite"]["safety"] == "safe"
    lines = [f"{'kind':42} cells rewrites passed safe"]
    for kind in sorted(per):
        n, w, ok, safe = per[kind]
        lines.append(f"{kind:42} {n:5} {w:8} {ok:6} {safe:4}")
    tot = [sum(v[i] for v in per.values()) for i in range(4)]
    lines.append(f"{'total (' + str(len(per)) + ' kinds)':42} {tot[0]:5} {tot[1]:8} {tot[2]:6} {tot[3]:4}")
    if tot[0]:
        lines.append(f"coverage {tot[1] / tot[0]:.1%}, rewrites passing {tot[2] / max(1, tot[1]):.1%}")
    return "\n".join(lines)


@pytest.mark.parametrize("cid", [c.id for c in CASES])
def test_case(proof, cid):
    c, r = BY_ID[cid], proof[cid]
    assert r["error"] is None, r["error"]
    if c.negative:
        assert not r["is_jax"] and r["rewrite"] is None, r
        return
    assert r["is_jax"], f"not diagnosed as JAX: {r['raised']}"
    if c.wrong_fix.strip():
        assert r["check"]["wrong_fix"] is not None, "the check accepts the wrong fix: it has no teeth"
    rw = r["rewrite"]
    if c.offer == "none":
        assert rw is None, f"a rewrite is offered where one instance cannot be fixed:\n{rw['cell']}"
    if c.offer == "review":
        assert rw is None or rw["safety"] == "review", f"labelled {rw['safety']}: {rw['summary']}"
    if rw is None:
        return  # coverage is measured in test_proof_set_thresholds
    assert rw == r["panel_rewrite"], "the panel and diagnose() disagree"
    assert rw["safety"] in ("safe", "review") and rw["summary"] and rw["diff"].startswith("--- ")
    assert r["check"]["rewrite"] is None, f"rewrite ({rw['rule']}, {rw['safety']}) fails: {r['check']['rewrite']}\n{rw['cell']}"


@pytest.mark.skipif(bool(ONLY), reason="REWRITE_ONLY runs a subset")
def test_proof_set_thresholds(proof):
    positives = [c for c in CASES if not c.negative]
    kinds = {c.kind for c in positives}
    assert len(positives) >= 100 and len(kinds) >= 25, (len(positives), len(kinds))
    offered = [c for c in positives if proof[c.id]["rewrite"]]
    passed = [c for c in offered if proof[c.id]["check"].get("rewrite", "x") is None]
    safe = [c for c in offered if proof[c.id]["rewrite"]["safety"] == "safe"]
    assert len(offered) >= 0.7 * len(positives), report(proof)
    assert len(passed) >= 0.95 * len(offered), report(proof)
    assert all(proof[c.id]["check"].get("rewrite", "x") is None for c in safe)
    assert all(proof[c.id]["rewrite"] is None for c in CASES if c.negative)
