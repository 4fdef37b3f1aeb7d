"""Chunking: sizes that make sense, termination, offsets and sentence boundaries."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citesift.errors import InvalidArgument
from citesift.text.chunking import chunk_text

TEXT = "alpha beta gamma delta epsilon zeta eta theta iota kappa"


def texts(text: str, **kwargs: object) -> list[str]:
    return [c.text for c in chunk_text(text, **kwargs)]  # type: ignore[arg-type]


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("") == []


def test_no_size_keeps_the_whole_text() -> None:
    assert texts(TEXT, chunk_size=None) == [TEXT]


@pytest.mark.parametrize("size", [0, -5, -1, 2.5, True, math.nan, math.inf, -math.inf, "9"])
def test_a_size_that_makes_no_sense_is_refused_by_name(size: object) -> None:
    with pytest.raises(InvalidArgument, match="chunk_size must be"):
        chunk_text(TEXT, chunk_size=size)  # type: ignore[arg-type]


@pytest.mark.parametrize("overlap", [-1, 1.5, math.nan, -math.inf, math.inf, 12, 100])
def test_an_overlap_that_makes_no_sense_is_refused_by_name(overlap: object) -> None:
    with pytest.raises(InvalidArgument, match=r"chunk_overlap must be .* from 0 to 11"):
        chunk_text(TEXT, chunk_size=12, chunk_overlap=overlap)  # type: ignore[arg-type]


def test_the_default_overlap_stays_below_a_small_size() -> None:
    chunks = chunk_text("abcdefghij" * 10, chunk_size=8)
    assert 1 < len(chunks) <= 100 and chunks[-1].end == 100


def test_words_bound_chunks_and_their_length() -> None:
    chunks = texts("word " * 40, chunk_size=50, chunk_overlap=5)
    assert len(chunks) > 1
    assert all(len(c) <= 55 for c in chunks)
    assert all(set(c.split()) == {"word"} for c in chunks)


def test_chunks_end_on_sentence_boundaries() -> None:
    text = "The first sentence is here. A second one follows it. The third closes the text."
    chunks = texts(text, chunk_size=60, chunk_overlap=0)
    assert chunks[0] == "The first sentence is here. A second one follows it."
    assert chunks[1] == "The third closes the text."


def test_custom_split_gives_located_pieces() -> None:
    text = "A|old||B"
    chunks = chunk_text(text, chunk_size=1, split=lambda s: s.split("|"))
    assert [(c.text, c.start) for c in chunks] == [("A", 0), ("old", 2), ("B", 7)]


def test_split_piece_not_in_text_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="not in the text"):
        chunk_text("abc", split=lambda s: [s.upper()])


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab .!\n\u00e9"), max_size=400),
    size=st.integers(1, 80),
    overlap=st.integers(0, 120),
)
def test_offsets_slice_the_source_and_cover_it(text: str, size: int, overlap: int) -> None:
    chunks = chunk_text(text, chunk_size=size, chunk_overlap=overlap % size)
    assert all(text[c.start : c.end] == c.text and c.text.strip() == c.text for c in chunks)
    covered = {i for c in chunks for i in range(c.start, c.end)}
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert len(chunks) <= len(text) + 1


@pytest.mark.timeout(10)
def test_huge_text_chunks_in_linear_time() -> None:
    text = "Sentence number one is short. " * 20_000
    chunks = chunk_text(text, chunk_size=500, chunk_overlap=50)
    assert 1_000 < len(chunks) < 2_000
