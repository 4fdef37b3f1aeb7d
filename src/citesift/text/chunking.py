"""Chunking: cut a text into passages of whole sentences, packed up to a size.

A passage starts and ends on a sentence boundary (the sentence rule of ``sentences``); a
sentence is cut, at word boundaries, only when it alone is longer than the size. Passages
are what a reader cites, so they never begin or end mid-sentence when they need not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

from citesift.checks import text_arg
from citesift.errors import InvalidArgument
from citesift.numbers import number_in
from citesift.text.sentences import sentence_spans

DEFAULT_CHUNK_SIZE = 512
DEFAULT_CHUNK_OVERLAP = 50
MAX_CHUNK_SIZE = 100_000_000
MIN_CHUNK_SIZE = 20
"""The least ``chunk_size`` an index takes: a smaller one cuts words into a chunk each."""

_WORD = re.compile(r"\S+")

Split = Callable[[str], Sequence[str]]
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a text: ``source[start:end] == text``."""

    text: str
    start: int
    end: int


def chunk_text(
    text: str,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int | None = None,
    split: Split | None = None,
    *,
    breaks: Sequence[int] = (),
) -> list[Chunk]:
    """Cut ``text`` into chunks of whole sentences, each at most ``chunk_size`` characters.

    Sentences are packed in order while the chunk stays within the size; a sentence longer
    than the size is cut between words (a word longer than the size, at the size). A chunk
    starts by repeating the previous chunk's last sentences when together they take at most
    ``chunk_overlap`` characters (and leave room for a new one), so an overlap never cuts a
    sentence either. A ``split`` function replaces the rule: its non-empty pieces, located in
    ``text``. ``breaks`` are positions no chunk runs across (where a page, slide or sheet of
    a file begins, so each chunk has one): the text between two is cut on its own, by the
    same rules, and no overlap reaches back over one (positions outside the text are
    ignored). ``chunk_size`` None means no limit (one chunk per stretch between breaks);
    ``chunk_overlap`` None the default (50, kept below the size). Values that make no sense
    raise (see ``chunk_sizes``). Time is linear in the text.
    """
    size, overlap = chunk_sizes(chunk_size, chunk_overlap)
    if not text:
        return []
    text_arg(text, "text")
    bounds = [0, *sorted({b for b in breaks if 0 < b < len(text)}), len(text)]
    return [
        Chunk(c.text, start + c.start, start + c.end)
        for start, end in pairwise(bounds)
        for c in _chunked(text[start:end], size, overlap, split)
    ]


def _chunked(text: str, size: int | None, overlap: int, split: Split | None) -> list[Chunk]:
    """``chunk_text`` of a stretch with no break in it."""
    if split is not None:
        return _locate(text, split(text))
    if size is None or len(text) <= size:
        return _trimmed(text, 0, len(text))
    units = [u for s in sentence_spans(text) for u in _units(text, s, size)]
    return [Chunk(text[s:e], s, e) for s, e in _packed(units, size, overlap)]


def chunk_sizes(
    chunk_size: object, chunk_overlap: object, least: int = 1
) -> tuple[int | None, int]:
    """The size (None: no limit) and overlap (None: the default, below the size) as given,
    or ``InvalidArgument`` naming the one that makes no sense: a size is a whole number of
    characters from ``least``, an overlap a whole number from 0 and below the size."""
    size = None
    if chunk_size is not None:
        size = int(number_in("chunk_size", chunk_size, least, MAX_CHUNK_SIZE, whole=True))
    most = MAX_CHUNK_SIZE if size is None else size - 1
    if chunk_overlap is None:
        return size, min(DEFAULT_CHUNK_OVERLAP, most)
    return size, int(number_in("chunk_overlap", chunk_overlap, 0, most, whole=True))


def _units(text: str, sentence: Span, size: int) -> Iterator[Span]:
    """The sentence itself when it fits in ``size``; else its words, each word longer than
    ``size`` cut into pieces of ``size``."""
    start, end = sentence
    if end - start <= size:
        yield sentence
        return
    for word in _WORD.finditer(text, start, end):
        for at in range(word.start(), word.end(), size):
            yield at, min(at + size, word.end())


def _packed(units: Sequence[Span], size: int, overlap: int) -> Iterator[Span]:
    """Spans of consecutive units, each as long as ``size`` allows; each after the first
    begins with the previous one's trailing units that fit in ``overlap`` characters."""
    first, n = 0, len(units)
    while first < n:
        last = first
        while last + 1 < n and units[last + 1][1] - units[first][0] <= size:
            last += 1
        yield units[first][0], units[last][1]
        first = _next_first(units, first, last, size, overlap)


def _next_first(units: Sequence[Span], first: int, last: int, size: int, overlap: int) -> int:
    """Where the chunk after ``units[first..last]`` begins: at the earliest of its trailing
    units within ``overlap`` of its end, if the next unit still fits after them; else after
    it. Always past ``first``, so packing advances."""
    after = last + 1
    if after >= len(units):
        return after
    end, nxt = units[last][1], after
    while nxt - 1 > first and end - units[nxt - 1][0] <= overlap:
        nxt -= 1
    return nxt if units[after][1] - units[nxt][0] <= size else after


def _trimmed(text: str, start: int, end: int) -> list[Chunk]:
    """``text[start:end]`` without surrounding white space, as a chunk (none if blank)."""
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    body = piece.strip()
    return [Chunk(body, start + lead, start + lead + len(body))] if body else []


def _locate(text: str, pieces: Sequence[str]) -> list[Chunk]:
    """Chunks for a custom split's pieces, found in ``text`` in order (ValueError if absent)."""
    chunks: list[Chunk] = []
    cursor = 0
    for piece in pieces:
        if not piece:
            continue
        at = text.find(piece, cursor)
        at = at if at >= 0 else text.find(piece)
        if at < 0:
            raise InvalidArgument(f"split returned a piece that is not in the text: {piece[:40]!r}")
        chunks.append(Chunk(piece, at, at + len(piece)))
        cursor = at + len(piece)
    return chunks
