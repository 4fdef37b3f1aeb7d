"""Chunking: sizes that make sense, termination, offsets and sentence boundaries."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citesift.errors import InvalidArgument
from citesift.text.chunking import chunk_text
from citesift.text.sentences import sentence_spans

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


def test_no_chunk_cuts_a_sentence_that_fits() -> None:
    text = "Short one. " + "This sentence is a good deal longer than the first. " * 3 + "End."
    for chunk in texts(text, chunk_size=60, chunk_overlap=0):
        assert chunk in {"Short one.", "End."} or chunk.startswith("This")
        assert chunk.endswith(".")


def test_a_sentence_longer_than_the_size_is_cut_between_words() -> None:
    text = "One " + "two three four five six seven " * 4 + "end. Next sentence."
    chunks = texts(text, chunk_size=40, chunk_overlap=0)
    assert all(len(c) <= 40 for c in chunks)
    words = text.split()
    assert [w for c in chunks for w in c.split()] == words
    assert chunks[-1].endswith("end. Next sentence.")  # the cut sentence's tail, then the next


def test_a_word_longer_than_the_size_is_cut_at_the_size() -> None:
    assert texts("x" * 25 + ". Yes.", chunk_size=10, chunk_overlap=0) == [
        "x" * 10, "x" * 10, "xxxxx.", "Yes.",
    ]  # fmt: skip


def test_the_overlap_repeats_whole_sentences_that_fit_in_it() -> None:
    text = "Alpha one. Beta two. Gamma three. Delta four."
    assert texts(text, chunk_size=25, chunk_overlap=12) == [
        "Alpha one. Beta two.", "Beta two. Gamma three.", "Gamma three. Delta four.",
    ]  # fmt: skip
    assert texts(text, chunk_size=25, chunk_overlap=10) == [
        "Alpha one. Beta two.", "Beta two. Gamma three.", "Delta four.",
    ]  # fmt: skip


_SENTENCE = st.builds(
    lambda words, stop: " ".join(words).capitalize() + stop,
    st.lists(st.sampled_from(["ab", "cde", "fghij", "klmnopqrst", "uv"]), min_size=1, max_size=12),
    st.sampled_from([".", "!", "?"]),
)


@settings(max_examples=200, deadline=None)
@given(
    sentences=st.lists(_SENTENCE, min_size=1, max_size=20),
    gaps=st.lists(st.sampled_from([" ", "  ", "\n", " \n\n"]), min_size=20, max_size=20),
    size=st.integers(1, 120),
    overlap=st.integers(0, 119),
)
def test_chunks_start_and_end_on_sentences_unless_one_is_too_long(
    sentences: list[str], gaps: list[str], size: int, overlap: int
) -> None:
    text = "".join(s + g for s, g in zip(sentences, gaps, strict=False))
    spans = sentence_spans(text)
    starts, ends = {s for s, _ in spans}, {e for _, e in spans}
    long = [(s, e) for s, e in spans if e - s > size]

    def inside_long(at: int) -> bool:
        return any(s <= at <= e for s, e in long)

    chunks = chunk_text(text, chunk_size=size, chunk_overlap=overlap % size)
    assert chunks
    for c in chunks:
        assert text[c.start : c.end] == c.text and len(c.text) <= size
        assert c.start in starts or inside_long(c.start)
        assert c.end in ends or inside_long(c.end)
        word_cut = not text[c.start - 1 : c.start].isspace() and c.start not in starts
        assert not word_cut or len(max(text[c.start - size : c.start].split() or [""])) >= size
    assert chunks[0].start == spans[0][0] and chunks[-1].end == spans[-1][1]


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


def test_no_chunk_or_overlap_runs_across_a_break() -> None:
    text = "One cat sat. Two dogs ran. Three owls flew. Four fish swam."
    at = text.index("Three")
    chunks = chunk_text(text, 30, 15, breaks=[at, -3, len(text) + 9])
    assert [c.text for c in chunks] == ["One cat sat. Two dogs ran.", "Three owls flew.",
                                        "Four fish swam."]  # fmt: skip
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert [(c.start, c.end) for c in chunk_text(text, None, breaks=[at])] == [
        (0, at - 1), (at, len(text))
    ]  # fmt: skip
    assert [c.text for c in chunk_text(text, 30, 15)][1] == "Two dogs ran. Three owls flew."
