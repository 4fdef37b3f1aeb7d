"""Fusion, the scoring contract and rerankers: the hybrid rules and their sanitising."""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from citesift.errors import InvalidArgument
from citesift.index.fusion import (
    fusion_weights,
    lexical_side,
    min_max,
    on_rank_scale,
    reciprocal_rank_fusion,
    weighted_fusion,
    z_scores,
    zscore_fusion,
)
from citesift.index.rerankers.base import (
    RerankError,
    rerank_checked,
    rerank_fused,
    rerank_weight,
)
from citesift.index.rerankers.bm25 import BM25Reranker
from citesift.index.retriever import check_scores, query_of
from citesift.model import Match, Provenance

MAX = sys.float_info.max


def hits(*pairs: tuple[str, float | None], content: str = "") -> list[Match]:
    return [Match(i, s, content or f"text of {i}") for i, s in pairs]


def test_negative_vector_scores_normalise() -> None:
    out = weighted_fusion(hits(("far", -0.9), ("near", -0.1)), [], 1, 0)
    assert out[0].id == "near"
    assert [h.score for h in out] == [1.0, 0.0]


def test_equal_weights_give_scores_in_unit_range() -> None:
    out = weighted_fusion(hits(("a", 3), ("b", 1)), hits(("b", 9), ("c", 2)), 1, 1)
    assert all(0 <= h.score <= 1 for h in out)  # type: ignore[operator]
    assert {h.id for h in out} == {"a", "b", "c"}


def test_constant_and_non_finite_scores_stay_finite() -> None:
    out = weighted_fusion(hits(("a", 2), ("b", 2)), hits(("a", math.nan), ("b", math.inf)))
    assert all(math.isfinite(h.score) for h in out)  # type: ignore[arg-type]


def test_duplicate_ids_keep_the_first_and_stay_finite() -> None:
    out = weighted_fusion(hits(("a", 5), ("a", 1), ("b", 3)), [])
    assert [h.id for h in out] == ["a", "b"]
    assert out[0].score == pytest.approx(0.5)


@pytest.mark.parametrize(
    "weights", [(math.nan, 1), (1, -3), (0, 0), (math.inf, 1), ("1", 1), (True, 1)]
)
def test_fusion_weights_that_make_no_sense_are_refused(weights: tuple[Any, Any]) -> None:
    with pytest.raises(InvalidArgument, match="_weight must be"):
        fusion_weights(*weights)


@pytest.mark.parametrize(
    "weights,expected",
    [
        ((0, 2), (0.0, 1.0)),
        ((6, 4), (0.6, 0.4)),
        ((MAX, MAX), (0.5, 0.5)),
        ((MAX, 0), (1.0, 0.0)),
    ],
)
def test_fusion_weights_are_a_finite_pair_summing_to_one(
    weights: tuple[float, float], expected: tuple[float, float]
) -> None:
    wv, wb = fusion_weights(*weights)
    assert (wv, wb) == pytest.approx(expected)
    assert math.isfinite(wv) and math.isfinite(wb) and wv + wb == pytest.approx(1)


def test_max_value_weights_fuse_to_finite_scores() -> None:
    out = weighted_fusion(hits(("a", 1), ("b", 0)), hits(("b", 1)), MAX, MAX)
    assert all(math.isfinite(h.score) for h in out)  # type: ignore[arg-type]


def test_zscore_fusion_gives_a_hit_missing_from_a_list_that_lists_lowest_score() -> None:
    out = zscore_fusion(hits(("a", 3), ("b", 2), ("c", 1)), hits(("a", 2), ("d", 1)))
    low = -math.sqrt(1.5)  # the z-score of 1 among 3, 2, 1
    assert [h.id for h in out] == ["a", "b", "d", "c"]  # d and c tie: d ranks higher
    fused = [(-low + 1) / 2, (0 - 1) / 2, (low - 1) / 2, (low - 1) / 2]  # wv·z + wb·z
    rrf_low, rrf_high = 1 / 63, 1 / 61 + 1 / 61  # c, third in one list; a, first in both
    on_scale = [rrf_low + (f - fused[3]) / (fused[0] - fused[3]) * (rrf_high - rrf_low)
                for f in fused]  # fmt: skip
    assert [h.score for h in out] == pytest.approx(on_scale)


