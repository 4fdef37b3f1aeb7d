"""PDFs whose streams are compression bombs: a few hundred kilobytes of page content that
inflate to gigabytes of drawing operators (PDFium inflated and parsed such a page whole: 77
seconds and 8 GB), once or as zlib inside zlib, and many pages sharing one costly stream.
Each is refused before PDFium reads it, or cut, within bounded time and memory; a page
whose compressed content is ordinary is read as before."""

from __future__ import annotations

import io
import time
import zlib

import pytest

from citesift.errors import DocumentError
from citesift.extract.document import extract_document
from citesift.extract.pdf import MAX_SECONDS
from citesift.extract.pdf_streams import MAX_STREAM_BYTES

DRAWING = b"0 0 m 1 1 l S\n"
SECONDS = 10.0


def pdf_of(content: bytes, filters: bytes = b"/FlateDecode", pages: int = 1) -> bytes:
    """A PDF of ``pages`` pages (one Helvetica font) sharing the content stream ``content``,
    already encoded by ``filters``."""
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
    xref = out.tell()
    out.write(b"xref\n0 6\n0000000000 65535 f \n")
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref)
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
    refused_quickly(body, "a PDF stream that inflates past 64 MiB")


@pytest.mark.parametrize("after", [b"\r", b" \n", b"\r\n"])
def test_a_bomb_after_any_white_space_a_reader_takes_is_refused(after: bytes) -> None:
    body = pdf_of(zlib.compress(drawing(MAX_STREAM_BYTES + 1), 9))
    refused_quickly(body.replace(b"stream\n", b"stream" + after, 1), "inflates past 64 MiB")


def test_zlib_inside_zlib_is_inflated_layer_by_layer() -> None:
    inner = zlib.compress(drawing(MAX_STREAM_BYTES + 1), 9)
    body = pdf_of(zlib.compress(inner, 9), b"[/FlateDecode /FlateDecode]")
    refused_quickly(body, "inflates past 64 MiB")


def test_compressed_pages_of_ordinary_size_are_read() -> None:
    content = b"BT /F1 12 Tf 72 720 Td (Rivers rise in spring.) Tj ET\n" + drawing(100_000)
    document = extract_document(pdf_of(zlib.compress(content), pages=3))
    assert [b.text for b in document.blocks] == ["Rivers rise in spring."] * 3
    stored = extract_document(pdf_of(content, b"[]"))  # no filter at all: nothing to inflate
    assert [b.text for b in stored.blocks] == ["Rivers rise in spring."]


@pytest.mark.slow  # reads pages for MAX_SECONDS
@pytest.mark.timeout(300)
def test_many_pages_sharing_a_costly_stream_are_cut_after_a_while() -> None:
    content = b"BT /F1 12 Tf 72 720 Td (Page.) Tj ET\n" + drawing(4_000_000)
    body = pdf_of(zlib.compress(content, 9), pages=4_000)  # some 20 minutes, page by page
    started = time.perf_counter()
    document = extract_document(body)
    assert time.perf_counter() - started < MAX_SECONDS + 60
    assert document.truncated and 0 < len(document.blocks) < 4_000
