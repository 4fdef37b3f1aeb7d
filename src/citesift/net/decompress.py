"""Bounded decompression of a response body: gzip, deflate, br and zstd, piece by piece.

Each decoder turns one raw chunk into pieces of at most ``PIECE_BYTES`` (zstd: at most what
``ZSTD_SLICE`` input bytes expand to), so a compression bomb is stopped by the caller's cap
after at most one piece too many, never after inflating a whole chunk. ``finish`` says
whether the stream ended cleanly: a body cut short (or followed by bytes that are not
another gzip member) is a ``DecompressError``, never a shorter page. Gzip bodies of several
members (RFC 1952) are read whole.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Protocol

import brotli
import zstandard

from citesift.errors import CitesiftError

PIECE_BYTES = 65_536
ZSTD_SLICE = 256
ACCEPT_ENCODING = "gzip, deflate, br, zstd"


class DecompressError(CitesiftError):
    """The body is not valid data in the encoding its Content-Encoding names."""


class Decoder(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of the next raw chunk."""
        ...

    def finish(self) -> None:
        """Raise ``DecompressError`` unless the stream fed so far ended cleanly."""
        ...


CUT_SHORT = "the compressed body ends before its end"


class Identity:
    """No content coding: chunks pass through, cut into pieces."""

    def feed(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), PIECE_BYTES):
            yield data[start : start + PIECE_BYTES]

    def finish(self) -> None:
        """Nothing to check: an identity body is whole when its length says so."""


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

    def finish(self) -> None:
        if self._started and not self._inflate.eof:
            raise DecompressError(CUT_SHORT)

    def _pieces(self, data: bytes) -> Iterator[bytes]:
        if not self._started and not self._gzip and data and data[0] & 0x0F != 8:
            self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, no wrapper
        self._started = self._started or bool(data)
        while data:
            if self._inflate.eof:
                self._next_member()
            piece = self._inflate.decompress(data, PIECE_BYTES)
            data = self._inflate.unused_data if self._inflate.eof else self._inflate.unconsumed_tail
            yield piece

    def _next_member(self) -> None:
        """Bytes after the end: another gzip member, or an error for anything else."""
        if not self._gzip:
            raise DecompressError("data after the end of the compressed body")
        self._inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)


class Brotli:
    """Brotli, with the decoder's own output limit."""

    def __init__(self) -> None:
        self._decoder = brotli.Decompressor()
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._started = self._started or bool(data)
        try:
            piece = self._decoder.process(data, output_buffer_limit=PIECE_BYTES)
            while piece:  # the limit holds output back; drain it before the next chunk
                yield piece
                piece = self._decoder.process(b"", output_buffer_limit=PIECE_BYTES)
        except brotli.error as error:
            raise DecompressError(str(error)) from None

    def finish(self) -> None:
        if self._started and not self._decoder.is_finished():
            raise DecompressError(CUT_SHORT)


class Zstd:
    """Zstandard, fed in small slices since its decoder has no output limit; the frames of
    a body are read one after another."""

    def __init__(self) -> None:
        self._decoder = zstandard.ZstdDecompressor().decompressobj()
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._started = self._started or bool(data)
        try:
            for start in range(0, len(data), ZSTD_SLICE):
                part = data[start : start + ZSTD_SLICE]
                while part:
                    if self._decoder.eof:
                        self._decoder = zstandard.ZstdDecompressor().decompressobj()
                    yield self._decoder.decompress(part)
                    part = self._decoder.unused_data if self._decoder.eof else b""
        except zstandard.ZstdError as error:
            raise DecompressError(str(error)) from None

    def finish(self) -> None:
        if self._started and not self._decoder.eof:
            raise DecompressError(CUT_SHORT)


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
