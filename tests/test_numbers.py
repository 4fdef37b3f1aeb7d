"""Numbers from callers: NaN, infinities, bools, text and ints too big for a float."""

import math

import pytest

from citesift import Match, bm25_score, chunk_text, reciprocal_rank_fusion, weighted_fusion
from citesift.numbers import clamped, is_finite_number

HUGE = 10**400
"""An int no float can hold: ``float(HUGE)`` and ``math.isfinite(HUGE)`` raise."""
HITS = [Match("a", None, "the cat sat on the mat"), Match("b", None, "a dog in the fog")]


@pytest.mark.parametrize("value", [0, -3, 2.5, 1e308, 10**300])
def test_finite_ints_and_floats_are_numbers(value: object) -> None:
    assert is_finite_number(value)


@pytest.mark.parametrize("value", [True, math.nan, math.inf, -math.inf, HUGE, -HUGE, "3", None])
def test_bools_text_non_finite_and_oversized_values_are_not(value: object) -> None:
    assert not is_finite_number(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(5, 5.0), ("7", 7.0), (-1, 0.0), (1e9, 10.0), (HUGE, 3.0), (math.nan, 3.0), ("x", 3.0)],
)
def test_clamped_reads_a_float_within_bounds_or_gives_the_default(
    value: object, expected: float
) -> None:
    assert clamped(value, 3.0, 0.0, 10.0) == expected


def test_a_chunk_size_too_big_for_a_float_means_no_limit() -> None:
    text = "One sentence. Another sentence. " * 10
    assert [c.text for c in chunk_text(text, HUGE, HUGE)] == [text.strip()]


def test_bm25_parameters_too_big_for_a_float_fall_back_to_the_defaults() -> None:
    assert bm25_score("cat", HITS, k1=HUGE, b=HUGE) == bm25_score("cat", HITS)


def test_fusion_settings_too_big_for_a_float_fall_back_to_the_defaults() -> None:
    assert reciprocal_rank_fusion([HITS], k=HUGE) == reciprocal_rank_fusion([HITS])
    scored = [Match("a", 2.0, "x"), Match("b", 1.0, "y")]
    assert weighted_fusion(scored, scored, HUGE, HUGE) == weighted_fusion(scored, scored)


@pytest.mark.parametrize(
    ("top_k", "kept"), [(math.inf, 2), (math.nan, 2), (HUGE, 2), (-math.inf, 2), (-1, 0), (1.9, 1)]
)
def test_fusion_keeps_all_for_a_top_k_that_is_no_finite_number_and_none_below_one(
    top_k: float, kept: int
) -> None:
    assert [h.id for h in reciprocal_rank_fusion([HITS], top_k=top_k)] == ["a", "b"][:kept]
    scored = [Match("a", 2.0, "x"), Match("b", 1.0, "y")]
    assert len(weighted_fusion(scored, scored, top_k=top_k)) == kept  # type: ignore[arg-type]
