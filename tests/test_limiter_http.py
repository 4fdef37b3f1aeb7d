"""The limiter with real requests to a local server: spacing, waiting, and Retry-After blocks."""

from __future__ import annotations

import asyncio
import itertools
import time
from email.utils import formatdate

import pytest

from citesift.model import Limited, Skipped, Snapshot
from citesift.net import Fetcher, LimiterRegistry, SourceLimiter, fetch_sync
from servers import MisbehavingServer, loopback_policy

pytestmark = pytest.mark.timeout(30)


def spaced(**settings: float) -> LimiterRegistry:
    return LimiterRegistry(lambda: SourceLimiter(**settings))  # type: ignore[arg-type]


async def together(urls: list[str], limiters: LimiterRegistry) -> list[object]:
    chosen = loopback_policy()
    async with Fetcher(limiters) as fetcher:
        return list(await asyncio.gather(*(fetcher.fetch(url, chosen) for url in urls)))


def test_concurrent_fetches_reach_the_server_at_least_250_ms_apart(
    server: MisbehavingServer,
) -> None:
    fetch_sync(server.url("/warm-up"), loopback_policy())  # one-off costs of a first connect
    outcomes = asyncio.run(together([server.url("/ok")] * 3, limiters=spaced()))
    assert all(isinstance(outcome, Snapshot) for outcome in outcomes)
    arrivals = [seen.at for seen in server.seen[1:]]
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    assert len(arrivals) == 3
    assert min(gaps) >= 0.2  # sends are 250 ms apart; arrivals jitter by a few ms either way


def test_a_fourth_request_while_three_are_held_answers_limited_unsent(
    server: MisbehavingServer,
) -> None:
    urls = [server.url("/slow?delay=1.5")] * 4
    outcomes = asyncio.run(together(urls, limiters=spaced(spacing=0, wait=0.3)))
    assert outcomes.count(Limited("wait")) == 1
    assert sum(isinstance(outcome, Snapshot) for outcome in outcomes) == 3
    assert server.hits("/slow") == 3


@pytest.mark.parametrize(
    ("code", "retry_after", "blocked_s"),
    [(429, "7", 7), (429, "date+30", 30), (503, None, 5)],
)
def test_429_and_503_block_the_host_for_its_retry_after(
    server: MisbehavingServer, code: int, retry_after: str | None, blocked_s: float
) -> None:
    if retry_after == "date+30":
        retry_after = formatdate(time.time() + 30, usegmt=True).replace(" ", "%20")
    query = f"code={code}" + (f"&retry-after={retry_after}" if retry_after else "")
    limiters = spaced(spacing=0)
    chosen, fetcher = loopback_policy(), Fetcher(limiters)
    first = fetcher.fetch_sync(server.url(f"/status?{query}"), chosen)
    assert isinstance(first, Skipped) and first.status == code
    assert fetcher.fetch_sync(server.url("/ok"), chosen) == Limited("blocked")
    assert len(server.seen) == 1
    limiter = limiters.limiter_for("127.0.0.1")
    left = (limiter.blocked_until - limiter.clock.now_ms()) / 1000
    assert blocked_s - 3 < left <= blocked_s  # an HTTP date drops the fraction of a second


def test_a_slow_on_send_keeps_real_requests_apart(server: MisbehavingServer) -> None:
    async def scenario() -> None:
        chosen = loopback_policy()
        async with Fetcher(spaced()) as fetcher:
            await asyncio.gather(
                fetcher.fetch(server.url("/ok"), chosen, on_send=lambda: asyncio.sleep(0.1)),
                fetcher.fetch(server.url("/ok"), chosen),
            )

    asyncio.run(scenario())
    first, second = (seen.at for seen in server.seen)
    assert second - first >= 0.2  # 250 ms apart when sent; arrivals jitter