def test_a_lone_match_scores_as_both_lists_ranking_it_first_not_zero() -> None:
    """A standard score is 0 for the one hit of a list: fused, the only match of a one-chunk
    index must not look worthless."""
    (only,) = zscore_fusion(hits(("a", 0.8)), hits(("a", 4.2)))
    assert only.score == pytest.approx(2 / 61)
    match, other = zscore_fusion(hits(("a", 0.8), ("b", 0.05)), hits(("a", 4.2)))
    assert (match.id, other.id) == ("a", "b") and match.score > other.score > 0  # type: ignore[operator]


@pytest.mark.parametrize("fuse", [zscore_fusion, weighted_fusion])
def test_every_lexical_match_stands_above_the_documents_bm25_did_not_match(fuse: Any) -> None:
    """The weakest of two matches, or the only one, gets more from the BM25 side than a
    document it did not match, however little the dense side tells them apart."""
    others = [(f"f{i}", 0.5) for i in range(40)]
    keyword = hits(("moon", 7.0), ("sea", 2.0))  # all BM25 matched, 300 asked for
    out = fuse(hits(*others, ("moon", 0.5), ("sea", 0.5)), keyword, bm25_depth=300)
    assert [h.id for h in out[:2]] == ["moon", "sea"]
    assert out[0].score > out[1].score > out[2].score == out[-1].score
    noisy = [(f"f{i}", 0.9 - i / 100) for i in range(40)]  # the match: last on the dense side
    (first, *_) = fuse(hits(*noisy, ("moon", 0.2)), hits(("moon", 1.5)), bm25_depth=300)
    assert first.id == "moon"


def test_a_bm25_list_cut_at_its_depth_is_kept_and_a_shorter_one_takes_the_others_at_zero() -> None:
    keyword, dense = hits(("a", 4.0), ("b", 1.0)), hits(("c", 0.9), ("a", 0.5))
    assert lexical_side(keyword, dense, 2) == keyword
    scored = [(h.id, h.score) for h in lexical_side(keyword, dense, 3)]
    assert scored == [("a", 4.0), ("b", 1.0), ("c", 0.0)]
    assert lexical_side(keyword, dense) == keyword  # of unknown depth: maybe cut
    with pytest.raises(InvalidArgument, match="bm25_depth must be"):
        lexical_side(keyword, dense, -1)


def test_on_rank_scale_keeps_the_order_and_the_proportions_of_the_gaps() -> None:
    fused = hits(("a", 3.0), ("b", 1.0), ("c", 0.0), ("d", -1.0))
    rankings = [hits(("c", 1), ("a", 1), ("d", 1)), hits(("b", 1), ("a", 1))]
    out = on_rank_scale(fused, rankings)
    assert [h.id for h in out] == ["a", "b", "c", "d"]
    assert min_max(out) == pytest.approx(min_max(fused))  # what rerank fusion takes
    assert out[0].score == pytest.approx(2 / 62) and out[-1].score == pytest.approx(1 / 63)
    assert [h.score for h in on_rank_scale(hits(("x", 0), ("y", 0)), rankings)] == [2 / 62] * 2
    assert on_rank_scale([], rankings) == []


