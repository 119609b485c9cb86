"""Confidence: one logistic function of named features of an answer, recalibrated so that 0.5 is the line
the panel's "sure" stands on.

``p = sigmoid(bias + sum(weight[k] * feature[k]))`` estimates the chance that the answer (its record and its
site) is right; the weights are fit on the tuning side only, by ``python tests/fit_confidence.py``, which
writes ``data/confidence.json``. The design contract wants more than a probability: of answers at 0.5 or
above, at least 95% right. So the fit also picks ``sure_at``, the least ``p`` above which the tuning side's
answers are right at least that often, and a monotone map sends ``sure_at`` to 0.5 (below it the panel
calls its answer a best guess). The matcher computes the features (``matcher._answer_features``).
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).parent / "data" / "confidence.json"

FEATURES = {
    "fit": "log-odds of how well the words fit: the record's pattern score and its margin over the next record, "
           "a raise template's match, a search guess's standing",
    "live": "the error object itself was read (its frames, their code and values), not a text",
    "raise_shown": "a frame shows the raise statement itself (a live error, or a pasted frame at a raise)",
    "call_site": "the site given is no raise statement but a call: compiled code or Python raised below it",
    "words_only": "no frame at all: the class and the message are all there is",
    "python_class": "the class is Python's own (TypeError, ValueError, …), which any code raises",
    "search": "no record's pattern matched and nothing else vouches for it: the search index's best guess",
    "site_class": "the record lists the site the error was placed at, and its class, one no builtin shares, is the one "
                  "pasted or raised",
    "other_release": "the site or the wording is another release's than the installed one's",
    "library": "a library of JAX's ecosystem raised the error or sits between the user and JAX",
    "no_record": "a site but no curated record",
    "tied": "another site or record fits the text as well as the answer",
    "rival": "another record's pattern matches the message too, however less well",
    "uncovered": "the share of the message the record's pattern leaves unspelled (all of it without a pattern)",
    "spelled": "how much literal text the record's pattern spells in the message (80 characters and more count as 1)",
}


@lru_cache(maxsize=1)
def model() -> dict:
    """The fitted weights: ``{"bias", "weights": {feature: weight}, "sure_at", ...}``."""
    return json.loads(DATA.read_text(encoding="utf-8"))


def probability(features: dict[str, float], fitted: dict | None = None) -> float:
    """The fitted chance that the answer is right."""
    m = fitted or model()
    z = m["bias"] + sum(m["weights"].get(k, 0.0) * v for k, v in features.items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def rescale(p: float, sure_at: float) -> float:
    """Monotone: ``sure_at`` becomes 0.5, 0 and 1 stay."""
    if p < sure_at:
        return 0.5 * p / sure_at
    return 0.5 + 0.5 * (p - sure_at) / (1.0 - sure_at) if sure_at < 1.0 else 1.0


def calibrated(features: dict[str, float], fitted: dict | None = None) -> float:
    """The confidence an answer with these features is shown with."""
    m = fitted or model()
    return round(rescale(probability(features, m), m["sure_at"]), 4)
