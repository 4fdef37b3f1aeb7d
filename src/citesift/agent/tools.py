"""What the agent's actions run against: a page reader, a web search, a site map, each
behind one small interface, and the confinement of a run to the pages it was given.

Every URL the model names is fetched through ``citesift.net`` (scheme, address safety,
robots.txt, the per-host limiter) by the reader and the map; confinement is checked here
first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import unquote, urldefrag, urlsplit

from citesift.clients import ClientError, WebResult, WebSearch
from citesift.model import Document, Hits, Limited, Skipped, SourceDocument, SourceHit
from citesift.net import Fetcher, FetchPolicy
from citesift.net.address import origin_of
from citesift.scrape.browser import Browser
from citesift.scrape.map import SiteMap, amap_site
from citesift.scrape.options import RenderChoice, ScrapeOptions
from citesift.scrape.page import scrape
from citesift.scrape.result import ScrapeResult
from citesift.scrape.urls import normalise
from citesift.sources import WikipediaSourceProvider
from citesift.sources.reasons import skipped_reason
from citesift.sources.snapshots import fetching
from citesift.store import AnyStore

ARTICLE_PATH = "/wiki/"
MAP_URLS = 100
"""How many of a site's URLs a map action brings in as candidates at most."""
MAX_LINKS = 200
"""How many of a page's links a read brings in as candidates at most."""


@dataclass(frozen=True, slots=True)
class Page:
    """A page read: its document, and the links it holds as ``(url, anchor text)``."""

    document: SourceDocument
    links: tuple[tuple[str, str], ...] = ()


class PageReader(Protocol):
    """Reads one page, or says why not (a refused address, robots.txt, a status, a content
    type that is not a page), and lists a site's URLs."""

    async def read(self, url: str) -> Page | str: ...

    async def map(self, url: str, search: str | None) -> SiteMap: ...


class WebPages:
    """Pages read through ``scrape``: fetched under ``policy`` through ``fetcher`` (every
    snapshot kept in ``store`` when one is given), rendered in headless Chromium when the
    render decision says the static page needs JavaScript (``render``; ``browser`` one to
    share, a lazy one starting on the first page that needs it; else each page that needs
    it launches its own), and read for their article (``extract_document``'s default,
    as a replay reads the stored page again: a page's menus and bylines are no evidence);
    a PDF or Office file by its own reader. A Wikipedia article's address, when a
    ``wikipedia`` provider is given, is read through it (its page HTML, revision, licence)."""

    def __init__(
        self,
        policy: FetchPolicy,
        fetcher: Fetcher,
        *,
        store: AnyStore | None = None,
        wikipedia: WikipediaSourceProvider | None = None,
        render: RenderChoice = "auto",
        browser: Browser | None = None,
    ) -> None:
        self.policy, self.fetcher, self.store = policy, fetcher, store
        self.wikipedia = wikipedia
        self.options = ScrapeOptions(formats=("links",), render=render)
        self.browser = browser

    async def read(self, url: str) -> Page | str:
        """The page at ``url`` with its links, or the reason it gave nothing."""
        key = self._article_key(url)
        if key is not None and self.wikipedia is not None:
            read = await self.wikipedia.read(SourceHit(key, key.replace("_", " ")))
            return Page(read.document) if isinstance(read, Document) else _reason(read)
        outcome = await scrape(
            url,
            identity=self.policy.identity,
            options=self.options,
            policy=self.policy,
            fetcher=self.fetcher,
            store=self.store,
            browser=self.browser,
        )
        if not isinstance(outcome, ScrapeResult):
            if outcome.status is not None and outcome.status >= 400:
                return f"HTTP {outcome.status}"
            return f"{outcome.code}: {outcome.message}"
        if outcome.status >= 400 or outcome.document is None:
            return f"HTTP {outcome.status}"
        links = outcome.formats.get("links") or []
        named = tuple((link["url"], link["text"]) for link in links[:MAX_LINKS])
        return Page(outcome.document, named)

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
        fetcher = fetching(self.fetcher, self.store, False)
        return await amap_site(url, search, MAP_URLS, policy=self.policy, fetcher=fetcher)


def _reason(outcome: Limited | Skipped) -> str:
    """Why a read gave nothing, in words for the model (an HTTP status said once)."""
    status = outcome.status if isinstance(outcome, Skipped) else None
    return skipped_reason(status, outcome.reason or type(outcome).__name__.lower())


