"""The robots.txt rules of the origins a map or a crawl finds links on, asked of the fetcher
once per origin and again after ``ROBOTS_TTL`` (its cache holds the file its fetches read,
so nothing is fetched twice), to leave out the links the file disallows before they are
listed or queued. Checks are timed: a hostile file can make each one slow."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit

from citesift.net import Clock, Fetches, FetchPolicy
from citesift.net.clock import SYSTEM_CLOCK
from citesift.net.robots import ROBOTS_TTL, RobotsRules

WAIT_POLL = 1.0
"""Seconds before what the limiter refused for its spacing (a request, a robots.txt file) is
asked for again."""
ROBOTS_CHECK_SECONDS = 5.0
"""Seconds a run (a map, a crawl) spends checking found URLs against robots.txt at most (a
policy's shorter deadline wins); URLs found later are not checked before they are listed or
queued."""
YIELD_SECONDS = 0.05
"""Seconds of robots.txt checks between two yields to the event loop."""


def origin_of(url: str) -> str:
    """The scheme and authority of ``url``: what one robots.txt file covers."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class OriginRules:
    """The rules of each origin as ``fetcher`` holds them for ``policy``, kept for
    ``ROBOTS_TTL`` (as the fetcher's cache keeps a file); None meanwhile for an origin whose
    file the limiter refused, asked again no sooner than ``WAIT_POLL`` s later."""

    def __init__(self, fetcher: Fetches, policy: FetchPolicy, clock: Clock = SYSTEM_CLOCK) -> None:
        self.fetcher = fetcher
        self.policy = policy
        self.clock = clock
        self.check_seconds = min(ROBOTS_CHECK_SECONDS, policy.deadline)
        self.checked = 0.0  # seconds spent checking
        self.unyielded = 0.0  # of which since the last yield to the loop
        self._rules: dict[str, tuple[RobotsRules, float]] = {}  # origin -> rules, when asked
        self._unknown: dict[str, float] = {}  # origin -> loop time its rules may be asked again

    @property
    def spent(self) -> bool:
        """Whether the run's ``check_seconds`` of checks are spent."""
        return self.checked >= self.check_seconds

    async def rules(self, url: str) -> RobotsRules | None:
        """The rules of ``url``'s origin, or None when they cannot be had just now."""
        origin = origin_of(url)
        found = self._rules.get(origin)
        asked = self.clock.now_ms()
        if found is not None and asked - found[1] < ROBOTS_TTL * 1000:
            return found[0]
        now = asyncio.get_running_loop().time()
        if self._unknown.get(origin, now) > now:
            return None
        rules = await self.fetcher.robots_rules(url, self.policy)
        if rules is None:
            self._unknown[origin] = asyncio.get_running_loop().time() + WAIT_POLL
        else:
            self._rules[origin] = (rules, asked)
        return rules

    async def forbids(self, url: str) -> bool | None:
        """Whether the file of ``url``'s origin disallows it to the policy's agent, or None
        when it is not checked: the file cannot be had just now (a fetch of the URL then
        says why), or ``check_seconds`` of checks, asking for the rules included, are spent.
        The loop is given a turn every ``YIELD_SECONDS`` of them."""
        if self.spent:
            return None
        asked = time.perf_counter()
        rules = await self.rules(url)
        began = time.perf_counter()
        self.checked += began - asked
        if rules is None:
            return None
        forbidden = rules.forbids(url, self.policy.identity.name)
        spent = time.perf_counter() - began
        self.checked += spent
        self.unyielded += spent
        if self.unyielded >= YIELD_SECONDS:
            self.unyielded = 0.0
            await asyncio.sleep(0)
        return forbidden
