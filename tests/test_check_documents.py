"""Checking citations of PDF and Word files served on 127.0.0.1: read by what their bytes
are, as ``scrape`` reads them, graded like a web page, the evidence linked by page; an
encrypted, corrupt or bomb file is "source unavailable" saying why."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift import WebPageSource, check_citations
from citesift.cli import app
from citesift.extract.pdf_streams import MAX_STREAM_BYTES
from citesift.net import ClientIdentity
from hostile.test_pdf_streams import drawing, pdf_of
from made_documents import pdf, word_file
from test_rag_helpers import HashEmbedder
from wikipedia_server import Answer, WikipediaStandIn

pytestmark = pytest.mark.timeout(120)
IDENTITY = ClientIdentity("TestClient", "1.0", "https://example.org/contact")
PDF = {"Content-Type": "application/pdf"}
WORD = {"Content-Type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
REPORT = pdf(
    [
        "Harbour report\nThe ferry left at noon.",
        "The bridge opened in 1932.\nIts main span is 503 metres long.",
    ]
)
BOMB = pdf_of(zlib.compress(drawing(MAX_STREAM_BYTES + 1), 9))


@pytest.fixture
def site(tmp_path: Path) -> Iterator[WikipediaStandIn]:
    with WikipediaStandIn(tmp_path) as server:
        server.answer("/report", Answer(200, PDF, REPORT))
        server.answer(
            "/download", Answer(200, {"Content-Type": "application/octet-stream"}, REPORT)
        )
        server.answer("/survey", Answer(200, WORD, word_file()))
        server.answer("/locked", Answer(200, PDF, pdf(["secret"], password=b"pw")))
        server.answer("/cut", Answer(200, PDF, REPORT[:300]))
        server.answer("/bomb", Answer(200, PDF, BOMB))
        yield server


def reader() -> WebPageSource:
    return WebPageSource(IDENTITY, allow_private=True)


def test_a_cited_pdf_supports_its_sentence_with_a_link_to_the_page(site: WikipediaStandIn) -> None:
    text = (
        f"The bridge's main span is 503 metres long [1]. "
        f"Its main span is 611 metres long [2]. "
        f"The ferry left at noon ([report]({site.origin}/download)).\n\n"
        f"[1] {site.origin}/report\n[2] {site.origin}/report\n"
    )
    report = check_citations(text, reader(), embedder=HashEmbedder())
    supported, altered, unlabelled = report.citations
    assert supported.status == "supported", supported
    assert supported.evidence == "Its main span is 503 metres long."
    assert supported.evidence_url == f"{site.origin}/report#page=2"
    assert supported.place is not None and supported.place.page == 2
    assert supported.snapshot_id is not None
    assert altered.status != "supported" and "611" in altered.reason
    assert unlabelled.status == "supported"  # read by its bytes, not its content type
    assert unlabelled.evidence_url == f"{site.origin}/download#page=1"


def test_a_cited_word_file_is_read_and_its_place_named(site: WikipediaStandIn) -> None:
    text = f"The Ouse carried record silt in March [1].\n\n[1] {site.origin}/survey\n"
    (check,) = check_citations(text, reader(), embedder=HashEmbedder()).citations
    assert check.status == "supported", check
    assert check.evidence == "The Ouse carried record silt in March."
    assert check.evidence_url == f"{site.origin}/survey"  # a text fragment means nothing there
    assert check.place is not None and check.place.paragraph is not None
    assert check.title == "Annual river survey"


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/locked", "encrypted PDF"),
        ("/cut", "not a readable PDF"),
        ("/bomb", "decodes past 64 MiB"),
    ],
    ids=["encrypted", "corrupt", "bomb"],
)
def test_an_unreadable_pdf_is_a_source_unavailable_saying_why(
    site: WikipediaStandIn, path: str, words: str
) -> None:
    text = f"The bridge opened in 1932 [1].\n\n[1] {site.origin}{path}\n"
    (check,) = check_citations(text, reader(), embedder=HashEmbedder()).citations
    assert check.status == "source unavailable" and words in check.reason
    assert check.evidence is None and check.place is None


def test_the_command_gives_the_page_in_text_and_json(
    site: WikipediaStandIn, tmp_path: Path
) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text(f"The main span is 503 metres long [1].\n\n[1] {site.origin}/report\n")
    flags = [str(doc), "--allow-private", "--contact", "a@b.c"]
    runner = CliRunner()
    text_run = runner.invoke(app, ["check", *flags])
    assert text_run.exit_code == 0, text_run.output
    assert f"at {site.origin}/report#page=2 (page 2, paragraph 1)" in text_run.output
    json_run = runner.invoke(app, ["check", *flags, "--format", "json"])
    (citation,) = json.loads(json_run.stdout)["citations"]
    assert citation["status"] == "supported"
    assert citation["evidence_url"].endswith("/report#page=2")
    assert citation["place"]["page"] == 2
