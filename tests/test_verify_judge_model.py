"""The offline judge's shipped model (JSON weights, no pickle) and the rules that hold over
whatever a model says: a missed number or a negation never supports, and a claim with no
sentence behind it is not supported and names none."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

import numpy as np
import pytest

from citesift.errors import CitesiftError
from citesift.verify import OfflineJudge, find_candidates
from citesift.verify.judges.features import NAMES, measure
from citesift.verify.judges.judge_model import (
    MODEL_FILE,
    JudgeModel,
    ModelFileError,
    read_model,
    shipped_model,
)

SENTENCES = [
    "The City Museum opened in 1998.",
    "It has 312 rooms on 12 floors.",
    "Its director is Ada Lovelace-Byron, appointed in 2015.",
    "The cafe on the ground floor serves lunch.",
]


def shipped() -> dict[str, Any]:
    text = files("citesift.verify.judges").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def always(label: int) -> JudgeModel:
    """A model that is sure of one label whatever the features."""
    bias = np.full(3, -20.0)
    bias[label] = 20.0
    size = len(NAMES)
    return JudgeModel(np.zeros(size), np.ones(size), np.zeros((3, size)), bias, (1.0, 0.0))


def test_the_shipped_model_reads_and_scores_between_zero_and_one() -> None:
    model = shipped_model()
    assert shipped()["features"] == list(NAMES)
    found = measure(SENTENCES[1], SENTENCES, find_candidates(SENTENCES[1], SENTENCES))
    assert found is not None
    probabilities = model.probabilities(found.features)
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert max(probabilities, key=lambda k: probabilities[k]) == "supported"
    assert 0.0 < model.score(0.2) < model.score(0.5) < model.score(0.9) < 1.0


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m.update(features=m["features"][::-1]),
        lambda m: m.update(weights=m["weights"][:2]),
        lambda m: m.update(scale=[0.0] * len(NAMES)),
        lambda m: m.update(bias=["nan", 0, 0]),
        lambda m: m.pop("platt"),
    ],
)
def test_a_model_file_that_does_not_fit_the_code_is_refused(change: Any) -> None:
    data = shipped()
    change(data)
    with pytest.raises(ModelFileError) as raised:
        read_model(data)
    assert isinstance(raised.value, CitesiftError)


@pytest.mark.parametrize(
    ("claim", "missing"),
    [("The museum has 14 floors.", "14"), ("The City Museum never opened in 1998.", "negat")],
)
def test_a_missed_number_or_negation_is_never_supported_whatever_the_model(
    claim: str, missing: str
) -> None:
    found = find_candidates(claim, SENTENCES)
    check = OfflineJudge(always(0)).judge(claim, SENTENCES, found)
    assert check.label == "partially_supported" and check.score <= 0.49
    assert missing in check.reason


def test_nothing_behind_a_claim_is_not_supported_even_by_a_model_that_says_so() -> None:
    claim = "Penguins migrate across the southern ocean."
    check = OfflineJudge(always(0)).judge(claim, SENTENCES, find_candidates(claim, SENTENCES))
    assert check.label == "not_supported" and check.supporting == ()
    no_fact = OfflineJudge(always(0)).judge("it is", SENTENCES, find_candidates("it", SENTENCES))
    assert no_fact.label == "not_supported" and no_fact.score == 0.0
