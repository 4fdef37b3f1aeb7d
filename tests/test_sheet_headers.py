"""A sheet whose first row holding values names its columns has each cell below written
``Header: value``: a passage cut from row 40 of a workbook says what its numbers are, in
the document's own text (offsets and places unchanged), in the index's chunks and in the
passages cited; a first row of data, or a lone title, names nothing."""

from __future__ import annotations

import io
from pathlib import Path

import openpyxl

from citesift import index_add
from citesift.extract.document import extract_document
from citesift.extract.markdown import blocks_to_markdown
from citesift.index.documents import as_ingest_doc
from citesift.index.rag import create_rag
from citesift.model import Place
from citesift.sources.files import content_revision, file_document, file_revision, file_uri
from citesift.sources.loaders.files import load_file
from citesift.text.passages import citation_sources

HEADER = ["Trail", "Length km", "Climb m", "Dogs allowed"]


def trails(rows: int = 60, header: list[object] | None = HEADER, skip: int = 0) -> bytes:
    """A workbook of one sheet, "Trails": ``skip`` empty rows, ``header`` (when given), then
    ``rows`` rows of a trail's name, length, climb and whether dogs may go."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Trails"
    for _ in range(skip):
        sheet.append([])
    if header is not None:
        sheet.append(header)
    for n in range(rows):
        sheet.append([f"Trail {n}", 12 + n / 10, 400 + n, "yes" if n % 2 else "no"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def texts_at(body: bytes, row: int) -> list[str]:
    return [b.text for b in extract_document(body).blocks if b.place and b.place.row == row]


def test_cells_below_a_header_row_are_written_under_their_column_s_header() -> None:
    document = extract_document(trails())
    assert [b.text for b in document.blocks[:4]] == HEADER  # the header row as it stands
    row_40 = [b for b in document.blocks if b.place == Place(sheet="Trails", row=41, column=3)]
    assert [b.text for b in row_40] == ["Climb m: 439"]
    assert texts_at(trails(), 41) == [
        "Trail: Trail 39", "Length km: 15.9", "Climb m: 439", "Dogs allowed: yes"
    ]  # fmt: skip


def test_the_header_row_is_the_first_row_holding_values() -> None:
    assert texts_at(trails(skip=2), 4)[:2] == ["Trail: Trail 0", "Length km: 12"]


def test_a_first_row_of_data_or_a_lone_title_names_no_column() -> None:
    assert texts_at(trails(header=None), 2) == ["Trail 1", "12.1", "401", "yes"]
    assert texts_at(trails(header=["Trails of the north"]), 2) == ["Trail 0", "12", "400", "no"]
    mixed = ["Trail", "Length km", 2024, "Dogs allowed"]  # a number: data, not names
    assert texts_at(trails(header=mixed), 2) == ["Trail 0", "12", "400", "no"]
    twice = ["Trail", "Trail", "Climb m", "Dogs allowed"]
    assert texts_at(trails(header=twice), 2) == ["Trail 0", "12", "400", "no"]


def test_a_missing_cell_leaves_its_neighbours_under_their_own_headers() -> None:
    book = openpyxl.load_workbook(io.BytesIO(trails(rows=3)))
    book.active["B3"] = None
    out = io.BytesIO()
    book.save(out)
    assert texts_at(out.getvalue(), 3) == ["Trail: Trail 1", "Climb m: 401", "Dogs allowed: yes"]


def test_an_index_chunk_far_down_the_sheet_names_its_columns_and_its_offsets_hold(
    tmp_path: Path,
) -> None:
    path = tmp_path / "trails.xlsx"
    path.write_bytes(trails())
    store = tmp_path / "s.db"
    index_add([str(path)], store=store, retrieval="bm25", chunk_size=200, chunk_overlap=0)
    with create_rag(store=store, retrieval="bm25") as rag:
        hits = rag.search("climb of Trail 39 in m", top_k=1)
    hit = hits[0]
    assert "Trail: Trail 39" in hit.content and "Climb m: 439" in hit.content
    assert hit.provenance is not None and hit.provenance.place is not None
    assert hit.provenance.place.row is not None and hit.provenance.place.row > 30
    text = as_ingest_doc(file_document(path)).content
    assert text[hit.provenance.start : hit.provenance.end] == hit.content


def test_a_cited_cell_says_what_it_is_and_its_span_is_its_block_s_text() -> None:
    document = extract_document(trails(), url="https://x.test/trails.xlsx")
    passages = [p for p in citation_sources(document) if p.place and p.place.row == 41]
    assert [p.content for p in passages][1] == "Length km: 15.9"
    for p in passages:
        assert document.blocks[p.block].text[p.start : p.end] == p.content


def test_markdown_draws_a_sheet_s_values_under_its_header_row_once() -> None:
    markdown = blocks_to_markdown(extract_document(trails(rows=2)).blocks)
    assert markdown == (
        "| Trail | Length km | Climb m | Dogs allowed |\n| --- | --- | --- | --- |\n"
        "| Trail 0 | 12 | 400 | no |\n| Trail 1 | 12.1 | 401 | yes |\n"
    )


def test_a_workbook_indexed_with_bare_cells_is_read_again_once(tmp_path: Path) -> None:
    path = tmp_path / "trails.xlsx"
    path.write_bytes(trails(rows=3))
    before = {file_uri(path): content_revision(path.read_bytes())}  # as it was indexed
    again = load_file(path, known=before)
    assert not again.unchanged and again.document is not None
    assert again.document.revision == file_revision(path, path.read_bytes())
    assert again.document.revision == before[file_uri(path)] + ":headers"
    assert load_file(path, known={file_uri(path): again.document.revision}).unchanged


def book(rows: list[list[object]], bold_first: bool = False) -> bytes:
    """A workbook of one sheet, "Trails", holding ``rows`` (the first in bold when asked)."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Trails"
    for row in rows:
        sheet.append(row)
    if bold_first:
        for cell in sheet[1]:
            cell.font = openpyxl.styles.Font(bold=True)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


