"""A PDF's encoded streams measured before PDFium reads it: PDFium decodes a stream whole
and parses a page's content all at once, so a few kilobytes that decode to gigabytes of
drawing operators would hold that much memory and take minutes.

``check_streams`` finds each stream by its keyword, reads the filters its dictionary names
(``/Filter``, a name or an array, given there or in an object it refers to) and decodes
it through them in steps (``pdf_filters``: Flate, LZW, RunLength, ASCII85, ASCIIHex),
counting every layer's output no further than the caps; a stream whose filters cannot be
told (its dictionary in a compressed object stream) is inflated as far as it is zlib
data, layer upon layer. Nothing decoded is kept; the whole check stops after
``MAX_SECONDS``.
"""

from __future__ import annotations

import itertools
import re
import time
from collections import deque
from collections.abc import Iterator

from citesift.errors import DocumentError
from citesift.extract.pdf_filters import (
    STEP,
    Decoder,
    ascii85,
    ascii_hex,
    inflate,
    lzw_decoder,
    run_length,
)

MAX_STREAM_BYTES = 64 * 1024 * 1024
"""The most one stream may decode to, in each of its filters (a page of text is tens of
kilobytes; a lossless scan of a page at 300 dpi in colour some 26 MB)."""
MAX_INFLATED_BYTES = 1024 * 1024 * 1024
"""The most all of a PDF's streams may decode to, every filter's output counted."""
MAX_LAYERS = 4
"""Layers of zlib data inflated one inside the other at most, when the filters are unknown."""
MAX_FILTERS = 8
"""The most filters one stream may name (one to three in the files writers make)."""
MAX_SECONDS = 30.0
"""The longest the streams of one PDF are measured (a gigabyte of zlib data inflates in a
few seconds; the filters decoded in Python are slower)."""
FIRST_PIECE = 4096
"""The first piece of a stream read (those after grow up to ``STEP``)."""
DICT_BYTES = 64 * 1024
"""How far before a stream's keyword its dictionary is looked for."""
_STREAM = re.compile(rb"(?<!end)stream[\x00\t\n\x0c\r ]+")
"""The keyword opening a stream and the white space after it (PDF readers take a lone CR
or spaces too; no white space byte can start zlib data)."""
_OBJ_END = re.compile(rb"[0-9]+[\x00\t\n\x0c\r ]+[0-9]+[\x00\t\n\x0c\r ]+\Z")
"""The object number and generation just before an ``obj`` keyword (searched up to it)."""
_STRING = re.compile(rb"\((?:[^()\\]|\\.)*\)", re.DOTALL)
"""A literal string holding no other: strings are left out innermost first."""
_COMMENT = re.compile(rb"%[^\r\n]*")
_HELD = re.compile(rb"[\x00\t\n\x0c\r ]*(?:\[([^\]]*)\]|(/[^\x00\t\n\x0c\r /\[\]<>()]+))")
MAX_NESTING = 16
"""Strings inside strings left out at most (deeper ones are rare and only hide text)."""
_FILTER = re.compile(
    rb"/Filter[\x00\t\n\x0c\r ]*(?:(/[^\x00\t\n\x0c\r /\[\]<>()]+)|\[([^\]]*)\]"
    rb"|(\d+)[\x00\t\n\x0c\r ]+(\d+)[\x00\t\n\x0c\r ]+R\b)"
)
_NAME = re.compile(rb"/([^\x00\t\n\x0c\r /\[\]<>()]+)")
_ESCAPED = re.compile(rb"#([0-9A-Fa-f]{2})")
_EARLY_ZERO = re.compile(rb"/EarlyChange[\x00\t\n\x0c\r ]+0\b")
_DECODERS: dict[bytes, Decoder] = {
    b"FlateDecode": inflate,
    b"Fl": inflate,
    b"ASCII85Decode": ascii85,
    b"A85": ascii85,
    b"ASCIIHexDecode": ascii_hex,
    b"AHx": ascii_hex,
    b"RunLengthDecode": run_length,
    b"RL": run_length,
}
_LZW = (b"LZWDecode", b"LZW")


class _Meter:
    """What the streams of one PDF decoded to so far, against the caps and the deadline."""

    def __init__(self) -> None:
        self.total = 0
        self.deadline = time.monotonic() + MAX_SECONDS

    def counted(self, pieces: Iterator[bytes]) -> Iterator[bytes]:
        """``pieces`` passed on, their bytes counted against ``MAX_STREAM_BYTES`` (for this
        layer of one stream), ``MAX_INFLATED_BYTES`` and the deadline."""
        size = 0
        for piece in pieces:
            size += len(piece)
            self.total += len(piece)
            if size > MAX_STREAM_BYTES:
                limit = MAX_STREAM_BYTES // (1024 * 1024)
                raise DocumentError(f"a PDF stream that decodes past {limit} MiB: not read")
            if self.total > MAX_INFLATED_BYTES:
                limit = MAX_INFLATED_BYTES // (1024 * 1024)
                raise DocumentError(f"a PDF whose streams decode past {limit} MiB: not read")
            self.check_time()
            yield piece

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise DocumentError(
                f"a PDF whose streams take more than {MAX_SECONDS:g} s to measure: not read"
            )


