"""Excel sheets are read as streams of rows: a plain export of a hundred thousand rows reads
whole, and what a hostile sheet can make the reader keep or spend is bounded instead of
the count of its elements: a row of a million cells, a cell of 100 MB, rows without end,
shared strings by the million or by the megabyte, deep nesting and a DTD each stop within
bounded time and memory, as a clear error or a text that says it was cut."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from datetime import time as clock

import openpyxl
import pytest
from test_documents import PEAK_BYTES, SECONDS, refused

from citesift.extract import sheets
from citesift.extract.document import extract_document
from citesift.extract.sheets import (
    MAX_CELL_CHARS,
    MAX_DEPTH,
    MAX_ROW_CELLS,
    MAX_ROWS,
    MAX_SHARED_CHARS,
    MAX_SHARED_STRINGS,
)
from citesift.extract.sniff import MAX_XML_ELEMENTS
from citesift.model import Document, Place
from made_documents import edited, workbook_file
from measure import traced

ROWS = 100_000
REGIONS = ["North", "South", "East", "West", "Centre"]


def export_rows() -> Iterator[bytes]:
    """A plain export's rows: an item and a note (shared strings, each its own), a count,
    an amount and a region (shared by many rows)."""
    for n in range(1, ROWS + 1):
        yield (
            b'<row r="%d"><c r="A%d" t="s"><v>%d</v></c><c r="B%d"><v>%d</v></c>'
            b'<c r="C%d"><v>%.2f</v></c><c r="D%d" t="s"><v>%d</v></c>'
            b'<c r="E%d" t="s"><v>%d</v></c></row>'
        ) % (n, n, 2 * n - 2, n, n, n, n * 1.25, n, 2 * ROWS + n % 5, n, 2 * n - 1)


def export_strings() -> Iterator[bytes]:
    for n in range(1, ROWS + 1):
        yield b"<si><t>Item %d</t></si><si><t>Checked on day %d</t></si>" % (n, n % 365)
    for region in REGIONS:
        yield b"<si><t>%s</t></si>" % region.encode()


@pytest.fixture(scope="module")
def export() -> bytes:
    """The plain export's workbook (1.5 million XML elements), made once: it is only read."""
    return workbook_file(export_rows(), export_strings())


def test_a_hundred_thousand_rows_of_five_columns_read_whole(export: bytes) -> None:
    started = time.perf_counter()
    document = extract_document(export, budget=10_000_000)
    took = time.perf_counter() - started
    assert len(document.blocks) == 5 * ROWS and not document.truncated
    last = [(b.text, b.place) for b in document.blocks[-5:]]
    assert last == [
        (f"Item {ROWS}", Place(sheet="Data", row=ROWS, column=1)),
        (str(ROWS), Place(sheet="Data", row=ROWS, column=2)),
        (f"{ROWS * 1.25:.2f}", Place(sheet="Data", row=ROWS, column=3)),
        (REGIONS[ROWS % 5], Place(sheet="Data", row=ROWS, column=4)),
        (f"Checked on day {ROWS % 365}", Place(sheet="Data", row=ROWS, column=5)),
    ]
    assert took < 60, took  # about 4 s alone on this machine's kind of core


def test_the_text_budget_stops_a_long_sheet_early(export: bytes) -> None:
    started = time.perf_counter()
    document = extract_document(export, budget=1_000)
    assert document.truncated and document.blocks[0].text == "Item 1"
    assert sum(len(b.text) for b in document.blocks) <= 1_000
    assert time.perf_counter() - started < SECONDS


def bounded(body: bytes) -> Document:
    """``body`` read within bounded time and memory."""
    document, seconds, peak = traced(lambda: extract_document(body))
    assert seconds < 12 * SECONDS  # tracing memory slows it 3 to 4 times
    assert peak < PEAK_BYTES + 2 * len(body)
    return document


def test_a_row_of_a_million_cells_keeps_a_row_s_worth_and_ends_the_sheet() -> None:
    row = [b'<row r="1">', b"<c><v>7</v></c>" * 1_000_000, b"</row>"]
    after = b'<row r="2"><c><v>next row</v></c></row>'
    document = bounded(workbook_file([*row, after]))
    assert document.truncated and len(document.blocks) == MAX_ROW_CELLS
    assert document.blocks[MAX_ROW_CELLS - 1].place == Place(
        sheet="Data", row=1, column=MAX_ROW_CELLS
    )