def test_z_scores_of_equal_huge_or_no_scores_stay_finite() -> None:
    assert z_scores(hits(("a", 2), ("b", 2))) == {"a": 0.0, "b": 0.0}
    assert z_scores([]) == {}
    spread = z_scores(hits(("a", MAX), ("b", -MAX), ("c", math.nan)))
    assert spread["a"] == pytest.approx(math.sqrt(1.5)) and spread["c"] == pytest.approx(0)
    out = zscore_fusion(hits(("a", MAX), ("b", -MAX)), hits(("b", MAX)), MAX, MAX)
    assert [h.id for h in out] == ["a", "b"] or [h.id for h in out] == ["b", "a"]
    assert all(math.isfinite(h.score) for h in out)  # type: ignore[arg-type]


def test_zscore_fusion_orders_ties_by_agreement_then_rank() -> None:
    out = zscore_fusion(hits(("x", 0.9), ("y", 0.9)), hits(("z", 3.0), ("y", 3.0)))
    assert [h.id for h in out] == ["y", "x", "z"]


def test_rrf_rewards_agreement() -> None:
    out = reciprocal_rank_fusion([hits(("a", 9), ("b", 8)), hits(("b", 1), ("c", 0))])
    assert [h.id for h in out] == ["b", "a", "c"]
    assert out[0].score == pytest.approx(1 / 62 + 1 / 61)


def test_rrf_top_k_cuts_and_an_invalid_k_is_refused() -> None:
    out = reciprocal_rank_fusion([hits(("a", 1), ("b", 1))], top_k=1)
    assert [(h.id, h.score) for h in out] == [("a", 1 / 61)]
    for k in (math.nan, -1, math.inf):
        with pytest.raises(InvalidArgument, match="k must be"):
            reciprocal_rank_fusion([hits(("a", 1))], k=k)


def test_unscored_results_keep_their_order() -> None:
    listed = hits(("b", None), ("a", None))
    assert check_scores(listed) == listed


@pytest.mark.parametrize(
    "scores", [(1.0, None), (None, 2.0), (math.nan, 1.0), (math.inf, 1.0), ("3", 1.0)]
)
def test_mixed_or_non_finite_scores_are_refused(scores: tuple[Any, Any]) -> None:
    with pytest.raises(TypeError, match="score"):
        check_scores(hits(("a", scores[0]), ("b", scores[1])))


def test_scored_results_come_sorted() -> None:
    assert [h.id for h in check_scores(hits(("a", 1), ("b", 3), ("c", 2)))] == ["b", "c", "a"]


def test_rerank_never_mutates_inputs_and_keeps_provenance() -> None:
    where = Provenance("doc", 0, 0, 5)
    original = Match("a", 1.0, "solar", {"k": 1}, where)

    class Meddler:
        def rerank(self, query: str, found: list[Match], top_k: int) -> list[Match]:
            found[0].metadata["k"] = 2
            return [Match(h.id, 1.0, h.content) for h in found]

    [out] = rerank_checked(Meddler(), "solar", [original], 1)
    assert original.metadata == {"k": 1} and out.provenance == where


class BadReranker:
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def rerank(self, query: str, found: list[Match], top_k: int) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    "answer",
    [
        ValueError("boom"),
        "not a list",
        [{"id": "a"}],
        [Match("a", math.nan, "x")],
        [Match("a", 1.0, "x"), Match("b", None, "y")],
    ],
)
def test_bad_reranker_answers_are_rerank_errors(answer: Any) -> None:
    with pytest.raises(RerankError, match="rerank failed"):
        rerank_fused(BadReranker(answer), "q", hits(("a", 1.0)), 1)


def test_rerank_error_is_rethrown_unchanged() -> None:
    error = RerankError("upstream said no")
    with pytest.raises(RerankError) as caught:
        rerank_fused(BadReranker(error), "q", hits(("a", 1.0)), 1)
    assert caught.value is error


def test_bm25_reranker_is_the_default_and_obeys_top_k() -> None:
    found = [Match("a", None, "wind turbines"), Match("b", None, "solar solar power")]
    assert [h.id for h in BM25Reranker().rerank("solar", found, 1)] == ["b"]


