"""PDF, Word, PowerPoint and Excel files read into documents: blocks with their page, slide,
sheet, paragraph, row and column, the file's own metadata, and passages that cite the page.
Each file is made here by a writer of its format; what kind it is comes from its bytes."""

from __future__ import annotations

import io
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName

from citesift.errors import DocumentError, InvalidArgument
from citesift.extract.document import extract_document
from citesift.extract.markdown import blocks_to_markdown
from citesift.model import Place, Snapshot
from citesift.text.passages import attribution, citation_sources
from made_documents import pdf, sheets_file, slides_file, word_file

REPORT = pdf(
    ["Rivers rise in spring.", "Silt settles slowly. The delta grows each year."],
    {"Title": "River report", "Author": "Ann Lee", "CreationDate": "D:20240102030405Z"},
)


def test_a_pdf_gives_a_block_per_page_with_its_page_and_its_own_metadata() -> None:
    document = extract_document(REPORT, url="https://example.org/river.pdf")
    assert [(b.text, b.place) for b in document.blocks] == [
        ("Rivers rise in spring.", Place(page=1, paragraph=1)),
        ("Silt settles slowly. The delta grows each year.", Place(page=2, paragraph=1)),
    ]
    assert document.title == "River report" and document.author == "Ann Lee"
    assert document.page_date == 1704164645000  # 2024-01-02T03:04:05Z
    assert document.site == "example.org" and document.licence is None
    assert not document.truncated


def test_a_passage_of_a_pdf_cites_its_page() -> None:
    document = extract_document(REPORT, url="https://example.org/river.pdf")
    passage = next(p for p in citation_sources(document) if "delta" in p.content)
    assert passage.place == Place(page=2, paragraph=1)
    assert passage.fragment_url == "https://example.org/river.pdf#page=2"
    cited = attribution(passage)
    assert "[River report](<https://example.org/river.pdf>), page 2, paragraph 1" in (
        cited.markdown()
    )
    assert "River report, page 2, paragraph 1, example.org" in cited.text()
    assert "</a>, page 2, paragraph 1, example.org" in cited.html()


def test_a_web_page_passage_has_no_place_and_keeps_its_text_fragment() -> None:
    document = extract_document("<p>Plain web prose here.</p>", url="https://example.org/a")
    passage = citation_sources(document)[0]
    assert passage.place is None and "#:~:text=" in passage.fragment_url
    assert ", page" not in attribution(passage).markdown()


def test_the_budget_cuts_a_pdf_and_stops_reading_pages() -> None:
    document = extract_document(pdf(["one two three four", "five six"]), budget=9)
    assert [b.text for b in document.blocks] == ["one two"] and document.truncated


def test_a_word_file_gives_headings_with_their_path_paragraphs_and_cells() -> None:
    document = extract_document(word_file())
    found = [(b.kind, b.section, b.text, b.place) for b in document.blocks]
    assert found == [
        ("heading", (), "Findings", Place(paragraph=1)),
        ("paragraph", ("Findings",), "The Ouse carried record silt in March.", Place(paragraph=2)),
        ("heading", ("Findings",), "Method", Place(paragraph=3)),
        ("list_item", ("Findings", "Method"), "Samples were drawn weekly.", Place(paragraph=4)),
        ("table_cell", ("Findings", "Method"), "Site", Place(paragraph=5, row=1, column=1)),
        ("table_cell", ("Findings", "Method"), "Silt", Place(paragraph=5, row=1, column=2)),
        ("table_cell", ("Findings", "Method"), "York", Place(paragraph=5, row=2, column=1)),
        ("table_cell", ("Findings", "Method"), "41", Place(paragraph=5, row=2, column=2)),
    ]
    assert document.title == "Annual river survey" and document.author == "Hydrology Team"
    assert "| Site | Silt |\n| --- | --- |\n| York | 41 |" in blocks_to_markdown(document.blocks)


def test_a_merged_word_cell_is_one_block() -> None:
    import io

    import docx

    made = docx.Document()
    table = made.add_table(rows=2, cols=2)
    table.cell(0, 0).merge(table.cell(0, 1)).text = "Both columns"
    table.cell(1, 0).text = "left"
    table.cell(1, 1).text = "right"
    out = io.BytesIO()
    made.save(out)
    texts = [b.text for b in extract_document(out.getvalue()).blocks]
    assert texts == ["Both columns", "left", "right"]


