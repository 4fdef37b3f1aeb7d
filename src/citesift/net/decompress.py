"""Bounded decompression of a response body: gzip, deflate, br and zstd, piece by piece.

Each decoder turns one raw chunk into pieces of at most ``PIECE_BYTES`` (zstd: at most what
``ZSTD_SLICE`` input bytes expand to), so a compression bomb is stopped by the caller's cap
after at most one piece too many, never after inflating a whole chunk.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Protocol

import brotli
import zstandard

PIECE_BYTES = 65_536
ZSTD_SLICE = 256
ACCEPT_ENCODING = "gzip, deflate, br, zstd"


class DecompressError(Exception):
    """The body is not valid data in the encoding its Content-Encoding names."""


class Decoder(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...


class Identity:
    """No content coding: chunks pass through, cut into pieces."""

    def feed(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), PIECE_BYTES):
            yield data[start : start + PIECE_BYTES]


class Zlib:
    """gzip, or deflate with or without its zlib wrapper (both are sent as ``deflate``)."""

    def __init__(self, encoding: str) -> None:
        self._gzip = encoding in ("gzip", "x-gzip")
        self._inflate = zlib.decompressobj(zlib.MAX_WBITS | 32 if self._gzip else zlib.MAX_WBITS)
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            yield from self._pieces(data)
        except zlib.error as error:
            raise DecompressError(str(error)) from None

    def _pieces(self, data: bytes) -> Iterator[bytes]:
        if not self._started and not self._gzip and data and data[0] & 0x0F != 8:
            self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, no wrapper
        self._started = self._started or bool(data)
        while data:
            piece = self._inflate.decompress(data, PIECE_BYTES)
            data = self._inflate.unconsumed_tail
            if self._inflate.eof:
                data = b""
            yield piece


class Brotli:
    """Brotli, with the decoder's own output limit."""

    def __init__(self) -> None:
        self._decoder = brotli.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            piece = self._decoder.process(data, output_buffer_limit=PIECE_BYTES)
            while piece:  # the limit holds output back; drain it before the next chunk
                yield piece
                piece = self._decoder.process(b"", output_buffer_limit=PIECE_BYTES)
        except brotli.error as error:
            raise DecompressError(str(error)) from None


class Zstd:
    """Zstandard, fed in small slices since its decoder has no output limit."""

    def __init__(self) -> None:
        self._decoder = zstandard.ZstdDecompressor().decompressobj()

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            for start in range(0, len(data), ZSTD_SLICE):
                yield self._decoder.decompress(data[start : start + ZSTD_SLICE])
        except zstandard.ZstdError as error:
            raise DecompressError(str(error)) from None


def decoder_for(content_encoding: str | None) -> Decoder:
    """The decoder for a Content-Encoding header; ``DecompressError`` for one we cannot read."""
    coding = (content_encoding or "identity").strip().lower()
    if coding in ("", "identity"):
        return Identity()
    if coding in ("gzip", "x-gzip", "deflate"):
        return Zlib(coding)
    if coding == "br":
        return Brotli()
    if coding == "zstd":
        return Zstd()
    raise DecompressError(f"unsupported content-encoding {coding!r}")
