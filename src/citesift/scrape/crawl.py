"""A crawl: a site's pages, breadth-first (or best-first by a query), resumable.

``crawl(url, limit, max_depth, include_paths, exclude_paths, allow_external, formats,
policy=..., store=...)`` reads the start page, then the pages it links to, level by level
(with ``query``, the URLs whose address and anchor text hold more of its words first), to
``max_depth`` links from the start and ``limit`` requests in all (pages read, failed, or
redirecting). URLs are normalised and each is read once; only the start's host is crawled
unless ``allow_external``; ``include_paths`` / ``exclude_paths`` are regular expressions
searched in a found link's path (its query string left out, as Firecrawl's ``includePaths``).
A found link (or a redirect's target) that robots.txt disallows to the policy's agent is
left out: never fetched, never counted toward ``limit`` nor as a failure, but counted
(``disallowed``, as a map counts them; ``crawl_disallowed`` lists them). One on the page's
own origin, or on an origin whose rules the run already holds, is left out before it is
queued (within ``origin_rules.ROBOTS_CHECK_SECONDS`` of checks a page); any other (on an
origin not yet asked, past the page's checking time) is checked when it is claimed, before
its fetch, its origin's robots.txt read once through the fetcher and kept as long as the
fetcher keeps it (``ROBOTS_TTL``), and left out then, its place in ``limit`` given back: no
file is fetched while a page waits to be finished, nor for an origin the crawl never
reaches. That check is a shortcut: a link whose fetch robots.txt refuses (the file could
not be had at its claim, or changed since) is left out the same way, never a failure.
Only the crawl's start is a failure when robots.txt disallows it (the crawl then reads
nothing). Every fetch goes through the fetcher, so robots.txt (with its
Crawl-delay, honoured whatever the policy says) and the per-host limiter always
hold (a host the limiter holds back is left alone until it may be asked, its
block after a 429 or 503 until the Retry-After has passed, when that is ``MAX_PAUSE`` at
most: else its pages fail; a page answered 429 or 503 is asked for ``MAX_SENDS`` times
before it fails, and once a host has so answered ``MAX_SENDS`` times in a row its next
pages fail at their first such answer); several hosts are read at once, each by at
most ``per_host`` requests at a time. A redirect is not followed by the fetch: its target
joins the frontier like a found link (at the same depth), so a target out of scope is never
asked for and a target already read is not read again; a chain of redirects is cut, as a
failure naming the bound, past the hops the caller's policy lets a single fetch follow (its
``max_redirects``: ``PAGE_REDIRECTS`` for a web-page policy, none for a policy that follows
none), else only ``limit`` would end a site that redirects to a new URL every time. With
``render="auto"`` a page whose static HTML needs JavaScript (``decide``) is rendered by one
lazy browser the run shares, kept and cited as rendered (as served when no browser can
start, which the run's ``warnings`` say); by default (``never``) every page is read as
served.

The frontier and the results live in the store (``citesift.store.frontier``): a page is
marked done in the transaction that stores its result, so a crawl killed at any moment
and started again with the same URL and options (its ``crawl_id``), or resumed by id,
goes on with nothing finished lost and nothing finished fetched again (a request in
flight at the kill, whose answer never came back, is sent again: at most ``concurrency``
of them). Several runs of one crawl share its frontier, in processes of one machine
(``workers``) or, with a PostgreSQL store, on many: each claims its pages under a lease of
``lease`` seconds it renews while reading them, so a run killed mid-page gives its pages
back when its lease runs out, and ``limit`` holds for all of them together. Each page's
snapshot is kept in the store; a record cites it. A bot challenge, block page or soft 404
is a failure, never a result. Memory stays flat: nothing is held per page but the
frontier in the store.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

import regex

from citesift.errors import CitesiftError, invalid
from citesift.extract.document import snapshot_text
from citesift.model import Limited, Skipped, Snapshot
from citesift.net import Fetcher, Fetches, FetchPolicy, LimiterRegistry, SourceLimiter, run_sync
from citesift.net.exchange import BLOCKING_STATUSES
from citesift.net.policy import PAGE_REDIRECTS
from citesift.net.robots import DISALLOWED, RobotsRules
from citesift.numbers import number_in
from citesift.scrape.browser import Browser, BrowserUnavailable, RenderFailed
from citesift.scrape.crawl_page import PAGE_FORMATS, page_kind, read_crawled_page
from citesift.scrape.decision import decide
from citesift.scrape.failures import reason_code
from citesift.scrape.map import MAP_WAIT, MAX_SENDS, match_score, start_url, words_of
from citesift.scrape.options import ScrapeOptions
from citesift.scrape.origin_rules import Allowance, OriginRules
from citesift.scrape.page import derived
from citesift.scrape.urls import PageLinks, host_of, link_seconds, normalise, origin_key
from citesift.sources.challenge import stand_in
from citesift.sources.reasons import skipped_reason
from citesift.sources.snapshots import RENDERED, SavingFetcher
from citesift.store import AnyStore, SQLiteStore
from citesift.store.frontier import (
    LEASE_S,
    MAX_LEASE_S,
    MIN_LEASE_S,
    Added,
    Entry,
    Frontier,
    frontier_in,
)
from citesift.store.limits import budget_in

CRAWL_LIMIT = 100
MAX_CRAWL_LIMIT = 10_000_000
CRAWL_DEPTH = 3
MAX_CRAWL_DEPTH = 1_000
CONCURRENCY = 8
PER_HOST = 2
LIMITED_PAUSE = 1.0
"""Seconds a host is left alone after its limiter refused a request (the page is queued
again, not failed), or until its block ends when it answered 429 or 503 (Retry-After)."""
MAX_PAUSE = MAP_WAIT
"""Seconds of a host's block (Retry-After) a crawl waits for at most: a page of a host
blocked for longer fails (as a map stops reading it)."""
RENDER_OPTIONS = ScrapeOptions(render="auto")
"""How a crawled page is rendered: a scrape's defaults (its timeout, viewport), and the
crawl's ``wait_for``."""
CRAWL_RENDER = ("auto", "never")
"""A crawl's render choices (a crawl never renders every page: ``always`` is a scrape's)."""
NO_BROWSER = "pages that need JavaScript were read as served: no browser could start"
"""The warning of a crawl asked to render when no browser can start."""
PATTERN_SECONDS = 0.05
"""Seconds the include and exclude patterns may search one link's path: a link they cannot
decide by then (a pattern that backtracks without end on it, as ``^/(a|a)*$`` on
``/aaaa…!``) is not followed, and the crawl goes on."""
STALL_SECONDS = 2.0
"""Seconds of searches a run lets its patterns run out of time in: past them, a pattern
that has run out of time decides no more links (each such search stalls every page of the
run, and a page holds thousands of links)."""
UNDECIDED = "links the include or exclude patterns could not decide in time were not followed"
UNREAD = "anchors left unread past a page's cap on links or its deadline"
"""The start of the run's warning of pages whose links were not all read (one line)."""
MAX_WHY_CHARS = 300
"""How much of why no browser could start its warning quotes."""
POLL_S = 0.25
"""Seconds a run with nothing to claim waits before looking again while other runs of the
crawl still hold pages (whose links may add more)."""
_RUN_ONLY = ("concurrency", "per_host", "lease", "render", "wait_for")
"""Options that change how a crawl runs, not which crawl it is."""
_T = TypeVar("_T")


