"""A crawl (robots.txt always holds in one, whatever the policy says) leaves out the links on
a page's own origin that the file disallows before it queues them: never fetched, never a
failure, never one of the ``limit`` pages, but counted (``disallowed``) and listed
(``crawl_disallowed``), in one process and in worker processes alike; robots.txt is asked
for once per host. A link to another origin is checked by its fetch."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from citesift.net import Fetcher, LimiterRegistry, ManualClock, RobotsCache, SourceLimiter
from citesift.net.robots import ROBOTS_TTL
from citesift.scrape.crawl import crawl, crawl_disallowed, crawl_failures, crawl_results
from citesift.scrape.origin_rules import OriginRules
from citesift.store import open_store
from local_site import page, serve_page
from servers import MisbehavingServer, loopback_fetcher, loopback_policy, serve

pytestmark = pytest.mark.timeout(120)
BARRED = [f"/private/{n}" for n in range(10)]
OPEN = ["/a", "/b", "/c"]


def barred_site(server: MisbehavingServer) -> None:
    """A home page whose first ten links robots.txt disallows, then three it allows."""
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    serve_page(server, "/", page("Home", [*BARRED, *OPEN]))
    for path in [*BARRED, *OPEN]:
        serve_page(server, path, page(path, ["/", "/private/9"]))


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_disallowed_links_take_none_of_the_limit_and_are_never_fetched_nor_failed(
    server: MisbehavingServer, tmp_path: Path, workers: int
) -> None:
    barred_site(server)
    with open_store(tmp_path / "crawl.db") as store:
        fetcher = loopback_fetcher() if workers == 1 else None
        ended = crawl(server.url("/"), limit=4, policy=loopback_policy(), store=store,
                      fetcher=fetcher, workers=workers)  # fmt: skip
        read = sorted(record["url"] for record in crawl_results(store, ended.crawl))
        left_out = list(crawl_disallowed(store, ended.crawl))
        failed = list(crawl_failures(store, ended.crawl))
    assert read == sorted(server.url(path) for path in ["/", *OPEN])  # the limit's four pages
    assert (ended.done, ended.failed, ended.queued, ended.disallowed) == (4, 0, 0, 10)
    assert left_out == [server.url(path) for path in BARRED] and failed == []
    assert all(server.hits(path) == 0 for path in BARRED)
    assert 1 <= server.hits("/robots.txt") <= workers  # once per host in each fetcher


def test_a_redirect_to_a_disallowed_page_is_not_followed_nor_a_failure(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    serve_page(server, "/", page("Home", ["/moved", "/a"]))
    server.route("/moved", lambda r, q: r.answer(302, b"", {"Location": "/private/x"}))
    serve_page(server, "/a", page("A", []))
    with open_store(tmp_path / "crawl.db") as store:
        ended = crawl(server.url("/"), policy=loopback_policy(max_redirects=3), store=store,
                      fetcher=loopback_fetcher())  # fmt: skip
        left_out = list(crawl_disallowed(store, ended.crawl))
    assert (ended.done, ended.failed, ended.disallowed) == (2, 0, 1)
    assert left_out == [server.url("/private/x")] and server.hits("/private/x") == 0


def test_a_link_to_another_origin_is_checked_by_its_fetch_not_before_it_is_queued(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """The page is finished without the other origin's robots.txt; the fetch of the link
    then reads it and refuses the link, a failure as for any fetch robots.txt refuses."""
    with serve() as other:
        other.robots = (200, "User-agent: *\nDisallow: /x\n")
        server.robots = (200, "User-agent: *\nDisallow: /private\n")
        serve_page(server, "/", page("Home", ["/private/1", other.url("/x")]))
        with open_store(tmp_path / "crawl.db") as store:
            ended = crawl(server.url("/"), policy=loopback_policy(), store=store,
                          fetcher=loopback_fetcher(), allow_external=True)  # fmt: skip
            left_out = list(crawl_disallowed(store, ended.crawl))
            failed = list(crawl_failures(store, ended.crawl))
        assert other.hits("/x") == 0 and other.hits("/robots.txt") == 1
    assert (ended.done, ended.failed, ended.disallowed) == (1, 1, 1)
    assert left_out == [server.url("/private/1")]
    assert failed[0]["url"] == other.url("/x") and "robots.txt" in str(failed[0])


def test_a_hostile_robots_txt_cannot_hold_a_crawl_page(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """Checks stop after the run's checking time (the policy's 2 s deadline here): the rest
    of the page's links (every one of which the file disallows) are queued unchecked, for
    their fetch to check."""
    rules = "".join(f"Disallow: /*a*b*c*d*e*f*{n}$\n" for n in range(5_000))
    server.robots = (200, f"User-agent: *\n{rules}")
    serve_page(server, "/", page("Home", [f"/a/b/c/d/e/f/page{n}" for n in range(3_000)]))
    with open_store(tmp_path / "crawl.db") as store:
        began = time.perf_counter()
        ended = crawl(server.url("/"), limit=1, policy=loopback_policy(deadline=2), store=store,
                      fetcher=loopback_fetcher())  # fmt: skip
        took = time.perf_counter() - began
    assert ended.done == 1 and ended.disallowed + ended.queued == 2_000  # the links read
    assert 0 < ended.disallowed < 2_000 and took < 8


def test_an_origins_rules_are_asked_for_again_after_a_day(server: MisbehavingServer) -> None:
    """As the fetcher's cache keeps a file: a long run sees a robots.txt that changed."""
    clock = ManualClock()
    policy = loopback_policy(robots=True)
    fetcher = Fetcher(LimiterRegistry(lambda: SourceLimiter(spacing=0)), RobotsCache(clock=clock))
    rules = OriginRules(fetcher, policy, clock)
    server.robots = (200, "User-agent: *\nDisallow: /a\n")

    async def scenario() -> list[bool | None]:
        seen = [await rules.forbids(server.url("/a"))]
        server.robots = (200, "User-agent: *\nDisallow: /b\n")
        clock.advance(ROBOTS_TTL * 1000 - 1)
        seen.append(await rules.forbids(server.url("/a")))
        clock.advance(2)
        seen.append(await rules.forbids(server.url("/a")))
        return seen

    assert asyncio.run(scenario()) == [True, True, False]
    assert server.hits("/robots.txt") == 2