def check_streams(body: bytes) -> None:
    """``DocumentError`` when a stream of ``body`` decodes past ``MAX_STREAM_BYTES`` in any
    of its filters, names more than ``MAX_FILTERS``, or all of them decode past
    ``MAX_INFLATED_BYTES``, or measuring takes past ``MAX_SECONDS``; memory stays within a
    few ``STEP`` meanwhile."""
    meter = _Meter()
    for found in _STREAM.finditer(body):
        meter.check_time()
        named = _filters(body, found.start())
        data = _slices(body, found.end())
        if not named:  # none, or none told: inflated as far as it is zlib data
            if _zlib_header(body[found.end() : found.end() + 2]):
                decoded = _inflated(data, meter)
            else:
                continue  # stored plainly or in another filter: nothing to inflate
        else:
            decoded = _decoded(data, named, meter)
        for _ in decoded:
            pass


def _decoded(
    data: Iterator[bytes], named: list[tuple[bytes, Decoder]], meter: _Meter
) -> Iterator[bytes]:
    """``data`` through each of the filters ``named``, every layer counted by ``meter``."""
    if len(named) > MAX_FILTERS:
        raise DocumentError(f"a PDF stream of more than {MAX_FILTERS} filters: not read")
    for _, decoder in named:
        data = meter.counted(decoder(data))
    return data


def _filters(body: bytes, keyword: int) -> list[tuple[bytes, Decoder]] | None:
    """The filters the dictionary of the stream whose keyword is at ``keyword`` names,
    as far as they make more bytes than they read (a filter after which the stream is an
    image, or encrypted, ends the list); [] for none; None when they cannot be told (the
    object it opens, or the array it refers to, is not found)."""
    dictionary = _object_text(body, keyword)
    if dictionary is None:
        return None
    stated = _last(_FILTER.finditer(dictionary))
    if stated is None:
        return []
    name, array, number, generation = stated.groups()
    if number is not None:
        array = _referred(body, number, generation)
        if array is None:
            return None
    early = 0 if _EARLY_ZERO.search(dictionary) else 1
    named: list[tuple[bytes, Decoder]] = []
    for escaped in _NAME.findall(name or array or b""):
        filter_name = _ESCAPED.sub(lambda m: bytes([int(m[1], 16)]), escaped)
        decoder = lzw_decoder(early) if filter_name in _LZW else _DECODERS.get(filter_name)
        if decoder is None:
            break
        named.append((filter_name, decoder))
    return named


def _object_text(body: bytes, end: int) -> bytes | None:
    """What the object opened last before ``end`` (within ``DICT_BYTES``) holds up to it,
    its strings and comments left out (a ``/Filter`` in them names nothing); None when no
    object opens there."""
    at = body.rfind(b"obj", max(0, end - DICT_BYTES), end)
    if (
        at < 0
        or body[max(0, at - 3) : at] == b"end"
        or not _OBJ_END.search(body, max(0, at - 64), at)
    ):
        return None
    text = body[at + 3 : end]
    if b"(" in text or b"%" in text:
        for _ in range(MAX_NESTING):
            text, strings = _STRING.subn(b" ", text)
            if not strings:
                break
        text = _COMMENT.sub(b" ", text)
    return text


def _referred(body: bytes, number: bytes, generation: bytes) -> bytes | None:
    """The array of names, or the name, that object ``number generation`` holds (its last
    definition), None when it is not found so."""
    pattern = (
        rb"(?<![0-9])" + number + rb"[\x00\t\n\x0c\r ]+" + generation + rb"[\x00\t\n\x0c\r ]+obj\b"
    )
    defined = _last(re.finditer(pattern, body))
    if defined is None:
        return None
    held = _HELD.match(body, defined.end(), defined.end() + DICT_BYTES)
    return None if held is None else held[1] or held[2]


def _last(matches: Iterator[re.Match[bytes]]) -> re.Match[bytes] | None:
    """The last of ``matches``, None when there is none."""
    return next(iter(deque(matches, maxlen=1)), None)


def _slices(body: bytes, start: int) -> Iterator[bytes]:
    """``body`` from ``start`` on, in views (not copies) of ``FIRST_PIECE`` bytes, then
    twice as many each time up to ``STEP``: a stream is read as far as its filters go,
    most of them a few kilobytes."""
    view, size = memoryview(body), FIRST_PIECE
    while start < len(body):
        yield view[start : start + size]  # type: ignore[misc]
        start, size = start + size, min(2 * size, STEP)


def _inflated(pieces: Iterator[bytes], meter: _Meter, layers: int = 0) -> Iterator[bytes]:
    """The bytes ``pieces`` hold once each layer of zlib data is inflated (every layer
    counted by ``meter``); nothing when they start with no zlib data."""
    head = b""
    for piece in pieces:
        head += piece
        if len(head) >= 2:
            break
    whole = itertools.chain([head], pieces)
    if layers < MAX_LAYERS and _zlib_header(head):
        yield from _inflated(meter.counted(inflate(whole)), meter, layers + 1)
    elif layers:
        yield from whole


def _zlib_header(head: bytes) -> bool:
    """Whether ``head`` starts as zlib data does (deflate, and the header's check holds)."""
    return len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
