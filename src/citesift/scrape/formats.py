"""The formats a scrape answers, each computed from the document read and the HTML it read.

Only the formats asked for are computed. Spans (``blocks``, ``passages``) refer to the HTML
extraction read: the page as fetched, as rendered, or as narrowed by the CSS selectors. A
PDF or Office file has no HTML: its blocks say their place (page, slide, sheet) instead,
and the formats only a page has are None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from citesift.extract import blocks_to_markdown
from citesift.model import SourceDocument
from citesift.scrape.links import scrape_links
from citesift.scrape.urls import LINK_SECONDS
from citesift.text import citation_sources

CLEANED_AWAY = ("script", "style", "noscript", "template", "iframe", "object", "embed", "svg")
"""Elements the cleaned HTML drops, content and all."""
KEPT_ATTRIBUTES = frozenset(("href", "src", "alt", "title", "lang", "colspan", "rowspan"))
"""Attributes the cleaned HTML keeps; the rest (classes, styles, handlers) are dropped."""
PAGE_ONLY_FORMATS = ("html", "raw_html", "links", "screenshot")
"""Formats a PDF or Office file has no value for."""


@dataclass(frozen=True, slots=True)
class Page:
    """What the formats are made from: the document read, the HTML it was read from, the
    page as received (or rendered) before any narrowing (both None for a file), a
    screenshot, its address, and the seconds its links may be read in."""

    document: SourceDocument
    read_html: str | None
    raw_html: str | None
    url: str
    screenshot: bytes | None = None
    link_seconds: float = LINK_SECONDS


def text(page: Page) -> str:
    """The blocks' text, a blank line between blocks."""
    return "\n\n".join(block.text for block in page.document.blocks)


def blocks(page: Page) -> list[dict[str, Any]]:
    """Each block: its text, kind, section, span in the HTML read, and its place in words
    when it comes from a file."""
    return [
        {
            "text": b.text,
            "kind": b.kind,
            "section": list(b.section),
            "source_start": b.source_start,
            "source_end": b.source_end,
            "place": b.place.label() if b.place else None,
        }
        for b in page.document.blocks
    ]


def cleaned_html(page: Page) -> str | None:
    """The body read without scripts, styles, frames or presentational attributes."""
    if page.read_html is None:
        return None
    tree = LexborHTMLParser(page.read_html)
    tree.strip_tags(list(CLEANED_AWAY))
    body = tree.body
    if body is None:
        return ""
    for node in body.traverse():
        attributes = node.attrs
        for name in [n for n in attributes if n not in KEPT_ATTRIBUTES]:
            del attributes[name]
    return body.html or ""


def metadata(page: Page) -> dict[str, Any]:
    """What the page says about itself, and where its snapshot is."""
    document = page.document
    licence = document.licence
    return {
        "title": document.title,
        "description": document.description,
        "language": document.language,
        "canonical_url": document.canonical_url,
        "publisher": document.publisher,
        "page_date": document.page_date,
        "licence": dataclasses.asdict(licence) if licence else None,
        "url": document.url,
        "read_at": document.read_at,
        "snapshot_id": document.snapshot_id,
        "truncated": document.truncated,
    }


MAKERS: dict[str, Callable[[Page], Any]] = {
    "markdown": lambda page: blocks_to_markdown(page.document.blocks, page.read_html),
    "text": text,
    "blocks": blocks,
    "passages": lambda page: [dataclasses.asdict(p) for p in citation_sources(page.document)],
    "html": cleaned_html,
    "raw_html": lambda page: page.raw_html,
    "metadata": metadata,
    "screenshot": lambda page: page.screenshot,
}


def links(page: Page, warnings: list[str]) -> list[dict[str, str]] | None:
    """The page's links (None for a file); what was left unread is added to ``warnings``."""
    if page.raw_html is None:
        return None
    found = scrape_links(page.raw_html, page.url, warnings, page.link_seconds)
    return [dataclasses.asdict(link) for link in found]


def formats(page: Page, asked: tuple[str, ...], warnings: list[str]) -> dict[str, Any]:
    """Each format ``asked`` and its value; what a format could not give whole is added to
    ``warnings``."""
    return {
        name: links(page, warnings) if name == "links" else MAKERS[name](page) for name in asked
    }
