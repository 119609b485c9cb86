"""Fit the confidence's weights (``jaxerrs.confidence``) on the tuning side only, and write them.

    python tests/fit_confidence.py [--dry-run]

Tuning side: the tuning texts (tests/data/tuning_texts*.json), the public threads (tests/data/public_threads.json),
the tuning part of the generated paste-style corpus (tests/text_corpus.py, split by record), and the reproducers
and cases of the same records raised here and diagnosed live. The frozen held-out texts
(tests/data/heldout_texts.json) and the held records are never read here; ``benchmarks/bench_text.py`` (12)
reports both sides.

An answer is right when it claims nothing false: its record, if it names one, is the expected one (or it names
none where none is expected, or names the raise and no record), and any site it gives is the expected raise (its
file may have moved since). Where a real text's label names no raise (compiled code or Python raised it), any site
given is wrong, a JAX frame making the call included: the held-out figures judge so, and an answer shown as sure
must hold up there (until 2026-12-06 the design's call site counted as right here; a cluster of such answers,
identical in their features, then crossed 0.5 with every small change of the matcher).

A logistic fit (L2-regularised; the corpus, and the live errors, each weighing as much as the real texts
together) gives the weights; a feature of ``NOT_ABOVE_ZERO`` that comes out raising the confidence is left out
and the rest refit. ``sure_at`` is then the least fitted chance above which the real texts, the corpus and the
live errors are each right at least ``TARGET`` of the time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")  # before jax: the cases' devices

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import jaxerrs  # noqa: E402
from jaxerrs import confidence  # noqa: E402
from jaxerrs.diagnosis import Diagnosis  # noqa: E402
from jaxerrs.matcher import same_function  # noqa: E402

TARGET = 0.95  # the design contract: of answers at 0.5 or above, at least this share right
L2 = 0.5
# A search guess is never surer than the same answer with a pattern of its record matching (test_confidence).
NOT_ABOVE_ZERO = frozenset({"search"})
THREADS = HERE / "data" / "public_threads.json"


def _site_ok(expected: dict | None, site: dict | None, judged: bool) -> bool:
    """No site given, or the expected raise (its file may have moved or been renamed since: the same file name, or
    the same package and function where that function is no dunder method many classes share)."""
    if site is None or not judged:
        return True
    if expected is None:
        return False
    if not same_function(expected["function"], site["function"]):
        return False
    same_file = Path(site["path"]).name == Path(expected["path"]).name
    moved = (site["path"].split("/")[0] == expected["path"].split("/")[0]
             and not expected["function"].rsplit(".", 1)[-1].startswith("__"))
    return same_file or moved


def claims_nothing_false(d: Diagnosis, records: set[str | None], site: dict | None, judged: bool = True) -> bool:
    """Whether an answer is right in the sense the confidence promises: a false claim makes it wrong (a record not
    the expected one, a site not the expected one); one that names the raise but no record, where one was
    expected, claims nothing false."""
    given = d.record.id if d.record else None
    shown = d.to_dict()["site"]
    record_ok = given in records or (given is None and shown is not None)
    return record_ok and _site_ok(site, shown, judged)


def _row(group: str, text: str, records: set[str | None], site: dict | None, judged: bool = True) -> dict | None:
    d = jaxerrs.diagnose_text(text)
    if not d.is_jax:
        return None  # no answer, no confidence
    return {"group": group, "features": d.features, "right": claims_nothing_false(d, records, site, judged),
            "confidence": d.confidence}


def _texts(path: Path, group: str) -> list[dict]:
    rows = []
    for item in json.loads(path.read_text(encoding="utf-8")):
        records = {item["expected_record"], *(item.get("also_ok_records") or [])}
        judged = item.get("site_exists_0_4_30_plus", True) or item["expected_site"] is None
        rows.append(_row(group, item["text"], records, item["expected_site"], judged))
    return [r for r in rows if r is not None]


def _live(side: str) -> list[dict]:
    """The records' reproducers and cases (records of this side's split), raised here and diagnosed live: right
    when the record is the one they raise (``kb check``'s verdict)."""
    import warnings

    import jax

    from jaxerrs.kb.records import all_records, installed_jax, requirement_met
    from jaxerrs.kb.verify import _home, _run
    from jaxerrs.matcher import diagnose_exception
    from text_corpus import split_of

    warnings.simplefilter("ignore")
    rows = []
    for rec in all_records().values():
        if (split_of(rec.id) != side or rec.verified != "execution" or not rec.holds_for(installed_jax())
                or (rec.requires and not requirement_met(rec.requires)) or rec.unmet_needs(installed_jax())
                or rec.devices > jax.device_count()):
            continue
        for code in (rec.reproducer, *rec.cases):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                exc = _run(code)  # what the snippets print is not the figures
            d = diagnose_exception(exc) if exc is not None else None
            if d is not None and d.is_jax:
                rows.append({"group": "live", "features": d.features, "right": _home(d, rec) == "ok",
                             "confidence": d.confidence})
    return rows


def answers(side: str) -> list[dict]:
    """Every answer of one side ("tuning" or "held"), with its features and whether it is right."""
    from heldout_texts_metrics import DATA, SEEN, TUNING
    from text_corpus import KEPT, items

    if side == "tuning":
        rows = [r for data in TUNING for r in _texts(data, "texts")] + _texts(THREADS, "threads")
    else:
        held = [i for i in json.loads(DATA.read_text(encoding="utf-8")) if i["url"] not in SEEN]
        rows = [r for i in held if (r := _row("texts", i["text"], {i["expected_record"], *(
            i.get("also_ok_records") or [])}, i["expected_site"])) is not None]
    for it in items(KEPT):
        if it.split == side:
            r = _row("corpus", it.text, {it.record}, None, judged=False)
            if r is not None:
                rows.append(r)
    return rows + _live(side)


def _newton(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Newton's method on the weighted, L2-regularised log-likelihood (the bias, column 0, not regularised)."""
    beta = np.zeros(x.shape[1])
    reg = L2 * np.r_[0.0, np.ones(x.shape[1] - 1)]
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-x @ beta))
        grad = x.T @ (w * (y - p)) - reg * beta
        hess = x.T @ (x * (w * p * (1 - p))[:, None]) + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def fit(rows: list[dict]) -> dict:
    names = list(confidence.FEATURES)
    x = np.array([[r["features"].get(k, 0.0) for k in names] for r in rows])
    x = np.hstack([np.ones((len(rows), 1)), x])
    y = np.array([float(r["right"]) for r in rows])
    group = np.array([r["group"] if r["group"] in ("corpus", "live") else "real" for r in rows])
    real = max(1, int((group == "real").sum()))
    w = np.ones(len(rows))
    for g in ("corpus", "live"):
        w[group == g] = real / max(1, int((group == g).sum()))
    beta = _newton(x, y, w)
    # A feature that may only lower the confidence and came out raising it is left out (weight 0) and the rest
    # refit: the data are too few to overturn what the feature means.
    wrong_sign = [i + 1 for i, k in enumerate(names) if k in NOT_ABOVE_ZERO and beta[i + 1] > 0]
    if wrong_sign:
        keep = [j for j in range(x.shape[1]) if j not in wrong_sign]
        beta = np.zeros(x.shape[1])
        beta[keep] = _newton(x[:, keep], y, w)
    fitted = {"bias": round(float(beta[0]), 3),
              "weights": {k: round(float(b), 3) for k, b in zip(names, beta[1:], strict=True)}}
    probs = [confidence.probability(r["features"], fitted) for r in rows]
    scored = list(zip(probs, y, w, strict=True))
    # Each group must reach TARGET on its own: real texts are what users paste, whatever the corpus does.
    fitted["sure_at"] = round(max(_sure_at([s for s, g in zip(scored, group, strict=True) if g == part])
                                  for part in ("real", "corpus", "live")), 4)
    fitted["fit_on"] = {g: sum(r["group"] == g for r in rows) for g in ("texts", "threads", "corpus", "live")}
    return fitted