def test_a_slide_deck_records_the_slide_on_every_block() -> None:
    document = extract_document(slides_file())
    found = [(b.kind, b.section, b.text, b.place) for b in document.blocks]
    assert found == [
        ("heading", (), "Budget", Place(slide=1, paragraph=1)),
        ("paragraph", ("Budget",), "Costs fell by a tenth.", Place(slide=1, paragraph=2)),
        ("heading", (), "Plans", Place(slide=2, paragraph=1)),
        ("paragraph", ("Plans",), "Hire two rangers.", Place(slide=2, paragraph=2)),
        ("note", ("Plans",), "Ask about the van.", Place(slide=2, paragraph=3)),
    ]
    assert document.title == "Budget"  # no stated title: the first heading
    passage = citation_sources(extract_document(slides_file(), url="https://x.test/d"))[3]
    assert passage.fragment_url == "https://x.test/d" and "slide 2" in attribution(passage).text()


def test_a_workbook_records_sheet_row_and_column_on_every_cell() -> None:
    document = extract_document(sheets_file())
    found = [(b.kind, b.section, b.text, b.place) for b in document.blocks]
    assert found == [
        ("table_cell", ("Sales",), "Region", Place(sheet="Sales", row=1, column=1)),
        ("table_cell", ("Sales",), "Total", Place(sheet="Sales", row=1, column=2)),
        ("table_cell", ("Sales",), "Region: North", Place(sheet="Sales", row=2, column=1)),
        ("table_cell", ("Sales",), "Total: 42", Place(sheet="Sales", row=2, column=2)),
        ("table_cell", ("Notes",), "Audited in May", Place(sheet="Notes", row=7, column=3)),
    ]
    markdown = blocks_to_markdown(document.blocks)
    assert "| Region | Total |\n| --- | --- |\n| North | 42 |" in markdown
    assert Place(sheet="Notes", row=7, column=3).label() == "sheet Notes, row 7, column 3"


def test_a_workbook_with_print_areas_and_sheet_names_reads_without_a_warning() -> None:
    book = openpyxl.load_workbook(io.BytesIO(sheets_file()))
    book["Sales"].print_area = "A1:B2"
    book["Sales"].print_title_rows = "1:1"
    book["Notes"].defined_names["audit"] = DefinedName("audit", attr_text="Notes!$C$7")
    out = io.BytesIO()
    book.save(out)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        document = extract_document(out.getvalue())
    assert [str(w.message) for w in warned] == []
    assert [b.text for b in document.blocks] == [
        "Region", "Total", "Region: North", "Total: 42", "Audited in May"
    ]  # fmt: skip


@pytest.mark.parametrize("body", [REPORT, word_file()], ids=["pdf", "docx"])
def test_the_bytes_decide_not_the_address_or_content_type(body: bytes) -> None:
    snapshot = Snapshot(
        id="x", url="https://example.org/page.html", final_url="https://example.org/page.html",
        status=200, headers=(("Content-Type", "text/html"),), content_type="text/html",
        charset="utf-8", fetched_at=1_700_000_000_000, body=body,
    )  # fmt: skip
    document = extract_document(snapshot)
    assert document.blocks and all(b.place is not None for b in document.blocks)
    assert document.url == "https://example.org/page.html" and document.snapshot_id == "x"
    assert document.read_at == 1_700_000_000_000


def test_a_content_type_naming_a_pdf_on_other_bytes_is_a_clear_error() -> None:
    snapshot = Snapshot(
        id="y", url="https://example.org/r", final_url="https://example.org/r", status=200,
        headers=(), content_type="application/pdf", charset=None, fetched_at=0,
        body=b"<html>Sorry, the report moved.</html>",
    )  # fmt: skip
    with pytest.raises(DocumentError, match="not a readable PDF"):
        extract_document(snapshot)


def test_html_bytes_are_still_read_as_html() -> None:
    document = extract_document(b"<p>A page that mentions %PDF- late.</p>" + b" " * 2000)
    assert document.blocks[0].place is None


def test_a_bad_mode_or_budget_is_refused_for_a_file_too() -> None:
    with pytest.raises(InvalidArgument, match="mode"):
        extract_document(REPORT, mode="pages")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="budget"):
        extract_document(REPORT, budget=-1)


def test_a_small_file_reads_fast() -> None:
    body = word_file()
    started = time.perf_counter()
    for _ in range(10):
        extract_document(body)
    assert time.perf_counter() - started < 10  # generous: shared machines are slow


def test_pdfs_read_from_several_threads_at_once_each_come_back_whole() -> None:
    bodies = [pdf([f"Report number {n} says the lake froze."] * 3) for n in range(16)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        documents = list(pool.map(extract_document, bodies))
    for n, document in enumerate(documents):
        assert [b.text for b in document.blocks] == [f"Report number {n} says the lake froze."] * 3
