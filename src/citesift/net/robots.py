"""robots.txt per origin: fetched once, cached with an expiry, read by RFC 9309 rules.

A 2xx file is parsed (``citesift.net.robots_file``, in time linear in its size; its first
500 KiB when it is longer, as Google reads it); a 4xx (but 429)
or too many redirects means no rules (allow all); a 5xx, a 429, a timeout or a transport
failure means the site is unreachable for now: disallow everything, and try again after
``retry`` seconds (a host no connection can be made to is said to be so, not blamed on
robots.txt). Crawl-delay is reported so the caller can slow the host's limiter.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx

from citesift.model import FetchOutcome, Limited, Skipped, Snapshot
from citesift.net.address import DEFAULT_PORTS
from citesift.net.clock import SYSTEM_CLOCK, Clock
from citesift.net.exchange import UNREACHABLE
from citesift.net.robots_file import RobotsFile
from citesift.numbers import number_in

ROBOTS_TTL = 86_400.0  # RFC 9309: a cached file should not be used for more than 24 hours
ROBOTS_RETRY = 60.0
ROBOTS_MAX_BYTES = 512_000  # RFC 9309: parse at least the first 500 KiB
ROBOTS_REDIRECTS = 5
DISALLOWED = "disallowed by robots.txt"
"""Why a URL the file disallows is not fetched."""

RobotsFetcher = Callable[[str], Awaitable[FetchOutcome]]
_Pending = asyncio.Future["RobotsRules | Limited"]


@dataclass(frozen=True, slots=True)
class RobotsRules:
    """What one origin's robots.txt said: the parsed file, or allow/deny everything; the
    answer it was read from (``file``, when one came) so a store may keep it."""

    parser: RobotsFile | None
    allow_all: bool
    reason: str
    file: Snapshot | None = None

    def verdict(self, url: str, agent: str) -> str | None:
        """Why ``agent`` may not fetch ``url``, or None when it may."""
        if self.parser is not None:
            return DISALLOWED if self.forbids(url, agent) else None
        return None if self.allow_all else self.reason

    def forbids(self, url: str, agent: str) -> bool:
        """Whether the file's rules disallow ``url`` to ``agent`` (not: whether the file
        could not be had)."""
        return self.parser is not None and not self.parser.allowed(url, agent)

    @property
    def unreachable(self) -> bool:
        """The file could not be had for now (so the rules are kept only briefly)."""
        return self.parser is None and not self.allow_all

    def sitemaps(self) -> list[str]:
        """The sitemap addresses the file lists (for mapping a site later)."""
        return list(self.parser.sitemaps) if self.parser is not None else []

    def crawl_delay(self, agent: str) -> float | None:
        """The Crawl-delay for ``agent`` in seconds, when the file sets one."""
        return self.parser.crawl_delay(agent) if self.parser is not None else None


class RobotsCache:
    """robots.txt rules per origin, shared by every fetch that uses the same cache; files are
    kept ``ttl`` seconds (at most a day, RFC 9309), an unreachable one ``retry`` seconds."""

    def __init__(
        self, ttl: float = ROBOTS_TTL, retry: float = ROBOTS_RETRY, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        self.ttl_ms = number_in("ttl", ttl, 0, ROBOTS_TTL) * 1000
        self.retry_ms = number_in("retry", retry, 0, ROBOTS_TTL) * 1000
        self.clock = clock
        self._rules: dict[str, tuple[RobotsRules, float]] = {}
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()

    async def rules_for(self, url: httpx.URL, fetch_robots: RobotsFetcher) -> RobotsRules | Limited:
        """The rules of ``url``'s origin, fetched through ``fetch_robots`` when not cached.

        Concurrent callers on one event loop share one fetch. A fetch the limiter refused
        is answered as it is and not cached.
        """
        origin = robots_url(url)
        while True:
            found = self._lookup(origin)
            if isinstance(found, RobotsRules):
                return found
            answer, ours = found
            if ours:
                return await self._fetch(origin, fetch_robots, answer)
            await asyncio.wait({answer})
            if not answer.cancelled():
                return answer.result()

    def _lookup(self, origin: str) -> RobotsRules | tuple[_Pending, bool]:
        """The cached rules, or a fetch in flight on this loop, or a new one for us to make."""
        loop = asyncio.get_running_loop()
        with self._lock:
            cached = self._rules.get(origin)
            if cached and cached[1] > self.clock.now_ms():
                return cached[0]
            pending = self._pending.get(origin)
            if pending is not None and not pending.done() and pending.get_loop() is loop:
                return pending, False
            mine: _Pending = loop.create_future()
            self._pending[origin] = mine
            return mine, True

    async def _fetch(
        self, origin: str, fetch_robots: RobotsFetcher, mine: _Pending
    ) -> RobotsRules | Limited:
        try:
            outcome = await fetch_robots(origin)
        except BaseException:
            mine.cancel()  # waiters try again themselves
            raise
        answer = outcome if isinstance(outcome, Limited) else read_robots(outcome)
        with self._lock:
            if isinstance(answer, RobotsRules):
                lifetime = self.retry_ms if answer.unreachable else self.ttl_ms
                self._rules[origin] = (answer, self.clock.now_ms() + lifetime)
            if self._pending.get(origin) is mine:
                del self._pending[origin]
        mine.set_result(answer)
        return answer

    def forget(self) -> None:
        """Drop every cached file."""
        with self._lock:
            self._rules.clear()
            self._pending.clear()


def robots_url(url: httpx.URL) -> str:
    """The robots.txt address of ``url``'s origin (from its parts as parsed: every fetch
    asks it, and building another URL would parse it all again)."""
    host = url.raw_host.decode("ascii")
    bracketed = f"[{host}]" if ":" in host else host
    port = "" if url.port in (None, DEFAULT_PORTS.get(url.scheme)) else f":{url.port}"
    return f"{url.scheme}://{bracketed}{port}/robots.txt"


def robots_address(url: str) -> str | None:
    """The robots.txt address of ``url``'s origin, or None when ``url`` is no http(s) URL."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return None
    return robots_url(parsed) if parsed.scheme in ("http", "https") and parsed.host else None


