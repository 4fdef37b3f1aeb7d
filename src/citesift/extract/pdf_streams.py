"""A PDF's compressed streams measured before PDFium reads it: PDFium inflates a stream
whole and parses a page's content all at once, so a few kilobytes that inflate to gigabytes
of drawing operators would hold that much memory and take minutes.

``check_streams`` finds each stream by its keyword and inflates what is zlib data in steps
(layer upon layer, as a ``/Filter`` of several ``FlateDecode`` asks), counting no further
than the caps; nothing inflated is kept.
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Iterator

from citesift.errors import DocumentError

MAX_STREAM_BYTES = 64 * 1024 * 1024
"""The most one stream may inflate to (a page of text is tens of kilobytes; a lossless scan
of a page at 300 dpi in colour some 26 MB)."""
MAX_INFLATED_BYTES = 1024 * 1024 * 1024
"""The most all of a PDF's streams may inflate to, taken together."""
MAX_LAYERS = 4
"""Layers of zlib data inflated one inside the other at most."""
STEP = 1024 * 1024
_STREAM = re.compile(rb"(?<!end)stream[\x00\t\n\x0c\r ]+")
"""The keyword opening a stream and the white space after it (PDF readers take a lone CR
or spaces too; no white space byte can start zlib data)."""


def check_streams(body: bytes) -> None:
    """``DocumentError`` when a stream of ``body`` inflates past ``MAX_STREAM_BYTES`` or all
    of them past ``MAX_INFLATED_BYTES``; memory stays within a few ``STEP`` meanwhile."""
    total = 0
    for found in _STREAM.finditer(body):
        if not _zlib_header(body[found.end() : found.end() + 2]):
            continue  # a stream stored plainly or in another filter: nothing to inflate
        size = 0
        for piece in _inflated(_slices(body, found.end())):
            size += len(piece)
            if size > MAX_STREAM_BYTES:
                limit = MAX_STREAM_BYTES // (1024 * 1024)
                raise DocumentError(f"a PDF stream that inflates past {limit} MiB: not read")
        total += size
        if total > MAX_INFLATED_BYTES:
            limit = MAX_INFLATED_BYTES // (1024 * 1024)
            raise DocumentError(f"a PDF whose streams inflate past {limit} MiB: not read")


def _slices(body: bytes, start: int) -> Iterator[bytes]:
    """``body`` from ``start`` on, a ``STEP`` at a time."""
    for at in range(start, len(body), STEP):
        yield body[at : at + STEP]


def _inflated(pieces: Iterator[bytes], layers: int = 0) -> Iterator[bytes]:
    """The bytes ``pieces`` hold once each layer of zlib data is inflated; nothing when they
    start with no zlib data (a stream stored plainly, or in another filter)."""
    head = b""
    for piece in pieces:
        head += piece
        if len(head) >= 2:
            break
    whole = itertools.chain([head], pieces)
    if layers < MAX_LAYERS and _zlib_header(head):
        yield from _inflated(_inflate(whole), layers + 1)
    elif layers:
        yield from whole


def _inflate(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """One layer of zlib data inflated, a ``STEP`` at most at a time, up to its end or to
    the first byte that is no zlib data."""
    inflater = zlib.decompressobj()
    try:
        for data in pieces:
            while data and not inflater.eof:
                yield inflater.decompress(data, STEP)
                data = inflater.unconsumed_tail
            if inflater.eof:
                return
    except zlib.error:
        return


def _zlib_header(head: bytes) -> bool:
    """Whether ``head`` starts as zlib data does (deflate, and the header's check holds)."""
    return len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
