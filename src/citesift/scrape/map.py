"""A site's map: the URLs its sitemaps and its start page name, normalised and in scope.

``map_site(url, search=None, limit=5000, policy=...)`` reads the ``Sitemap:`` lines of the
site's robots.txt and ``/sitemap.xml`` (indexes followed to ``max_depth`` levels, at most
``max_sitemaps`` files, each capped in bytes and URLs: ``citesift.scrape.sitemaps``), and
the links of the start page. Every URL is normalised (``citesift.scrape.urls``), counted
once, and kept only on the start's host (or the host its start page redirects to) unless
``allow_external``. With ``search``, URLs whose address or anchor text hold more of its
words come first. Every request goes through the fetcher, so robots.txt and the per-host
limiter hold as for any fetch.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from citesift.errors import invalid
from citesift.model import MAX_BODY_BYTES, Skipped, Snapshot
from citesift.net import Fetcher, Fetches, FetchPolicy, run_sync
from citesift.net.robots import ROBOTS_MAX_BYTES
from citesift.numbers import number_in
from citesift.scrape.sitemaps import MAX_SITEMAP_BYTES, MAX_SITEMAP_URLS, read_sitemap
from citesift.scrape.urls import host_of, link_seconds, normalise, page_links
from citesift.sources.challenge import stand_in
from citesift.sources.reasons import skipped_reason

MAP_LIMIT = 5_000
MAX_MAP_LIMIT = 100_000
MAX_SITEMAPS = 50
SITEMAP_DEPTH = 3
SITEMAP_ACCEPT = "application/xml,text/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5"
_WORDS = re.compile(r"[^\W_]+")
_SITEMAP_LINE = re.compile(r"^\s*sitemap\s*:\s*(\S+)", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class SiteMap:
    """A site's URLs (the start first unless ``search`` ranks them, listed even when it
    could not be read, as Firecrawl's map lists it), the sitemap files read, what could not
    be read or was cut short (``problems``), why the start page could not be read
    (``start_failure``, one of the problems) and whether a sitemap names the start."""

    url: str
    urls: tuple[str, ...]
    sitemaps: tuple[str, ...]
    problems: tuple[str, ...]
    start_failure: str | None = None
    start_in_sitemap: bool = False

    def readable_urls(self) -> tuple[str, ...]:
        """``urls`` without the start when it could not be read and no sitemap names it:
        the pages worth reading, not the site's list as a copy of Firecrawl's map gives it."""
        if self.start_failure is None or self.start_in_sitemap:
            return self.urls
        return tuple(url for url in self.urls if url != self.url)


@dataclass(frozen=True)
class SitemapBounds:
    """How much of a site's sitemaps a map reads; a value that makes no sense is an
    ``InvalidArgument`` naming it."""

    max_sitemaps: int = MAX_SITEMAPS
    max_depth: int = SITEMAP_DEPTH
    max_bytes: int = MAX_SITEMAP_BYTES
    max_urls: int = MAX_SITEMAP_URLS

    def __post_init__(self) -> None:
        number_in("max_sitemaps", self.max_sitemaps, 0, 10_000, whole=True)
        number_in("max_depth", self.max_depth, 0, 10, whole=True)
        number_in("max_bytes", self.max_bytes, 1, MAX_SITEMAP_BYTES * 20, whole=True)
        number_in("max_urls", self.max_urls, 1, MAX_SITEMAP_URLS * 20, whole=True)


def map_site(
    url: str,
    search: str | None = None,
    limit: int = MAP_LIMIT,
    *,
    policy: FetchPolicy,
    fetcher: Fetches | None = None,
    allow_external: bool = False,
    bounds: SitemapBounds = SitemapBounds(),
) -> SiteMap:
    """The site's map (see the module docstring); ``amap_site`` from async code."""
    return run_sync(
        amap_site(
            url,
            search,
            limit,
            policy=policy,
            fetcher=fetcher,
            allow_external=allow_external,
            bounds=bounds,
        )
    )


async def amap_site(
    url: str,
    search: str | None = None,
    limit: int = MAP_LIMIT,
    *,
    policy: FetchPolicy,
    fetcher: Fetches | None = None,
    allow_external: bool = False,
    bounds: SitemapBounds = SitemapBounds(),
) -> SiteMap:
    """``map_site`` for async code."""
    start = start_url(url)
    number_in("limit", limit, 1, MAX_MAP_LIMIT, whole=True)
    if search is not None and not isinstance(search, str):
        raise invalid("search", search, "words to rank by, or None")
    if not isinstance(policy, FetchPolicy):
        raise invalid("policy", policy, "a FetchPolicy")
    own = Fetcher() if fetcher is None else None
    try:
        wanted = MAX_MAP_LIMIT if search and search.strip() else limit  # ranking reads all
        reader = _Reader(start, policy, fetcher or own or Fetcher(), allow_external, bounds, wanted)
        await reader.read_start_page()
        await reader.read_sitemaps()
    finally:
        if own is not None:
            await own.aclose()
    urls = list(reader.found)
    if search and search.strip():
        words = set(words_of(search))
        urls.sort(key=lambda found: -match_score(found, reader.found[found], words))
    return SiteMap(
        start,
        tuple(urls[:limit]),
        tuple(reader.read),
        tuple(reader.problems),
        reader.start_failure,
        reader.start_in_sitemap,
    )


async def areadable_map(
    url: str, search: str | None, limit: int, *, policy: FetchPolicy, fetcher: Fetches | None
) -> tuple[SiteMap, tuple[str, ...]]:
    """The site's map asked for one URL more than ``limit``, and its ``readable_urls()``
    cut to ``limit``: a start page that could not be read, listed first by the map, costs
    none of the ``limit`` URLs (but one at ``MAX_MAP_LIMIT``)."""
    number_in("limit", limit, 1, MAX_MAP_LIMIT, whole=True)
    more = min(limit + 1, MAX_MAP_LIMIT)
    found = await amap_site(url, search, more, policy=policy, fetcher=fetcher)
    return found, found.readable_urls()[:limit]


