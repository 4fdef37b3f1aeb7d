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
from urllib.parse import unquote, urljoin, urlsplit

from citesift.extract.dates import parse_date_ms
from citesift.extract.html import sanitise
from citesift.extract.jsonld import first_text, jsonld_nodes, types
from citesift.extract.licences import licence_from_url, licence_named
from citesift.extract.pagetags import PageTags, read_page_tags
from citesift.model import Licence

META_SCAN_CHARS = 1_000_000
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
VERSION_OF = "dc:isversionof"  # Parsoid's link to the page this HTML is a version of
MEDIAWIKI_METAS = ("mw:pageid", "mw:pagenamespace")
WIKI_PATH = "/wiki/"
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
    tags = read_page_tags(sanitise(html[:META_SCAN_CHARS]))
    metas = _meta_contents(tags)
    links = _link_contents(tags)
    nodes = jsonld_nodes(tags.jsonld)
    publisher = _publisher(metas, nodes)
    title = _title(tags, metas, publisher)
    return PageMetadata(
        title=_mediawiki_title(title, links) if _is_mediawiki(metas, links) else title,
        language=_language(tags, metas),
        canonical_url=resolve_url(links.get("canonical"), url),
        description=_first(metas, DESCRIPTION_KEYS),
        publisher=publisher,
        page_date=_page_date(tags, metas, nodes),
        licence=_licence(tags, links, nodes, url),
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


def _meta_contents(tags: PageTags) -> dict[str, str]:
    """The first ``content`` of each meta name, property, itemprop or http-equiv (lowercased)."""
    contents: dict[str, str] = {}
    for attributes in tags.metas:
        content = clean_text(attributes.get("content"))
        for key in ("name", "property", "itemprop", "http-equiv"):
            name = attributes.get(key)
            if name and content:
                contents.setdefault(name.strip().lower(), content)
    return contents


def _link_contents(tags: PageTags) -> dict[str, str]:
    """The first ``href`` of each ``rel`` token among the ``<link>`` elements (lowercased)."""
    contents: dict[str, str] = {}
    for attributes in tags.links:
        for rel in attributes.get("rel", "").lower().split():
            contents.setdefault(rel, attributes.get("href", ""))
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


def _title(tags: PageTags, metas: dict[str, str], site: str | None) -> str | None:
    stated = _first(metas, TITLE_KEYS)
    if stated:
        return _without_site(stated, site, guess=False)
    title = clean_text(tags.title)
    if title:
        return _without_site(title, site, guess=True)
    return clean_text(tags.h1)


def _is_mediawiki(metas: dict[str, str], links: dict[str, str]) -> bool:
    """The page is MediaWiki's (Parsoid) HTML: it links the page it is a version of."""
    return VERSION_OF in links or any(key in metas for key in MEDIAWIKI_METAS)


def _mediawiki_title(title: str | None, links: dict[str, str]) -> str | None:
    """A MediaWiki title as readers see it: MediaWiki reads ``_`` as a space, and older
    Parsoid HTML names a page by its key ("Bill_Clinton"); the key stands in for no title."""
    named = title or _title_from_key(links.get(VERSION_OF))
    return clean_text(named.replace("_", " ")) if named else None


def _title_from_key(href: str | None) -> str | None:
    """The page key at the end of a ``/wiki/`` address, percent-decoded."""
    try:
        path = urlsplit(href or "").path
    except ValueError:
        return None
    _, found, key = path.partition(WIKI_PATH)
    return clean_text(unquote(key)) if found else None


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


def _language(tags: PageTags, metas: dict[str, str]) -> str | None:
    root, body = tags.html_attrs, tags.body_attrs
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


def _page_date(tags: PageTags, metas: dict[str, str], nodes: list[dict[str, Any]]) -> int | None:
    candidates = _date_candidates(tags, metas, nodes)
    return next((ms for text in candidates if (ms := parse_date_ms(text)) is not None), None)


def _date_candidates(
    tags: PageTags, metas: dict[str, str], nodes: list[dict[str, Any]]
) -> Iterator[str | None]:
    """Dates in order of trust, read only as far as needed: meta, JSON-LD, ``<time>``."""
    yield from (metas.get(key) for key in PUBLISHED_KEYS)
    yield from (first_text(node.get(key)) for node in nodes for key in JSONLD_DATE_KEYS)
    yield from (metas.get(key) for key in DATE_KEYS)
    yield from (attributes.get("datetime") for attributes in tags.times)


def _licence(
    tags: PageTags, links: dict[str, str], nodes: list[dict[str, Any]], base: str | None
) -> Licence | None:
    """The licence a ``<link>``, JSON-LD, or an ``<a rel="license">`` (in that order) states."""
    url = resolve_url(links.get("license"), base)
    if url:
        return licence_from_url(url, None)
    stated = (_stated_licence(node.get("license"), base) for node in nodes)
    found = next((licence for licence in stated if licence), None)
    return found or _anchor_licence(tags, base)


def _anchor_licence(tags: PageTags, base: str | None) -> Licence | None:
    for attributes, text in tags.licence_anchors:
        url = resolve_url(attributes.get("href"), base)
        if url and "license" in attributes.get("rel", "").lower().split():
            return licence_from_url(url, clean_text(text))
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
