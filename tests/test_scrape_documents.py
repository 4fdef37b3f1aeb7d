"""scrape() of PDF and Office files served by a local server: read by what their bytes are,
whatever the URL's suffix or the content type says, each block with its place."""

from __future__ import annotations

from typing import Any

import pytest

from citesift.scrape.page import scrape_sync
from citesift.scrape.result import ScrapeFailure, ScrapeResult
from made_documents import pdf, word_file
from servers import TEST_IDENTITY, MisbehavingServer, loopback_policy
from test_scrape import RICH, page_route

pytestmark = pytest.mark.timeout(60)
REPORT = pdf(["Harbour report\nThe ferry left at noon.", "Second page of the report."])
WORD = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def run(server: MisbehavingServer, path: str, *formats: str, **keywords: Any) -> Any:
    keywords.setdefault("executable", "/nonexistent/chromium")  # files are never rendered
    url = server.url(path)
    return scrape_sync(url, formats, identity=TEST_IDENTITY, policy=loopback_policy(), **keywords)


def test_a_pdf_without_a_pdf_suffix_or_type_is_read_as_a_pdf(server: MisbehavingServer) -> None:
    page_route(server, "/report", REPORT, content_type="application/octet-stream")
    result = run(server, "/report", "text", "blocks", "markdown", "passages")
    assert isinstance(result, ScrapeResult), result
    assert not result.render.decided and "pdf file" in result.render.why
    assert "The ferry left at noon." in result.formats["text"]
    assert "Second page of the report." in result.formats["markdown"]
    places = [block["place"] for block in result.formats["blocks"]]
    assert places[0] == "page 1, paragraph 1" and places[-1].startswith("page 2")
    assert result.formats["passages"][0]["snapshot_id"] == result.snapshot_ids[0]


def test_a_pdf_labelled_html_is_still_a_pdf(server: MisbehavingServer) -> None:
    page_route(server, "/paper.html", REPORT)  # served as text/html
    result = run(server, "/paper.html", "text", render="always")
    assert isinstance(result, ScrapeResult) and not result.render.rendered
    assert "The ferry left at noon." in result.formats["text"]


def test_a_page_named_pdf_is_read_as_the_page_it_is(server: MisbehavingServer) -> None:
    page_route(server, "/paper.pdf", RICH)
    result = run(server, "/paper.pdf", "text", "blocks")
    assert isinstance(result, ScrapeResult)
    assert result.formats["text"].startswith("The river rises")
    assert all(block["place"] is None for block in result.formats["blocks"])


def test_a_page_only_format_of_a_file_is_none_and_said(server: MisbehavingServer) -> None:
    page_route(server, "/report", REPORT, content_type="application/pdf")
    result = run(server, "/report", "text", "html", "links", include_tags=["article"])
    assert result.formats["html"] is None and result.formats["links"] is None
    assert "The ferry left at noon." in result.formats["text"]
    assert any("has no html, links" in warning for warning in result.warnings)
    assert any("do not apply" in warning for warning in result.warnings)


def test_a_word_file_is_read_with_its_paragraphs(server: MisbehavingServer) -> None:
    page_route(server, "/download", word_file(), content_type=WORD)
    result = run(server, "/download?id=7", "blocks", "metadata")
    assert isinstance(result, ScrapeResult), result
    blocks = result.formats["blocks"]
    assert blocks and all(block["place"] for block in blocks)
    assert any("paragraph" in block["place"] for block in blocks)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (pdf(["secret"], password=b"pw"), "encrypted PDF"),
        (REPORT[:300], "not a readable PDF"),
    ],
    ids=["encrypted", "corrupt"],
)
def test_a_locked_or_broken_file_is_a_failure_with_its_code(
    server: MisbehavingServer, body: bytes, words: str
) -> None:
    page_route(server, "/file", body, content_type="application/pdf")
    failure = run(server, "/file", "text")
    assert isinstance(failure, ScrapeFailure) and failure.code == "UNREADABLE_DOCUMENT"
    assert words in failure.message and failure.status == 200


def test_a_body_that_is_neither_page_nor_document_is_refused(server: MisbehavingServer) -> None:
    page_route(server, "/data", b'{"a": 1}', content_type="application/json")
    failure = run(server, "/data", "text")
    assert isinstance(failure, ScrapeFailure) and failure.code == "UNSUPPORTED_CONTENT"
