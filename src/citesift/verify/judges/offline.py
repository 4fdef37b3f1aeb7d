"""The offline judge: on the CPU, with no model beyond the embedder and a small logistic
regression shipped as JSON, it checks that the candidate sentences repeat what the claim
asserts — its content words, every number, date and name, and its polarity — rather than
that they merely look alike.

The features (``features.py``) describe the sentences chosen to cover the claim; the model
(``judge_model.py``) turns them into a label and a calibrated score. Two rules hold whatever
the model says: a claim whose number or date is not found, or whose polarity its support
does not share, is never supported; a claim judged not supported names no sentence, however
close the least bad one is.
"""

from __future__ import annotations

from collections.abc import Sequence

from citesift.verify.candidates import Candidates
from citesift.verify.judges.base import ClaimCheck, Label
from citesift.verify.judges.features import Measured, measure
from citesift.verify.judges.judge_model import JudgeModel, shipped_model

BLOCKED_SCORE = 0.49
"""The highest score of a claim a rule keeps from being supported (below one half, as the
claim is more likely not supported in full than supported)."""


class OfflineJudge:
    """The default judge: fact coverage, number/date/name agreement and negation of the
    sentences found by words and meaning, weighed by a model trained on claims built from
    Wikipedia articles."""

    def __init__(self, model: JudgeModel | None = None) -> None:
        self.model = model or shipped_model()

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> ClaimCheck:
        """The grade of ``claim`` from the sentences in ``candidates``' windows."""
        measured = measure(claim, sentences, candidates)
        if measured is None:
            return ClaimCheck("not_supported", (), 0.0, "the claim states no checkable fact")
        probabilities = self.model.probabilities(measured.features)
        label: Label = max(probabilities, key=lambda k: probabilities[k])
        score = self.model.score(probabilities["supported"])
        if _blocked(measured):
            score = min(score, BLOCKED_SCORE)
            if label == "supported":
                label = "partially_supported"
        if not measured.chosen:
            label = "not_supported"
        reason = _reason(label, measured)
        if label == "not_supported":
            return ClaimCheck(label, (), score, reason)
        return ClaimCheck(label, tuple(sorted(measured.chosen)), score, reason)


def _blocked(measured: Measured) -> bool:
    """A number or date of the claim not found, or a polarity not shared."""
    return measured.negation or any(m.startswith(("n:", "m:")) for m in measured.missed)


def _reason(label: Label, measured: Measured) -> str:
    parts = [f"the sentences cover {round(100 * measured.coverage)}% of the claim's facts"]
    if measured.missed:
        shown = ", ".join(m.split(":", 1)[-1] for m in measured.missed[:5])
        parts.append(f"not found: {shown}")
    if measured.negation:
        parts.append("the claim and its support differ in negation")
    if label == "not_supported":
        parts.append("nothing in the source supports it")
    return "; ".join(parts)
