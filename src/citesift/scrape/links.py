"""A page's links: absolute http(s) addresses, each once, with the text of its first anchor."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from citesift.scrape.urls import MAX_URL_CHARS

MAX_LINKS = 10_000
"""Links kept from one page; a page with more is cut at this many."""


@dataclass(frozen=True, slots=True)
class Link:
    """One link of a page: where it goes (absolute, no fragment) and what its anchor says."""

    url: str
    text: str


def page_links(html: str, base: str) -> list[Link]:
    """The http(s) links of ``html`` resolved against its ``<base href>`` or ``base``, in page
    order, each address once (with the first non-empty anchor text it has)."""
    tree = LexborHTMLParser(html)
    stated = tree.css_first("base[href]")
    if stated is not None:
        base = urljoin(base, (stated.attributes.get("href") or "").strip())
    found: dict[str, str] = {}
    for anchor in tree.css("a[href]"):
        url = _absolute(anchor.attributes.get("href") or "", base)
        if url is None:
            continue
        text = " ".join(anchor.text(deep=True).split())
        if not found.get(url):
            found[url] = text
            if len(found) >= MAX_LINKS:
                break
    return [Link(url, text) for url, text in found.items()]


def _absolute(href: str, base: str) -> str | None:
    """``href`` made absolute without its fragment, or None when it is not http(s) or longer
    than any server answers (a page of 100 KB links would fill the links it gives)."""
    if len(href) > MAX_URL_CHARS:
        return None
    try:
        url = urldefrag(urljoin(base, href.strip())).url
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme in ("http", "https") and parts.hostname else None
