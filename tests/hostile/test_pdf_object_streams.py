"""PDFs (1.5 and after) that keep objects in compressed object streams and say where each is
in a cross-reference stream: a page whose content is a bomb behind filters named by an
object held in an object stream (or by a chain of them, or by one defined twice) is
refused before PDFium reads it, as when the filters are named in place; object streams
and cross-reference streams that decode to gigabytes are refused; object streams that
lie about their size are read within bounds; and an ordinary PDF 1.5 is read."""

from __future__ import annotations

import io
import struct
import time
import zlib
from collections.abc import Callable

import pytest
from test_pdf_streams import (
    BOMB,
    TEXT,
    a85,
    drawing,
    lzw_zeros,
    refused_quickly,
)
from timing import assert_at_most

from citesift.extract import pdf_streams
from citesift.extract.document import extract_document
from citesift.extract.pdf_objects import compressed_objects
from citesift.extract.pdf_streams import MAX_STREAM_BYTES
from measure import traced

Packed = tuple[bytes, Callable[[bytes], bytes], dict[int, bytes]]
"""An object stream: its ``/Filter`` value, how its data is encoded, the objects it holds."""
FLATE: Packed = (b"/FlateDecode", zlib.compress, {})
CONTENT = 5
FIRST_PACK = 20


def pdf15_of(
    content: bytes,
    filters: bytes,
    packs: tuple[Packed, ...] = (FLATE,),
    plain: dict[int, bytes] | None = None,
    pages: int = 1,
    xref_padding: int = 0,
) -> bytes:
    """A PDF 1.5 of ``pages`` pages sharing the content stream ``content`` (object 5),
    already encoded by ``filters`` (its ``/Filter`` value); the catalog, page tree, font and
    page are held in the first of the object streams ``packs`` (objects 20 on), the objects
    ``plain`` written plainly, and a cross-reference stream (its rows followed by
    ``xref_padding`` zero bytes) says where each is."""
    kids = b" ".join(b"4 0 R" for _ in range(pages))
    first = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        4: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
    }
    out = io.BytesIO()
    out.write(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    where: dict[int, tuple[int, int, int]] = {}  # a cross-reference row for each object
    where[CONTENT] = (1, out.tell(), 0)
    out.write(b"5 0 obj\n<< /Length %d /Filter %s >>\nstream\n" % (len(content), filters))
    out.write(content + b"\nendstream\nendobj\n")
    for number, text in (plain or {}).items():
        where[number] = (1, out.tell(), 0)
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, text))
    for at, (packed_filters, encode, objects) in enumerate(packs):
        number, held = FIRST_PACK + at, {**first, **objects} if at == 0 else objects
        header, texts = b"", b""
        for index, (inner, text) in enumerate(held.items()):
            header += b"%d %d " % (inner, len(texts))
            texts += text + b"\n"
            where[inner] = (2, number, index)
        data = encode(header + texts)
        where[number] = (1, out.tell(), 0)
        out.write(
            b"%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Length %d /Filter %s >>\nstream\n"
            % (number, len(held), len(header), len(data), packed_filters)
        )
        out.write(data + b"\nendstream\nendobj\n")
    number = FIRST_PACK + len(packs)
    where[number] = (1, out.tell(), 0)
    size = number + 1
    rows = b"".join(struct.pack(">BIH", *where.get(n, (0, 0, 65535))) for n in range(size))
    data = zlib.compress(rows + bytes(xref_padding), 9)
    xref = out.tell()
    out.write(
        b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Length %d "
        b"/Filter /FlateDecode >>\nstream\n" % (number, size, len(data))
    )
    out.write(data + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def packed(objects: dict[int, bytes]) -> tuple[Packed, ...]:
    """One object stream, inflated, holding ``objects`` besides the document's own."""
    return ((b"/FlateDecode", zlib.compress, objects),)


LZW_EARLY_ZERO = lzw_zeros(MAX_STREAM_BYTES + 1, early=0)


@pytest.mark.parametrize(
    ("filters", "encoded", "packs", "plain"),
    [
        (b"6 0 R", a85(BOMB), packed({6: b"[/ASCII85Decode /FlateDecode]"}), None),
        (b"[6 0 R 9 0 R]", a85(BOMB), packed({6: b"/A85", 9: b"/Fl"}), None),
        (b"6 0 R", a85(BOMB), packed({6: b"9 0 R", 9: b"[/A85 /Fl]"}), None),
        (b"6 0 R", lzw_zeros(MAX_STREAM_BYTES + 1), packed({6: b"/LZWDecode"}), None),
        (
            b"6 0 R",
            b"\x81 " * (MAX_STREAM_BYTES // 128 + 1) + b"\x80",
            packed({6: b"/RunLengthDecode"}),
            None,
        ),
        (
            b"/LZWDecode /DecodeParms 6 0 R",
            LZW_EARLY_ZERO,
            packed({6: b"<< /EarlyChange 0 >>"}),
            None,
        ),
        (
            b"6 0 R",
            a85(BOMB),
            (
                (b"/FlateDecode", zlib.compress, {9: b"/FlateDecode"}),
                (b"9 0 R", zlib.compress, {6: b"[/A85 /Fl]"}),
            ),
            None,
        ),
        (b"6 0 R", a85(BOMB), packed({6: b"[/A85 /Fl]"}), {6: b"/FlateDecode"}),
    ],
    ids=[
        "referred",
        "array of references",
        "reference to a reference",
        "lzw",
        "runlength",
        "early change",
        "object stream filtered by another",
        "also defined plainly",
    ],
)
def test_a_bomb_behind_filters_named_in_an_object_stream_is_refused(
    filters: bytes, encoded: bytes, packs: tuple[Packed, ...], plain: dict[int, bytes] | None
) -> None:
    body = pdf15_of(encoded, filters, packs, plain)
    assert len(body) < MAX_STREAM_BYTES // 50
    refused_quickly(body, "decodes past 64 MiB")


def test_object_streams_and_cross_reference_streams_are_measured() -> None:
    swollen = (b"[/A85 /Fl]", lambda d: a85(zlib.compress(d + drawing(MAX_STREAM_BYTES))), {})
    refused_quickly(pdf15_of(zlib.compress(TEXT), b"/Fl", (FLATE, swollen)), "past 64 MiB")
    padded = pdf15_of(zlib.compress(TEXT), b"/Fl", xref_padding=MAX_STREAM_BYTES)
    refused_quickly(padded, "decodes past 64 MiB")


def test_a_pdf_15_whose_filters_are_named_in_an_object_stream_is_read() -> None:
    content = TEXT + drawing(100_000)
    filters = {6: b"[/ASCII85Decode 9 0 R]", 9: b"/FlateDecode"}
    body = pdf15_of(a85(zlib.compress(content)), b"6 0 R", packed(filters), pages=3)
    assert [b.text for b in extract_document(body).blocks] == ["Rivers rise in spring."] * 3
    direct = pdf15_of(zlib.compress(content), b"/FlateDecode")
    assert [b.text for b in extract_document(direct).blocks] == ["Rivers rise in spring."]


def many_streams(filters: bytes) -> bytes:
    """20,000 small streams inflated from ASCII85, their ``/Filter`` being ``filters``,
    after an object stream holding object 6, the array naming those filters."""
    objects = b"6 0 [/A85 /Fl]\n"
    holding = zlib.compress(objects)
    data = a85(zlib.compress(TEXT * 100))
    return (
        b"%PDF-1.5\n20 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /Fl >>\nstream\n"
        + holding
        + b"\nendstream\nendobj\n"
        + b"".join(
            b"%d 0 obj\n<< /Length %d /Filter %s >>\nstream\n%s\nendstream\nendobj\n"
            % (n, len(data), filters, data)
            for n in range(21, 20_021)
        )
    )


def test_streams_whose_filters_are_referred_to_are_measured_about_as_quickly() -> None:
    referring, direct = many_streams(b"6 0 R"), many_streams(b"[/A85 /Fl]")
    assert_at_most(
        lambda: pdf_streams.check_streams(referring),
        lambda: pdf_streams.check_streams(direct),
        2.0,
        "to measure 20,000 streams whose filters are named in an object stream",
    )


REFERRED = 2_000


def filters_objects(where: str) -> bytes:
    """Objects 1 to ``REFERRED``, each the array ``[/A85 /Fl]``: written plainly, or held
    in one object stream at one offset (before 60 KB of white space)."""
    if where == "plain":
        return b"".join(b"%d 0 obj [/A85 /Fl] endobj\n" % n for n in range(1, REFERRED + 1))
    header = b"".join(b"%d 0 " % n for n in range(1, REFERRED + 1))
    held = zlib.compress(header + b"[/A85 /Fl]" + b" " * 60_000)
    return (
        b"30000 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter /Fl >>\nstream\n"
        % (REFERRED, len(header))
        + held
        + b"\nendstream\nendobj\n"
    )


@pytest.mark.parametrize("where", ["plain", "at one offset of an object stream"])
def test_many_objects_naming_filters_are_held_in_bounded_memory(where: str) -> None:
    data = a85(zlib.compress(TEXT))
    body = b"%PDF-1.5\n" + filters_objects(where)
    body += b"".join(
        b"%d 0 obj\n<< /Filter %d 0 R >>\nstream\n%s\nendstream\nendobj\n" % (REFERRED + n, n, data)
        for n in range(1, REFERRED + 1)
    )
    _, _, peak = traced(lambda: pdf_streams.check_streams(body))  # each object's text held once
    assert peak < 16 * len(body)


@pytest.mark.parametrize(
    "dictionary",
    [
        b"/N 1000000000 /First 999999999999",
        b"/N 1000000000 /First 3",
        b"/N 0 /First 0",
        b"/N 1 /First 4 /Filter 20 0 R",
    ],
    ids=["far first", "too many", "none", "filtered by itself"],
)
def test_object_streams_that_lie_are_read_within_bounds(dictionary: bytes) -> None:
    objects = b"6 0 " * 200_000 + b"[/A85 /Fl]"
    body = (
        (b"%PDF-1.5\n20 0 obj\n<< /Type /ObjStm " + dictionary + b" >>\nstream\n" + objects)
        + b"\nendstream\nendobj\n5 0 obj\n<< /Filter 6 0 R >>\nstream\n"
        + BOMB
    )
    started = time.perf_counter()
    with pytest.raises(pdf_streams.DocumentError, match="decodes past 64 MiB"):
        pdf_streams.check_streams(body)  # the filters not told: inflated as zlib data
    assert time.perf_counter() - started < 10.0


def test_objects_are_found_in_object_stream_data_cut_in_any_pieces() -> None:
    texts = [b"/A%d" % n for n in range(300)]
    header = b"".join(b"%d %d " % (n, sum(len(t) + 1 for t in texts[:n])) for n in range(300))
    data = header + b"".join(t + b"\n" for t in texts)
    wanted = {(0, 0), (7, 0), (150, 0), (299, 0), (300, 0), (5, 1)}
    for size in (1, 7, 4096):
        pieces = (data[at : at + size] for at in range(0, len(data), size))
        found = dict(compressed_objects(pieces, 300, len(header), wanted))
        assert found == {(n, 0): b"/A%d\n" % n for n in (0, 7, 150, 299)}


def test_numbers_too_long_to_be_objects_refer_to_none() -> None:
    long = b"9" * 5_000
    body = (
        b"%PDF-1.5\n20 0 obj\n<< /Type /ObjStm /N " + long + b" /First " + long + b" >>\n"
        b"stream\n"
        + long
        + b" 0 6 "
        + long
        + b" /A85\nendstream\nendobj\n"
        + long
        + b" 0 obj\n/A85\nendobj\n"
        b"5 0 obj\n<< /Filter [" + long + b" 0 R 6 0 R] >>\nstream\n" + BOMB
    )
    with pytest.raises(pdf_streams.DocumentError, match="decodes past 64 MiB"):
        pdf_streams.check_streams(body)  # the filters not told: inflated as zlib data


PAGE_OF_7 = (
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
    b"/Resources << /Font << /F1 3 0 R >> >> /Contents 7 0 R >>"
)


def kept(content: bytes, filters: bytes) -> bytes:
    """A stream (``content`` encoded by ``filters``) written as an object stream holds it,
    which writers never do and PDFium reads all the same."""
    return b"<< /Length %d /Filter %s >>\nstream\n%s\nendstream" % (len(content), filters, content)


def packed_stream(objects: dict[int, bytes], filters: bytes = b"/FlateDecode") -> Packed:
    """One object stream holding the page (whose content is object 7) and ``objects``."""
    encode = zlib.compress if filters != b"[]" else bytes
    return (filters, encode, {4: PAGE_OF_7, **objects})


def test_a_stream_kept_in_an_object_stream_is_read_and_measured() -> None:
    normal = packed_stream({7: kept(a85(zlib.compress(TEXT)), b"[/A85 /Fl]")})
    document = extract_document(pdf15_of(b"", b"/Fl", (normal,)))
    assert [b.text for b in document.blocks] == ["Rivers rise in spring."]
    bombs = [
        packed_stream({7: kept(a85(BOMB), b"[/A85 /Fl]")}),
        packed_stream({7: kept(a85(BOMB), b"6 0 R"), 6: b"[/A85 /Fl]"}),
        packed_stream({7: kept(a85(BOMB), b"[/A85 /Fl]")}, b"[]"),
    ]
    for pack in bombs:
        refused_quickly(pdf15_of(b"", b"/Fl", (pack,)), "decodes past 64 MiB")


def nested(depth: int, inner: bytes) -> bytes:
    """``inner`` (object 7's text) held in object streams ``depth`` deep, each held by the
    one around it as object 30 on."""
    for level in range(depth):
        header = b"%d 0 " % (7 if level == 0 else 30 + level - 1)
        data = zlib.compress(header + inner)
        inner = b"<< /Type /ObjStm /N 1 /First %d /Length %d /Filter /Fl >>" % (
            len(header),
            len(data),
        )
        inner += b"\nstream\n%s\nendstream" % data
    return inner


def test_object_streams_held_in_object_streams_are_unpacked_a_few_deep() -> None:
    bomb = kept(a85(BOMB), b"[/A85 /Fl]")
    shallow = packed_stream({30: nested(2, bomb)})
    refused_quickly(pdf15_of(b"", b"/Fl", (shallow,)), "decodes past 64 MiB")
    deep = packed_stream({30: nested(4, kept(a85(zlib.compress(TEXT)), b"[/A85 /Fl]"))})
    refused_quickly(pdf15_of(b"", b"/Fl", (deep,)), "object streams held 4 deep")
