"""``Fetcher``: URLs to ``Snapshot``s, or ``Skipped``/``Limited`` outcomes, politely and safely.

A fetcher owns the state fetching keeps: a connection pool per host and event loop, the
per-host limiters and the robots.txt cache. Nothing is process-wide; a command, a crawl
worker or an agent holds one fetcher, and everything it fetches shares that state.

Each hop (the URL, then each redirect the policy allows) is checked on its own: scheme and
address, robots.txt when the policy honours it, then the host's limiter admits it and the
exchange reads it within the caps. The deadline bounds the name lookups, sending and reading
of all hops together, so a chain of slow redirects cannot stretch a fetch to a deadline per
hop (waits for the limiter and robots.txt are not counted: they have bounds of their own).
The policy's extra headers (a caller's Authorization, Cookie) go only to the origin of the
URL asked for: never to a redirect's other host, port or scheme (nor back to the origin
after one: that hop was chosen elsewhere), nor to robots.txt.
Nothing raises for a refusal or a failure; only the caller's own cancellation propagates.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import AsyncGenerator
from dataclasses import dataclass, replace
from typing import Protocol

from citesift.model import FetchOutcome, Limited, Skipped, Snapshot
from citesift.net.address import (
    AddressRefused,
    Target,
    parse_url,
    same_origin,
    without_credentials,
)
from citesift.net.exchange import Redirect, deadline_passed, exchange
from citesift.net.limiter import LimiterRefused, LimiterRegistry, OnSend, SourceLimiter
from citesift.net.loops import run_sync
from citesift.net.policy import FetchPolicy
from citesift.net.pool import MAX_HOSTS, HostPools
from citesift.net.robots import ROBOTS_MAX_BYTES, ROBOTS_REDIRECTS, RobotsCache, RobotsRules
from citesift.numbers import number_in

ROBOTS_DEADLINE = 10.0


class Fetches(Protocol):
    """What fetches for a source: a ``Fetcher``, or one composed over it (replaying from a
    store, saving to one)."""

    async def fetch(
        self, url: str, policy: FetchPolicy, *, on_send: OnSend | None = None
    ) -> FetchOutcome:
        """``url`` under ``policy`` (see ``Fetcher.fetch``)."""
        ...

    async def robots_rules(self, url: str, policy: FetchPolicy) -> RobotsRules | None:
        """The robots.txt rules of ``url``'s origin (see ``Fetcher.robots_rules``)."""
        ...


