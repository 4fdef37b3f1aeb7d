"""What a page says about itself: title, language, canonical URL, publisher, date, licence.

``extract_metadata`` reads ``<meta>``, ``<link>``, ``<title>``, the first ``<h1>``, ``<time>``
and JSON-LD from the first ``META_SCAN_CHARS`` of the page only, so the work is bounded on
huge pages; everything it returns is optional, and garbage gives None, never an error.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from citesift.extract.dates import parse_date_ms
from citesift.extract.html import sanitise
from citesift.extract.jsonld import first_text, jsonld_nodes, types
from citesift.extract.licences import licence_from_url, licence_named
from citesift.model import Licence

META_SCAN_CHARS = 1_000_000
MAX_ELEMENTS = 1_000
MAX_TEXT_CHARS = 2_000
MAX_SITE_SUFFIX_WORDS = 4

TITLE_KEYS = ("og:title", "twitter:title")
DESCRIPTION_KEYS = ("description", "og:description", "twitter:description")
PUBLISHER_KEYS = ("og:site_name", "application-name")
LANGUAGE_KEYS = ("content-language", "og:locale", "language", "dc.language")
JSONLD_DATE_KEYS = ("datePublished", "dateCreated")
PUBLISHED_KEYS = ("article:published_time", "og:published_time", "datepublished")
DATE_KEYS = (
    "date", "pubdate", "publishdate", "publish-date", "publish_date", "dc.date.issued",
    "dcterms.issued", "dc.date", "dcterms.date", "dcterms.created", "sailthru.date",
    "parsely-pub-date", "article.published", "citation_publication_date", "created",
)  # fmt: skip
ORGANIZATION_TYPES = frozenset(("Organization", "NewsMediaOrganization", "Corporation", "WebSite"))
_TITLE_SEPARATOR = re.compile(r"\s+(?:[|–—·•»]|-{1,2}|::)\s+")
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*")


@dataclass(frozen=True, slots=True)
class PageMetadata:
    """What a page states about itself; each field is None when the page does not say."""

    title: str | None = None
    language: str | None = None
    canonical_url: str | None = None
    description: str | None = None
    publisher: str | None = None
    page_date: int | None = None
    licence: Licence | None = None


def extract_metadata(html: str, url: str | None = None) -> PageMetadata:
    """The metadata ``html`` states; relative links resolve against ``url``."""
    tree = LexborHTMLParser(sanitise(html[:META_SCAN_CHARS]))
    metas = _meta_contents(tree)
    links = _link_contents(tree)
    scripts = tree.css('script[type="application/ld+json" i]')[:MAX_ELEMENTS]
    nodes = jsonld_nodes(script.text(deep=True) for script in scripts)
    publisher = _publisher(metas, nodes)
    return PageMetadata(
        title=_title(tree, metas, publisher),
        language=_language(tree, metas),
        canonical_url=resolve_url(links.get("canonical"), url),
        description=_first(metas, DESCRIPTION_KEYS),
        publisher=publisher,
        page_date=_page_date(tree, metas, nodes),
        licence=_licence(tree, links, nodes, url),
    )


def clean_text(text: Any) -> str | None:
    """``text`` as one NFC line with white space collapsed, capped; None when empty."""
    if not isinstance(text, str):
        return None
    cleaned = " ".join(unicodedata.normalize("NFC", text[: MAX_TEXT_CHARS * 4]).split())
    return cleaned[:MAX_TEXT_CHARS] or None


def resolve_url(href: str | None, base: str | None) -> str | None:
    """``href`` made absolute against ``base``; None unless it is an http(s) address."""
    if not href:
        return None
    try:
        full = urljoin(base, href.strip()) if base else href.strip()
        parts = urlsplit(full)
    except ValueError:
        return None
    return full if parts.scheme in ("http", "https") and parts.netloc else None


def _meta_contents(tree: LexborHTMLParser) -> dict[str, str]:
    """The first ``content`` of each meta name, property, itemprop or http-equiv (lowercased)."""
    contents: dict[str, str] = {}
    for meta in tree.css("meta[content]")[:MAX_ELEMENTS]:
        attributes = meta.attributes
        content = clean_text(attributes.get("content"))
        for key in ("name", "property", "itemprop", "http-equiv"):
            name = attributes.get(key)
            if name and content:
                contents.setdefault(name.strip().lower(), content)
    return contents


def _link_contents(tree: LexborHTMLParser) -> dict[str, str]:
    """The first ``href`` of each ``rel`` token among the ``<link>`` elements (lowercased)."""
    contents: dict[str, str] = {}
    for link in tree.css("link[rel][href]")[:MAX_ELEMENTS]:
        for rel in (link.attributes.get("rel") or "").lower().split():
            contents.setdefault(rel, link.attributes.get("href") or "")
    return contents


def _first(metas: dict[str, str], keys: Iterable[str]) -> str | None:
    return next((metas[key] for key in keys if key in metas), None)


def _publisher(metas: dict[str, str], nodes: list[dict[str, Any]]) -> str | None:
    from_jsonld = (first_text(node.get("publisher")) for node in nodes)
    organizations = (
        first_text(node.get("name")) for node in nodes if types(node) & ORGANIZATION_TYPES
    )
    found = next((name for name in (*from_jsonld, *organizations) if name), None)
    return metas.get("og:site_name") or clean_text(found) or metas.get("application-name")


def _title(tree: LexborHTMLParser, metas: dict[str, str], site: str | None) -> str | None:
    stated = _first(metas, TITLE_KEYS)
    if stated:
        return _without_site(stated, site, guess=False)
    title = tree.head.css_first("title") if tree.head else None
    text = clean_text(title.text(deep=True)) if title else None
    if text:
        return _without_site(text, site, guess=True)
    heading = tree.css_first("h1")
    return clean_text(heading.text(deep=True)) if heading else None


def _without_site(title: str, site: str | None, *, guess: bool) -> str:
    """``title`` without a leading or trailing site name ("Story | Site" gives "Story").

    With ``guess``, a short last part (a few words, shorter than the rest) is taken to be
    the site name even when the page names no site.
    """
    parts = _TITLE_SEPARATOR.split(title)
    if len(parts) < 2:
        return title
    separators = _TITLE_SEPARATOR.findall(title)
    if site and parts[-1].casefold() == site.casefold():
        return "".join(_interleave(parts[:-1], separators))
    if site and parts[0].casefold() == site.casefold():
        return "".join(_interleave(parts[1:], separators[1:]))
    last, rest = parts[-1], "".join(_interleave(parts[:-1], separators))
    if guess and len(last.split()) <= MAX_SITE_SUFFIX_WORDS and len(last) < len(rest):
        return rest
    return title


def _interleave(parts: list[str], separators: list[str]) -> Iterable[str]:
    for index, part in enumerate(parts):
        yield (separators[index - 1] if index else "") + part


def _language(tree: LexborHTMLParser, metas: dict[str, str]) -> str | None:
    root = tree.root.attributes if tree.root else {}
    body = tree.body.attributes if tree.body else {}
    stated = (
        root.get("lang"),
        root.get("xml:lang"),
        _first(metas, LANGUAGE_KEYS),
        body.get("lang"),
    )
    for value in stated:
        tag = (value or "").replace("_", "-").split(",")[0].strip()
        if _LANGUAGE_TAG.fullmatch(tag):
            return tag
    return None


def _page_date(
    tree: LexborHTMLParser, metas: dict[str, str], nodes: list[dict[str, Any]]
) -> int | None:
    candidates = _date_candidates(tree, metas, nodes)
    return next((ms for text in candidates if (ms := parse_date_ms(text)) is not None), None)


def _date_candidates(
    tree: LexborHTMLParser, metas: dict[str, str], nodes: list[dict[str, Any]]
) -> Iterator[str | None]:
    """Dates in order of trust, read only as far as needed: meta, JSON-LD, ``<time>``."""
    yield from (metas.get(key) for key in PUBLISHED_KEYS)
    yield from (first_text(node.get(key)) for node in nodes for key in JSONLD_DATE_KEYS)
    yield from (metas.get(key) for key in DATE_KEYS)
    yield from (
        node.attributes.get("datetime") for node in tree.css("time[datetime]")[:MAX_ELEMENTS]
    )


def _licence(
    tree: LexborHTMLParser, links: dict[str, str], nodes: list[dict[str, Any]], base: str | None
) -> Licence | None:
    """The licence a ``<link>``, JSON-LD, or an ``<a rel="license">`` (in that order) states."""
    url = resolve_url(links.get("license"), base)
    if url:
        return licence_from_url(url, None)
    stated = (_stated_licence(node.get("license"), base) for node in nodes)
    found = next((licence for licence in stated if licence), None)
    return found or _anchor_licence(tree, base)


def _anchor_licence(tree: LexborHTMLParser, base: str | None) -> Licence | None:
    for node in tree.css("a[rel~=license i][href]")[:MAX_ELEMENTS]:
        url = resolve_url(node.attributes.get("href"), base)
        if url:
            return licence_from_url(url, clean_text(node.text(deep=True)))
    return None


def _stated_licence(stated: Any, base: str | None) -> Licence | None:
    """A JSON-LD ``license``: an address, a name, or an object with ``url``/``@id``/``name``."""
    if isinstance(stated, list):
        stated = stated[0] if stated else None
    href = stated.get("url") or stated.get("@id") if isinstance(stated, dict) else stated
    url = resolve_url(href if isinstance(href, str) else None, base)
    if url:
        return licence_from_url(url, None)
    name = clean_text(first_text(stated))
    return licence_named(name) if name else None
