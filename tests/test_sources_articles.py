"""Passages from the real recorded articles: offsets hold, and no markers or furniture leak in."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from citesift import Document, SourceDocument, SourceHit
from citesift.extract.source import normalise, source_text
from citesift.net import ClientIdentity
from citesift.sources import WikipediaSourceProvider
from citesift.text import citation_sources
from citesift.text.fragments import has_word
from wikipedia_server import WikipediaStandIn

IDENTITY = ClientIdentity("TestClient", "1.0", "https://example.org/contact")
ARTICLES = [
    "Rust_(programming_language)",
    "Dog",
    "United_States",
    "Bill_Clinton",
    "December_1",
    "MOSFET",
]
# A note marker stands alone: "[t]he" in a quotation is an editor's bracket, not a marker.
MARKER = re.compile(r"\[(?:\d{1,4}|[a-z]{1,4}|citation needed|edit|note \d+)\](?![a-z])", re.I)
FURNITURE = (
    "may contain an excessive number of citations",
    "Learn how and when to remove this template message",
    "does not cite any sources",
    "personal reflection, personal essay",
    "may not follow Wikipedia's policies",
    "Wikimedia Commons has media related to",
    "v t e",
    "Jump to navigation",
    "Retrieved from",
    "cite_note",
    "mw-parser-output",
)


@pytest.fixture(scope="module")
def stand_in() -> Iterator[WikipediaStandIn]:
    from conftest import WIKIPEDIA_FIXTURES

    with WikipediaStandIn(WIKIPEDIA_FIXTURES) as server:
        yield server


@pytest.fixture(scope="module")
def articles(stand_in: WikipediaStandIn) -> dict[str, tuple[SourceDocument, str]]:
    """Each article read once through the stand-in, with the page its offsets point into."""
    source = WikipediaSourceProvider(IDENTITY, stand_in.origin, allow_private=True)
    read: dict[str, tuple[SourceDocument, str]] = {}
    for key in ARTICLES:
        outcome = source.read_sync(SourceHit(key, key.replace("_", " ")))
        assert isinstance(outcome, Document)
        page = Path(stand_in.fixtures, "pages", f"{key}.html").read_text("utf-8")
        read[key] = (outcome.document, page)
    return read


@pytest.mark.timeout(60)
@pytest.mark.parametrize("key", ARTICLES)
def test_article_passages_hold_the_offset_invariant(
    articles: dict[str, tuple[SourceDocument, str]], key: str
) -> None:
    document, page = articles[key]
    passages = citation_sources(document)
    assert len(passages) >= 20
    for passage in passages:
        block = document.blocks[passage.block]
        assert block.text[passage.start : passage.end] == passage.content
        shown = source_text(page, passage.source_start, passage.source_end, "article")
        assert normalise(passage.content).strip() in shown


@pytest.mark.timeout(60)
@pytest.mark.parametrize("key", ARTICLES)
def test_article_passages_hold_no_markers_or_furniture(
    articles: dict[str, tuple[SourceDocument, str]], key: str
) -> None:
    document, _ = articles[key]
    for passage in citation_sources(document):
        assert not MARKER.search(passage.content), passage.content
        assert not any(text in passage.content for text in FURNITURE), passage.content


@pytest.mark.timeout(60)
@pytest.mark.parametrize("key", ARTICLES)
def test_article_passages_carry_attribution_and_links(
    articles: dict[str, tuple[SourceDocument, str]], key: str
) -> None:
    document, _ = articles[key]
    passages = citation_sources(document)
    assert {(p.site, p.key, p.url, p.revision) for p in passages} == {
        ("Wikipedia", key, document.url, document.revision)
    }
    assert document.revision is not None and document.revision.isdigit()
    # a passage with words links them; one of none (a full stop left where a formula was)
    # links the page, as no text fragment can find it
    for p in passages:
        linked = document.url + "#:~:text=" if has_word(p.content) else document.url
        assert p.fragment_url.startswith(linked) and (
            has_word(p.content) or p.fragment_url == linked
        )


def test_the_rust_lead_is_the_first_passage(
    articles: dict[str, tuple[SourceDocument, str]],
) -> None:
    document, _ = articles["Rust_(programming_language)"]
    first = citation_sources(document)[0]
    assert first.content == "Rust is a general-purpose programming language."
    assert (first.block, first.start, first.revision) == (0, 0, "1318205510")


@pytest.mark.timeout(60)
def test_old_parsoid_output_gives_clean_passages(stand_in: WikipediaStandIn) -> None:
    """The 2016 Bill Clinton revision marks references the old way (``span.reference``)."""
    source = WikipediaSourceProvider(
        IDENTITY,
        stand_in.origin,
        "/w/rest.php/v1/revision/{key}/html",
        allow_private=True,
    )
    outcome = source.read_sync(SourceHit("741194725", "Bill Clinton"))
    assert isinstance(outcome, Document) and outcome.document.revision == "741194725"
    page = Path(stand_in.fixtures, "revisions", "Bill_Clinton", "741194725.html").read_text("utf-8")
    passages = citation_sources(outcome.document)
    assert passages[0].content.startswith('William Jefferson "Bill" Clinton (born')
    for passage in passages:
        assert not MARKER.search(passage.content), passage.content
        shown = source_text(page, passage.source_start, passage.source_end, "article")
        assert normalise(passage.content).strip() in shown
