"""Numbers from callers: NaN, infinities, bools, text and ints too big for a float."""

import math

import pytest

from citesift import Match, bm25_score, chunk_text, reciprocal_rank_fusion, weighted_fusion
from citesift.errors import InvalidArgument, written_number
from citesift.numbers import clamped, is_finite_number, number_in, written_whole

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


@pytest.mark.parametrize(
    ("text", "read"),
    [("0", 0), ("42", 42), ("0000042", 42), ("9999999", 9_999_999), ("10000000", -1),
     ("\u00b2", -1), ("\u0664\u0662", -1), ("1" * 5_000, -1), ("", -1), ("4 2", -1),
     ("-4", -1), ("+4", -1), ("4_2", -1)],
)  # fmt: skip
def test_a_written_whole_number_is_ascii_digits_seven_at_most(text: str, read: int) -> None:
    assert written_whole(text, -1) == read


def test_a_chunk_size_too_big_for_a_float_is_refused_by_name() -> None:
    with pytest.raises(InvalidArgument, match="chunk_size must be"):
        chunk_text("One sentence. Another sentence.", HUGE, HUGE)


def test_bm25_parameters_too_big_for_a_float_are_refused_by_name() -> None:
    with pytest.raises(InvalidArgument, match="k1 must be"):
        bm25_score("cat", HITS, k1=HUGE)
    with pytest.raises(InvalidArgument, match="b must be"):
        bm25_score("cat", HITS, b=HUGE)


def test_fusion_settings_too_big_for_a_float_are_refused_by_name() -> None:
    with pytest.raises(InvalidArgument, match="k must be"):
        reciprocal_rank_fusion([HITS], k=HUGE)
    scored = [Match("a", 2.0, "x"), Match("b", 1.0, "y")]
    with pytest.raises(InvalidArgument, match="vector_weight must be"):
        weighted_fusion(scored, scored, HUGE, HUGE)


@pytest.mark.parametrize("top_k", [math.inf, math.nan, HUGE, -math.inf, -1, 1.9])
def test_fusion_refuses_a_top_k_that_is_no_count(top_k: float) -> None:
    with pytest.raises(InvalidArgument, match="top_k must be"):
        reciprocal_rank_fusion([HITS], top_k=top_k)  # type: ignore[arg-type]
    scored = [Match("a", 2.0, "x"), Match("b", 1.0, "y")]
    with pytest.raises(InvalidArgument, match="top_k must be"):
        weighted_fusion(scored, scored, top_k=top_k)  # type: ignore[arg-type]


def test_fusion_keeps_all_for_no_top_k_and_none_for_zero() -> None:
    assert [h.id for h in reciprocal_rank_fusion([HITS])] == ["a", "b"]
    assert reciprocal_rank_fusion([HITS], top_k=0) == []


@pytest.mark.parametrize(
    "number,written",
    [(1_000_000, "1,000,000"), (1e9, "1,000,000,000"), (3600.0, "3,600"), (-2, "-2"),
     (0.5, "0.5"), (2.5e-7, "2.5e-07"), (1e300, "1e+300"), (math.inf, "inf")],
)  # fmt: skip
def test_a_number_in_a_message_is_written_as_people_write_it(number: float, written: str) -> None:
    assert written_number(number) == written


def test_a_bound_is_written_with_thousands_separators() -> None:
    with pytest.raises(
        InvalidArgument, match=r"^k must be a number over 0 and at most 1,000,000,000"
    ):
        number_in("k", -1, 0, 1e9, above=True)
