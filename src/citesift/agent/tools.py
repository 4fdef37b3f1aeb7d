"""What the agent's actions run against: a page reader, a web search, a site map, each
behind one small interface, and the confinement of a run to the hosts it was given.

Every URL the model names is fetched through ``citesift.net`` (scheme, address safety,
robots.txt, the per-host limiter) by the reader and the map; confinement is checked here
first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import unquote, urlsplit

from citesift.clients import ClientError, WebResult, WebSearch
from citesift.model import Document, Hits, SourceDocument, SourceHit
from citesift.scrape.map import amap_site
from citesift.sources import WebPageSource, WikipediaSourceProvider

ARTICLE_PATH = "/wiki/"
MAP_URLS = 100
"""How many of a site's URLs a map action brings in as candidates at most."""


class PageReader(Protocol):
    """Reads one page into a document, or says why not (a refused address, robots.txt, a
    status, a content type that is not a page)."""

    async def read(self, url: str) -> SourceDocument | str: ...


class WebPages:
    """Pages read through a ``WebPageSource``: fetched under its policy, extracted in its mode;
    a Wikipedia article's address, when a ``wikipedia`` provider is given, is read through
    it (its page HTML, revision and licence)."""

    def __init__(
        self, source: WebPageSource, wikipedia: WikipediaSourceProvider | None = None
    ) -> None:
        self.source = source
        self.wikipedia = wikipedia

    async def read(self, url: str) -> SourceDocument | str:
        """The page at ``url``, or the reason it gave nothing."""
        key = self._article_key(url)
        if key is not None and self.wikipedia is not None:
            outcome = await self.wikipedia.read(SourceHit(key, key.replace("_", " ")))
        else:
            outcome = await self.source.read(SourceHit(url, url))
        if isinstance(outcome, Document):
            return outcome.document
        status = getattr(outcome, "status", None)
        reason = outcome.reason or type(outcome).__name__.lower()
        return f"HTTP {status}: {reason}" if status else reason

    def _article_key(self, url: str) -> str | None:
        """The article key of a Wikipedia article address on the provider's origin, or None."""
        if self.wikipedia is None:
            return None
        prefix = self.wikipedia.origin + ARTICLE_PATH
        if not url.startswith(prefix) or "?" in url or "#" in url:
            return None
        return unquote(url[len(prefix) :]) or None

    async def map(self, url: str, search: str | None) -> list[str]:
        """The site's URLs from ``url``, those matching ``search`` first."""
        source = self.source
        found = await amap_site(
            url, search, MAP_URLS, policy=source.page_policy, fetcher=source.fetcher
        )
        return list(found.urls)


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


@dataclass(frozen=True)
class Tools:
    """What a run may use: ``pages`` to read (and map sites with), a ``search`` engine or
    None, and ``hosts`` the run is confined to (none: anywhere the net policy allows)."""

    pages: WebPages
    search: WebSearch | None = None
    hosts: tuple[str, ...] = ()

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be read in this run, or None."""
        try:
            parts = urlsplit(url)
        except ValueError:
            return "not a URL"
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "only http(s) URLs with a host can be read"
        if self.hosts and not within(parts.hostname, self.hosts):
            return "outside the sites this run is confined to"
        return None


def within(host: str, hosts: Sequence[str]) -> bool:
    """Whether ``host`` is one of ``hosts`` or a subdomain of one."""
    host = host.lower().rstrip(".")
    return any(host == h or host.endswith("." + h) for h in hosts)


def hosts_of(urls: Sequence[str]) -> tuple[str, ...]:
    """The hosts of ``urls``, lower-cased, each once."""
    found = (urlsplit(u).hostname for u in urls)
    return tuple(dict.fromkeys(h.lower().rstrip(".") for h in found if h))
