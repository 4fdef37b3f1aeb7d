"""What a page says about itself: title, language, canonical URL, publisher, date, licence.

``extract_metadata`` reads ``<meta>``, ``<link>``, ``<title>``, the first ``<h1>``, ``<time>``
and JSON-LD from the first ``META_SCAN_CHARS`` of the page only, so the work is bounded on
huge pages; everything it returns is optional, and garbage gives None, never an error.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from citesift.extract.dates import parse_date_ms
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
    head = html[:META_SCAN_CHARS].encode("utf-8", "replace").decode("utf-8")
    tree = LexborHTMLParser(head)
    metas = _meta_contents(tree)
    scripts = tree.css('script[type="application/ld+json" i]')[:MAX_ELEMENTS]
    nodes = jsonld_nodes(script.text(deep=True) for script in scripts)
    publisher = _publisher(metas, nodes)
    return PageMetadata(
        title=_title(tree, metas, publisher),
        language=_language(tree, metas),
        canonical_url=_link(tree, "link[rel~=canonical i]", url),
        description=_first(metas, DESCRIPTION_KEYS),
        publisher=publisher,
        page_date=_page_date(tree, metas, nodes),
        licence=_licence(tree, nodes, url),
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
    title = tree.css_first("head title")
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


def _link(tree: LexborHTMLParser, selector: str, base: str | None) -> str | None:
    for node in tree.css(selector)[:MAX_ELEMENTS]:
        found = resolve_url(node.attributes.get("href"), base)
        if found:
            return found
    return None


def _page_date(
    tree: LexborHTMLParser, metas: dict[str, str], nodes: list[dict[str, Any]]
) -> int | None:
    candidates = [metas.get(key) for key in PUBLISHED_KEYS]
    candidates += [
        first_text(node.get(key)) for node in nodes for key in ("datePublished", "dateCreated")
    ]
    candidates += [metas.get(key) for key in DATE_KEYS]
    for time in tree.css("time[datetime]")[:MAX_ELEMENTS]:
        candidates.append(time.attributes.get("datetime"))
    return next((ms for text in candidates if (ms := parse_date_ms(text)) is not None), None)


def _licence(
    tree: LexborHTMLParser, nodes: list[dict[str, Any]], base: str | None
) -> Licence | None:
    for node in tree.css("link[rel~=license i], a[rel~=license i]")[:MAX_ELEMENTS]:
        url = resolve_url(node.attributes.get("href"), base)
        if url:
            return licence_from_url(url, clean_text(node.text(deep=True)))
    stated = (_stated_licence(node.get("license"), base) for node in nodes)
    return next((licence for licence in stated if licence), None)


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
