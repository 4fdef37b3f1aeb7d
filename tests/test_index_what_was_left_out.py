"""What ``index add`` and ``extract`` say about what they left out: a document cut at the
text budget (any format, text and Markdown alike), one that holds no text and why, a PDF or
Office file that cannot be read (each with its own reason), and the smaller promises a new
user leans on (titles, a partition's listing, a claim's words)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift import index_add
from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.cli.reading import EXIT_FAILED
from citesift.extract.plaintext import MAX_TEXT_BLOCKS
from citesift.index.partition import create_partitioned_rag
from citesift.sources.files import FileRefused, file_document, file_uri
from citesift.verify.citations import find_citations
from citesift.verify.written_urls import without_addresses
from made_documents import compound_file, long_sheet, pdf

runner = CliRunner()
PARAGRAPH = "The survey counted every glacier in the range once more this year.\n\n"


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def add(store: Path, *args: str) -> tuple[int, str, str]:
    return run("index", "add", *args, "--store", str(store), "--retrieval", "bm25")


def test_a_document_cut_at_the_budget_is_named_and_a_larger_budget_reads_it_whole(
    tmp_path: Path,
) -> None:
    sheet = tmp_path / "sales.xlsx"
    sheet.write_bytes(long_sheet(3_000))  # some 12,000 characters of cells
    store = tmp_path / "index.db"
    code, out, err = add(store, str(sheet), "--budget", "2000")
    assert code == 0 and "1 of them cut short" in out
    assert f"cut {sheet}: the text was cut short (budget 2,000 characters;" in err
    report = index_add([str(sheet)], store=store, retrieval="bm25", budget=2000)
    assert report.unchanged == 1 and report.cut == ()  # cut alike before: not read again
    report = index_add([str(sheet)], store=store, retrieval="bm25", budget=100_000)
    assert (report.added, report.cut) == (1, ())  # another budget reads it again, whole
    code, out, err = add(store, str(sheet), "--budget", "100000")
    assert code == 0 and "unchanged" in out and "cut" not in err


def test_markdown_and_plain_text_keep_the_same_budget(tmp_path: Path) -> None:
    text = PARAGRAPH * 50  # 3,400 characters
    (tmp_path / "notes.md").write_text(text)
    (tmp_path / "notes.txt").write_text(text)
    report = index_add([str(tmp_path)], store=tmp_path / "i.db", retrieval="bm25", budget=1000)
    expected = {file_uri(tmp_path / "notes.md"), file_uri(tmp_path / "notes.txt")}
    assert report.added == 2 and set(report.cut) == set(report.budget_cut) == expected
    shared = index_add(
        [str(tmp_path)], store=tmp_path / "w.db", retrieval="bm25", budget=1000, workers=2
    )
    assert shared.added == 2 and set(shared.cut) == expected  # told by each worker
    for name in ("notes.md", "notes.txt"):
        document = file_document(tmp_path / name, budget=1000)
        kept = sum(len(block.text) for block in document.blocks)
        assert document.truncated and 900 < kept <= 1000
        whole = file_document(tmp_path / name, budget=10_000)
        assert not whole.truncated and len(whole.blocks) == 50


def test_a_document_cut_by_a_bound_no_budget_lifts_is_not_said_to_need_a_larger_one(
    tmp_path: Path,
) -> None:
    """A text of more paragraphs than are read (``MAX_TEXT_BLOCKS``) is cut short well
    within the budget: named as cut by a size or time bound, not sent to --budget."""
    many = tmp_path / "many.txt"
    many.write_text("a\n\n" * (MAX_TEXT_BLOCKS + 1))
    store = tmp_path / "index.db"
    code, out, err = add(store, str(many))
    assert code == 0 and "1 of them cut short" in out
    assert f"cut {many}: the text was cut short by a size or time bound" in err
    assert "--budget" not in err
    report = index_add([str(many)], store=tmp_path / "other.db", retrieval="bm25")
    assert report.cut == (file_uri(many),) and report.budget_cut == ()


def test_each_pdf_says_its_own_reason(tmp_path: Path) -> None:
    (tmp_path / "a-locked.pdf").write_bytes(pdf(["secret"], password=b"pw"))
    (tmp_path / "b-zero.pdf").write_bytes(pdf([]))
    (tmp_path / "c-broken.pdf").write_bytes(pdf(["text"])[:200])
    (tmp_path / "d-ok.pdf").write_bytes(pdf(["Meltwater feeds the Rhone."]))
    code, out, err = add(tmp_path / "i.db", str(tmp_path))
    assert code == 0 and "indexed 1 document(s)" in out
    assert "a-locked.pdf: an encrypted PDF that needs a password" in err
    assert "b-zero.pdf: a PDF with no pages" in err
    assert "c-broken.pdf: not a readable PDF (PDFium: Data format error)" in err
    code, _, err = run("extract", str(tmp_path / "b-zero.pdf"))  # alone, the same reason
    assert code == EXIT_FAILED and "a PDF with no pages" in err


def test_a_password_protected_office_file_is_refused_as_encrypted(tmp_path: Path) -> None:
    locked = tmp_path / "budget.xlsx"
    locked.write_bytes(
        compound_file({"EncryptionInfo": os.urandom(300), "EncryptedPackage": os.urandom(6000)})
    )
    legacy = tmp_path / "old.docx"
    legacy.write_bytes(compound_file({"WordDocument": b"text of an old Word file"}))
    code, _, err = add(tmp_path / "i.db", str(locked), str(legacy))
    assert code == EXIT_USAGE
    assert "budget.xlsx: an encrypted Office file that needs a password" in err
    assert "old.docx: a compound (OLE) file, such as a .doc, .xls or .ppt" in err
    code, _, err = run("extract", str(locked))
    assert code == EXIT_FAILED and "encrypted Office file that needs a password" in err


def test_documents_without_text_are_named_with_why(tmp_path: Path) -> None:
    (tmp_path / "scan.pdf").write_bytes(pdf([""]))  # a page, and no text on it
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "empty.pdf").write_bytes(b"")
    (tmp_path / "blank.txt").write_text("\n \n")
    (tmp_path / "ok.md").write_text(PARAGRAPH)
    store = tmp_path / "i.db"
    code, out, err = add(store, str(tmp_path))
    assert code == 0 and "skipped 4 empty document(s)" in out
    assert f"skipped {tmp_path / 'scan.pdf'}: no text layer (scanned? OCR it first)" in err
    assert f"skipped {tmp_path / 'empty.md'}: empty file" in err
    assert f"skipped {tmp_path / 'empty.pdf'}: empty file" in err
    assert f"skipped {tmp_path / 'blank.txt'}: no text" in err
    report = index_add([str(tmp_path / "scan.pdf")], store=store, retrieval="bm25")
    assert [(e.id, e.reason) for e in report.empty_documents] == [
        (file_uri(tmp_path / "scan.pdf"), "no text layer (scanned? OCR it first)")
    ]
    report = index_add([str(tmp_path / "ok.md")], store=tmp_path / "0.db", budget=0)
    assert [e.reason for e in report.empty_documents] == ["no text within the bounds (budget 0)"]
    code, out, err = run("extract", str(tmp_path / "scan.pdf"))
    assert code == 0 and "no blocks: no text layer (scanned? OCR it first)" in err
    code, out, err = run("extract", str(tmp_path / "empty.md"))
    assert code == 0 and "no blocks: empty file" in err


def test_untitled_files_are_titled_by_their_name(tmp_path: Path) -> None:
    (tmp_path / "sheet.xlsx").write_bytes(long_sheet(3))
    (tmp_path / "report.pdf").write_bytes(pdf(["Meltwater feeds the Rhone."]))
    (tmp_path / "titled.pdf").write_bytes(pdf(["Ice."], {"Title": "Alpine ice"}))
    (tmp_path / "notes.txt").write_text("Ice melts.")
    (tmp_path / "bare.html").write_text("<p>Ice melts in spring.</p>")
    for name in ("sheet.xlsx", "report.pdf", "notes.txt", "bare.html"):  # one rule for all
        assert file_document(tmp_path / name).title == name.rsplit(".", 1)[0]
        code, out, _ = run("extract", str(tmp_path / name))  # extract reads them alike
        assert code == 0 and out.split("\n")[0] == name.rsplit(".", 1)[0]
    assert file_document(tmp_path / "titled.pdf").title == "Alpine ice"
    (tmp_path / "fake.pdf").write_text("text")
    with pytest.raises(FileRefused, match=r"named \.pdf but not a PDF"):  # not empty: refused
        file_document(tmp_path / "fake.pdf")


def test_a_partition_lists_counts_and_deletes_as_a_rag_does(tmp_path: Path) -> None:
    store = str(tmp_path / "i.db")
    with (
        create_partitioned_rag("a", store=store, retrieval="bm25") as a,
        create_partitioned_rag("b", store=store, retrieval="bm25") as b,
    ):
        a.ingest([{"id": "doc", "content": "Glaciers lost ice."}, {"id": "two", "content": "X."}])
        b.ingest([{"id": "doc", "content": "Rivers ran high."}])
        assert [d.id for d in a.documents()] == ["doc", "two"]
        assert [d.id for d in b.documents()] == ["doc"]
        stats = a.stats()
        assert (stats.documents, stats.chunks, stats.partitions) == (2, 2, 1)
        assert a.delete("doc") == 1 and a.delete(["doc"]) == 0
        assert [d.id for d in a.documents()] == ["two"] and b.stats().documents == 1


def test_a_pointer_left_without_its_link_goes_with_it() -> None:
    written = {
        "The network is secure, see <https://netsec.net/audit>.": "The network is secure.",
        "The network is secure, cf. https://netsec.net/audit.": "The network is secure.",
        "Rust is fast; see also <https://netsec.net/audit>.": "Rust is fast.",
        "It is what we see <https://netsec.net/audit>.": "It is what we see.",
        "See https://netsec.net/audit for the audit of the network.": (
            "See for the audit of the network."
        ),
    }
    for text, claim in written.items():
        assert [c.sentence for c in find_citations(text)] == [claim]
    bracketed = {
        "It is secure (see https://netsec.net/audit).": "It is secure.",
        "It is secure (See also https://netsec.net/audit) and fast.": "It is secure and fast.",
        "It is secure (cf. https://netsec.net/audit.)": "It is secure.",
    }
    for text, claim in bracketed.items():
        assert without_addresses(text) == claim
