"""Hostile PDF and Office files: encrypted, corrupt, macro-carrying, zip bombs (honest or
lying about their size, or of XML elements by the million), a huge page count or cell
range. Each is a clear ``DocumentError`` (or a cut, for sheer size) within a second or so
and a bounded amount of memory."""

from __future__ import annotations

import io
import re
import struct
import time
import zipfile
from collections.abc import Callable

import docx
import openpyxl
import pypdfium2 as pdfium
import pytest
from docx.enum.style import WD_STYLE_TYPE

from citesift.errors import DocumentError
from citesift.extract.document import extract_document
from citesift.extract.metadata import MAX_TEXT_CHARS
from citesift.extract.pdf import MAX_PAGES
from citesift.extract.sniff import MAX_UNZIPPED_BYTES, MAX_XML_ELEMENTS, MAX_ZIP_MEMBERS
from citesift.model import Place
from made_documents import edited, pdf, sheets_file, slides_file, with_member, word_file
from measure import traced

SECONDS = 5.0  # each is well under a second alone; shared machines are slow
PEAK_BYTES = 32 * 1024 * 1024
KINDS = ["docx", "pptx", "xlsx"]


def refused(body: bytes, match: str) -> None:
    """``body`` is a DocumentError matching ``match``, within bounded time and memory."""

    def read() -> None:
        with pytest.raises(DocumentError, match=match):
            extract_document(body)

    _, seconds, peak = traced(read)
    assert seconds < SECONDS
    assert peak < PEAK_BYTES + 2 * len(body)


def test_an_encrypted_pdf_says_it_needs_a_password() -> None:
    body = pdf(["The salaries of the board."], password=b"letmein")
    opened = pdfium.PdfDocument(body, password="letmein")  # it is a real encrypted PDF
    assert "salaries" in opened[0].get_textpage().get_text_bounded()
    opened.close()
    refused(body, "encrypted PDF that needs a password")


@pytest.mark.parametrize(
    "body",
    [b"%PDF-1.7\n1 0 obj <<", pdf(["fine"])[:200], b"%PDF-" + bytes(range(256)) * 40],
    ids=["header only", "cut short", "noise"],
)
def test_a_corrupt_pdf_is_a_clear_error(body: bytes) -> None:
    refused(body, "not a readable PDF")


def test_a_pdf_of_too_many_pages_is_refused_before_any_is_read() -> None:
    body = pdf(["page"], copies=MAX_PAGES + 1)  # the pages share one content stream
    refused(body, f"a PDF of {MAX_PAGES + 1} pages")
    assert len(extract_document(pdf(["page"], copies=3)).blocks) == 3


@pytest.mark.parametrize(
    "make", [word_file, slides_file, sheets_file], ids=["docx", "pptx", "xlsx"]
)
def test_a_cut_office_file_is_a_clear_error(make: Callable[[], bytes]) -> None:
    body = make()
    refused(body[: len(body) // 2], "zip")


def test_an_office_file_missing_its_main_part_is_a_clear_error() -> None:
    body = edited(word_file(), lambda name, data: None if name == "word/document.xml" else data)
    refused(body, "DOCX file that cannot be read")


def test_an_office_file_of_broken_xml_is_a_clear_error() -> None:
    body = edited(
        slides_file(), lambda name, data: data[:100] if name.endswith("slide1.xml") else data
    )
    refused(body, "PPTX file that cannot be read")


def test_a_zip_that_is_no_office_file_is_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes.txt", "hello")
    refused(out.getvalue(), "not a Word, PowerPoint or Excel file")


def test_an_office_file_with_macros_is_refused() -> None:
    main = b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main"
    macros = b"application/vnd.ms-word.document.macroEnabled.main"

    def with_macros(name: str, data: bytes) -> bytes:
        return data.replace(main, macros) if name == "[Content_Types].xml" else data

    refused(edited(word_file(), with_macros), "macros")


def test_a_zip_bomb_that_states_its_size_is_refused_before_inflating() -> None:
    body = with_member(word_file(), "word/document.xml", MAX_UNZIPPED_BYTES + 1)
    assert len(body) < MAX_UNZIPPED_BYTES // 100  # it is a bomb: small, inflating huge
    refused(body, "inflates past 128 MiB")


def test_a_zip_bomb_that_lies_about_its_size_is_refused_in_small_steps() -> None:
    body = with_member(word_file(), "word/document.xml", 200 * 1024 * 1024, declared=4096)
    refused(body, "inflates past its stated size")


def test_a_zip_of_too_many_members_is_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(word_file())) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item))
        for number in range(MAX_ZIP_MEMBERS):
            target.writestr(f"word/media/{number}.bin", b"")
    refused(out.getvalue(), f"more than {MAX_ZIP_MEMBERS} members")


