"""Chunking: cut a text into overlapping windows that end on sentence boundaries when they can."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citesift.checks import text_arg
from citesift.errors import InvalidArgument
from citesift.numbers import number_in

DEFAULT_CHUNK_SIZE = 512
DEFAULT_CHUNK_OVERLAP = 50
MAX_CHUNK_SIZE = 100_000_000
MIN_FILL = 0.5
"""A window ends at a sentence boundary only when that keeps at least this share of it."""

_NEXT_WORD = re.compile(r"\s+\S")
_LAST_SPACE = re.compile(r"\s\S*\Z")

Split = Callable[[str], Sequence[str]]


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
) -> list[Chunk]:
    """Cut ``text`` into chunks of at most ``chunk_size`` characters, overlapping by about
    ``chunk_overlap``, each ending at a sentence end (else a space) when one is in reach.

    A ``split`` function replaces the windows: its non-empty pieces, located in ``text``.
    ``chunk_size`` None means no limit (one chunk); ``chunk_overlap`` None the default (50,
    kept below the size). Values that make no sense raise (see ``chunk_sizes``). Every
    window advances, so this always terminates, in time linear in the text.
    """
    size, overlap = chunk_sizes(chunk_size, chunk_overlap)
    if not text:
        return []
    text_arg(text, "text")
    if split is not None:
        return _locate(text, split(text))
    if size is None or len(text) <= size:
        return _trimmed(text, 0, len(text))
    return _windows(text, size, overlap, _sentence_ends(text))


def chunk_sizes(chunk_size: object, chunk_overlap: object) -> tuple[int | None, int]:
    """The size (None: no limit) and overlap (None: the default, below the size) as given,
    or ``InvalidArgument`` naming the one that makes no sense: a size is a whole number of
    characters from 1, an overlap a whole number from 0 and below the size."""
    size = None
    if chunk_size is not None:
        size = int(number_in("chunk_size", chunk_size, 1, MAX_CHUNK_SIZE, whole=True))
    most = MAX_CHUNK_SIZE if size is None else size - 1
    if chunk_overlap is None:
        return size, min(DEFAULT_CHUNK_OVERLAP, most)
    return size, int(number_in("chunk_overlap", chunk_overlap, 0, most, whole=True))


def _windows(text: str, size: int, overlap: int, ends: list[int]) -> list[Chunk]:
    """Slide a window of ``size`` over ``text``, stepping back ``overlap`` each time."""
    chunks: list[Chunk] = []
    start, n = 0, len(text)
    while start < n:
        end = _window_end(text, start, min(start + size, n), ends, size)
        chunks.extend(_trimmed(text, start, end))
        if end >= n:
            break
        start = _next_start(text, start, end, overlap)
    return chunks


def _window_end(text: str, start: int, end: int, ends: list[int], size: int) -> int:
    """Move ``end`` back to the last sentence end (or else space) after ``start``."""
    if end >= len(text):
        return end
    i = bisect.bisect_right(ends, end) - 1
    if i >= 0 and ends[i] - start >= size * MIN_FILL:
        return ends[i]
    space = _LAST_SPACE.search(text, start + 1, end + 1)
    return space.start() if space and space.start() > start else end


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    """Where the next window begins: ``overlap`` before ``end``, at a word start, and past
    ``start`` (a window shorter than the overlap gets none)."""
    nxt = end - overlap
    if nxt <= start:
        return end
    if nxt > 0 and not text[nxt - 1].isspace():
        word = _NEXT_WORD.search(text, nxt, end)
        nxt = word.end() - 1 if word else nxt
    return nxt


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


def _sentence_ends(text: str) -> list[int]:
    """Sorted end offsets of the sentences of ``text`` (empty when no rule is available)."""
    try:
        from citesift.text.sentences import sentence_spans
    except ImportError:
        return []
    return sorted(end for _, end in sentence_spans(text))
