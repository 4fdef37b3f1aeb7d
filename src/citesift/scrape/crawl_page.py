"""One crawled page read into its record: the formats asked for, and the links it names.

This is a crawl's whole per-page step, kept in one function so that what a page gives
(the formats a document already offers: Markdown, text, blocks, links, metadata) is
decided in one place, whatever reads the page. A PDF or Office file found on the way is
read too (its bytes, not its address's suffix, say what it is); it names no links.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from citesift.extract import blocks_to_markdown, extract_document
from citesift.extract.document import snapshot_text
from citesift.extract.sniff import document_kind
from citesift.model import Snapshot, SourceDocument
from citesift.scrape.urls import LINK_SECONDS, PageLinks, page_links

PAGE_FORMATS = ("markdown", "text", "blocks", "links", "metadata")
HTML_TYPES = ("text/html", "application/xhtml+xml")
PageKind = Literal["html", "document"]


def page_kind(snapshot: Snapshot) -> PageKind | None:
    """``html`` for an HTML page, ``document`` for a PDF or Office file, None for anything
    else; ``DocumentError`` (a ``ValueError``) for a file refused unread (macros)."""
    if snapshot.content_type.split(";")[0].strip().lower() in HTML_TYPES:
        return "html"
    return "document" if document_kind(snapshot.body, snapshot.content_type) else None


@dataclass(frozen=True)
class CrawledPage:
    """A page's record (address, status, title, depth, snapshot and the formats asked
    for) and its links (with how many anchors were left unread)."""

    record: dict[str, Any]
    links: PageLinks


def read_crawled_page(
    snapshot: Snapshot,
    kind: PageKind,
    depth: int,
    formats: tuple[str, ...],
    link_seconds: float = LINK_SECONDS,
) -> CrawledPage:
    """The record of the page or file ``snapshot`` of ``kind`` (``depth`` links from the
    crawl's start) with ``formats``, and its links (read within ``link_seconds``)."""
    html: str | None = None
    links = PageLinks({}, 0)
    if kind == "html":
        html = snapshot_text(snapshot)
        document = extract_document(html, url=snapshot.url)
        links = page_links(html, snapshot.url, seconds=link_seconds)
    else:
        document = extract_document(snapshot, url=snapshot.url)
    record: dict[str, Any] = {
        "url": snapshot.url,
        "status": snapshot.status,
        "title": document.title,
        "depth": depth,
        "snapshot_id": snapshot.id,
    }
    if "markdown" in formats:
        record["markdown"] = blocks_to_markdown(document.blocks, html)
    if "text" in formats:
        record["text"] = "\n\n".join(block.text for block in document.blocks)
    if "blocks" in formats:
        record["blocks"] = [
            {
                "text": block.text,
                "kind": block.kind,
                "section": list(block.section),
                "source_start": block.source_start,
                "source_end": block.source_end,
                "place": None if block.place is None else asdict(block.place),
            }
            for block in document.blocks
        ]
    if "links" in formats:
        record["links"] = [{"url": link, "text": text} for link, text in links.found.items()]
    if "metadata" in formats:
        record["metadata"] = _metadata(document)
    return CrawledPage(record, links)


def _metadata(document: SourceDocument) -> dict[str, Any]:
    """What the page says of itself (a missing field is None)."""
    licence = document.licence
    return {
        "title": document.title,
        "description": document.description,
        "language": document.language,
        "publisher": document.publisher,
        "page_date": document.page_date,
        "canonical_url": document.canonical_url,
        "licence": None if licence is None else {"name": licence.name, "url": licence.url},
        "truncated": document.truncated,
    }