PEOPLE = [["Alice", "alice@x.org"], ["Bob", "bob@x.org"], ["Carol", "carol@x.org"]]


def test_a_sheet_of_text_alike_in_every_row_names_no_column() -> None:
    """Names and addresses with no header row: the first row is data like the rest, as
    ``csv.Sniffer.has_header`` would tell (no column holds a number below it, and the
    first row is styled as the rows below)."""
    assert texts_at(book(PEOPLE), 2) == ["Bob", "bob@x.org"]
    assert texts_at(book(PEOPLE), 3) == ["Carol", "carol@x.org"]


def test_a_header_row_over_text_is_told_by_its_style() -> None:
    named = book([["Name", "Email"], *PEOPLE], bold_first=True)
    assert texts_at(named, 3) == ["Name: Bob", "Email: bob@x.org"]
    assert texts_at(book([["Name", "Email"], *PEOPLE]), 3) == ["Bob", "bob@x.org"]


def test_a_number_in_any_row_held_back_tells_a_header_row() -> None:
    rows: list[list[object]] = [["Name", "Age"], ["Alice", "unknown"], ["Bob", 41]]
    assert texts_at(book(rows), 2) == ["Name: Alice", "Age: unknown"]
    assert texts_at(book(rows), 3) == ["Name: Bob", "Age: 41"]


def test_a_header_row_repeated_below_is_not_written_under_itself() -> None:
    document = extract_document(book([HEADER, ["Trail 0", 12, 400, "no"], HEADER]))
    assert [b.text for b in document.blocks if b.place and b.place.row == 3] == HEADER
    markdown = blocks_to_markdown(document.blocks)
    assert markdown.splitlines()[-1] == "| Trail | Length km | Climb m | Dogs allowed |"


def test_markdown_draws_bare_only_what_the_sheet_wrote_under_a_header() -> None:
    """A first row of data names nothing, so a value below that happens to begin with its
    text and a colon is drawn whole."""
    document = extract_document(book([["Key", 2024], ["Key: x", 5]]))
    assert [b.text for b in document.blocks] == ["Key", "2024", "Key: x", "5"]
    assert blocks_to_markdown(document.blocks).splitlines()[-1] == "| Key: x | 5 |"


def test_a_budget_cut_keeps_no_header_without_its_value() -> None:
    body = trails(rows=3)
    whole = extract_document(body).blocks
    for budget in range(sum(len(b.text) for b in whole)):
        for block in extract_document(body, budget=budget).blocks:
            assert block.value_start < len(block.text), (budget, block.text)
            assert not block.text.endswith(":"), (budget, block.text)
