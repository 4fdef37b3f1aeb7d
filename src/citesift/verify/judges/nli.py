"""The NLI judge: a natural-language-inference model the user supplies reads each candidate
sentence (and each run of neighbours) as premise and the claim as hypothesis.

The smallest premise the model finds entailing the claim supports it; a clear contradiction
and no entailment make it unsupported; some entailment, partly supported. A model that fails
gives an abstention, never a support.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from citesift.errors import invalid
from citesift.numbers import is_finite_number
from citesift.verify.candidates import Candidates
from citesift.verify.judges.base import ClaimCheck
from citesift.verify.judges.quoting import quote, quoted

ENTAILMENT = 0.7
"""Entailment at or above this supports the claim."""
CONTRADICTION = 0.7
"""Contradiction at or above this, with no entailment, rejects the claim."""
PARTIAL = 0.3
"""Entailment at or above this (but below ``ENTAILMENT``) supports it in part."""

NliModel = Callable[[str, str], Any]
"""``nli(premise, hypothesis)`` answering the probability of each label, as a mapping
``{"entailment": p, "neutral": p, "contradiction": p}`` (or an object with ``label`` and
``score``, such as ``NliResult``, for the one label it is sure of)."""


class NLIJudge:
    """Grades a claim with ``nli`` over its candidate sentences and their windows."""

    def __init__(self, nli: NliModel) -> None:
        if not callable(nli):
            raise invalid("nli", nli, "a function (premise, hypothesis) -> label probabilities")
        self.nli = nli

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> ClaimCheck:
        """The verdict of the smallest premise that entails ``claim``, else the best one."""
        premises = [(i,) for i in candidates.ranked] + [w for w in candidates.windows if len(w) > 1]
        if len(candidates.ranked) > 1:
            premises.append(tuple(sorted(candidates.ranked)))
        best: tuple[float, tuple[int, ...]] = (0.0, ())
        contradicted: int | None = None
        for premise in premises:
            try:
                entail, contra = _probabilities(
                    self.nli(" ".join(sentences[i] for i in premise), claim)
                )
            except Exception as exc:  # a failing model abstains, never supports
                failed = f"the NLI model failed: {exc}"[:300]
                return ClaimCheck("not_supported", (), 0.0, failed, abstained=True)
            if entail >= ENTAILMENT:
                return ClaimCheck("supported", premise, entail, _said("entail", premise, sentences))
            if entail > best[0]:
                best = (entail, premise)
            if contra >= CONTRADICTION and contradicted is None and len(premise) == 1:
                contradicted = premise[0]
        if best[0] >= PARTIAL:
            return ClaimCheck(
                "partially_supported", best[1], best[0], _said("partly entail", best[1], sentences)
            )
        if contradicted is not None:
            return ClaimCheck(
                "not_supported",
                (),
                best[0],
                f"{quote(sentences[contradicted])} contradicts the claim",
            )
        return ClaimCheck("not_supported", (), best[0], "no sentence entails the claim")


def _probabilities(answer: Any) -> tuple[float, float]:
    """(entailment, contradiction) from the model's answer; anything else is an error."""
    scores = nli_scores(answer)
    if scores is None:
        raise ValueError(f"unreadable answer {answer!r:.80}")
    entail, contra = scores.get("entailment", 0.0), scores.get("contradiction", 0.0)
    if not all(is_finite_number(p) and 0 <= p <= 1 for p in (entail, contra)):
        raise ValueError(f"unreadable answer {answer!r:.80}")
    return float(entail), float(contra)


def nli_scores(answer: object) -> dict[str, float] | None:
    """The score an NLI model's answer gives each label it names (lower case), whatever
    common shape it takes: a mapping of labels to probabilities, an ``NliResult`` (or an
    object with ``label`` and ``score``), a mapping with them, a ``(label, score)`` pair, or
    a Hugging Face pipeline's list of such mappings; None for any other shape."""
    if isinstance(answer, list) and answer and all(isinstance(a, Mapping) for a in answer):
        items = [nli_scores(a) for a in answer]
        if any(item is None for item in items):
            return None
        return {label: score for item in reversed(items) if item for label, score in item.items()}
    if isinstance(answer, Mapping) and "label" not in answer:
        pairs = list(answer.items())
    elif isinstance(answer, Mapping):
        pairs = [(answer.get("label"), answer.get("score"))]
    elif isinstance(answer, tuple | list) and len(answer) == 2:
        pairs = [(answer[0], answer[1])]
    else:
        pairs = [(getattr(answer, "label", None), getattr(answer, "score", None))]
    if not pairs or not all(_readable(label, score) for label, score in pairs):
        return None
    return {str(label).strip().lower(): float(score) for label, score in pairs}


def _readable(label: object, score: object) -> bool:
    return isinstance(label, str) and isinstance(score, int | float) and not isinstance(score, bool)


def _said(what: str, premise: tuple[int, ...], sentences: Sequence[str]) -> str:
    return f"the NLI model finds {quoted(sentences, premise)} {what} the claim"
