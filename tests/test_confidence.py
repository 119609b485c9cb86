"""The confidence (``jaxerrs.confidence``): its fitted weights name the matcher's features, and its scale puts the
fit's ``sure_at`` at 0.5, on real diagnoses."""

from __future__ import annotations

import json
from pathlib import Path

import jax.numpy as jnp
import pytest

import jaxerrs
from jaxerrs import confidence
from jaxerrs.matcher import diagnose_exception


def test_weights_name_the_features_the_matcher_gives():
    d = jaxerrs.diagnose_text("TypeError: Gradient only defined for scalar-output functions. Output had shape: (3,).")
    assert set(d.features) == set(confidence.FEATURES)
    assert set(confidence.model()["weights"]) == set(confidence.FEATURES)
    assert 0.0 < confidence.model()["sure_at"] < 1.0


@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 0.9, 0.97, 1.0])
def test_scale_is_monotone_and_keeps_the_ends(p):
    sure_at = confidence.model()["sure_at"]
    assert confidence.rescale(0.0, sure_at) == 0.0 and confidence.rescale(1.0, sure_at) == pytest.approx(1.0)
    assert confidence.rescale(sure_at, sure_at) == pytest.approx(0.5)
    assert confidence.rescale(p, sure_at) <= confidence.rescale(min(1.0, p + 0.01), sure_at)


def test_confidence_is_the_calibrated_probability_of_the_features():
    try:
        jnp.ones(3) + jnp.ones(4)
    except TypeError as e:
        d = diagnose_exception(e)
    assert d.features["live"] == 1.0
    p = confidence.probability(d.features)
    assert d.confidence == pytest.approx(confidence.rescale(p, confidence.model()["sure_at"]), abs=1e-4)
    assert d.confidence >= 0.5  # a live error whose record fits: sure


def test_a_search_guess_is_never_weighed_above_a_pattern_match():
    base = {k: 0.0 for k in confidence.FEATURES}
    guess = base | {"search": 1.0}
    # Never surer: the fit leaves the feature out where the tuning data would make it raise the confidence.
    assert confidence.model()["weights"]["search"] <= 0.0
    assert confidence.calibrated(guess) <= confidence.calibrated(base)


def test_a_record_guessed_at_a_raise_it_does_not_list_is_a_best_guess():
    # numpyro#819 (a tuning text): JAX 0.2's `_random_bits` raise is shown, and no record's pattern words its
    # message; the record found by its words lists another raise. However sure the site, the answer is a guess.
    items = json.loads((Path(__file__).parent / "data" / "tuning_texts_p.json").read_text(encoding="utf-8"))
    text = next(i["text"] for i in items if i["url"].endswith("numpyro/pull/819"))
    d = jaxerrs.diagnose_text(text)
    assert d.site is not None and d.site.function == "_random_bits" and d.features["raise_shown"] == 1.0
    assert d.features["search"] == 1.0
    assert d.confidence < 0.5
