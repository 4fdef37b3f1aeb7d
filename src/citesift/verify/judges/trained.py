"""The trained offline judge, chosen by name: the features of ``features.measure`` weighed
by a logistic regression (``judge_model.py``) — the one shipped, trained on claims built
from Wikipedia articles, or one trained on your own claims with ``train/verify_judge.py``.
The rules of ``rules.py`` hold over whatever it says."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from citesift.verify.candidates import Candidates
from citesift.verify.judges.base import ClaimCheck, Label
from citesift.verify.judges.features import measure
from citesift.verify.judges.judge_model import JudgeModel, load_model, shipped_model
from citesift.verify.judges.rules import graded, unmeasured


class TrainedJudge:
    """A judge whose weights are learnt: ``model`` is a ``JudgeModel`` or the path of a
    model file ``train/verify_judge.py`` wrote; None takes the shipped one."""

    def __init__(self, model: JudgeModel | str | Path | None = None) -> None:
        if model is None:
            self.model = shipped_model()
        elif isinstance(model, JudgeModel):
            self.model = model
        else:
            self.model = load_model(Path(model))

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> ClaimCheck:
        """The grade of ``claim`` from the sentences in ``candidates``' windows."""
        measured = measure(claim, sentences, candidates)
        if measured is None:
            return unmeasured(claim, candidates)
        probabilities = self.model.probabilities(measured.features)
        label: Label = max(probabilities, key=lambda k: probabilities[k])
        return graded(label, self.model.score(probabilities["supported"]), measured, sentences)
