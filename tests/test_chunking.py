"""Chunking: sanitised sizes, termination, offsets and sentence boundaries."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citesift.text.chunking import chunk_text

TEXT = "alpha beta gamma delta epsilon zeta eta theta iota kappa"


def texts(text: str, **kwargs: object) -> list[str]:
    return [c.text for c in chunk_text(text, **kwargs)]  # type: ignore[arg-type]


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("") == []


@pytest.mark.parametrize("size", [0, -5, math.nan, math.inf, -math.inf, None])
def test_invalid_size_keeps_the_whole_text(size: float) -> None:
    assert texts(TEXT, chunk_size=size) == [TEXT]


@pytest.mark.parametrize("overlap", [-1, math.nan, -math.inf, math.inf])
def test_invalid_overlap_still_splits(overlap: float) -> None:
    chunks = texts(TEXT, chunk_size=12, chunk_overlap=overlap)
    assert len(chunks) > 1
    assert all(chunks)


@pytest.mark.timeout(5)
def test_overlap_larger_than_size_terminates() -> None:
    chunks = chunk_text("abcdefghij" * 10, chunk_size=8, chunk_overlap=100)
    assert 1 < len(chunks) <= 100
    assert chunks[-1].end == 100


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
    size=st.one_of(st.integers(-3, 80), st.floats(allow_nan=True)),
    overlap=st.one_of(st.integers(-3, 120), st.floats(allow_nan=True)),
)
def test_offsets_slice_the_source_and_cover_it(text: str, size: float, overlap: float) -> None:
    chunks = chunk_text(text, chunk_size=size, chunk_overlap=overlap)
    assert all(text[c.start : c.end] == c.text and c.text.strip() == c.text for c in chunks)
    covered = {i for c in chunks for i in range(c.start, c.end)}
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert len(chunks) <= len(text) + 1


@pytest.mark.timeout(10)
def test_huge_text_chunks_in_linear_time() -> None:
    text = "Sentence number one is short. " * 20_000
    chunks = chunk_text(text, chunk_size=500, chunk_overlap=50)
    assert 1_000 < len(chunks) < 2_000