FLOODS = {
    "docx": (word_file, "word/document.xml", b"</w:body>"),
    "pptx": (slides_file, "ppt/slides/slide1.xml", b"</p:spTree>"),
    "xlsx": (sheets_file, "xl/styles.xml", b"</styleSheet>"),
}
"""Where each kind's elements are flooded: a part its reader parses whole (an Excel file's
sheets are streamed instead: ``test_sheets``)."""


def flooded(kind: str, count: int, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """An Office file of ``kind`` with ``count`` empty elements in a part its reader parses
    whole, that part compressed by ``method``."""
    make, name, before = FLOODS[kind]
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(make())) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == name:
                data = data.replace(before, b"<x/>" * count + before, 1)
                item.compress_type = method
            target.writestr(item, data)
    return out.getvalue()


@pytest.mark.parametrize("kind", KINDS)
def test_an_office_file_of_millions_of_xml_elements_is_refused_unparsed(kind: str) -> None:
    body = flooded(kind, MAX_XML_ELEMENTS)  # a few kilobytes, tens of megabytes once parsed
    assert len(body) < 64 * 1024  # the elements alone are 4 MB of XML
    refused(body, "more than 1,000,000 XML elements")


def test_elements_in_a_part_stored_uncompressed_are_counted_too() -> None:
    refused(flooded("docx", MAX_XML_ELEMENTS, zipfile.ZIP_STORED), "XML elements")


@pytest.mark.parametrize("kind", KINDS)
def test_an_office_file_of_many_elements_under_the_bound_is_read(kind: str) -> None:
    assert extract_document(flooded(kind, 10_000)).blocks


def test_a_sheet_stating_a_vast_range_is_read_by_the_cells_it_has() -> None:
    book = openpyxl.Workbook()
    book.active["A1"] = "first"
    book.active["B2"] = "second"
    out = io.BytesIO()
    book.save(out)
    stated, vast = b'<dimension ref="A1:B2"/>', b'<dimension ref="A1:XFD1048576"/>'

    def vast_range(name: str, data: bytes) -> bytes:
        if name == "xl/worksheets/sheet1.xml":
            assert stated in data
            return data.replace(stated, vast)
        return data

    started = time.perf_counter()
    document = extract_document(edited(out.getvalue(), vast_range))
    assert [b.text for b in document.blocks] == ["first", "second"]
    assert time.perf_counter() - started < SECONDS


W_NS = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def word_table(rows: bytes) -> bytes:
    """A Word file whose body is one table of ``rows`` (``<w:tr>`` elements)."""
    body = b"<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>" + rows + b"</w:tbl>"
    xml = b"<w:document " + W_NS + b"><w:body>" + body + b"</w:body></w:document>"
    return edited(word_file(), lambda name, data: xml if name == "word/document.xml" else data)


def cell(text: bytes, properties: bytes = b"") -> bytes:
    run = b"<w:r><w:t>" + text + b"</w:t></w:r>" if text else b""
    return b"<w:tc><w:tcPr>" + properties + b"</w:tcPr><w:p>" + run + b"</w:p></w:tc>"


def test_a_word_cell_stating_a_vast_column_span_is_one_block() -> None:
    span = b'<w:gridSpan w:val="200000000"/>'
    body = word_table(b"<w:tr>" + cell(b"wide", span) + cell(b"after") + b"</w:tr>")
    started = time.perf_counter()
    document = extract_document(body)
    assert time.perf_counter() - started < SECONDS  # 15 s and 1.7 GB before
    assert [(b.text, b.place and b.place.column) for b in document.blocks] == [
        ("wide", 1),
        ("after", 200_000_001),
    ]


def test_a_word_cell_merged_down_many_rows_is_read_once_quickly() -> None:
    head = b"<w:tr>" + cell(b"top", b'<w:vMerge w:val="restart"/>') + cell(b"right") + b"</w:tr>"
    below = b"<w:tr>" + cell(b"", b"<w:vMerge/>") + cell(b"side") + b"</w:tr>"
    started = time.perf_counter()
    document = extract_document(word_table(head + below * 20_000))
    assert time.perf_counter() - started < SECONDS  # 33 s, then a recursion error, before
    assert [b.text for b in document.blocks[:3]] == ["top", "right", "side"]
    assert len(document.blocks) == 20_002
    assert document.blocks[2].place == Place(paragraph=1, row=2, column=2)


@pytest.mark.parametrize("level", ["\u00b2", "1" * 5_000])
def test_a_word_heading_style_of_an_odd_level_is_a_paragraph(level: str) -> None:
    """A style "Heading ²" ("²" is a digit to ``str.isdigit``, not to ``int``) or "Heading "
    and 5,000 digits (past what ``int`` reads) names no heading level."""
    document = docx.Document()
    document.styles.add_style(f"Heading {level}", WD_STYLE_TYPE.PARAGRAPH)
    document.add_paragraph("Odd", style=f"Heading {level}")
    document.add_heading("Even", 2)
    out = io.BytesIO()
    document.save(out)
    blocks = extract_document(out.getvalue()).blocks
    assert [(b.text, b.kind) for b in blocks] == [("Odd", "paragraph"), ("Even", "heading")]