class WikipediaSearch:
    """Wikipedia's search as a web search: each hit's article address, title and excerpt."""

    name = "wikipedia"

    def __init__(self, provider: WikipediaSourceProvider) -> None:
        self.provider = provider

    async def search(self, query: str, limit: int) -> list[WebResult]:
        """At most ``limit`` articles for ``query``; a refusal or failure (a query Wikipedia
        cannot take among them, nothing sent) is a ``ClientError``."""
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
    None, and the ``given`` pages a run is confined to (none: anywhere the net policy
    allows). A confined run reads the given pages and the pages they link to, one hop: the
    links of a linked page are not followed; with ``follow_links`` False, the given pages
    alone; ``followed`` are the given pages read, whose links may be read, and ``failed``
    the given pages tried that could not be read (no longer named as pages to read first,
    so the model does not retry a dead page). Search results
    a confined run is given (``admit``) count as given pages. Any run reads only URLs it
    has ``seen``: URLs the user wrote in the task, search and map results and links of pages
    read (a URL the model makes up, which a page's text may have told it, is never
    asked)."""

    pages: PageReader
    search: WebSearch | None = None
    given: set[str] = field(default_factory=set)
    linked: set[str] = field(default_factory=set)
    follow_links: bool = True
    seen: set[str] = field(default_factory=set)
    followed: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.given = {_page(url) for url in self.given}
        self.seen = {_page(url) for url in self.seen}

    @property
    def confined(self) -> bool:
        """Whether the run keeps to the given pages and their links."""
        return bool(self.given)

    def admit(self, url: str) -> None:
        """Let the run read ``url`` (a search result it was given): seen, and in a confined
        run a given page."""
        self.see([url])
        if self.confined:
            self.given.add(_page(url))

    def see(self, urls: Iterable[str]) -> None:
        """Note ``urls`` as seen by the run (found by a search, a map or on a page read)."""
        self.seen.update(_page(url) for url in urls)

    def follow(self, url: str, page: Page) -> list[tuple[str, str]]:
        """The links of ``page`` (read from ``url``) this run may read; in a confined run the
        links of a given page may now be read."""
        if self.follow_links and _page(url) in self.given:
            self.followed.add(_page(url))
            self.linked.update(_page(link) for link, _ in page.links)
        self.see(link for link, _ in page.links)
        return [(link, text) for link, text in page.links if self.refusal(link) is None]

    def fail(self, url: str) -> None:
        """Note that ``url`` was tried and not read (it failed or was refused; a page the
        spent page budget left untried stays one to read first)."""
        if _page(url) in self.given:
            self.failed.add(_page(url))

    def refusal(self, url: str, site: bool = False) -> str | None:
        """Why ``url`` may not be read in this run, or None; ``site``: a site to map, which
        may be any address on the origin of a URL the run has seen."""
        try:
            parts = urlsplit(url)
        except ValueError:
            return "not a URL"
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "only http(s) URLs with a host can be read"
        if self.confined and _page(url) not in self.given and _page(url) not in self.linked:
            if not self.follow_links:
                return "outside the pages this run is confined to"
            unread = sorted(self.given - self.followed - self.failed)
            if unread:
                return not_yet_linked(unread)
            return "outside the pages this run is confined to and the pages they link to"
        if self.confined or _page(url) in self.seen:
            return None
        if site and origin_of(url) in {origin_of(seen) for seen in self.seen}:
            return None
        return SEEN_ONLY


def not_yet_linked(unread: list[str]) -> str:
    """Why a confined run cannot read a URL yet while some of its given pages are ``unread``:
    a page they link to becomes readable once it is read, so the model reads them first."""
    named = ", ".join(unread[:MAX_UNREAD_NAMED]) + (", …" if len(unread) > MAX_UNREAD_NAMED else "")
    return (
        "not readable yet: a URL becomes readable once a page given to this run that links"
        f" to it has been read (or a search found it); read the given pages first: {named}"
    )


MAX_UNREAD_NAMED = 3
"""Given pages not read yet that a refusal names at most."""


def written_in(text: str) -> list[str]:
    """The http(s) URLs written in ``text`` (the user's task, trusted as the ``urls`` given
    are), without the punctuation that ends a sentence; at most ``MAX_WRITTEN``."""
    found = (url.rstrip(".,;:!?") for url in _WRITTEN.findall(text))
    return [url for url in found if urlsplit(url).hostname][:MAX_WRITTEN]


MAX_WRITTEN = 100
_WRITTEN = re.compile(r"https?://[^\s<>\"'`()\[\]{}]+", re.IGNORECASE)
SEEN_ONLY = (
    "not a URL this run has seen (only URLs given or written in the task, search and map"
    " results, and links of pages read)"
)


def _page(url: str) -> str:
    """``url`` without its fragment, in the normal form page links and map results are given
    in: the page it names, however the model spells it."""
    return normalise(urldefrag(url).url) or url