@dataclass(frozen=True)
class CrawlOptions:
    """What a crawl reads (see the module docstring); a value that makes no sense is an
    ``InvalidArgument`` naming it."""

    limit: int = CRAWL_LIMIT
    max_depth: int = CRAWL_DEPTH
    include_paths: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = ()
    allow_external: bool = False
    formats: tuple[str, ...] = ("markdown",)
    query: str | None = None
    concurrency: int = CONCURRENCY
    per_host: int = PER_HOST
    lease: float = LEASE_S
    render: str = "never"
    """``auto``: a page whose static HTML needs JavaScript (``decide``) is rendered by one
    lazy browser the run shares; ``never`` (the default, cheap): every page as served."""
    wait_for: int | str = 0
    """What a rendered page is waited for after it loads, as a scrape's ``wait_for``:
    milliseconds (its render's deadline grows by them) or a CSS selector."""

    def __post_init__(self) -> None:
        number_in("limit", self.limit, 1, MAX_CRAWL_LIMIT, whole=True)
        number_in("max_depth", self.max_depth, 0, MAX_CRAWL_DEPTH, whole=True)
        number_in("concurrency", self.concurrency, 1, 256, whole=True)
        number_in("per_host", self.per_host, 1, 64, whole=True)
        number_in("lease", self.lease, MIN_LEASE_S, MAX_LEASE_S)
        for name in ("include_paths", "exclude_paths", "formats"):
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(item, str) for item in value):
                raise invalid(name, value, "a list of strings")
            object.__setattr__(self, name, tuple(value))
        for name in ("include_paths", "exclude_paths"):
            for pattern in getattr(self, name):
                _compiled(name, pattern)
        unknown = [kind for kind in self.formats if kind not in PAGE_FORMATS]
        if unknown:
            raise invalid("formats", list(self.formats), f"some of {', '.join(PAGE_FORMATS)}")
        if not isinstance(self.allow_external, bool):
            raise invalid("allow_external", self.allow_external, "True or False")
        if self.query is not None and not (isinstance(self.query, str) and self.query.strip()):
            raise invalid("query", self.query, "words to rank links by, or None")
        if self.render not in CRAWL_RENDER:
            raise invalid("render", self.render, "'auto' or 'never'")
        object.__setattr__(self, "wait_for", self.rendering().wait_for)  # checked, as a number
        if self.wait_for and self.render != "auto":
            raise invalid("wait_for", self.wait_for, "0 unless render='auto'")

    def rendering(self) -> ScrapeOptions:
        """How a page that needs JavaScript is rendered: a scrape's defaults, waiting
        ``wait_for`` after the load (within a deadline longer by the milliseconds waited)."""
        waited = self.wait_for / 1000 if isinstance(self.wait_for, int) else 0.0
        return RENDER_OPTIONS.replace(
            wait_for=self.wait_for, timeout=RENDER_OPTIONS.timeout + waited
        )

    def keyed(self) -> dict[str, Any]:
        """The options that make the crawl what it is (stored with it, part of its id)."""
        chosen = asdict(self)
        return {name: value for name, value in chosen.items() if name not in _RUN_ONLY}