class Fetcher:
    """Fetches under a policy with state of its own: pooled connections, the limiters of
    ``limiters`` (a fresh registry by default) and the robots.txt files of ``robots``.

    Connections are kept per event loop and closed when that loop is shut down by
    ``asyncio.run`` (or ``asyncio.Runner``), so sync calls and ``asyncio.run(source.read(hit))``
    leave nothing open; a long-lived loop closes them with ``await aclose()`` or ``async with``.
    """

    def __init__(
        self,
        limiters: LimiterRegistry | None = None,
        robots: RobotsCache | None = None,
        *,
        max_hosts: int = MAX_HOSTS,
    ) -> None:
        self.limiters = LimiterRegistry() if limiters is None else limiters
        self.robots = RobotsCache() if robots is None else robots
        self.max_hosts = int(number_in("max_hosts", max_hosts, 1, 10_000, whole=True))
        self._pools: dict[asyncio.AbstractEventLoop, tuple[HostPools, _Closer]] = {}
        self._lock = threading.Lock()

    async def fetch(
        self, url: str, policy: FetchPolicy, *, on_send: OnSend | None = None
    ) -> FetchOutcome:
        """Fetch ``url`` under ``policy``; ``on_send`` runs before each request is sent.

        The user name and password ``url`` may hold are never sent nor recorded: the outcome
        names ``url`` and every address it was redirected to without them.

        ``on_send`` may raise ``LimiterRefused("caller")`` to refuse (any other exception it
        raises is read the same way): the answer is then ``Limited("caller")``, nothing sent.
        """
        if isinstance(url, str):  # anything else is refused as no URL by the address check
            url = without_credentials(url)
        outcome = await self._follow(url, policy, on_send)
        return replace(outcome, url=url) if isinstance(outcome, Snapshot) else outcome

    def fetch_sync(
        self, url: str, policy: FetchPolicy, *, on_send: OnSend | None = None
    ) -> FetchOutcome:
        """``fetch`` for synchronous code (also inside a running event loop)."""
        return run_sync(self.fetch(url, policy, on_send=on_send))

    async def robots_rules(self, url: str, policy: FetchPolicy) -> RobotsRules | None:
        """The robots.txt rules of ``url``'s origin, read from the cache fetches share (the
        file is fetched once per origin, under ``policy``'s bounds, whether or not the policy
        honours it), or None when ``url`` is refused or the limiter refused the file."""
        target = await _checked(url, policy, _Spent())
        if isinstance(target, Skipped):
            return None
        rules = await self._rules(target, policy)
        return rules if isinstance(rules, RobotsRules) else None

    def blocked_seconds(self, url: str) -> float:
        """Seconds until ``url``'s host may be asked again after a 429/503 (0 when it may)."""
        return self.limiters.limiter_for(parse_url(url).host).blocked_ms() / 1000

    def ready_seconds(self, url: str) -> float:
        """Seconds until ``url``'s host may be asked again: a 429/503's block, a full
        minute's window or the spacing between starts (0 when it may now)."""
        return self.limiters.limiter_for(parse_url(url).host).ready_ms() / 1000

    async def aclose(self) -> None:
        """Close the connections kept for the running event loop."""
        with self._lock:
            found = self._pools.pop(asyncio.get_running_loop(), None)
        if found is not None:
            await found[1].aclose()

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def _pools_here(self) -> HostPools:
        """This loop's pools, made on first use with a closer the loop's shutdown runs."""
        loop = asyncio.get_running_loop()
        with self._lock:
            for ended in [other for other in self._pools if other.is_closed()]:
                del self._pools[ended]
            found = self._pools.get(loop)
        if found is not None:
            return found[0]
        pools = HostPools(self.max_hosts)
        closer = _closing(pools)
        await anext(closer)  # now the loop knows it: shutting the loop down closes the pools
        with self._lock:
            kept = self._pools.setdefault(loop, (pools, closer))
        if kept[0] is not pools:
            await closer.aclose()
        return kept[0]

    async def _follow(self, url: str, policy: FetchPolicy, on_send: OnSend | None) -> FetchOutcome:
        seen = {url}
        spent = _Spent()
        elsewhere = policy.with_(headers=()) if policy.headers else policy
        away = False

        async def hop(at: str) -> Snapshot | Skipped | Limited | Redirect:
            """One hop; the caller's headers go only to the origin of the URL asked for, and
            never again once a redirect has left it (a page elsewhere chose where it goes)."""
            nonlocal away
            if policy.headers and not away:  # without headers the same policy goes anywhere
                away = not same_origin(at, url)
            return await self._hop(at, elsewhere if away else policy, on_send, spent)

        current = url
        for _ in range(policy.max_redirects):
            outcome = await hop(current)
            if not isinstance(outcome, Redirect):
                return outcome
            if outcome.location in seen:
                return Skipped(outcome.status, f"redirect loop back to {outcome.location}")
            seen.add(outcome.location)
            current = outcome.location
        last = await hop(current)
        if not isinstance(last, Redirect):
            return last
        return Skipped(last.status, f"redirect to {last.location} not followed", last.location)

    async def _hop(
        self, url: str, policy: FetchPolicy, on_send: OnSend | None, spent: _Spent
    ) -> Snapshot | Skipped | Limited | Redirect:
        target = await _checked(url, policy, spent)
        if isinstance(target, Skipped):
            return target
        limiter = self.limiters.limiter_for(target.host)
        if policy.robots:
            refusal = await self._robots_refusal(target, policy, limiter)
            if refusal is not None:
                return refusal
        left = policy.deadline - spent.seconds
        # the transport is taken before the limiter admits the request, so that its one-off
        # costs (imports, TLS roots) fall before the start is stamped, not after it
        pools = await self._pools_here()
        async with pools.transport(target, policy.tls) as transport:

            async def send() -> Snapshot | Skipped | Redirect:
                started = asyncio.get_running_loop().time()
                try:
                    return await exchange(target, policy, limiter, transport, left)
                finally:
                    spent.seconds += asyncio.get_running_loop().time() - started

            try:
                return await limiter.run(send, _guarded(on_send))
            except LimiterRefused as refusal:
                blocked = refusal.reason == "blocked"
                return Limited(refusal.reason, limiter.blocked_ms() / 1000 if blocked else None)

    async def _robots_refusal(
        self, target: Target, policy: FetchPolicy, limiter: SourceLimiter
    ) -> Skipped | Limited | None:
        """Why robots.txt forbids ``target`` now (Disallow, or unreachable), or None."""
        rules = await self._rules(target, policy)
        if isinstance(rules, Limited):
            return rules
        agent = policy.identity.name
        delay = rules.crawl_delay(agent)
        if delay:
            limiter.slow_to(delay)
        why = rules.verdict(str(target.url), agent)
        return Skipped(None, why) if why else None

    async def _rules(self, target: Target, policy: FetchPolicy) -> RobotsRules | Limited:
        """The rules of ``target``'s origin, its robots.txt fetched under ``robots_policy``
        when the cache has none."""
        return await self.robots.rules_for(
            target.url, lambda u: self.fetch(u, robots_policy(policy))
        )


