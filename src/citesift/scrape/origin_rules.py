"""The robots.txt rules of the origins a map or a crawl finds links on, asked of the fetcher
once per origin and again after ``ROBOTS_TTL`` (its cache holds the file its fetches read,
so nothing is fetched twice), to leave out the links the file disallows before they are
listed, queued or (a crawl's links queued unchecked) fetched. Checks are timed: a hostile
file can make each one slow."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from citesift.net import Clock, Fetches, FetchPolicy
from citesift.net.clock import SYSTEM_CLOCK
from citesift.net.robots import ROBOTS_TTL, RobotsRules
from citesift.scrape.urls import origin_key

WAIT_POLL = 1.0
"""Seconds before what the limiter refused for its spacing (a request, a robots.txt file) is
asked for again."""
ROBOTS_CHECK_SECONDS = 5.0
"""Seconds of checking found URLs against robots.txt an allowance holds at most (a map has
one for its run, a crawl one for each page's links; a policy's shorter deadline wins); URLs
found past it are not checked before they are listed or queued."""
YIELD_SECONDS = 0.05
"""Seconds of robots.txt checks between two yields to the event loop."""


@dataclass
class Allowance:
    """Seconds of robots.txt checks that may be spent (``seconds``) and were (``checked``;
    ``unyielded`` of them since the last turn given to the event loop)."""

    seconds: float
    checked: float = 0.0
    unyielded: float = 0.0

    @property
    def spent(self) -> bool:
        """Whether the allowance's ``seconds`` of checks are spent."""
        return self.checked >= self.seconds


class OriginRules:
    """The rules of each origin as ``fetcher`` holds them for ``policy``, kept for
    ``ROBOTS_TTL`` (as the fetcher's cache keeps a file); None meanwhile for an origin whose
    file the limiter refused, asked again no sooner than ``WAIT_POLL`` s later."""

    def __init__(self, fetcher: Fetches, policy: FetchPolicy, clock: Clock = SYSTEM_CLOCK) -> None:
        self.fetcher = fetcher
        self.policy = policy
        self.clock = clock
        self.agent = policy.identity.name
        self.check_seconds = min(ROBOTS_CHECK_SECONDS, policy.deadline)
        self._rules: dict[str, tuple[RobotsRules, float]] = {}  # origin -> rules, when asked
        self._unknown: dict[str, float] = {}  # origin -> loop time to ask again

    def allowance(self) -> Allowance:
        """A fresh allowance of ``check_seconds`` of checks."""
        return Allowance(self.check_seconds)

    async def rules(self, url: str, ask: bool = True) -> RobotsRules | None:
        """The rules of ``url``'s origin, or None when they cannot be had just now (or
        ``url`` is no http(s) URL, or they are not yet held and not to be ``ask``ed for)."""
        origin = origin_key(url)
        if origin is None:
            return None
        found = self._rules.get(origin)
        asked = self.clock.now_ms()
        if found is not None and asked - found[1] < ROBOTS_TTL * 1000:
            return found[0]
        now = asyncio.get_running_loop().time()
        if not ask or self._unknown.get(origin, now) > now:
            return None
        rules = await self.fetcher.robots_rules(url, self.policy)
        if rules is None:
            self._unknown[origin] = asyncio.get_running_loop().time() + WAIT_POLL
        else:
            self._rules[origin] = (rules, asked)
        return rules

    async def forbids(self, url: str, allowance: Allowance, ask: bool = True) -> bool | None:
        """Whether the file of ``url``'s origin disallows it to the policy's agent, or None
        when it is not checked: the file cannot be had just now (a fetch of the URL then
        says why) or is not yet held and not to be ``ask``ed for, or ``allowance`` is spent
        (by the time matching took, not the time waiting for the rules)."""
        if allowance.spent:
            return None
        return await self.matched(await self.rules(url, ask), url, allowance)

    async def matched(
        self, rules: RobotsRules | None, url: str, allowance: Allowance
    ) -> bool | None:
        """Whether ``rules`` (of ``url``'s origin, as ``rules`` gave them) disallow ``url`` to
        the policy's agent, or None when there are none or ``allowance`` is spent; the time
        matching takes is spent from it, and the loop given a turn every ``YIELD_SECONDS``
        of it."""
        if rules is None or allowance.spent:
            return None
        began = time.perf_counter()
        forbidden = rules.forbids(url, self.agent)
        spent = time.perf_counter() - began
        allowance.checked += spent
        allowance.unyielded += spent
        if allowance.unyielded >= YIELD_SECONDS:
            allowance.unyielded = 0.0
            await asyncio.sleep(0)
        return forbidden
