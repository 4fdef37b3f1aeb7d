"""What the offline judge measures of a claim beside its candidate sentences: how much of
the claim the best sentences cover (weighting rare facts more), whether every number, date
and name is matched, and whether the polarity agrees.

Sentences are chosen greedily, each adding the claim facts it newly covers, until none adds
``MIN_GAIN`` of the claim; the features describe that choice. The training script computes
the very same features, so the model shipped fits what the judge sees.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citesift.verify.candidates import Candidates
from citesift.verify.facts import Facts, facts

MAX_SUPPORTING = 4
"""At most this many sentences are named as support."""
MIN_GAIN = 0.12
"""A sentence joins the support when it covers at least this share of the claim anew."""
FACT_WEIGHT = 1.5
"""A number, date or name weighs this much more than a plain content word."""
CAP = 3
"""Counts of missed facts are capped here: a fourth miss tells nothing a third did not."""
NAMES = (
    "coverage",
    "coverage_first",
    "coverage_plain",
    "pairs",
    "missed_quantities",
    "missed_names",
    "missed_hard_share",
    "has_hard",
    "negation",
    "size",
    "chosen",
    "heaviest_missed",
)
"""The features, in the order the model's weights follow. The closeness of meaning ranks
the candidates but is no feature: its level depends on how alike two texts are written (a
sentence and its rewording are far closer than an article and a page it cites), so a model
fitted on one would misread the other."""


@dataclass(frozen=True, slots=True)
class Measured:
    """A claim measured against its candidates: the ``features`` (in ``NAMES`` order), the
    ``chosen`` sentences (best first), the hard facts ``missed``, the weighted ``coverage``
    and whether the polarity differs."""

    features: tuple[float, ...]
    chosen: tuple[int, ...]
    missed: tuple[str, ...]
    coverage: float
    negation: bool


@dataclass(frozen=True, slots=True)
class _Units:
    """A claim's facts as weighted units to cover."""

    weights: dict[str, float]
    hard: frozenset[str]  # numbers, dates and names: each must be matched


def measure(claim: str, sentences: Sequence[str], candidates: Candidates) -> Measured | None:
    """The features of ``claim`` against the sentences of ``candidates``' windows; None when
    the claim states no checkable fact."""
    claim_facts = facts(claim)
    sentence_facts = {i: facts(sentences[i]) for i in candidates.pool}
    units = _units(claim_facts, sentences)
    total = sum(units.weights.values())
    if total == 0:
        return None
    pool = {i: _keys(found) for i, found in sentence_facts.items()}
    chosen, covered = _greedy(units, pool, candidates.ranked)
    coverage = sum(units.weights[u] for u in covered) / total
    first = sum(units.weights[u] for u in pool[chosen[0]] & units.weights.keys()) if chosen else 0
    missed = tuple(sorted(units.hard - covered))
    quantities = sum(m.startswith(("n:", "m:")) for m in missed)
    negation = _polarity_differs(claim_facts, [sentence_facts[i] for i in chosen])
    features = (
        coverage,
        first / total,
        _share(claim_facts.stems, [sentence_facts[i].stems for i in chosen]),
        _share(claim_facts.pairs, [sentence_facts[i].pairs for i in chosen]),
        min(quantities, CAP),
        min(len(missed) - quantities, CAP),
        len(missed) / len(units.hard) if units.hard else 0.0,
        float(bool(units.hard)),
        float(negation),
        math.log1p(len(units.weights)),
        float(len(chosen)),
        max((units.weights[u] for u in units.weights.keys() - covered), default=0.0) / total,
    )
    return Measured(features, tuple(chosen), missed, coverage, negation)


def _share(wanted: frozenset[Any], found: Sequence[frozenset[Any]]) -> float:
    """The share of ``wanted`` found in any of the ``found`` sets (1 when nothing is wanted)."""
    if not wanted:
        return 1.0
    return len(wanted & frozenset().union(*found)) / len(wanted)


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