def robots_policy(policy: FetchPolicy) -> FetchPolicy:
    """How a robots.txt is fetched for ``policy``: within its deadline (at most
    ``ROBOTS_DEADLINE``), its error pages kept (a 404 means no rules), its body capped, and
    none of the headers the caller gave for its pages (credentials are for the page)."""
    return policy.with_(
        headers=(),
        robots=False,
        error_pages=True,
        max_redirects=ROBOTS_REDIRECTS,
        max_body_bytes=ROBOTS_MAX_BYTES,
        truncate=True,
        accept="text/plain",
        deadline=min(policy.deadline, ROBOTS_DEADLINE),
    )


async def fetch(url: str, policy: FetchPolicy, *, on_send: OnSend | None = None) -> FetchOutcome:
    """``url`` fetched by a fetcher of its own (fresh limiters and robots.txt cache): for a
    one-off fetch; code that fetches more holds a ``Fetcher``."""
    async with Fetcher() as fetcher:
        return await fetcher.fetch(url, policy, on_send=on_send)


def fetch_sync(url: str, policy: FetchPolicy, *, on_send: OnSend | None = None) -> FetchOutcome:
    """``fetch`` for synchronous code (also inside a running event loop)."""
    return Fetcher().fetch_sync(url, policy, on_send=on_send)


_Closer = AsyncGenerator[None, None]


async def _closing(pools: HostPools) -> _Closer:
    """Suspended until its loop shuts down its async generators (``asyncio.run`` does), then
    closes ``pools``: the connections never outlive their loop."""
    try:
        yield
    finally:
        await pools.aclose()


@dataclass
class _Spent:
    """Seconds spent looking up names, sending and reading so far, over all hops of one fetch."""

    seconds: float = 0.0


async def _checked(url: str, policy: FetchPolicy, spent: _Spent) -> Target | Skipped:
    """``url``'s checked address, looked up within what is left of the deadline."""
    left = policy.deadline - spent.seconds
    if left <= 0:
        return Skipped(None, deadline_passed(policy))
    started = asyncio.get_running_loop().time()
    try:
        return await policy.check(url, left)
    except AddressRefused as refusal:
        return Skipped(None, str(refusal))
    finally:
        spent.seconds += asyncio.get_running_loop().time() - started


def _guarded(on_send: OnSend | None) -> OnSend | None:
    """``on_send`` with any exception it raises read as the caller refusing."""
    if on_send is None:
        return None

    async def guarded() -> None:
        try:
            result = on_send()
            if inspect.isawaitable(result):
                await result
        except LimiterRefused:
            raise
        except Exception as error:
            raise LimiterRefused("caller") from error

    return guarded
