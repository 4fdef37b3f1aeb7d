"""What the agent's actions run against: a page reader, a web search, a site map, each
behind one small interface, and the confinement of a run to the hosts it was given.

Every URL the model names is fetched through ``citesift.net`` (scheme, address safety,
robots.txt, the per-host limiter) by the reader and the map; confinement is checked here
first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import unquote, urlsplit

from citesift.clients import ClientError, WebResult, WebSearch
from citesift.extract.document import snapshot_text
from citesift.model import Document, Hits, Limited, Skipped, Snapshot, SourceDocument, SourceHit
from citesift.scrape.map import SiteMap, amap_site
from citesift.scrape.urls import page_links
from citesift.sources import WebPageSource, WikipediaSourceProvider

ARTICLE_PATH = "/wiki/"
MAP_URLS = 100
MAX_LINKS = 200
"""How many of a page's links a read brings in as candidates at most."""
"""How many of a site's URLs a map action brings in as candidates at most."""


@dataclass(frozen=True, slots=True)
class Page:
    """A page read: its document, and the links it holds as ``(url, anchor text)``."""

    document: SourceDocument
    links: tuple[tuple[str, str], ...] = ()


class PageReader(Protocol):
    """Reads one page, or says why not (a refused address, robots.txt, a status, a content
    type that is not a page)."""

    async def read(self, url: str) -> Page | str: ...


class WebPages:
    """Pages read through a ``WebPageSource``: fetched under its policy, extracted in its mode;
    a Wikipedia article's address, when a ``wikipedia`` provider is given, is read through
    it (its page HTML, revision and licence)."""

    def __init__(
        self, source: WebPageSource, wikipedia: WikipediaSourceProvider | None = None
    ) -> None:
        self.source = source
        self.wikipedia = wikipedia

    async def read(self, url: str) -> Page | str:
        """The page at ``url`` with its links, or the reason it gave nothing."""
        key = self._article_key(url)
        if key is not None and self.wikipedia is not None:
            read = await self.wikipedia.read(SourceHit(key, key.replace("_", " ")))
            return Page(read.document) if isinstance(read, Document) else _reason(read)
        source = self.source
        fetched = await source.fetcher.fetch(url, source.page_policy)
        if not isinstance(fetched, Snapshot):
            return _reason(fetched)
        refusal = source.refusal(fetched)
        if refusal is not None:
            return _reason(refusal)
        html = snapshot_text(fetched)
        links = page_links(html, fetched.final_url or url, MAX_LINKS)
        return Page(source.document(SourceHit(url, url), fetched), tuple(links.items()))

    def _article_key(self, url: str) -> str | None:
        """The article key of a Wikipedia article address on the provider's origin, or None."""
        if self.wikipedia is None:
            return None
        prefix = self.wikipedia.origin + ARTICLE_PATH
        if not url.startswith(prefix) or "?" in url or "#" in url:
            return None
        return unquote(url[len(prefix) :]) or None

    async def map(self, url: str, search: str | None) -> SiteMap:
        """The site's URLs from ``url``, those matching ``search`` first, and what could not
        be read."""
        source = self.source
        return await amap_site(
            url, search, MAP_URLS, policy=source.page_policy, fetcher=source.fetcher
        )


def _reason(outcome: Limited | Skipped) -> str:
    """Why a read gave nothing, in words for the model."""
    reason = outcome.reason or type(outcome).__name__.lower()
    status = getattr(outcome, "status", None)
    return f"HTTP {status}: {reason}" if status else reason


class WikipediaSearch:
    """Wikipedia's search as a web search: each hit's article address, title and excerpt."""

    name = "wikipedia"

    def __init__(self, provider: WikipediaSourceProvider) -> None:
        self.provider = provider

    async def search(self, query: str, limit: int) -> list[WebResult]:
        """At most ``limit`` articles for ``query``; a refusal or failure is a ``ClientError``."""
        outcome = await self.provider.search(query, limit)
        if not isinstance(outcome, Hits):
            reason = outcome.reason or type(outcome).__name__.lower()
            raise ClientError(f"Wikipedia search: {reason}")
        return [
            WebResult(self.provider.article_url(h.key), h.title, h.excerpt or "")
            for h in outcome.hits
        ]


@dataclass
class Tools:
    """What a run may use: ``pages`` to read (and map sites with), a ``search`` engine or
    None, and ``hosts`` the run is confined to (none: anywhere the net policy allows); a
    confined run may also read what the pages it read link to (``linked``)."""

    pages: WebPages
    search: WebSearch | None = None
    hosts: tuple[str, ...] = ()
    linked: set[str] = field(default_factory=set)

    def follow(self, page: Page) -> list[tuple[str, str]]:
        """The links of ``page`` this run may read; a confined run may now read them."""
        if self.hosts:
            self.linked.update(url for url, _ in page.links)
        return [(url, text) for url, text in page.links if self.refusal(url) is None]

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be read in this run, or None."""
        try:
            parts = urlsplit(url)
        except ValueError:
            return "not a URL"
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "only http(s) URLs with a host can be read"
        if self.hosts and not within(parts.hostname, self.hosts) and url not in self.linked:
            return "outside the sites this run is confined to and not linked from them"
        return None


def within(host: str, hosts: Sequence[str]) -> bool:
    """Whether ``host`` is one of ``hosts`` or a subdomain of one."""
    host = host.lower().rstrip(".")
    return any(host == h or host.endswith("." + h) for h in hosts)


def hosts_of(urls: Sequence[str]) -> tuple[str, ...]:
    """The hosts of ``urls``, lower-cased, each once."""
    found = (urlsplit(u).hostname for u in urls)
    return tuple(dict.fromkeys(h.lower().rstrip(".") for h in found if h))