def big_cell(size: int) -> Iterator[bytes]:
    yield b'<row r="1"><c r="A1" t="inlineStr"><is><t>'
    for _ in range(size // (1 << 20)):
        yield b"word " * ((1 << 20) // 5)
    yield b'</t></is></c><c r="B1"><v>after</v></c></row>'


def test_a_cell_of_a_hundred_megabytes_keeps_a_cell_s_worth() -> None:
    body = workbook_file(big_cell(100 * 1024 * 1024))
    document = bounded(body)
    assert document.truncated and [b.place.column for b in document.blocks if b.place] == [1, 2]
    assert MAX_CELL_CHARS - 5 <= len(document.blocks[0].text) <= MAX_CELL_CHARS


def test_rows_without_end_stop_at_a_sheet_s_rows() -> None:
    rows = [
        b"<row><c><v>first</v></c></row>",
        b"<row/>" * MAX_ROWS,
        b"<row><c><v>last</v></c></row>",
    ]
    document = bounded(workbook_file(rows))
    assert document.truncated and [b.text for b in document.blocks] == ["first"]


@pytest.mark.parametrize(
    ("strings", "wanted"),
    [
        (
            [b"<si><t>x</t></si>" * MAX_SHARED_STRINGS, b"<si><t>past the count</t></si>"],
            MAX_SHARED_STRINGS,
        ),
        (
            [b"<si><t>%s</t></si>" % (b"y" * MAX_CELL_CHARS)]
            * (MAX_SHARED_CHARS // MAX_CELL_CHARS + 2),
            MAX_SHARED_CHARS // MAX_CELL_CHARS + 1,
        ),
    ],
    ids=["many", "large"],
)
def test_shared_strings_past_their_bounds_are_cut(strings: list[bytes], wanted: int) -> None:
    rows = [b'<row><c t="s"><v>0</v></c><c t="s"><v>%d</v></c></row>' % wanted]
    document = bounded(workbook_file(rows, strings))
    assert document.truncated and len(document.blocks) == 1


@pytest.mark.parametrize("cell", [0, 1], ids=["the long string", "another"])
def test_a_shared_string_past_a_cell_s_text_is_cut_and_says_so(cell: int) -> None:
    strings = [b"<si><t>%s</t></si>" % (b"z" * (MAX_CELL_CHARS + 100)), b"<si><t>short</t></si>"]
    document = bounded(workbook_file([b'<row><c t="s"><v>%d</v></c></row>' % cell], strings))
    assert [len(b.text) for b in document.blocks] == [(MAX_CELL_CHARS, 5)[cell]]
    assert document.truncated == (cell == 0)  # a cut string that no cell names cuts nothing


def test_odd_numbers_in_a_sheet_are_passed_over_and_the_rest_read() -> None:
    """A row, style or shared string index of "²" (a digit to ``str.isdigit``, not to
    ``int``) or of 5,000 digits (past what ``int`` reads) is read as no number."""
    long = b"1" * 5_000
    rows = [
        b'<row r="\xc2\xb2"><c s="\xc2\xb2"><v>5</v></c><c t="s"><v>\xc2\xb2</v></c>',
        b'<c t="s"><v>%s</v></c><c t="s" s="%s"><v>0</v></c></row>' % (long, long),
        b'<row r="%s"><c><v>next</v></c></row>' % long,
    ]
    document = bounded(workbook_file(rows, [b"<si><t>shared</t></si>"]))
    assert [(b.text, b.place) for b in document.blocks] == [
        ("5", Place(sheet="Data", row=1, column=1)),
        ("shared", Place(sheet="Data", row=1, column=4)),
        ("next", Place(sheet="Data", row=2, column=1)),
    ]


def test_xml_nested_past_the_bound_is_refused() -> None:
    deep = b"<x>" * (MAX_DEPTH * 1000) + b"</x>" * (MAX_DEPTH * 1000)
    refused(workbook_file([b"<row><c><v>1</v>", deep, b"</c></row>"]), f"deeper than {MAX_DEPTH}")


def test_a_sheet_declaring_entities_is_refused_unexpanded() -> None:
    laughs = b'<!DOCTYPE w [<!ENTITY a "' + b"ha" * 1000 + b'"><!ENTITY b "&a;&a;&a;&a;">]>'

    def declared(name: str, data: bytes) -> bytes:  # the DTD goes before the root element
        return laughs + data if name == "xl/worksheets/sheet1.xml" else data

    body = workbook_file([b'<row><c t="inlineStr"><is><t>&b;</t></is></c></row>'])
    refused(edited(body, declared), "document type declaration")


def test_a_sheet_of_a_million_unknown_elements_is_read() -> None:
    rows = [b"<row><c><v>kept</v></c>", b"<x/>" * 1_000_000, b"</row>"]
    document = bounded(workbook_file(rows))
    assert [b.text for b in document.blocks] == ["kept"] and not document.truncated


def test_a_broken_sheet_is_a_clear_error() -> None:
    refused(workbook_file([b"<row><c><v>1</v></row>"]), "a sheet of broken XML")


def test_values_read_as_openpyxl_reads_them() -> None:
    book = openpyxl.Workbook()
    values = [
        "Région ☃",
        42,
        -1.5,
        1e21,
        True,
        False,
        datetime(2024, 3, 1),
        datetime(2024, 3, 1, 12, 30),
        date(1999, 12, 31),
        clock(6, 15),
        timedelta(days=1, hours=12),
        "=1+1",  # a formula with no value saved: nothing is read of it
    ]
    book.active.append(values)
    book.active["B3"] = "below"
    out = io.BytesIO()
    book.save(out)
    expected = []
    for row in openpyxl.load_workbook(
        io.BytesIO(out.getvalue()), data_only=True
    ).active.iter_rows():
        for cell in row:
            if cell.value is not None:
                value = cell.value
                text = value.isoformat() if isinstance(value, date | clock) else str(value)
                expected.append((text, Place(sheet="Sheet", row=cell.row, column=cell.column)))
    document = extract_document(out.getvalue())
    assert [(b.text, b.place) for b in document.blocks] == expected


def test_shared_strings_keep_their_runs_text_only() -> None:
    strings = [
        b"<si>\n  <t>plain</t>\n</si>",
        b"<si><r><rPr><b/></rPr><t>bold </t></r><r><t xml:space='preserve'>and not</t></r>"
        b"<rPh sb='0' eb='1'><t>phonetic</t></rPh></si>",
    ]
    rows = [b'<row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1" t="s"><v> 0 </v></c></row>']
    document = extract_document(workbook_file(rows, strings))
    assert [b.text for b in document.blocks] == ["bold and not", "plain"]


def test_a_part_parsed_whole_is_counted_whatever_type_it_claims() -> None:
    sheet_type = b"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
    claim = b'<Override PartName="/xl/workbook.xml" ContentType="%s"/></Types>' % sheet_type

    def flooded(name: str, data: bytes) -> bytes:
        if name == "[Content_Types].xml":
            return data.replace(b"</Types>", claim)
        if name == "xl/workbook.xml":
            return data.replace(b"</sheets>", b"</sheets>" + b"<x/>" * MAX_XML_ELEMENTS)
        return data

    body = edited(workbook_file([b"<row><c><v>1</v></c></row>"]), flooded)
    refused(body, f"more than {MAX_XML_ELEMENTS:,} XML elements")


def test_the_workbook_is_counted_however_the_content_types_spell_its_name() -> None:
    """The content types name the workbook ``/xl/book&#46;xml``, which an XML parser (and
    openpyxl) reads as ``/xl/book.xml``, and type ``/xl/book.xml``, so spelt, as a sheet."""
    types = b"application/vnd.openxmlformats-officedocument.spreadsheetml."
    spelt = b'PartName="/xl/book&#46;xml"'
    as_sheet = b'<Override PartName="/xl/book.xml" ContentType="%sworksheet+xml"/>' % types
    moved = {
        "xl/workbook.xml": "xl/book.xml",
        "xl/_rels/workbook.xml.rels": "xl/_rels/book.xml.rels",
    }

    def respelt(flood: int) -> Callable[[str, bytes], bytes]:
        def edit(name: str, data: bytes) -> bytes:
            if name == "[Content_Types].xml":
                data = data.replace(b'PartName="/xl/workbook.xml"', spelt)
                return data.replace(b"</Types>", as_sheet + b"</Types>")
            if name == "xl/workbook.xml":
                return data.replace(b"</sheets>", b"</sheets>" + b"<x/>" * flood)
            return data

        return edit

    body = workbook_file([b"<row><c><v>read</v></c></row>"])
    assert [b.text for b in extract_document(edited(body, respelt(0), moved)).blocks] == ["read"]
    refused(edited(body, respelt(MAX_XML_ELEMENTS), moved), f"more than {MAX_XML_ELEMENTS:,}")


def test_reading_stops_at_its_deadline_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_SECONDS", 0.0)  # past it before the first piece
    document = extract_document(workbook_file([b"<row><c><v>1</v></c></row>"]))
    assert document.truncated and document.blocks == ()
