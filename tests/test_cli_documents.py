"""PDF and Office files on the command line: ``citesift extract`` prints their blocks with
their places, and ``citesift index add`` indexes them (alone or in a folder) for search.
A file is read as what its bytes are, whatever its name says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.cli.reading import EXIT_FAILED
from citesift.model import Place, SourceDocument
from citesift.sources.files import FileRefused, file_document, file_uri
from made_documents import pdf, sheets_file, word_file

runner = CliRunner()
REPORT = pdf(
    ["Glaciers in the Alps lost a tenth of their ice.", "Meltwater feeds the Rhone."],
    {"Title": "Alpine ice", "Author": "Survey Office"},
)


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def test_extract_prints_a_pdfs_blocks_with_their_pages(tmp_path: Path) -> None:
    path = tmp_path / "ice.pdf"
    path.write_bytes(REPORT)
    code, out, _ = run("extract", str(path))
    assert code == 0
    title, name, legend, blank, first, text = out.split("\n")[:6]
    assert (title, name, blank) == ("Alpine ice", file_uri(path), "")  # as index add names it
    assert "place in the file" in legend
    assert first == "[0] paragraph (page 1, paragraph 1) § -"
    assert text == "Glaciers in the Alps lost a tenth of their ice."
    assert "[1] paragraph (page 2, paragraph 1) § -\nMeltwater feeds the Rhone." in out


def test_extract_json_and_stdin_carry_the_place(tmp_path: Path) -> None:
    code, out, _ = run("extract", "-", "--format", "json", stdin=REPORT)
    assert code == 0
    document = json.loads(out)
    assert document["author"] == "Survey Office"
    assert document["blocks"][1]["place"]["page"] == 2


def test_extract_draws_a_sheet_as_a_table(tmp_path: Path) -> None:
    path = tmp_path / "sales.xlsx"
    path.write_bytes(sheets_file())
    code, out, _ = run("extract", str(path), "--format", "markdown")
    assert code == 0 and "| Region | Total |\n| --- | --- |\n| North | 42 |" in out
    code, out, _ = run("extract", str(path))
    assert "[0-3] table (sheet Sales, row 1, column 1) § Sales\nRegion  Total\nNorth   42" in out


def test_extract_of_a_broken_or_locked_pdf_says_why(tmp_path: Path) -> None:
    broken, locked = tmp_path / "broken.pdf", tmp_path / "locked.pdf"
    broken.write_bytes(REPORT[:300])
    locked.write_bytes(pdf(["secret"], password=b"pw"))
    code, _, err = run("extract", str(broken))
    assert code == EXIT_FAILED and "broken.pdf: not a readable PDF" in err
    code, _, err = run("extract", str(locked))
    assert code == EXIT_FAILED and "encrypted PDF that needs a password" in err
    binary = tmp_path / "data.bin"
    binary.write_bytes(b"\x00\x01 not a document")
    code, _, err = run("extract", str(binary))
    assert code == EXIT_USAGE and "binary data" in err


def test_a_file_is_read_as_what_its_bytes_are_not_its_name(tmp_path: Path) -> None:
    disguised = tmp_path / "page.html"
    disguised.write_bytes(REPORT)
    document = file_document(disguised)
    assert isinstance(document, SourceDocument)
    assert document.blocks[0].place == Place(page=1, paragraph=1)
    assert document.url == document.key == file_uri(disguised) and document.site == "file"
    fake = tmp_path / "fake.pdf"
    fake.write_text("just some text")
    with pytest.raises(FileRefused, match=r"named \.pdf but not a PDF or Office file"):
        file_document(fake)


def test_index_add_a_folder_of_documents_then_search_finds_their_text(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "ice.pdf").write_bytes(REPORT)
    (folder / "survey.docx").write_bytes(word_file())
    (folder / "locked.pdf").write_bytes(pdf(["secret"], password=b"pw"))
    store = str(tmp_path / "index.db")
    code, out, err = run("index", "add", str(folder), "--store", store, "--retrieval", "bm25")
    assert code == 0 and "indexed 2 document(s)" in out
    assert "locked.pdf: an encrypted PDF that needs a password" in err

    code, out, _ = run(
        "search", "meltwater Rhone", "--store", store, "--retrieval", "bm25", "--format", "json"
    )
    hit = json.loads(out)[0]
    assert "Meltwater feeds the Rhone." in hit["content"]
    assert hit["provenance"]["title"] == "Alpine ice"
    assert hit["provenance"]["url"] == file_uri(folder / "ice.pdf")

    code, out, _ = run("search", "silt Ouse", "--store", store, "--retrieval", "bm25")
    assert code == 0 and "Annual river survey" in out


def test_index_add_a_single_pdf(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(REPORT)
    store = str(tmp_path / "index.db")
    code, out, _ = run("index", "add", str(path), "--store", store, "--retrieval", "bm25")
    assert code == 0 and "indexed 1 document(s)" in out
