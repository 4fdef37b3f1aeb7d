"""PDFs whose streams are compression bombs: a few hundred kilobytes of page content that
decode to gigabytes of drawing operators (PDFium decoded and parsed such a page whole: 77
seconds and 8 GB), once, as zlib inside zlib, through LZW or RunLength, or wrapped in
ASCII85 or ASCIIHex and chains of these, and many pages sharing one costly stream. Each is
refused before PDFium reads it, or cut, within bounded time and memory; a page whose
encoded content is ordinary is read as before, through every filter."""

from __future__ import annotations

import base64
import binascii
import io
import itertools
import time
import zlib
from collections.abc import Callable, Iterator

import pytest

from citesift.errors import DocumentError
from citesift.extract import pdf_filters, pdf_streams
from citesift.extract.document import extract_document
from citesift.extract.html import DEFAULT_BUDGET
from citesift.extract.pdf import MAX_SECONDS, read_pdf
from citesift.extract.pdf_streams import MAX_FILTERS, MAX_STREAM_BYTES

DRAWING = b"0 0 m 1 1 l S\n"
SECONDS = 10.0


def pdf_of(
    content: bytes, filters: bytes = b"/FlateDecode", pages: int = 1, more: bytes = b""
) -> bytes:
    """A PDF of ``pages`` pages (one Helvetica font) sharing the content stream ``content``,
    already encoded by ``filters`` (the value of its ``/Filter``; ``more`` is object 6)."""
    kids = b" ".join(b"4 0 R" for _ in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    offsets.append(out.tell())
    out.write(b"5 0 obj\n<< /Length %d /Filter %s >>\nstream\n" % (len(content), filters))
    out.write(content + b"\nendstream\nendobj\n")
    if more:
        offsets.append(out.tell())
        out.write(b"6 0 obj\n%s\nendobj\n" % more)
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(offsets) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def drawing(size: int) -> bytes:
    """``size`` bytes or so of page content that draws lines and shows no text."""
    return DRAWING * (size // len(DRAWING) + 1)


def refused_quickly(body: bytes, match: str) -> None:
    started = time.perf_counter()
    with pytest.raises(DocumentError, match=match):
        extract_document(body)
    assert time.perf_counter() - started < SECONDS


def test_a_page_whose_content_inflates_past_the_cap_is_refused_unread() -> None:
    body = pdf_of(zlib.compress(drawing(MAX_STREAM_BYTES + 1), 9))
    assert len(body) < MAX_STREAM_BYTES // 200
    refused_quickly(body, "a PDF stream that decodes past 64 MiB")


@pytest.mark.parametrize("after", [b"\r", b" \n", b"\r\n"])
def test_a_bomb_after_any_white_space_a_reader_takes_is_refused(after: bytes) -> None:
    body = pdf_of(zlib.compress(drawing(MAX_STREAM_BYTES + 1), 9))
    refused_quickly(body.replace(b"stream\n", b"stream" + after, 1), "decodes past 64 MiB")


def test_zlib_inside_zlib_is_inflated_layer_by_layer() -> None:
    inner = zlib.compress(drawing(MAX_STREAM_BYTES + 1), 9)
    body = pdf_of(zlib.compress(inner, 9), b"[/FlateDecode /FlateDecode]")
    refused_quickly(body, "decodes past 64 MiB")


def test_compressed_pages_of_ordinary_size_are_read() -> None:
    content = b"BT /F1 12 Tf 72 720 Td (Rivers rise in spring.) Tj ET\n" + drawing(100_000)
    document = extract_document(pdf_of(zlib.compress(content), pages=3))
    assert [b.text for b in document.blocks] == ["Rivers rise in spring."] * 3
    stored = extract_document(pdf_of(content, b"[]"))  # no filter at all: nothing to inflate
    assert [b.text for b in stored.blocks] == ["Rivers rise in spring."]


def test_many_pages_sharing_a_costly_stream_are_cut_after_a_while() -> None:
    content = b"BT /F1 12 Tf 72 720 Td (Page.) Tj ET\n" + drawing(4_000_000)
    body = pdf_of(zlib.compress(content, 9), pages=4_000)  # some 30 minutes, page by page
    cut = MAX_SECONDS / 15  # a page takes about half a second: the cut comes after a few
    started = time.perf_counter()
    read = read_pdf(body, DEFAULT_BUDGET, seconds=cut)
    assert time.perf_counter() - started < cut + SECONDS
    assert read.truncated and 0 < len(read.blocks) < 4_000


def lzw_packed(codes: list[int], early: int = 1) -> bytes:
    """LZW ``codes`` packed as PDF writes them: after a clear (256) codes take 9 bits, one
    more each time the table (an entry added per code after the first) reaches a power of
    two, one code early when ``early`` is 1; 257 ends."""
    bits, held, out = 0, 0, bytearray()
    width, size, first = 9, 258, True
    for code in [*codes, 257]:
        bits, held = bits << width | code, held + width
        while held >= 8:
            held -= 8
            out.append(bits >> held & 0xFF)
        bits &= (1 << held) - 1
        if code == 256:
            width, size, first = 9, 258, True
            continue
        size += not first
        first = False
        if size + early >= 1 << width and width < 12:
            width += 1
    if held:
        out.append(bits << (8 - held) & 0xFF)
    return bytes(out)


def lzw(data: bytes) -> bytes:
    """``data`` LZW encoded (the table cleared when full)."""
    table = {bytes([n]): n for n in range(256)}
    codes, word = [256], b""
    for byte in data:
        longer = word + bytes([byte])
        if longer in table:
            word = longer
            continue
        codes.append(table[word])
        table[longer] = len(table) + 2
        word = bytes([byte])
        if len(table) + 2 >= 4093:
            codes.append(256)
            table = {bytes([n]): n for n in range(256)}
    return lzw_packed([*codes, table[word]] if word else codes)


def lzw_zeros(size: int, early: int = 1) -> bytes:
    """At least ``size`` zero bytes LZW encoded: each code stands for one zero more than the
    one before, some 7 MB a table, from about 5 KB of codes."""
    run = [0, *range(258, 4092)]
    per_table = sum(range(1, len(run) + 1))
    return lzw_packed([256, *run] * (size // per_table + 1), early)


def run_length(data: bytes) -> bytes:
    """``data`` RunLength encoded: runs of a byte repeated, other bytes as they are."""
    out, at = bytearray(), 0
    while at < len(data):
        end = at
        while end < len(data) and end - at < 128 and data[end] == data[at]:
            end += 1
        out += bytes([257 - (end - at), data[at]]) if end - at > 1 else bytes([0, data[at]])
        at = end
    return bytes(out) + b"\x80"


def a85(data: bytes) -> bytes:
    return base64.a85encode(data, wrapcol=72) + b"~>"


def ahx(data: bytes) -> bytes:
    return binascii.hexlify(data) + b">"


TEXT = b"BT /F1 12 Tf 72 720 Td (Rivers rise in spring.) Tj ET\n"
ENCODINGS: dict[str, tuple[bytes, Callable[[bytes], bytes]]] = {
    "ascii85": (b"/ASCII85Decode", a85),
    "asciihex": (b"/AHx", ahx),
    "lzw": (b"/LZWDecode", lzw),
    "runlength": (b"/RunLengthDecode", run_length),
    "ascii85 over flate": (b"[/A85 /FlateDecode]", lambda d: a85(zlib.compress(d))),
    "lzw over ascii85 over flate": (
        b"[/LZWDecode /ASCII85Decode /FlateDecode]",
        lambda d: lzw(a85(zlib.compress(d))),
    ),
}


@pytest.mark.parametrize("name", ENCODINGS)
def test_pages_encoded_by_every_filter_are_measured_and_read(name: str) -> None:
    filters, encode = ENCODINGS[name]
    content = TEXT + drawing(20_000) + b" " * 5_000
    document = extract_document(pdf_of(encode(content), filters))
    assert [b.text for b in document.blocks] == ["Rivers rise in spring."]


@pytest.mark.parametrize(
    ("decode", "encode"),
    [
        (pdf_filters.ascii85, a85),
        (pdf_filters.ascii_hex, ahx),
        (pdf_filters.run_length, run_length),
        (pdf_filters.inflate, zlib.compress),
        (pdf_filters.lzw_decoder(1), lzw),
    ],
    ids=["ascii85", "asciihex", "runlength", "flate", "lzw"],
)
def test_each_filter_decodes_its_data_cut_in_any_pieces(
    decode: Callable[[Iterator[bytes]], Iterator[bytes]], encode: Callable[[bytes], bytes]
) -> None:
    data = TEXT + bytes(range(256)) * 20 + b"\0" * 3_000 + drawing(30_000)
    encoded = encode(data) + b"after the end"
    for size in (1, 7, 4096):
        pieces = (encoded[at : at + size] for at in range(0, len(encoded), size))
        assert b"".join(decode(pieces)) == data


def test_lzw_and_runlength_bombs_are_refused_unread() -> None:
    bomb = lzw_zeros(MAX_STREAM_BYTES + 1)
    assert len(bomb) < MAX_STREAM_BYTES // 1000
    refused_quickly(pdf_of(bomb, b"/LZWDecode"), "decodes past 64 MiB")
    runs = b"\x81 " * (MAX_STREAM_BYTES // 128 + 1) + b"\x80"  # 128 spaces a run
    refused_quickly(pdf_of(runs, b"/RunLengthDecode"), "decodes past 64 MiB")


def test_lzw_codes_read_in_one_piece_come_out_a_step_at_a_time() -> None:
    codes = lzw_zeros(MAX_STREAM_BYTES)  # one piece of ~50 KB standing for 64 MiB
    steps = pdf_filters.lzw_decoder(1)(iter([codes]))
    sizes = [len(step) for step in itertools.islice(steps, 3)]
    assert len(sizes) == 3 and max(sizes) <= pdf_filters.STEP + pdf_filters.LZW_CODES


def test_ascii85_zeros_read_in_one_piece_come_out_a_step_at_a_time() -> None:
    zeros = b"z" * pdf_filters.STEP  # one piece standing for four steps of zero bytes
    sizes = [len(step) for step in pdf_filters.ascii85(iter([zeros]))]
    assert sum(sizes) == 4 * pdf_filters.STEP and max(sizes) <= pdf_filters.STEP


BOMB = zlib.compress(drawing(MAX_STREAM_BYTES + 1), 9)


@pytest.mark.parametrize(
    ("filters", "encoded", "more"),
    [
        (b"[/ASCII85Decode /FlateDecode]", a85(BOMB), b""),
        (b"[/ASCIIHexDecode /FlateDecode]", ahx(BOMB), b""),
        (b"[/LZWDecode /ASCII85Decode /FlateDecode]", lzw(a85(BOMB)), b""),
        (b"[/ASCII85#44ecode /Fl]", a85(BOMB), b""),
        (b"[/A85 /Fl] /Note (/Filter /AHx (in a string)) % /Filter /AHx\n", a85(BOMB), b""),
        (b"6 0 R", a85(BOMB), b"[/ASCII85Decode /FlateDecode]"),
    ],
    ids=["ascii85", "asciihex", "lzw-ascii85-flate", "escaped name", "decoys", "referred"],
)
def test_a_bomb_behind_other_filters_is_refused_unread(
    filters: bytes, encoded: bytes, more: bytes
) -> None:
    body = pdf_of(encoded, filters, more=more)
    assert len(body) < MAX_STREAM_BYTES // 50
    refused_quickly(body, "decodes past 64 MiB")


LZW_BOMB = lzw_zeros(MAX_STREAM_BYTES + 1)
PAD = b" /Pad [" + b"0 " * 40_000 + b"]"  # past the 64 KB a dictionary is looked for in


@pytest.mark.parametrize(
    ("filters", "encoded", "match"),
    [
        (b"/LZWDecode" + PAD, LZW_BOMB, "dictionary cannot be read"),
        (b"[/Fl /LZWDecode]" + PAD, zlib.compress(LZW_BOMB), "dictionary cannot be read"),
        (b"/LZWDecode /Note (1 0 obj)", LZW_BOMB, "decodes past 64 MiB"),
        (b"/LZWDecode /Note (a (1 0 obj) \\( )", LZW_BOMB, "decodes past 64 MiB"),
        (b"/LZWDecode % 1 0 obj\n", LZW_BOMB, "decodes past 64 MiB"),
        (b"/LZWDecode /Note (an object)", LZW_BOMB, "decodes past 64 MiB"),
    ],
    ids=["padded", "padded zlib", "obj in a string", "escaped", "obj in a comment", "word"],
)
def test_a_bomb_whose_object_start_is_hidden_is_refused(
    filters: bytes, encoded: bytes, match: str
) -> None:
    refused_quickly(pdf_of(encoded, filters), match)


def test_a_page_that_says_stream_far_into_its_plain_content_is_read() -> None:
    content = drawing(100_000) + TEXT.replace(b"spring.", b"a stream ")
    document = extract_document(pdf_of(content, b"[]"))
    assert [b.text for b in document.blocks] == ["Rivers rise in a stream"]


def test_a_stream_of_a_hundred_filters_is_refused() -> None:
    content = zlib.compress(TEXT)
    for _ in range(99):
        content = zlib.compress(content, 1)
    chain = b"[" + b" /Fl" * 100 + b"]"
    refused_quickly(pdf_of(content, chain), f"more than {MAX_FILTERS} filters")
    few = zlib.compress(zlib.compress(TEXT), 1)
    assert extract_document(pdf_of(few, b"[/Fl /Fl]")).blocks[0].text == "Rivers rise in spring."


def test_measuring_stops_at_its_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_streams, "MAX_SECONDS", 0.0)  # every stream is past it
    refused_quickly(pdf_of(lzw(TEXT), b"/LZWDecode"), "take more than 0 s to measure")


def test_many_small_streams_are_measured_quickly() -> None:
    data = a85(zlib.compress(TEXT * 100))
    body = b"%PDF-1.4\n" + b"".join(
        b"%d 0 obj\n<< /Length %d /Filter [/A85 /Fl] >>\nstream\n%s\nendstream\nendobj\n"
        % (n, len(data), data)
        for n in range(1, 20_001)
    )
    started = time.perf_counter()
    pdf_streams.check_streams(body)  # each stream's own dictionary and data, read once
    assert time.perf_counter() - started < SECONDS
