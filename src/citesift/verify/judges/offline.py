"""The offline judge: on the CPU, with no model beyond the embedder, it checks that the
candidate sentences repeat what the claim asserts — its content words, every number, date
and name, and its polarity — rather than that they merely look alike.

Sentences are chosen greedily, each adding the claim facts it newly covers (a fact rare in
the source weighs more), until none adds enough. The share covered, the facts missed and the
closeness of meaning give the score; a claim with nothing substantial behind it is not
supported and gets no supporting sentence, however close the least bad one is.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from citesift.verify.candidates import Candidates
from citesift.verify.facts import Facts, facts
from citesift.verify.judges.base import ClaimCheck, Label

MAX_SUPPORTING = 4
"""At most this many sentences are named as support."""
MIN_GAIN = 0.12
"""A sentence joins the support when it covers at least this share of the claim anew."""
SUPPORTED_COVERAGE = 0.6
"""Share of the claim's weighted facts the support must cover to support it in full (a
source words a fact its own way, so some of the claim's words never appear in it)."""
PARTIAL_COVERAGE = 0.25
"""Share below which the claim is not supported at all."""
MAX_MISSED_NAMES = 1
"""Names a supported claim may lack (a capitalised word is not always a name); every number
and date must be found."""
FACT_WEIGHT = 1.5
"""A number, date or name weighs this much more than a plain content word."""
SCORE_WEIGHTS = {"bias": -4.0, "coverage": 5.0, "dense": 2.5, "missed": -3.0, "negation": -3.0}
"""The logistic score's weights, set by reasoning over the features' ranges, not fitted: full
coverage of a close sentence scores about 0.9; each number, date or name missed, or a
negation not shared, takes the odds down about twentyfold."""


@dataclass(frozen=True, slots=True)
class _Units:
    """A claim's facts as weighted units to cover."""

    weights: dict[str, float]
    hard: frozenset[str]  # numbers, dates and names: each must be matched


class OfflineJudge:
    """The default judge: fact coverage, number/date/name agreement, negation, closeness."""

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> ClaimCheck:
        """The grade of ``claim`` from the sentences in ``candidates``' windows."""
        claim_facts = facts(claim)
        units = _units(claim_facts, sentences)
        total = sum(units.weights.values())
        if total == 0:
            return ClaimCheck("not_supported", (), 0.0, "the claim states no checkable fact")
        pool = {i: _keys(facts(sentences[i])) for i in candidates.pool}
        chosen, covered = _greedy(units, pool, candidates.ranked)
        coverage = sum(units.weights[u] for u in covered) / total
        missed = sorted(units.hard - covered)
        negation = _polarity_differs(claim_facts, [facts(sentences[i]) for i in chosen])
        dense = max((candidates.dense[i] for i in chosen), default=0.0) if candidates.dense else 0.0
        score = _score(coverage, dense, len(missed), negation)
        label = _label(coverage, missed, negation)
        if label == "not_supported":
            return ClaimCheck(label, (), score, _reason(label, coverage, missed, negation))
        return ClaimCheck(
            label, tuple(sorted(chosen)), score, _reason(label, coverage, missed, negation)
        )


def _keys(found: Facts) -> frozenset[str]:
    """The facts of a text as comparable keys (``n:``, ``m:`` and plain stems)."""
    return found.stems | {f"n:{n}" for n in found.numbers} | {f"m:{m}" for m in found.months}


def _units(claim: Facts, sentences: Sequence[str]) -> _Units:
    """The claim's keys weighted by rarity among ``sentences`` (rarer weighs more)."""
    keys = _keys(claim)
    hard = {f"n:{n}" for n in claim.numbers} | {f"m:{m}" for m in claim.months} | claim.entities
    document = Counter(k for s in sentences for k in _keys(facts(s)) & keys)
    count = max(len(sentences), 1)
    weights = {
        k: math.log(1 + count / (1 + document[k])) * (FACT_WEIGHT if k in hard else 1.0)
        for k in keys
    }
    return _Units(weights, frozenset(hard & keys))


def _greedy(
    units: _Units, pool: dict[int, frozenset[str]], ranked: Sequence[int]
) -> tuple[list[int], set[str]]:
    """Sentences added while one covers at least ``MIN_GAIN`` of the claim anew; ties go to
    the better-ranked sentence."""
    total = sum(units.weights.values())
    rank = {i: r for r, i in enumerate(ranked)}
    chosen: list[int] = []
    covered: set[str] = set()
    while len(chosen) < MAX_SUPPORTING:
        best, gain = -1, 0.0
        for i in sorted(pool, key=lambda i: rank.get(i, len(rank))):
            new = sum(units.weights[u] for u in (pool[i] & units.weights.keys()) - covered)
            if new > gain:
                best, gain = i, new
        if best < 0 or gain < MIN_GAIN * total:
            break
        chosen.append(best)
        covered |= pool[best] & units.weights.keys()
    return chosen, covered


def _polarity_differs(claim: Facts, chosen: list[Facts]) -> bool:
    """A negated claim whose support holds no negation, or a claim whose main supporting
    sentence (the one covering most of it) is negated while the claim is not."""
    if claim.negated:
        return not any(c.negated for c in chosen)
    return bool(chosen) and chosen[0].negated


def _score(coverage: float, dense: float, missed: int, negation: bool) -> float:
    w = SCORE_WEIGHTS
    z = w["bias"] + w["coverage"] * coverage + w["dense"] * dense + w["missed"] * missed
    return 1 / (1 + math.exp(-(z + (w["negation"] if negation else 0.0))))


def _label(coverage: float, missed: list[str], negation: bool) -> Label:
    if coverage < PARTIAL_COVERAGE:
        return "not_supported"
    quantities = [m for m in missed if m.startswith(("n:", "m:"))]
    names = len(missed) - len(quantities)
    if coverage >= SUPPORTED_COVERAGE and not quantities and names <= MAX_MISSED_NAMES:
        return "partially_supported" if negation else "supported"
    return "partially_supported"


def _reason(label: Label, coverage: float, missed: list[str], negation: bool) -> str:
    parts = [f"the sentences cover {round(100 * coverage)}% of the claim's facts"]
    if missed:
        shown = ", ".join(m.split(":", 1)[-1] for m in missed[:5])
        parts.append(f"not found: {shown}")
    if negation:
        parts.append("the claim and its support differ in negation")
    if label == "not_supported":
        parts.append("nothing in the source supports it")
    return "; ".join(parts)
