"""The PDF stream filters that can make more bytes than they read, decoded in steps so that a
caller can count what comes out and stop at a cap: Flate, LZW, RunLength, ASCII85 and
ASCIIHex. Each takes the encoded bytes as pieces and yields the decoded bytes in pieces of
about ``STEP``; data that breaks off or goes wrong ends the output there, as PDFium ends
its own decoding."""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Callable, Iterator

STEP = 1024 * 1024
WHITE = b"\x00\t\n\x0c\r "
"""The white space bytes of PDF, which the ASCII filters pass over."""
LZW_CLEAR, LZW_END, LZW_CODES = 256, 257, 4096

Decoder = Callable[[Iterator[bytes]], Iterator[bytes]]


def inflate(pieces: Iterator[bytes]) -> Iterator[bytes]:
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


def lzw_decoder(early_change: int) -> Decoder:
    """LZW as PDF writes it (codes of 9 to 12 bits, most significant bit first; the width
    grows one code early when ``early_change`` is 1, the default)."""

    def decode(pieces: Iterator[bytes]) -> Iterator[bytes]:
        table = [bytes([n]) for n in range(256)] + [b"", b""]
        width, bits, held = 9, 0, 0
        previous: bytes | None = None
        out = bytearray()
        for piece in pieces:
            for byte in piece:
                bits, held = bits << 8 | byte, held + 8
                if held < width:
                    continue
                held -= width
                code, bits = bits >> held, bits & ((1 << held) - 1)
                if code == LZW_CLEAR:
                    del table[LZW_END + 1 :]
                    width, previous = 9, None
                    continue
                if code < len(table) and code != LZW_END:
                    entry = table[code]
                elif code == len(table) and previous is not None:
                    entry = previous + previous[:1]
                else:  # the end, or a code no table holds yet
                    yield bytes(out)
                    return
                out += entry
                if previous is not None and len(table) < LZW_CODES:
                    table.append(previous + entry[:1])
                previous = entry
                if len(table) + early_change >= 1 << width and width < 12:
                    width += 1
                if len(out) >= STEP:  # each code may stand for some 4 KB: checked per code
                    yield bytes(out)
                    out.clear()
        yield bytes(out)

    return decode


def run_length(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """RunLength: a length byte below 128 copies that many bytes and one more, above 128
    repeats the next byte 257 less it times, 128 ends."""
    data, out = b"", bytearray()
    for piece in pieces:
        data, at = data + piece, 0
        while at < len(data):
            length = data[at]
            if length == 128:
                yield bytes(out)
                return
            end = at + (length + 2 if length < 128 else 2)
            if end > len(data):
                break
            out += data[at + 1 : end] if length < 128 else data[at + 1 : end] * (257 - length)
            at = end
            if len(out) >= STEP:
                yield bytes(out)
                out.clear()
        data = data[at:]
    yield bytes(out)


def ascii_hex(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """ASCIIHex: pairs of hexadecimal digits up to ``>``, white space passed over (a last
    lone digit is followed by 0)."""
    carry = b""
    for piece in pieces:
        text, ended = _up_to(bytes(piece), b">")
        text = carry + text.translate(None, WHITE)
        whole = len(text) - len(text) % 2
        try:
            yield binascii.unhexlify(text[:whole])
        except binascii.Error:
            return
        carry = text[whole:]
        if ended:
            break
    if carry:
        yield binascii.unhexlify(carry + b"0") if carry in b"0123456789abcdefABCDEF" else b""


def ascii85(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """ASCII85: groups of five characters up to ``~>`` (``z`` for four zero bytes), white
    space passed over; read a quarter ``STEP`` at a time, as ``z`` makes four bytes of one."""
    carry = b""
    for piece in _split(pieces, STEP // 4):
        text, ended = _up_to(bytes(piece), b"~")
        text = carry + text.translate(None, WHITE).replace(b"z", b"!!!!!")
        whole = len(text) - len(text) % 5
        try:
            yield base64.a85decode(text[:whole])
        except ValueError:
            return
        carry = text[whole:]
        if ended:
            break
    try:
        yield base64.a85decode(carry) if len(carry) != 1 else b""
    except ValueError:
        return


def _up_to(text: bytes, end: bytes) -> tuple[bytes, bool]:
    """``text`` before ``end``, and whether ``end`` was in it."""
    at = text.find(end)
    return (text, False) if at < 0 else (text[:at], True)


def _split(pieces: Iterator[bytes], size: int) -> Iterator[bytes]:
    """``pieces`` cut into pieces of at most ``size`` bytes."""
    for piece in pieces:
        for at in range(0, len(piece), size):
            yield piece[at : at + size]