def crawl_id(start: str, options: CrawlOptions) -> str:
    """The id of the crawl of ``start`` with ``options``: the same for the same command."""
    keyed = json.dumps({"start": start, **options.keyed()}, sort_keys=True)
    return hashlib.sha256(keyed.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CrawlProgress:
    """Where a crawl stands: pages done, queued and failed, pages per second this run, what
    the run warns of (pages that needed a browser read as served: none could start), and
    how many links found were left out because robots.txt disallows them (``disallowed``)."""

    crawl: str
    done: int
    queued: int
    failed: int
    rate: float
    warnings: tuple[str, ...] = ()
    disallowed: int = 0


@dataclass
class _Tally:
    """A run's counts of pages done, failed and queued, links left out (robots.txt), and
    pages finished in this run (for its rate)."""

    done: int
    failed: int
    queued: int
    disallowed: int
    finished: int = 0

    def count(self, page: _Page) -> dict[str, Any] | None:
        """Count a page finished in the frontier; its record when it is a result."""
        self.queued += page.added.queued
        self.disallowed += page.added.disallowed + page.left_out
        self.finished += 1
        if page.record is not None:
            self.done += 1
        elif not (page.moved or page.left_out):
            self.failed += 1
        return page.record


@dataclass
class _Page:
    """What reading one page gave: its record, or why it failed, and the links it adds
    (a redirect's target alone, when it ``moved``); ``limited`` when the limiter refused
    it (it is queued again)."""

    record: dict[str, Any] | None = None
    reason: str | None = None
    found: list[Entry] = field(default_factory=list)
    disallowed: list[Entry] = field(default_factory=list)
    """The links found that robots.txt disallows (left out of the frontier's queue)."""
    limited: bool = False
    pause: float = LIMITED_PAUSE
    """Seconds its host is left alone when it is ``limited``."""
    moved: bool = False
    left_out: bool = False
    """robots.txt disallows the page itself (found so when it was claimed, or by its fetch):
    not read."""
    added: Added = field(default_factory=Added)
    """How many of the links it adds were new to the frontier (once it is finished there)."""


def crawl(
    url: str,
    limit: int = CRAWL_LIMIT,
    max_depth: int = CRAWL_DEPTH,
    include_paths: Iterable[str] = (),
    exclude_paths: Iterable[str] = (),
    allow_external: bool = False,
    formats: Iterable[str] = ("markdown",),
    *,
    query: str | None = None,
    concurrency: int = CONCURRENCY,
    lease: float = LEASE_S,
    render: str = "never",
    wait_for: int | str = 0,
    workers: int = 1,
    policy: FetchPolicy,
    store: AnyStore,
    fetcher: Fetches | None = None,
    limiter: Callable[[], SourceLimiter] | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    executable: str | None = None,
) -> CrawlProgress:
    """Crawl ``url`` (see the module docstring); the results are in the store
    (``crawl_results``) and passed to ``on_result`` as each page is done, and so are the
    pages that failed, with why (``crawl_failures``). Returns where
    the crawl ended; ``acrawl`` from async code, and to resume a crawl by its id. With
    ``workers`` above 1 the crawl is read by that many processes (see
    ``citesift.scrape.crawl_workers``), each fetching with limiters made by ``limiter``
    that share the store's budget (a script calling it so guards its entry with
    ``if __name__ == "__main__":``, as for any spawned process). ``executable`` names the
    Chromium that renders (as ``Browser`` takes it)."""
    options = CrawlOptions(
        limit,
        max_depth,
        tuple(include_paths),
        tuple(exclude_paths),
        allow_external,
        tuple(formats),
        query,
        concurrency,
        lease=lease,
        render=render,
        wait_for=wait_for,
    )
    if workers != 1:
        from citesift.scrape.crawl_workers import crawl_with_workers

        return crawl_with_workers(
            url, options, workers, policy=policy, store=store, limiter=limiter, fetcher=fetcher,
            on_result=on_result, executable=executable,
        )  # fmt: skip
    if limiter is not None:
        fetcher = fetcher or Fetcher(LimiterRegistry(limiter, budget=budget_in(store)))
    call = acrawl(url, options, policy=policy, store=store, fetcher=fetcher, on_result=on_result,
                  executable=executable)  # fmt: skip
    return run_sync(call)


def start_crawl(
    url: str | None,
    options: CrawlOptions | None,
    store: AnyStore,
    resume: str | None,
    crawl_as: str | None = None,
) -> tuple[Frontier, str, str, CrawlOptions]:
    """The frontier of ``store``, and the id, start URL and options of the crawl of ``url``
    with ``options`` (made if new, under ``crawl_as`` when given), or of the stored crawl
    ``resume`` (run with ``options``' concurrency and lease)."""
    frontier = frontier_in(store, lease_s=(options or CrawlOptions()).lease)
    if resume is not None:
        start, keyed = _stored(frontier, resume)
        options = _stored_options(keyed, options)
        crawl = resume
    else:
        start = start_url(url)
        options = options or CrawlOptions()
        crawl = crawl_as if crawl_as is not None else crawl_id(start, options)
    frontier.begin(crawl, Entry(start, host_of(start), 0), options.keyed())
    return frontier, crawl, start, options


async def acrawl(
    url: str | None,
    options: CrawlOptions | None = None,
    *,
    policy: FetchPolicy,
    store: AnyStore,
    fetcher: Fetches | None = None,
    resume: str | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    on_progress: Callable[[CrawlProgress], None] | None = None,
    crawl_as: str | None = None,
    snapshots: AnyStore | None = None,
    browser: Browser | None = None,
    executable: str | None = None,
) -> CrawlProgress:
    """Crawl ``url`` with ``options``, or go on with the stored crawl ``resume`` (its URL
    and options are the stored ones); returns where the crawl ended. Other runs of the same
    crawl (processes, machines) may share it at the same time. ``crawl_as`` keeps a new crawl
    under that id instead of ``crawl_id``'s (a job's crawl, never resumed by another one of
    the same URL and options); ``snapshots`` keeps each page's snapshot in another store
    than the frontier's. With ``render="auto"`` the pages are rendered by ``browser`` (one
    the caller keeps open, a server's), else by a lazy one of the run's own launching
    ``executable`` (as ``Browser`` takes it), ended with the run."""
    if not isinstance(policy, FetchPolicy):
        raise invalid("policy", policy, "a FetchPolicy")
    frontier, crawl, start, options = start_crawl(url, options, store, resume, crawl_as)
    own = None
    if fetcher is None:
        fetcher = own = Fetcher()
    polite = policy.with_(robots=True, max_redirects=0)  # redirects join the frontier
    serial = ThreadPoolExecutor(1, thread_name_prefix="citesift-crawl-store")
    kept = snapshots or store
    saving = SavingFetcher(fetcher, kept, _calls(kept, serial))
    # one lazy browser for the run: Chromium starts only when a page first needs it
    own_browser = None
    if options.render == "auto" and browser is None:
        own_browser = Browser(executable, lazy=True)
    rendering = (browser or own_browser) if options.render == "auto" else None
    run = _Run(crawl, start, options, polite, saving, rendering, policy.max_redirects,
               _calls(store, serial))  # fmt: skip
    try:
        async with own_browser or nullcontext():
            return await run.go(frontier, on_result, on_progress)
    finally:
        serial.shutdown(wait=False, cancel_futures=True)  # a call it runs still ends
        if own is not None:
            await own.aclose()


def _calls(store: AnyStore, serial: Executor) -> Executor | None:
    """What runs a crawl's calls to ``store`` off its event loop: ``serial`` (one thread) for
    a SQLite store, whose one connection takes one call at a time (threads more only contend
    for it, at some 0.5 ms of CPU a page); the loop's default executor (None) for
    PostgreSQL, whose pool serves several calls at once."""
    return serial if isinstance(store, SQLiteStore) else None


def crawl_results(store: AnyStore, crawl: str) -> Iterator[dict[str, Any]]:
    """The results of the stored crawl ``crawl``, in the order they were done."""
    return (record for _, record in frontier_in(store).results(crawl))


def marked_results(
    store: AnyStore, crawl: str, after: tuple[int, int] = (0, 0)
) -> Iterator[tuple[tuple[int, int], dict[str, Any]]]:
    """The results of the stored crawl ``crawl`` stored after the mark ``after`` (all from
    ``(0, 0)``), each with its mark: a caller that has read them to a mark follows on from
    it (``crawl_with_workers``'s ``after``) without missing one stored in between."""
    return frontier_in(store).results(crawl, after)


def crawl_disallowed(store: AnyStore, crawl: str) -> Iterator[str]:
    """The links the stored crawl ``crawl`` left out because robots.txt disallows them, in
    the order they were found (Firecrawl's ``robotsBlocked``)."""
    return frontier_in(store).disallowed(crawl)


def crawl_failures(store: AnyStore, crawl: str) -> Iterator[dict[str, str]]:
    """The pages of the stored crawl ``crawl`` that failed, in the order they were found:
    each its ``url``, why it failed (``error``) and the failure ``code`` that reason means
    (the shape of a crawl job's errors, Firecrawl's)."""
    for url, why in frontier_in(store).failures(crawl):
        yield {"url": url, "error": why, "code": reason_code(why)}


def stored_start(store: AnyStore, crawl: str) -> str:
    """The start URL of the crawl ``crawl`` kept in ``store``; an ``InvalidArgument`` naming
    ``resume`` when the store has no such crawl."""
    return _stored(frontier_in(store), crawl)[0]


def _stored(frontier: Frontier, crawl: object) -> tuple[str, dict[str, Any]]:
    """The start URL and options of the stored crawl ``crawl`` (to resume)."""
    stored = frontier.options(crawl) if isinstance(crawl, str) else None
    if stored is None:
        raise invalid("resume", crawl, "the id of a crawl in the store")
    return stored


def ended_at(
    frontier: Frontier, crawl: str, finished: int, seconds: float, warnings: Iterable[str] = ()
) -> CrawlProgress:
    """Where ``crawl`` stands in the store, ``finished`` pages having been read in ``seconds``
    (with the run's ``warnings``)."""
    counts = frontier.counts(crawl)
    queued = counts["queued"] + counts["claimed"]
    rate = finished / seconds
    done, failed, disallowed = counts["done"], counts["failed"], counts["disallowed"]
    return CrawlProgress(crawl, done, queued, failed, rate, tuple(warnings), disallowed)


def _stored_options(keyed: dict[str, Any], given: CrawlOptions | None) -> CrawlOptions:
    """The stored options of a crawl, run with ``given``'s concurrency."""
    running = {name: getattr(given or CrawlOptions(), name) for name in _RUN_ONLY}
    listed: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in keyed.items()}
    return CrawlOptions(**listed, **running)