def read_robots(outcome: FetchOutcome) -> RobotsRules:
    """The rules an attempt to fetch robots.txt implies (RFC 9309, section 2.3.1)."""
    file = outcome if isinstance(outcome, Snapshot) else None
    if file is not None and 200 <= file.status < 300:
        return RobotsRules(RobotsFile.parse(_whole_lines(file.body)), False, "", file)
    status = outcome.status if isinstance(outcome, Snapshot | Skipped) else None
    if status is not None and (300 <= status < 400 or (400 <= status < 500 and status != 429)):
        return RobotsRules(None, allow_all=True, reason=f"robots.txt answered {status}", file=file)
    if isinstance(outcome, Skipped) and outcome.reason.startswith(UNREACHABLE):
        return RobotsRules(None, allow_all=False, reason=outcome.reason)  # the host, not the file
    why = outcome.reason if isinstance(outcome, Limited | Skipped) else f"HTTP {status}"
    return RobotsRules(None, allow_all=False, reason=f"robots.txt unreachable ({why}); retry later")


def _whole_lines(body: bytes) -> str:
    """The file as text; one cut at ``ROBOTS_MAX_BYTES`` loses its partial last line (which
    ends at LF or CR). A leading byte order mark is dropped; bytes that are not UTF-8 are
    kept (``surrogateescape``) for the rules to match as their percent-escapes."""
    if len(body) >= ROBOTS_MAX_BYTES:
        body = body[: max(body.rfind(b"\n"), body.rfind(b"\r")) + 1]
    return body.decode("utf-8-sig", errors="surrogateescape")