def start_url(url: object) -> str:
    """``url`` normalised, or ``InvalidArgument`` unless it is an http(s) URL with a host."""
    start = normalise(url) if isinstance(url, str) else None
    if start is None:
        raise invalid("url", url, "an http(s) URL with a host")
    return start


class _Reader:
    """What a map has found so far: URLs in order with anchor text, files read, problems."""

    def __init__(
        self,
        start: str,
        policy: FetchPolicy,
        fetcher: Fetches,
        allow_external: bool,
        bounds: SitemapBounds,
        wanted: int,
    ) -> None:
        self.start = start
        self.policy = policy
        self.fetcher = fetcher
        self.allow_external = allow_external
        self.bounds = bounds
        self.wanted = wanted
        self.hosts = {host_of(start)}
        self.found: dict[str, str] = {start: ""}
        self.read: list[str] = []
        self.problems: list[str] = []
        self.start_failure: str | None = None
        self.start_in_sitemap = False

    def add(self, address: str, text: str = "", base: str | None = None) -> None:
        """Count ``address`` once when it is an http(s) URL in scope, until ``wanted`` are
        found (then nothing more is even read: a site's sitemaps may name millions)."""
        if self.enough:
            return
        url = normalise(address, base)
        if url is None or url in self.found:
            return
        if self.allow_external or host_of(url) in self.hosts:
            self.found[url] = text

    @property
    def enough(self) -> bool:
        """Whether as many URLs as the map can give are found."""
        return len(self.found) >= self.wanted

    async def read_start_page(self) -> None:
        """The start page's links (and its host, when it redirects to another)."""
        outcome = await self.fetcher.fetch(self.start, self.policy)
        if not isinstance(outcome, Snapshot):
            status = outcome.status if isinstance(outcome, Skipped) else None
            return self._start_failed(skipped_reason(status, outcome.reason))
        why = stand_in(outcome)
        if why:
            return self._start_failed(why)
        final = normalise(outcome.final_url) or self.start
        self.hosts.add(host_of(final))
        links = page_links(outcome.text(), final, seconds=link_seconds(self.policy.deadline))
        problem = links.problem()
        if problem is not None:
            self.problems.append(f"{self.start}: {problem}")
        for link, text in links.found.items():
            self.add(link, text)

    def _start_failed(self, why: str) -> None:
        """Keep why the start page could not be read (it stays listed first)."""
        self.start_failure = f"{self.start}: {why}"
        self.problems.append(self.start_failure)

    async def read_sitemaps(self) -> None:
        """The sitemaps robots.txt lists and ``/sitemap.xml``, indexes followed breadth-first."""
        origin = f"{urlsplit(self.start).scheme}://{host_of(self.start)}"
        queue: deque[tuple[str, int]] = deque()
        seen: set[str] = set()
        for address in [*await self._robots_sitemaps(origin), f"{origin}/sitemap.xml"]:
            url = normalise(address)
            if url is not None and url not in seen:
                seen.add(url)
                queue.append((url, 0))
        policy = self.policy.with_(
            truncate=True,
            max_body_bytes=self.bounds.max_bytes,
            max_declared_bytes=MAX_BODY_BYTES,
            accept=SITEMAP_ACCEPT,
        )
        while queue and len(self.read) < self.bounds.max_sitemaps and not self.enough:
            url, depth = queue.popleft()
            outcome = await self.fetcher.fetch(url, policy)
            if not isinstance(outcome, Snapshot):
                self.problems.append(f"{url}: {outcome.reason}")
                continue
            self.read.append(url)
            found = read_sitemap(outcome.body, self.bounds.max_bytes, self.bounds.max_urls)
            if found.capped or len(outcome.body) >= self.bounds.max_bytes:
                self.problems.append(f"{url}: cut short at its cap; the rest was not read")
            if found.problem:
                self.problems.append(f"{url}: {found.problem}")
            for page in found.urls:
                self.start_in_sitemap = self.start_in_sitemap or normalise(page) == self.start
                self.add(page)
            for child in map(normalise, found.sitemaps):
                if child is None or child in seen or host_of(child) not in self.hosts:
                    continue
                if depth >= self.bounds.max_depth:
                    self.problems.append(f"{child}: nested past {self.bounds.max_depth} levels")
                    continue
                seen.add(child)
                queue.append((child, depth + 1))
        if queue and not self.enough:
            self.problems.append(f"{len(queue)} sitemap(s) left unread past the files' cap")

    async def _robots_sitemaps(self, origin: str) -> list[str]:
        """The ``Sitemap:`` lines of the origin's robots.txt (none when it cannot be read)."""
        policy = self.policy.with_(
            robots=False, truncate=True, max_body_bytes=ROBOTS_MAX_BYTES, accept="text/plain"
        )
        outcome = await self.fetcher.fetch(f"{origin}/robots.txt", policy)
        if not isinstance(outcome, Snapshot):
            return []
        return _SITEMAP_LINE.findall(outcome.body.decode("utf-8", errors="replace"))


def words_of(text: str) -> list[str]:
    """The words of ``text`` (percent-escapes decoded), lower-cased."""
    return _WORDS.findall(unquote(text).lower())


def match_score(url: str, text: str, words: set[str]) -> int:
    """How many of the search ``words`` the URL's address and anchor text hold."""
    return len(words & set(words_of(url)) | words & set(words_of(text)))