def test_bm25_reranker_reads_unicode_and_cjk() -> None:
    found = [
        Match("tokyo", None, "東京は日本の首都です"),
        Match("munich", None, "Ärzte in München"),
    ]
    assert BM25Reranker().rerank("東京", found, 1)[0].id == "tokyo"
    assert BM25Reranker().rerank("münchen ärzte", found, 1)[0].id == "munich"


def test_retrieve_takes_the_last_user_message() -> None:
    messages = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "x"},
        {"role": "user", "content": "solar?"},
    ]
    assert query_of(messages=messages) == "solar?"


scores_lists = st.lists(
    st.tuples(st.sampled_from("abcdef"), st.floats(allow_nan=True, allow_infinity=True)),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(
    vector=scores_lists,
    keyword=scores_lists,
    weights=st.tuples(st.floats(0, MAX), st.floats(0, MAX)).filter(lambda w: max(w) > 0),
)
@example(vector=[], keyword=[("a", sys.float_info.max), ("b", -1e292)], weights=(0.0, 1.0))
def test_fusions_are_always_finite_sorted_and_bounded(
    vector: list[tuple[str, float]], keyword: list[tuple[str, float]], weights: tuple[float, float]
) -> None:
    ranks = 1 / (60 + 6)  # six ids at most: a hit found ranks 6th at worst
    for fuse, low, high in ((weighted_fusion, 0, 1), (zscore_fusion, ranks, 2 / 61)):
        out = fuse(hits(*vector), hits(*keyword), *weights)
        values = [h.score for h in out]
        assert all(math.isfinite(v) and low - 1e-9 <= v <= high + 1e-9 for v in values)  # type: ignore[arg-type]
        assert values == sorted(values, reverse=True)  # type: ignore[type-var]
        assert len({h.id for h in out}) == len(out) == len({i for i, _ in vector + keyword})


class Reversing:
    """A reranker that scores the candidates in reverse order of the first stage."""

    def rerank(self, query: str, found: list[Match], top_k: int) -> list[Match]:
        return [Match(h.id, float(i), h.content) for i, h in enumerate(found)][::-1][:top_k]


FIRST_STAGE = hits(("a", 10.0), ("b", 9.9), ("c", 9.8), ("d", 0.0))


def test_rerank_fusion_keeps_the_first_stage_signal() -> None:
    # reranker: d 1, c 2/3, b 1/3, a 0; first stage: a 1, b .99, c .98, d 0; a tie of a and d
    # goes the reranker's way
    out = rerank_fused(Reversing(), "q", FIRST_STAGE, 4)
    assert [h.id for h in out] == ["c", "b", "d", "a"]
    assert [h.score for h in out[2:]] == pytest.approx([0.5, 0.5])
    assert out[0].score == pytest.approx(0.5 * 2 / 3 + 0.5 * 9.8 / 10)


@pytest.mark.parametrize("weight", [1, 1.0])
def test_rerank_weight_one_is_the_reranker_alone(weight: float) -> None:
    assert [h.id for h in rerank_fused(Reversing(), "q", FIRST_STAGE, 2, weight)] == ["d", "c"]


@pytest.mark.parametrize("weight", [math.nan, -1, 2, math.inf, True, "0.9"])
def test_absurd_rerank_weights_are_refused(weight: Any) -> None:
    with pytest.raises(InvalidArgument, match="rerank_weight must be"):
        rerank_weight(weight)
    with pytest.raises(InvalidArgument, match="rerank_weight must be"):
        rerank_fused(Reversing(), "q", FIRST_STAGE, 1, weight)


def test_rerank_weight_zero_keeps_the_first_stage_order() -> None:
    assert [h.id for h in rerank_fused(Reversing(), "q", FIRST_STAGE, 4, 0)] == list("abcd")


def test_unscored_first_stage_takes_the_reranker_order() -> None:
    out = rerank_fused(Reversing(), "q", hits(("a", None), ("b", None), ("c", None)), 3)
    assert [h.id for h in out] == ["c", "b", "a"]
