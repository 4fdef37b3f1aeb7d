"""The offline judges: the hand-set default and the trained one, whose model is JSON (no
pickle), shipped or read from a file; and the rules that hold over both: a missed number or
a negation never supports, and a claim with no sentence behind it is not supported and
names none."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from citesift.errors import CitesiftError
from citesift.verify import Judge, OfflineJudge, TrainedJudge, find_candidates, verify_claim
from citesift.verify.judges.features import NAMES, measure
from citesift.verify.judges.judge_model import (
    MAX_MODEL_BYTES,
    MODEL_FILE,
    JudgeModel,
    ModelFileError,
    load_model,
    read_model,
    shipped_model,
)
from citesift.verify.judges.rules import BLOCKED_SCORE

ROOT = Path(__file__).resolve().parent.parent
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


JUDGES = [OfflineJudge(), TrainedJudge(always(0))]


def test_the_shipped_model_reads_and_scores_between_zero_and_one() -> None:
    model = shipped_model()
    assert shipped()["features"] == list(NAMES)
    found = measure(SENTENCES[1], SENTENCES, find_candidates(SENTENCES[1], SENTENCES))
    assert found is not None
    probabilities = model.probabilities(found.features)
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert max(probabilities, key=lambda k: probabilities[k]) == "supported"
    assert 0.0 < model.score(0.2) < model.score(0.5) < model.score(0.9) < 1.0


@pytest.mark.parametrize("judge", [OfflineJudge(), TrainedJudge()])
def test_both_judges_support_a_claim_their_source_states(judge: Judge) -> None:
    check = verify_claim("The City Museum has 312 rooms.", SENTENCES, judge)
    assert check.label == "supported" and 1 in check.supporting
    assert check.score > 0.5


def test_the_default_judge_is_the_hand_set_one() -> None:
    claim = "The City Museum opened in 1998."
    assert verify_claim(claim, SENTENCES) == verify_claim(claim, SENTENCES, OfflineJudge())


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


def test_a_model_is_read_from_the_file_named(tmp_path: Path) -> None:
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(shipped()), encoding="utf-8")
    assert TrainedJudge(path).model.platt == shipped_model().platt
    for body in (b"[1, 2]", b"\xff not json", b" " * (MAX_MODEL_BYTES + 1)):
        path.write_bytes(body)
        with pytest.raises(ModelFileError):
            load_model(path)
    with pytest.raises(ModelFileError, match="cannot read"):
        TrainedJudge(tmp_path / "absent.json")


@pytest.mark.parametrize("judge", JUDGES)
@pytest.mark.parametrize(
    ("claim", "missing"),
    [("The museum has 14 floors.", "14"), ("The City Museum never opened in 1998.", "negat")],
)
def test_a_missed_number_or_negation_is_never_supported(
    judge: Judge, claim: str, missing: str
) -> None:
    check = judge.judge(claim, SENTENCES, find_candidates(claim, SENTENCES))
    assert check.label == "partially_supported" and check.score <= BLOCKED_SCORE
    assert missing in check.reason


@pytest.mark.parametrize("judge", JUDGES)
def test_nothing_behind_a_claim_is_not_supported_and_names_no_sentence(judge: Judge) -> None:
    claim = "Penguins migrate across the southern ocean."
    check = judge.judge(claim, SENTENCES, find_candidates(claim, SENTENCES))
    assert check.label == "not_supported" and check.supporting == ()
    no_fact = judge.judge("it is", SENTENCES, find_candidates("it", SENTENCES))
    assert no_fact.label == "not_supported" and no_fact.score == 0.0


def test_training_standardises_by_the_mean_and_scale_the_model_file_keeps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The model is fitted on the standard scores the judge computes from the file, whose
    mean and scale are rounded: not on those of the unrounded ones."""
    monkeypatch.syspath_prepend(str(ROOT / "train"))
    training = importlib.import_module("verify_judge")
    x = np.array([[0.1234567891, 2.0, 1 / 3], [0.2, 2.0, 2 / 3], [0.35, 2.0, 1.0]])
    mean, scale = training.standardisation(x)
    kept = {
        name: json.loads(json.dumps([round(v, training.DECIMALS) for v in values.tolist()]))
        for name, values in (("mean", mean), ("scale", scale))
    }
    assert mean.tolist() == kept["mean"] and scale.tolist() == kept["scale"]
    assert mean.tolist() == pytest.approx(x.mean(axis=0).tolist(), abs=1e-6)
    assert scale[1] == 1.0  # a feature that never varies


def test_a_model_trained_on_your_own_claims_is_written_and_judges(tmp_path: Path) -> None:
    """Every claim has the same words but the numbers, so a feature (its size) never varies:
    it is written with the spread 1, and the model loads."""
    rows = []
    for n in range(60):
        claim = f"Station {n} recorded {n + 3} storms in {1990 + n}."
        sources = {
            "supported": [claim, "The sea was calm."],
            "partially_supported": [claim.replace(f" {n + 3} ", f" {n + 40} "), "It was calm."],
            "not_supported": ["The sea was calm.", "Gulls nested on the cliffs."],
        }
        label = ("supported", "partially_supported", "not_supported")[n % 3]
        rows.append({"claim": claim, "sentences": sources[label], "label": label})
    data = tmp_path / "claims.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "model.json"
    script = [sys.executable, str(ROOT / "train" / "verify_judge.py"), "--data", str(data)]
    extra = ["--cache", str(tmp_path / "cache.db")]
    done = subprocess.run([*script, *extra, "--out", str(out)], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    model = json.loads(out.read_text(encoding="utf-8"))
    assert "claims.jsonl" in model["about"] and model["scale"][NAMES.index("size")] == 1.0
    check = verify_claim("Station 7 recorded 10 storms in 1997.", SENTENCES[:1], TrainedJudge(out))
    assert check.label in {"supported", "partially_supported", "not_supported"}
    data.write_text('{"claim": "x", "sentences": "not a list", "label": "supported"}\n')
    bad = subprocess.run([*script, *extra, "--out", str(out)], capture_output=True, check=False)
    assert bad.returncode == 2 and b"claims.jsonl:1" in bad.stderr
    no_out = subprocess.run([*script, *extra], capture_output=True, check=False)
    assert no_out.returncode == 2 and b"--out" in no_out.stderr