def _compiled(name: str, pattern: str) -> regex.Pattern[str]:
    """``pattern`` (``re``'s syntax) for the ``regex`` engine, which can stop a search."""
    try:
        return regex.compile(pattern)
    except regex.error as error:
        raise invalid(name, pattern, f"regular expressions ({error})") from None


class _Run:
    """One run of a crawl: claims from the frontier, reads pages, finishes them."""

    def __init__(
        self,
        crawl: str,
        start: str,
        options: CrawlOptions,
        policy: FetchPolicy,
        fetcher: SavingFetcher,
        browser: Browser | None,
        max_redirects: int,
        calls: Executor | None,
    ) -> None:
        self.crawl = crawl
        self.max_redirects = max_redirects
        self.start = start
        self.options = options
        self.policy = policy
        self.fetcher = fetcher
        self.robots = OriginRules(fetcher, policy)
        self.browser = browser
        self.rendering = options.rendering()
        self.include = [_compiled("include_paths", p) for p in options.include_paths]
        self.exclude = [_compiled("exclude_paths", p) for p in options.exclude_paths]
        self.slow: set[regex.Pattern[str]] = set()
        self.stalled = 0.0
        self.words = set(words_of(options.query)) if options.query else set()
        self.warnings: list[str] = []
        self.link_seconds = link_seconds(policy.deadline)
        self.unread = (0, 0)  # pages whose links were not all read, anchors left unread
        self.sent: Counter[str] = Counter()  # requests answered 429/503, of pages to ask again
        self.strikes: Counter[str] = Counter()  # 429/503 answers in a row, by host
        self.calls = calls  # what runs the frontier's calls off the loop

    async def go(
        self,
        frontier: Frontier,
        on_result: Callable[[dict[str, Any]], None] | None,
        on_progress: Callable[[CrawlProgress], None] | None,
    ) -> CrawlProgress:
        counts = frontier.counts(self.crawl)
        tally = _Tally(counts["done"], counts["failed"], counts["queued"], counts["disallowed"])
        # hosts that may have URLs queued: a claim is tried only when one of them is free,
        # so a busy host's long queue is never scanned in vain (memory: one entry a host)
        waiting = frontier.waiting_hosts(self.crawl)
        loop = asyncio.get_running_loop()
        began = renewed = loop.time()
        renew_every = self.options.lease / 3
        tasks: dict[asyncio.Task[_Page], Entry] = {}
        hosts: Counter[str] = Counter()
        paused: dict[str, float] = {}

        def progress() -> CrawlProgress:
            rate = tally.finished / max(loop.time() - began, 1e-9)
            return CrawlProgress(self.crawl, tally.done, tally.queued, tally.failed, rate,
                                 tuple(self.warnings), tally.disallowed)  # fmt: skip

        try:
            while True:
                now = loop.time()
                for host in [h for h, until in paused.items() if until <= now]:
                    del paused[host]
                while len(tasks) < self.options.concurrency:
                    shut = {h for h, n in hosts.items() if n >= self.options.per_host}
                    shut |= paused.keys()
                    # as many at once as no host can take past per_host (one, at the least)
                    room = self.options.per_host - max(hosts.values(), default=0)
                    count = max(1, min(self.options.concurrency - len(tasks), room))
                    claimed = (
                        await self._stored(
                            frontier.claim, self.crawl, count, shut, self.options.limit
                        )
                        if waiting - shut
                        else []
                    )
                    if not claimed:
                        waiting &= shut
                        break
                    for entry in claimed:
                        tasks[asyncio.create_task(self._step(frontier, entry))] = entry
                        hosts[entry.host] += 1
                        tally.queued -= 1
                if tasks and now - renewed >= renew_every:
                    frontier.renew(self.crawl, [entry.url for entry in tasks.values()])
                    renewed = now
                if not tasks:
                    if paused:
                        await asyncio.sleep(max(min(paused.values()) - now, 0.0))
                        continue
                    if self._others_at_work(frontier):
                        await asyncio.sleep(POLL_S)
                        waiting = frontier.waiting_hosts(self.crawl)
                        continue
                    seconds = loop.time() - began
                    return ended_at(frontier, self.crawl, tally.finished, seconds, self.warnings)
                wait = min(LIMITED_PAUSE, renew_every) if paused else renew_every
                ended, _ = await asyncio.wait(tasks, timeout=wait, return_when="FIRST_COMPLETED")
                for task in ended:
                    entry = tasks.pop(task)
                    hosts[entry.host] -= 1
                    if not hosts[entry.host]:
                        del hosts[entry.host]
                    page = task.result()
                    if page.limited:
                        frontier.release(self.crawl, entry.url)
                        paused[entry.host] = loop.time() + page.pause
                        waiting.add(entry.host)
                        tally.queued += 1
                        continue
                    waiting.update(found.host for found in page.found)
                    record = tally.count(page)
                    if record is not None and on_result is not None:
                        on_result(record)
                if on_progress is not None:
                    on_progress(progress())
        finally:
            for task in tasks:
                task.cancel()
            for entry in tasks.values():  # given back at once, not when the lease runs out
                frontier.release(self.crawl, entry.url)

    def _others_at_work(self, frontier: Frontier) -> bool:
        """Whether other runs of the crawl hold pages (whose links may add more), or pages
        are queued within the limit that this run could not claim just now."""
        counts = frontier.counts(self.crawl)
        taken = sum(counts.values()) - counts["queued"] - counts["disallowed"]
        return counts["claimed"] > 0 or (counts["queued"] > 0 and taken < self.options.limit)

    async def _step(self, frontier: Frontier, entry: Entry) -> _Page:
        """Read one page and finish it in the frontier."""
        allowance = self.robots.allowance()
        found = bool(entry.depth or entry.hops)  # not the start, which fails when disallowed
        if found and await self.robots.forbids(entry.url, allowance):
            page = _Page(reason=DISALLOWED, left_out=True)
        else:
            page = await self._read(entry)
            # The claim's check is a shortcut: the file may not have been had then (the
            # limiter refused it, or the allowance was spent) or may have changed since.
            page.left_out = found and page.reason == DISALLOWED
        if not page.limited:
            await self._leave_out_disallowed(entry, page, allowance)
            state = "moved" if page.moved else "disallowed" if page.left_out else None
            page.added = await self._stored(
                frontier.finish, self.crawl, entry.url, page.record, page.reason, page.found,
                state, page.disallowed,
            )  # fmt: skip
        return page

    async def _stored(self, call: Callable[..., _T], *args: Any) -> _T:
        """``call(*args)``, a frontier's call, run off the event loop (by ``calls``): a store
        call is a round trip the other pages need not wait for."""
        return await asyncio.get_running_loop().run_in_executor(self.calls, call, *args)

    async def _leave_out_disallowed(self, entry: Entry, page: _Page, allowance: Allowance) -> None:
        """Move the links of ``page`` that robots.txt disallows from its ``found`` to its
        ``disallowed``: on its own origin by the rules its fetch left cached, on another by
        the rules the run already holds (checks timed, within the page's ``allowance``:
        ``OriginRules.matched``). The rest are queued unchecked, for their claim to check
        (no file is fetched while this page waits to be finished). Each link's address is
        parsed once, and each origin's rules looked up once for the page."""
        own = origin_key(entry.url)
        held: dict[str | None, RobotsRules | None] = {}
        kept: list[Entry] = []
        for link in page.found:
            origin = origin_key(link.url)
            if origin not in held and not allowance.spent:
                held[origin] = await self.robots.rules(link.url, ask=origin == own)
            forbidden = await self.robots.matched(held.get(origin), link.url, allowance)
            (page.disallowed if forbidden else kept).append(link)
        page.found = kept

    async def _read(self, entry: Entry) -> _Page:
        """Fetch and read one page."""
        outcome = await self.fetcher.fetch(entry.url, self.policy)
        if isinstance(outcome, Limited):
            pause = outcome.retry_in or 0.0
            if pause > MAX_PAUSE:
                return _Page(
                    reason=f"the host asked to wait {math.ceil(pause)} s more, longer than a crawl"
                    f" waits ({MAX_PAUSE:g} s)"
                )
            return _Page(limited=True, pause=max(LIMITED_PAUSE, pause))
        if self._asked_again(entry, outcome):
            return _Page(limited=True)  # the host is blocked now: the next try says how long
        if isinstance(outcome, Skipped):
            if outcome.location is not None:
                return self._moved(entry, outcome.location)
            return _Page(reason=skipped_reason(outcome.status, outcome.reason))
        try:
            kind = page_kind(outcome)
            if kind is None:
                shown = outcome.content_type or "no type"
                return _Page(reason=f"neither an HTML page nor a PDF or Office file ({shown})")
            why = stand_in(outcome) if kind == "html" else None
            if why:
                return _Page(reason=why)
            read = await self._rendered(outcome) if kind == "html" else outcome
            page = read_crawled_page(
                read, kind, entry.depth, self.options.formats, self.link_seconds
            )
        except (CitesiftError, ValueError) as error:
            return _Page(reason=f"could not be read: {error}")
        self._count_unread(page.links)
        found: list[Entry] = []
        if entry.depth < self.options.max_depth:
            found = [
                Entry(url, host_of(url), entry.depth + 1, match_score(url, text, self.words))
                for url, text in page.links.found.items()
                if self._follows(url)
            ]
        return _Page(record=page.record, found=found)

    def _asked_again(self, entry: Entry, outcome: Snapshot | Skipped) -> bool:
        """Whether a page whose host answered 429 or 503 is queued again (its limiter holds
        the host until the Retry-After has passed) rather than failed: a page is asked for
        ``MAX_SENDS`` times at most, and none again once its host has answered so
        ``MAX_SENDS`` times in a row (a bot check answers every page alike)."""
        if not (isinstance(outcome, Skipped) and outcome.status in BLOCKING_STATUSES):
            self.sent.pop(entry.url, None)
            if isinstance(outcome, Snapshot) or outcome.status is not None:
                self.strikes.pop(entry.host, None)  # the host answered otherwise
            return False
        self.strikes[entry.host] += 1
        self.sent[entry.url] += 1
        if self.sent[entry.url] < MAX_SENDS and self.strikes[entry.host] <= MAX_SENDS:
            return True
        del self.sent[entry.url]
        return False

    def _count_unread(self, links: PageLinks) -> None:
        """Count a page whose links were not all read in the run's one warning of them."""
        if not links.unread:
            return
        pages, anchors = self.unread
        self.unread = (pages + 1, anchors + links.unread)
        line = (
            f"{UNREAD}: {anchors + links.unread:,} on {pages + 1:,} page(s) (a page's first"
            f" {links.cap:,} links are read, within {self.link_seconds:g} s)"
        )
        kept = [w for w in self.warnings if not w.startswith(UNREAD)]
        self.warnings[:] = [*kept, line]

    async def _rendered(self, static: Snapshot) -> Snapshot:
        """The page as the run's browser shows it, kept in the store beside the static one,
        when rendering is on and the static page needs it; else (or when the render fails:
        no browser, a timeout) the static page. No browser that can start is a warning of
        the run, given once."""
        if self.browser is None or not decide(snapshot_text(static), "auto").decided:
            return static
        try:
            shown = await self.browser.render(static, self.rendering, self.policy, False)
        except BrowserUnavailable as error:
            if not any(w.startswith(NO_BROWSER) for w in self.warnings):  # once, in a line
                why = str(error).strip().splitlines()[0][:MAX_WHY_CHARS]
                self.warnings.append(f"{NO_BROWSER} ({why})")
            return static
        except (RenderFailed, TimeoutError):
            return static
        rendered = derived(static, shown.html, RENDERED, shown.final_url)
        await self.fetcher.keep(rendered)
        return rendered

    def _moved(self, entry: Entry, location: str) -> _Page:
        """A redirect: its target queued (when in scope, still to be read, and within the
        hops the caller's policy lets a fetch follow), one more hop down its chain."""
        target = normalise(location)
        if target is None or not self._in_scope(target):
            return _Page(reason=f"redirected out of scope, to {location}")
        if target == entry.url:
            return _Page(reason=f"redirect loop back to {target}")
        if entry.hops >= self.max_redirects:
            return _Page(reason=f"redirect to {target} not followed: {self._unfollowed()}")
        hop = Entry(target, host_of(target), entry.depth, hops=entry.hops + 1)
        return _Page(reason=f"redirected to {target}", found=[hop], moved=True)

    def _unfollowed(self) -> str:
        """Why a redirect is not followed: the chain's bound, or (a policy following none,
        as a plain ``FetchPolicy``) that none are."""
        if not self.max_redirects:
            return (
                "redirects are not followed under this policy (max_redirects 0;"
                f" FetchPolicy.for_pages follows {PAGE_REDIRECTS})"
            )
        return f"a chain of more than {self.max_redirects} redirect(s)"

    def _in_scope(self, url: str) -> bool:
        return self.options.allow_external or host_of(url) == host_of(self.start)

    def _follows(self, url: str) -> bool:
        """Whether a found link is crawled: in scope, included, not excluded."""
        if not self._in_scope(url):
            return False
        path = urlsplit(url).path  # the pathname alone, as Firecrawl's includePaths
        try:
            if self.include and not any(self._found(p, path) for p in self.include):
                return False
            return not any(self._found(p, path) for p in self.exclude)
        except TimeoutError:
            if UNDECIDED not in self.warnings:
                self.warnings.append(UNDECIDED)
            return False

    def _found(self, pattern: regex.Pattern[str], path: str) -> bool:
        """Whether ``pattern`` finds ``path``; ``TimeoutError`` when it cannot tell in
        ``PATTERN_SECONDS``, or at once once its run has stalled ``STALL_SECONDS`` on it."""
        if pattern in self.slow and self.stalled >= STALL_SECONDS:
            raise TimeoutError
        try:
            return pattern.search(path, timeout=PATTERN_SECONDS) is not None
        except TimeoutError:
            self.slow.add(pattern)
            self.stalled += PATTERN_SECONDS
            raise
