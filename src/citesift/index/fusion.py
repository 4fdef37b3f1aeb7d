"""Hybrid fusion: reciprocal rank fusion, and weighted sums of scores normalised per list by
their standard score (z-score) or by min-max."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from citesift.errors import invalid
from citesift.index.arguments import count, count_or
from citesift.model import Match
from citesift.numbers import is_finite_number, number_in

RRF_K = 60
HYBRID_TOP_SCORE = 2 / (RRF_K + 1)
"""The highest score of a hybrid hit (the reciprocal-rank scale: first in both lists)."""
MAX_RRF_K = 1e9
DEFAULT_VECTOR_WEIGHT = 0.5
DEFAULT_BM25_WEIGHT = 0.5
"""Equal weights by default: no prior for either side."""


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Match]], k: float = RRF_K, top_k: int | None = None
) -> list[Match]:
    """Fuse ranked lists: a hit scores the sum of ``1 / (k + rank)`` over the lists it is in
    (rank from 1; a repeated id counts at its first place). ``k`` is a finite number ≥ 0.
    Equal scores are ordered as ``fusion_order`` says."""
    k = number_in("k", k, 0, MAX_RRF_K)
    scores: dict[str, float] = {}
    first: dict[str, Match] = {}
    for ranking in rankings:
        for rank, hit in enumerate(_first_occurrences(ranking), start=1):
            first.setdefault(hit.id, hit)
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (k + rank)
    return _ranked(first, scores, top_k, fusion_order(rankings))


def weighted_fusion(
    vector_hits: Sequence[Match],
    bm25_hits: Sequence[Match],
    vector_weight: float = DEFAULT_VECTOR_WEIGHT,
    bm25_weight: float = DEFAULT_BM25_WEIGHT,
    top_k: int | None = None,
    bm25_depth: int | None = None,
) -> list[Match]:
    """Fuse two scored lists: ``wv · minmax(vector) + wb · minmax(bm25)`` per id, best first.

    Weights go through ``fusion_weights``; a hit missing from one list gets 0 from it. The
    BM25 side is scaled as ``lexical_side`` gives it (``bm25_depth``: how deep it was asked
    for, None when not known), so every match of a list shorter than that stands above a
    document BM25 did not match. Equal scores (min-max maps a list of equal scores all to 1)
    are ordered as ``fusion_order`` says.
    """
    weights = fusion_weights(vector_weight, bm25_weight)
    norm_v = min_max(vector_hits)
    norm_b = min_max(lexical_side(bm25_hits, vector_hits, bm25_depth))
    return _two_sided(vector_hits, bm25_hits, weights, (norm_v, 0.0), (norm_b, 0.0), top_k)


def zscore_fusion(
    vector_hits: Sequence[Match],
    bm25_hits: Sequence[Match],
    vector_weight: float = DEFAULT_VECTOR_WEIGHT,
    bm25_weight: float = DEFAULT_BM25_WEIGHT,
    top_k: int | None = None,
    bm25_depth: int | None = None,
) -> list[Match]:
    """Fuse two scored lists, ordered by ``wv · z(vector) + wb · z(bm25)`` per id, best
    first, where ``z`` is a score's distance from its list's mean in standard deviations;
    each hit scored as ``on_rank_scale`` says (positive, in that order).

    A standard score places a hit against its whole list (its mean and spread), where
    min-max looks at the list's two ends only, so the two sides' scales count alike
    whatever their extremes. The BM25 side is standardised as ``lexical_side`` gives it
    (``bm25_depth``: how deep it was asked for, None when not known), so a match of a list
    shorter than that stands above every document BM25 did not match, even the one match of
    a list; otherwise a hit missing from a list
    gets that list's lowest standard score (it ranked below all of them there). A standard
    score is only relative (the one hit of a list scores 0, however well it matches), so it
    orders the hits but is not what they score. Weights go through ``fusion_weights``;
    equal scores are ordered as ``fusion_order`` says.
    """
    weights = fusion_weights(vector_weight, bm25_weight)
    z_v = z_scores(vector_hits)
    z_b = z_scores(lexical_side(bm25_hits, vector_hits, bm25_depth))
    floor_v, floor_b = min(z_v.values(), default=0.0), min(z_b.values(), default=0.0)
    fused = _two_sided(vector_hits, bm25_hits, weights, (z_v, floor_v), (z_b, floor_b), None)
    k = count_or("top_k", top_k, len(fused), 0)
    return on_rank_scale(fused, [vector_hits, bm25_hits])[:k]


def lexical_side(
    bm25_hits: Sequence[Match], other_hits: Sequence[Match], bm25_depth: int | None = None
) -> list[Match]:
    """The BM25 list as fusion scales it. A list shorter than ``bm25_depth`` holds every
    document BM25 matched: each of ``other_hits`` it leaves out is no match, so it joins the
    list at BM25's score for no match, 0, and every match stands above it (a standard score
    of the matches alone puts the weakest match, or the only one, level with them). A list
    as deep as asked for may have stopped above some matches, and one of unknown depth
    (None) may have been cut by its caller, so either is kept as it is."""
    if bm25_depth is None:
        return list(bm25_hits)
    depth = count("bm25_depth", bm25_depth, 0)
    if len(bm25_hits) >= depth:
        return list(bm25_hits)
    listed = {h.id for h in bm25_hits}
    missing = {h.id: h for h in other_hits if h.id not in listed}
    return [*bm25_hits, *(replace(h, score=0.0) for h in missing.values())]


def on_rank_scale(
    fused: Sequence[Match], rankings: Sequence[Sequence[Match]], k: float = RRF_K
) -> list[Match]:
    """``fused`` (best first) in the same order, rescored on the reciprocal-rank scale: its
    scores mapped by one increasing linear map onto the range of the hits' reciprocal rank
    fusion scores over ``rankings`` (every hit the highest of them when its scores are all
    equal). So every hit found scores above 0, a hit both lists rank first scores about
    ``2 / (k + 1)`` even alone in its index, and gaps between scores keep their proportions
    (a min-max normalisation of them, as rerank fusion takes, is unchanged)."""
    if not fused:
        return []
    rrf = [h.score or 0.0 for h in reciprocal_rank_fusion(rankings, k)]
    low, high = min(rrf), max(rrf)
    scores = [_finite_or_zero(h.score) for h in fused]
    bottom, top = min(scores), max(scores)
    if top == bottom:
        return [replace(h, score=high) for h in fused]
    span = top / 2 - bottom / 2  # halved: top - bottom itself can overflow to inf
    return [
        replace(h, score=min(high, low + (s / 2 - bottom / 2) / span * (high - low)))
        for h, s in zip(fused, scores, strict=True)
    ]


def _two_sided(
    vector_hits: Sequence[Match],
    bm25_hits: Sequence[Match],
    weights: tuple[float, float],
    vector_side: tuple[dict[str, float], float],
    bm25_side: tuple[dict[str, float], float],
    top_k: int | None,
) -> list[Match]:
    """The two lists fused by ``wv · vector + wb · bm25`` per id, each side a map of
    normalised scores and the score a hit missing from that side gets; best first."""
    (wv, wb), (on_v, missing_v), (on_b, missing_b) = weights, vector_side, bm25_side
    first = {h.id: h for h in reversed([*vector_hits, *bm25_hits])}
    scores = {i: wv * on_v.get(i, missing_v) + wb * on_b.get(i, missing_b) for i in first}
    return _ranked(first, scores, top_k, fusion_order([vector_hits, bm25_hits]))


def z_scores(hits: Sequence[Match]) -> dict[str, float]:
    """Standard scores per id (first occurrence wins, non-finite or missing → 0): each
    score's distance from the mean in standard deviations; all 0 when the scores are all
    equal. Scaled by the largest magnitude first, so no sum overflows."""
    raw = {h.id: _finite_or_zero(h.score) for h in reversed(hits)}
    values = np.fromiter(raw.values(), dtype=np.float64, count=len(raw))
    scale = float(np.abs(values).max()) if len(values) else 0.0
    if scale == 0:
        return dict.fromkeys(raw, 0.0)
    values = values / scale
    spread = float(values.std())
    if spread == 0:
        return dict.fromkeys(raw, 0.0)
    return dict(zip(raw, ((values - values.mean()) / spread).tolist(), strict=True))


def fusion_order(rankings: Sequence[Sequence[Match]]) -> dict[str, tuple[int, int, str]]:
    """How hits of equal fused score are ordered, per id (smaller first): found by more of
    the lists, then placed higher in the list that places it highest, then by id, so the
    order never depends on how the lists happened to be merged."""
    lists: dict[str, int] = {}
    best: dict[str, int] = {}
    for ranking in rankings:
        for rank, hit in enumerate(_first_occurrences(ranking)):
            lists[hit.id] = lists.get(hit.id, 0) + 1
            best[hit.id] = min(best.get(hit.id, rank), rank)
    return {i: (-lists[i], best[i], i) for i in lists}


def fusion_weights(vector_weight: object, bm25_weight: object) -> tuple[float, float]:
    """The weights scaled to sum to one (by the larger first: no overflow), or
    ``InvalidArgument`` for a weight that is not a finite number ≥ 0, or both zero."""
    wv = number_in("vector_weight", vector_weight, 0, math.inf)
    wb = number_in("bm25_weight", bm25_weight, 0, math.inf)
    top = max(wv, wb)
    if top == 0:
        raise invalid("vector_weight", vector_weight, "above 0 when bm25_weight is 0")
    wv, wb = wv / top, wb / top
    return wv / (wv + wb), wb / (wv + wb)


def min_max(hits: Sequence[Match]) -> dict[str, float]:
    """Scores scaled to [0, 1] per id (first occurrence wins, non-finite or missing → 0); a
    list whose scores are all equal maps to 1, or to 0 when they are all 0."""
    raw = {h.id: _finite_or_zero(h.score) for h in reversed(hits)}
    if not raw:
        return {}
    low, high = min(raw.values()), max(raw.values())
    if high == low:
        return dict.fromkeys(raw, 0.0 if high == 0 else 1.0)
    half_span = high / 2 - low / 2  # halved: high - low itself can overflow to inf
    return {i: min(1.0, (s / 2 - low / 2) / half_span) for i, s in raw.items()}


def _first_occurrences(hits: Sequence[Match]) -> list[Match]:
    """``hits`` without later repeats of an id."""
    firsts: dict[str, Match] = {}
    for hit in hits:
        firsts.setdefault(hit.id, hit)
    return list(firsts.values())


def _ranked(
    first: dict[str, Match],
    scores: dict[str, float],
    top_k: int | None,
    ties: dict[str, tuple[int, int, str]],
) -> list[Match]:
    """The fused hits, best first (equal scores in the order of ``ties``): the first
    ``top_k`` (all for None)."""
    k = count_or("top_k", top_k, len(scores), 0)
    order = sorted(scores, key=lambda i: (-scores[i], ties[i]))[:k]
    return [replace(first[i], score=scores[i]) for i in order]


def _finite_or_zero(value: object) -> float:
    return float(value) if is_finite_number(value) else 0.0  # type: ignore[arg-type]