CREATED = re.compile(rb"<dcterms:created[^>]*>[^<]*</dcterms:created>")
DCTERMS = b'xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'


@pytest.mark.parametrize("stated", [b"9999-12-31T23:59:59-23:59", b"99999-99-99"])
@pytest.mark.parametrize("make", [word_file, slides_file, sheets_file], ids=KINDS)
def test_a_creation_date_no_calendar_holds_costs_the_date_not_the_text(
    make: Callable[[], bytes], stated: bytes
) -> None:
    created = b"<dcterms:created " + DCTERMS + b' xsi:type="dcterms:W3CDTF">' + stated
    created += b"</dcterms:created>"

    def dated(name: str, data: bytes) -> bytes:
        if name != "docProps/core.xml":
            return data
        assert CREATED.search(data)
        return CREATED.sub(created, data)

    body = make()
    document = extract_document(edited(body, dated))  # the whole file was refused before
    assert document.blocks == extract_document(body).blocks


def test_a_title_and_author_of_megabytes_are_capped_as_a_page_s_are() -> None:
    body = pdf(["Rivers rise."], {"Title": "River " * 1_000_000, "Author": "\x07A" * 1_000_000})
    document = extract_document(body)  # each chunk is scored under its document's title
    assert document.title == ("River " * (MAX_TEXT_CHARS // 6 + 1))[:MAX_TEXT_CHARS]
    assert document.author == "A" * MAX_TEXT_CHARS
    assert [b.text for b in document.blocks] == ["Rivers rise."]


def test_an_office_file_with_an_encrypted_member_is_a_clear_error() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(word_file())) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            item.compress_type = zipfile.ZIP_STORED
            target.writestr(item, data)
    body = bytearray(out.getvalue())
    name = b"word/document.xml"
    for magic, flags, length, at in ((b"PK\x03\x04", 6, 26, 30), (b"PK\x01\x02", 8, 28, 46)):
        start = body.find(magic)
        while start >= 0:  # mark the member encrypted, in its header and the directory
            size = struct.unpack_from("<H", body, start + length)[0]
            if body[start + at : start + at + size] == name:
                body[start + flags] |= 1
            start = body.find(magic, start + 4)
    refused(bytes(body), "an encrypted zip member: word/document.xml")  # a RuntimeError before


def test_a_zip_member_placed_past_the_end_of_the_file_is_a_clear_error() -> None:
    body = bytearray(word_file())
    start = body.find(b"PK\x01\x02")
    while start >= 0:  # the directory says the member starts 10 bytes before the end
        size = struct.unpack_from("<H", body, start + 28)[0]
        if body[start + 46 : start + 46 + size] == b"word/document.xml":
            struct.pack_into("<I", body, start + 42, len(body) - 10)
        start = body.find(b"PK\x01\x02", start + 4)
    refused(bytes(body), "a zip member with a broken header")  # a struct.error before


def _version_unknown(body: bytearray) -> None:
    """Every directory entry asks for a zip version the zip module does not know (19.2)."""
    start = body.find(b"PK\x01\x02")
    while start >= 0:
        body[start + 6] = 192
        start = body.find(b"PK\x01\x02", start + 4)


SHIFT = 1_000_000


def _directory_moved(body: bytearray) -> None:
    """The end record places the directory far further on, and the first member (the
    content types) as far, so that it is read where it is and the others before byte 0."""
    end = body.rfind(b"PK\x05\x06")
    struct.pack_into("<I", body, end + 16, struct.unpack_from("<I", body, end + 16)[0] + SHIFT)
    first = body.find(b"PK\x01\x02")
    struct.pack_into("<I", body, first + 42, struct.unpack_from("<I", body, first + 42)[0] + SHIFT)


def _types_garbled(body: bytearray) -> None:
    """The deflated bytes of ``[Content_Types].xml`` overwritten in their middle."""
    start = body.find(b"[Content_Types].xml") + len("[Content_Types].xml") + 40
    body[start : start + 8] = b"\xff" * 8


@pytest.mark.parametrize(
    "breaks", [_version_unknown, _directory_moved, _types_garbled], ids=lambda f: f.__name__
)
def test_a_package_broken_in_the_zip_itself_is_a_clear_error(
    breaks: Callable[[bytearray], None],
) -> None:
    body = bytearray(word_file())
    breaks(body)
    refused(bytes(body), "zip")  # NotImplementedError, ValueError and zlib.error before
