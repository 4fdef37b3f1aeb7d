"""The robots.txt rules of the origins a map or a crawl finds links on, asked of the fetcher
once per origin (its cache holds the file its fetches read, so nothing is fetched twice),
to leave out the links the file disallows before they are listed or queued."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from citesift.net import Fetches, FetchPolicy
from citesift.net.robots import RobotsRules

WAIT_POLL = 1.0
"""Seconds before what the limiter refused for its spacing (a request, a robots.txt file) is
asked for again."""


class OriginRules:
    """The rules of each origin as ``fetcher`` holds them for ``policy``; None meanwhile for
    an origin whose file the limiter refused, asked again no sooner than ``WAIT_POLL`` s
    later."""

    def __init__(self, fetcher: Fetches, policy: FetchPolicy) -> None:
        self.fetcher = fetcher
        self.policy = policy
        self._rules: dict[str, RobotsRules] = {}
        self._unknown: dict[str, float] = {}  # origin -> loop time its rules may be asked again

    async def rules(self, url: str) -> RobotsRules | None:
        """The rules of ``url``'s origin, or None when they cannot be had just now."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        found = self._rules.get(origin)
        if found is not None:
            return found
        now = asyncio.get_running_loop().time()
        if self._unknown.get(origin, now) > now:
            return None
        rules = await self.fetcher.robots_rules(url, self.policy)
        if rules is None:
            self._unknown[origin] = asyncio.get_running_loop().time() + WAIT_POLL
        else:
            self._rules[origin] = rules
        return rules

    async def forbids(self, url: str) -> bool:
        """Whether the file of ``url``'s origin disallows it to the policy's agent (not:
        whether the file could not be had; a fetch of the URL then says so)."""
        rules = await self.rules(url)
        return rules is not None and rules.forbids(url, self.policy.identity.name)
