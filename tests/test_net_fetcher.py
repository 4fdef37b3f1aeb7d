"""The ``Fetcher``: state of its own (pooled connections per host, limiters, robots.txt),
sync calls that work inside a running loop, and compressed bodies read whole or refused."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from citesift.errors import InvalidArgument
from citesift.model import Limited, Skipped, Snapshot
from citesift.net import Fetcher, fetch_sync, run_sync
from citesift.net.limiter import LimiterRegistry, SourceLimiter
from servers import ARTICLE, MisbehavingServer, loopback_fetcher, loopback_policy, serve

pytestmark = pytest.mark.timeout(30)
LAST = b"The last paragraph ends the article."


def test_fetches_to_one_host_reuse_one_connection(server: MisbehavingServer) -> None:
    async def scenario() -> list[object]:
        async with loopback_fetcher() as fetcher:
            return [
                await fetcher.fetch(server.url(f"/ok?n={n}"), loopback_policy()) for n in (1, 2)
            ]

    assert all(isinstance(outcome, Snapshot) for outcome in asyncio.run(scenario()))
    assert len({seen.port for seen in server.seen}) == 1


def test_two_host_names_on_one_address_never_share_a_connection(server: MisbehavingServer) -> None:
    chosen = loopback_policy(resolver=lambda host: ["127.0.0.1"])

    async def scenario() -> None:
        async with loopback_fetcher() as fetcher:
            for host in ("one.test", "two.test", "one.test"):
                await fetcher.fetch(f"http://{host}:{server.port}/ok", chosen)

    asyncio.run(scenario())
    ports = {seen.headers["Host"].split(":")[0]: seen.port for seen in server.seen}
    assert len(server.seen) == 3 and ports["one.test"] != ports["two.test"]
    assert server.seen[0].port == server.seen[2].port  # back to one.test's own connection


def test_a_fetcher_keeps_its_hosts_state_and_another_fetcher_does_not_see_it(
    server: MisbehavingServer,
) -> None:
    blocked, fresh = loopback_fetcher(), loopback_fetcher()
    first = blocked.fetch_sync(server.url("/status?code=429&retry-after=60"), loopback_policy())
    assert isinstance(first, Skipped) and first.status == 429
    limited = blocked.fetch_sync(server.url("/ok"), loopback_policy())
    assert isinstance(limited, Limited) and limited.reason == "blocked"
    assert limited.retry_in is not None and 55 < limited.retry_in <= 60
    assert 55 < blocked.blocked_seconds(server.url("/ok")) <= 60
    assert isinstance(fresh.fetch_sync(server.url("/ok"), loopback_policy()), Snapshot)
    assert fresh.blocked_seconds(server.url("/ok")) == 0


def test_a_fetcher_says_how_long_until_its_own_limits_let_a_host_be_asked(
    server: MisbehavingServer,
) -> None:
    spaced = Fetcher(LimiterRegistry(lambda: SourceLimiter(spacing=8, wait=0)))
    assert spaced.ready_seconds(server.url("/ok")) == 0
    assert isinstance(spaced.fetch_sync(server.url("/ok"), loopback_policy()), Snapshot)
    refused = spaced.fetch_sync(server.url("/ok"), loopback_policy())
    assert isinstance(refused, Limited) and refused.reason == "wait" and refused.retry_in is None
    assert 7 < spaced.ready_seconds(server.url("/ok")) <= 8  # what is left of the spacing
    counted = Fetcher(LimiterRegistry(lambda: SourceLimiter(spacing=0, per_minute=1)))
    assert isinstance(counted.fetch_sync(server.url("/ok"), loopback_policy()), Snapshot)
    refused = counted.fetch_sync(server.url("/ok"), loopback_policy())
    assert isinstance(refused, Limited) and refused.reason == "minute"
    assert 55 < counted.ready_seconds(server.url("/ok")) <= 60  # what is left of the minute
    blocked = loopback_fetcher()
    blocked.fetch_sync(server.url("/status?code=429&retry-after=120"), loopback_policy())
    assert 115 < blocked.ready_seconds(server.url("/ok")) <= 120  # the host's own time


def test_sync_calls_work_inside_a_running_event_loop(server: MisbehavingServer) -> None:
    async def notebook_cell() -> tuple[object, object, int]:
        fetcher = loopback_fetcher()
        held = fetcher.fetch_sync(server.url("/ok"), loopback_policy())
        one_off = fetch_sync(server.url("/ok"), loopback_policy())
        return held, one_off, run_sync(asyncio.sleep(0, result=7))

    held, one_off, seven = asyncio.run(notebook_cell())
    assert isinstance(held, Snapshot) and isinstance(one_off, Snapshot) and seven == 7


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd"])
def test_a_compressed_body_cut_short_is_a_failure_not_a_shorter_page(
    server: MisbehavingServer, encoding: str
) -> None:
    whole = fetch_sync(server.url(f"/compressed?encoding={encoding}"), loopback_policy())
    assert isinstance(whole, Snapshot) and whole.body == ARTICLE.encode("ascii")
    for keep in ("0.5", "0.99"):
        cut = fetch_sync(
            server.url(f"/compressed?encoding={encoding}&keep={keep}"), loopback_policy()
        )
        assert isinstance(cut, Skipped), (keep, cut)
        assert cut.status == 200 and "could not be decompressed" in cut.reason


def test_a_gzip_body_of_several_members_is_read_whole(server: MisbehavingServer) -> None:
    outcome = fetch_sync(server.url("/compressed?encoding=gzip&members=3"), loopback_policy())
    assert isinstance(outcome, Snapshot)
    assert outcome.body == ARTICLE.encode("ascii") and outcome.body.endswith(b"</html>")
    assert LAST in outcome.body


def test_a_closed_fetcher_opens_fresh_connections_on_its_next_use() -> None:
    with serve() as server:

        async def scenario() -> None:
            fetcher = loopback_fetcher()
            await fetcher.fetch(server.url("/ok"), loopback_policy())
            await fetcher.aclose()
            await fetcher.fetch(server.url("/ok"), loopback_policy())
            await fetcher.aclose()

        asyncio.run(scenario())
    assert len({seen.port for seen in server.seen}) == 2


def test_a_fetcher_is_not_shared_by_default_between_fetches_of_the_convenience(
    server: MisbehavingServer,
) -> None:
    fetch_sync(server.url("/status?code=503"), loopback_policy())
    assert isinstance(fetch_sync(server.url("/ok"), loopback_policy()), Snapshot)


def test_connections_kept_for_a_loop_are_closed_when_asyncio_run_ends_it(
    server: MisbehavingServer,
) -> None:
    fetcher = loopback_fetcher()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            assert isinstance(
                asyncio.run(fetcher.fetch(server.url("/ok"), loopback_policy())), Snapshot
            )
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
    assert len({seen.port for seen in server.seen}) == 2  # each loop had connections of its own


def test_past_max_hosts_the_least_recently_used_hosts_connections_are_closed(
    server: MisbehavingServer,
) -> None:
    chosen = loopback_policy(resolver=lambda host: ["127.0.0.1"])

    async def scenario() -> None:
        async with Fetcher(max_hosts=1) as fetcher:
            for host in ("one.test", "two.test", "one.test"):
                await fetcher.fetch(f"http://{host}:{server.port}/ok", chosen)

    asyncio.run(scenario())
    assert len({seen.port for seen in server.seen}) == 3  # one.test's first connection was closed


def test_many_hosts_ending_at_once_past_max_hosts_each_close_once(
    server: MisbehavingServer,
) -> None:
    """Requests to more hosts than are kept, ending together: each idle host's connections
    are closed by one of them, and none fails for another having closed them first."""
    chosen = loopback_policy(resolver=lambda host: ["127.0.0.1"])

    async def scenario() -> list[object]:
        answers: list[object] = []
        async with Fetcher(max_hosts=4) as fetcher:
            for round in range(3):
                calls = [
                    fetcher.fetch(f"http://h{round}-{n}.test:{server.port}/ok", chosen)
                    for n in range(10)
                ]
                answers += await asyncio.gather(*calls, return_exceptions=True)
        return answers

    answers = asyncio.run(scenario())
    assert [type(answer).__name__ for answer in answers] == ["Snapshot"] * 30


def test_an_absurd_host_bound_is_refused() -> None:
    with pytest.raises(InvalidArgument, match=r"^max_hosts must be"):
        Fetcher(max_hosts=0)
