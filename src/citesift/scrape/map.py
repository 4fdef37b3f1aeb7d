"""A site's map: the URLs its sitemaps and its start page name, normalised and in scope.

``map_site(url, search=None, limit=5000, policy=...)`` reads the ``Sitemap:`` lines of the
site's robots.txt and ``/sitemap.xml`` (indexes followed to ``max_depth`` levels, at most
``max_sitemaps`` files, each capped in bytes and URLs: ``citesift.scrape.sitemaps``), and
the links of the start page. Every URL is normalised (``citesift.scrape.urls``), counted
once, and kept only on the start's host (or the host its start page redirects to) unless
``allow_external`` (a sitemap, too, is read only when so in scope, or on the host of the
index naming it). With ``search``, URLs
whose address or anchor text hold more of its words come first. Every request goes through
the fetcher, so robots.txt and the per-host limiter hold as for any fetch; when the policy
honours robots.txt, URLs it disallows to the policy's agent are left out of the map and
counted (``disallowed``), by the rules the fetcher already keeps (robots.txt is fetched
once per origin). Only URLs on the hosts the map reads pages of are so checked, within
``origin_rules.ROBOTS_CHECK_SECONDS`` (a hostile file can make each check slow); the others
are listed unchecked and counted in a problem (a fetch of one still checks it). The sitemaps the
start's robots.txt names are read wherever they are (a site may keep them on another host);
the URLs they list are kept to scope as any. A host that holds the map back (a Crawl-delay
longer than the limiter waits, a 429 or 503 with Retry-After) is waited for, ``max_wait``
seconds in all; past that, its other sitemaps are left unread.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter, deque
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from citesift.errors import invalid
from citesift.model import MAX_BODY_BYTES, FetchOutcome, Limited, Skipped, Snapshot
from citesift.net import Fetcher, Fetches, FetchPolicy, run_sync
from citesift.net.exchange import BLOCKING_STATUSES
from citesift.numbers import number_in
from citesift.scrape.origin_rules import WAIT_POLL, OriginRules
from citesift.scrape.sitemaps import MAX_SITEMAP_BYTES, MAX_SITEMAP_URLS, read_sitemap
from citesift.scrape.urls import host_of, link_seconds, normalise, page_links
from citesift.sources.challenge import stand_in
from citesift.sources.reasons import skipped_reason

MAP_LIMIT = 5_000
MAX_MAP_LIMIT = 100_000
MAX_SITEMAPS = 50
SITEMAP_DEPTH = 3
MAP_WAIT = 30.0
"""Seconds a map waits in all for hosts that hold it back (Crawl-delay, Retry-After)."""
MAX_SENDS = 3
"""Requests a map sends for one file to a host answering 429 or 503."""
SITEMAP_ACCEPT = "application/xml,text/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5"
_WORDS = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class SiteMap:
    """A site's URLs (the start first unless ``search`` ranks them, listed even when it
    could not be read, as Firecrawl's map lists it, unless robots.txt disallows it), the
    sitemap files read, what could not
    be read or was cut short (``problems``), why the start page could not be read
    (``start_failure``, one of the problems), whether a sitemap names the start, and how
    many URLs found were left out because robots.txt disallows them (``disallowed``)."""

    url: str
    urls: tuple[str, ...]
    sitemaps: tuple[str, ...]
    problems: tuple[str, ...]
    start_failure: str | None = None
    start_in_sitemap: bool = False
    disallowed: int = 0

    def disallowed_note(self) -> str | None:
        """What ``disallowed`` means, in a line, when URLs were left out."""
        if not self.disallowed:
            return None
        return f"{self.disallowed} URL(s) left out: robots.txt disallows them to this client"

    def readable_urls(self) -> tuple[str, ...]:
        """``urls`` without the start when it could not be read and no sitemap names it:
        the pages worth reading, not the site's list as a copy of Firecrawl's map gives it."""
        if self.start_failure is None or self.start_in_sitemap:
            return self.urls
        return tuple(url for url in self.urls if url != self.url)


@dataclass(frozen=True)
class SitemapBounds:
    """How much of a site's sitemaps a map reads, and how long in all it waits for hosts
    that hold it back (``max_wait`` seconds); a value that makes no sense is an
    ``InvalidArgument`` naming it."""

    max_sitemaps: int = MAX_SITEMAPS
    max_depth: int = SITEMAP_DEPTH
    max_bytes: int = MAX_SITEMAP_BYTES
    max_urls: int = MAX_SITEMAP_URLS
    max_wait: float = MAP_WAIT

    def __post_init__(self) -> None:
        number_in("max_sitemaps", self.max_sitemaps, 0, 10_000, whole=True)
        number_in("max_depth", self.max_depth, 0, 10, whole=True)
        number_in("max_bytes", self.max_bytes, 1, MAX_SITEMAP_BYTES * 20, whole=True)
        number_in("max_urls", self.max_urls, 1, MAX_SITEMAP_URLS * 20, whole=True)
        number_in("max_wait", self.max_wait, 0, 600)


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
        len(reader.disallowed) + reader.disallowed_past,
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
    """What a map has found so far: URLs in order with anchor text, files read, problems,
    URLs left out because robots.txt disallows them, and the seconds waited for hosts."""

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
        self.rules = OriginRules(fetcher, policy)
        self.checks = self.rules.allowance()  # one for the whole map
        self.disallowed: set[str] = set()
        self.disallowed_past = 0  # disallowed past MAX_MAP_LIMIT (not deduplicated)
        self.unchecked: Counter[str] = Counter()  # URLs listed unchecked, by why
        self.waited = 0.0

    def in_scope(self, url: str) -> bool:
        """Whether ``url`` (a page or a sitemap) is on a host the map may list or read."""
        return self.allow_external or host_of(url) in self.hosts

    async def add(self, address: str, text: str = "", base: str | None = None) -> None:
        """Count ``address`` once when it is an http(s) URL in scope that robots.txt does not
        disallow, until ``wanted`` are found (then nothing more is even read: a site's
        sitemaps may name millions)."""
        if self.enough:
            return
        url = normalise(address, base)
        if url is None or url in self.found or url in self.disallowed or not self.in_scope(url):
            return
        if self.policy.robots:
            forbidden = await self._forbidden(url)
            if forbidden:
                if len(self.disallowed) < MAX_MAP_LIMIT:  # each counted once, in bounded memory
                    self.disallowed.add(url)
                else:
                    self.disallowed_past += 1
                return
            if forbidden is None:
                self.unchecked[self._unchecked_why(url)] += 1
        self.found[url] = text

    async def _forbidden(self, url: str) -> bool | None:
        """Whether robots.txt disallows ``url`` to the policy's agent, or None when it is not
        checked (see ``_unchecked_why``; checks are timed: ``OriginRules.forbids``)."""
        if host_of(url) not in self.hosts:
            return None
        return await self.rules.forbids(url, self.checks)

    def _unchecked_why(self, url: str) -> str:
        """Why ``url`` was listed without being checked against robots.txt."""
        if host_of(url) not in self.hosts:
            return "on hosts whose pages the map does not read"
        if self.checks.spent:
            return f"past the {self.checks.seconds:g} s the map checks for"
        return "their robots.txt could not be had"

    @property
    def enough(self) -> bool:
        """Whether as many URLs as the map can give are found."""
        return len(self.found) >= self.wanted

    async def fetch(self, url: str, policy: FetchPolicy) -> FetchOutcome:
        """``url`` fetched; when its host holds the map back (a Crawl-delay longer than the
        limiter waits, a block after a 429 or 503) it is waited for and asked again, while
        the map's ``max_wait`` seconds of waiting last (a host answering 429 or 503 is sent
        the request ``MAX_SENDS`` times at most)."""
        sent = 0
        while True:
            outcome = await self.fetcher.fetch(url, policy)
            if isinstance(outcome, Skipped) and outcome.status in BLOCKING_STATUSES:
                sent += 1
                if sent >= MAX_SENDS:
                    return outcome
                continue  # the host is blocked now: the next try says for how long
            if not isinstance(outcome, Limited) or outcome.reason not in ("wait", "blocked"):
                return outcome
            pause = outcome.retry_in or WAIT_POLL  # a spacing refusal gives no length
            if self.waited + pause > self.bounds.max_wait:
                return outcome
            await asyncio.sleep(pause)
            self.waited += pause

    async def read_start_page(self) -> None:
        """The start page's links (and its host, when it redirects to another)."""
        outcome = await self.fetch(self.start, self.policy)
        if not isinstance(outcome, Snapshot):
            status = outcome.status if isinstance(outcome, Skipped) else None
            if self.policy.robots and await self._forbidden(self.start):
                del self.found[self.start]  # left out and counted, as any URL it disallows
                self.disallowed.add(self.start)
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
            await self.add(link, text)

    def _start_failed(self, why: str) -> None:
        """Keep why the start page could not be read (it stays listed first)."""
        self.start_failure = f"{self.start}: {why}"
        self.problems.append(self.start_failure)

    async def read_sitemaps(self) -> None:
        """The sitemaps robots.txt lists (wherever they are) and ``/sitemap.xml``, indexes
        followed breadth-first to sitemaps in scope or on the index's own host; a host that
        holds the map back past its waiting has its other sitemaps left unread."""
        origin = f"{urlsplit(self.start).scheme}://{host_of(self.start)}"
        queue: deque[tuple[str, int]] = deque()
        seen: set[str] = set()
        for address in [*await self._robots_sitemaps(), f"{origin}/sitemap.xml"]:
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
        held: dict[str, str] = {}  # host -> why it held the map back
        left: Counter[str] = Counter()  # host held back -> its sitemaps left unread
        while queue and len(self.read) < self.bounds.max_sitemaps and not self.enough:
            url, depth = queue.popleft()
            host = host_of(url)
            if host in held:
                left[host] += 1
                continue
            outcome = await self.fetch(url, policy)
            if isinstance(outcome, Limited) and outcome.reason in ("wait", "blocked"):
                held[host] = outcome.reason
                left[host] += 1
                continue
            if isinstance(outcome, Limited):
                self.problems.append(f"{url}: the limiter refused ({outcome.reason})")
                continue
            if not isinstance(outcome, Snapshot):
                self.problems.append(f"{url}: {outcome.reason}")
                continue
            for child in await self._read_sitemap(url, outcome):
                if child in seen or not (self.in_scope(child) or host_of(child) == host):
                    continue
                if depth >= self.bounds.max_depth:
                    self.problems.append(f"{child}: nested past {self.bounds.max_depth} levels")
                    continue
                seen.add(child)
                queue.append((child, depth + 1))
        self._note_left(held, left, len(queue))

    async def _read_sitemap(self, url: str, outcome: Snapshot) -> list[str]:
        """Add the pages of the sitemap ``url`` answered; the sitemaps it names."""
        self.read.append(url)
        found = read_sitemap(outcome.body, self.bounds.max_bytes, self.bounds.max_urls)
        if found.capped or len(outcome.body) >= self.bounds.max_bytes:
            self.problems.append(f"{url}: cut short at its cap; the rest was not read")
        if found.problem:
            self.problems.append(f"{url}: {found.problem}")
        for page in found.urls:
            self.start_in_sitemap = self.start_in_sitemap or normalise(page) == self.start
            await self.add(page)
        return [child for child in map(normalise, found.sitemaps) if child is not None]

    def _note_left(self, held: dict[str, str], left: Counter[str], queued: int) -> None:
        """Say which sitemaps were left unread and why, and how many URLs went unchecked."""
        for host, count in left.items():
            self.problems.append(
                f"{host}: {count} sitemap(s) left unread: the host held the map back"
                f" ({held[host]}) longer than its {self.bounds.max_wait:g} s of waiting"
            )
        if queued and not self.enough:
            self.problems.append(f"{queued} sitemap(s) left unread: past the files' cap")
        if self.unchecked:
            whys = "; ".join(f"{count} {why}" for why, count in self.unchecked.items())
            self.problems.append(
                f"{self.unchecked.total()} URL(s) listed unchecked against robots.txt ({whys});"
                " a fetch of one still checks it"
            )

    async def _robots_sitemaps(self) -> list[str]:
        """The ``Sitemap:`` lines of the start's robots.txt, from the file the fetcher keeps
        for its fetches (none when it cannot be had)."""
        rules = await self.rules.rules(self.start)
        return rules.sitemaps() if rules is not None else []


def words_of(text: str) -> list[str]:
    """The words of ``text`` (percent-escapes decoded), lower-cased."""
    return _WORDS.findall(unquote(text).lower())


def match_score(url: str, text: str, words: set[str]) -> int:
    """How many of the search ``words`` the URL's address and anchor text hold."""
    return len(words & set(words_of(url)) | words & set(words_of(text)))