def _sure_at(scored: list[tuple[float, float, float]]) -> float:
    """The least chance t such that the answers at t or above are right at least TARGET of the time, with a
    margin for a small sample: the Wilson lower bound (one standard error) of their share right, each answer
    weighing as in the fit, must reach TARGET."""
    best = 1.0
    ranked = sorted(scored, key=lambda t: -t[0])
    right = total = 0.0
    for i, (p, ok, weight) in enumerate(ranked):
        right += ok * weight
        total += weight
        n = total / weight if weight else total  # the group's answers so far (one weight per group)
        if _wilson_lower(right / total, n) >= TARGET and (i + 1 == len(ranked) or ranked[i + 1][0] < p):
            best = p
    return min(best, 0.999)


def _wilson_lower(share: float, n: float, z: float = 1.0) -> float:
    centre = share + z * z / (2 * n)
    spread = z * ((share * (1 - share) + z * z / (4 * n)) / n) ** 0.5
    return (centre - spread) / (1 + z * z / n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true", help="print the fit, do not write it")
    args = ap.parse_args()
    rows = answers("tuning")
    fitted = fit(rows)
    print(json.dumps(fitted, indent=1))
    if not args.dry_run:
        confidence.DATA.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {confidence.DATA}")


if __name__ == "__main__":
    main()
