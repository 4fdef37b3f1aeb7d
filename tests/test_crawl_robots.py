"""A crawl (robots.txt always holds in one, whatever the policy says) leaves out the links the
file disallows: never fetched, never a failure, never one of the ``limit`` pages, but counted
(``disallowed``) and listed (``crawl_disallowed``), in one process and in worker processes
alike; robots.txt is asked for once per host. A link on a page's own origin is checked
before it is queued, one to another origin not yet asked when it is claimed."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from citesift.net import Fetcher, LimiterRegistry, ManualClock, RobotsCache, SourceLimiter
from citesift.net.robots import ROBOTS_TTL
from citesift.scrape.crawl import crawl, crawl_disallowed, crawl_failures, crawl_results
from citesift.scrape.origin_rules import OriginRules
from citesift.scrape.urls import origin_key
from citesift.store import open_store
from local_site import page, serve_page
from servers import (
    ROUTES,
    MisbehavingServer,
    Query,
    Request,
    loopback_fetcher,
    loopback_policy,
    serve,
)

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


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_link_to_another_origin_its_robots_txt_disallows_is_left_out_not_failed(
    server: MisbehavingServer, tmp_path: Path, workers: int
) -> None:
    """The page is finished without the other origin's robots.txt; the claim of a link
    there reads it (once) and leaves the link out, its place in the limit given back, so
    the limit's three pages are read; a later link there is left out before it is queued."""
    with serve() as other:
        other.robots = (200, "User-agent: *\nDisallow: /x\n")
        server.robots = (200, "User-agent: *\nDisallow: /private\n")
        barred = [other.url("/x1"), other.url("/x2")]
        serve_page(server, "/", page("Home", ["/private/1", *barred, other.url("/ok"), "/a"]))
        serve_page(other, "/ok", page("Ok", ["/x3"]))
        serve_page(server, "/a", page("A", []))
        with open_store(tmp_path / "crawl.db") as store:
            fetcher = loopback_fetcher() if workers == 1 else None
            ended = crawl(server.url("/"), limit=3, policy=loopback_policy(), store=store,
                          fetcher=fetcher, allow_external=True, workers=workers)  # fmt: skip
            read = sorted(record["url"] for record in crawl_results(store, ended.crawl))
            left_out = sorted(crawl_disallowed(store, ended.crawl))
            failed = list(crawl_failures(store, ended.crawl))
        assert all(other.hits(path) == 0 for path in ("/x1", "/x2", "/x3"))
        assert 1 <= other.hits("/robots.txt") <= workers  # once per host in each fetcher
    assert read == sorted([server.url("/"), server.url("/a"), other.url("/ok")])
    assert (ended.done, ended.failed, ended.queued, ended.disallowed) == (3, 0, 0, 4)
    assert left_out == sorted([server.url("/private/1"), *barred, other.url("/x3")])
    assert failed == []


def test_a_hostile_robots_txt_cannot_hold_a_crawl_page(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """Checks stop after the page's checking time (the policy's 2 s deadline here): the rest
    of the page's links (every one of which the file disallows) are queued unchecked, for
    their claim to check."""
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
        seen = [await rules.forbids(server.url("/a"), rules.allowance())]
        server.robots = (200, "User-agent: *\nDisallow: /b\n")
        clock.advance(ROBOTS_TTL * 1000 - 1)
        seen.append(await rules.forbids(server.url("/a"), rules.allowance()))
        clock.advance(2)
        seen.append(await rules.forbids(server.url("/a"), rules.allowance()))
        return seen

    assert asyncio.run(scenario()) == [True, True, False]
    assert server.hits("/robots.txt") == 2


def test_each_crawl_page_has_its_own_time_to_check_its_links(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """The first page spends its whole checking time on a hostile file; the next page's
    links are still checked (else they were queued, and failed when fetched)."""
    rules = "".join(f"Disallow: /*a*b*c*d*e*f*{n}$\n" for n in range(5_000))
    server.robots = (200, f"User-agent: *\n{rules}")
    first = [f"/a/b/c/d/e/f/page{n}" for n in range(3_000)]
    serve_page(server, "/", page("Home", ["/next", *first]))
    serve_page(server, "/next", page("Next", [f"/a/b/c/d/e/f/next{n}" for n in range(3_000)]))
    with open_store(tmp_path / "crawl.db") as store:
        ended = crawl(server.url("/"), limit=2, policy=loopback_policy(deadline=2), store=store,
                      fetcher=loopback_fetcher())  # fmt: skip
        left_out = list(crawl_disallowed(store, ended.crawl))
    assert ended.done == 2 and ended.failed == 0 and server.hits("/next") == 1
    assert any("/next" in url for url in left_out)  # the next page's links were checked
    assert any("/page" in url for url in left_out)


def test_time_waiting_for_an_origins_rules_is_not_checking_time(
    server: MisbehavingServer,
) -> None:
    """Two origins whose robots.txt each takes 1.2 s: 2.4 s of waiting, within a 2 s
    allowance, which only matching spends."""

    def slow_robots(request: Request, query: Query) -> None:
        time.sleep(1.2)
        ROUTES["/robots.txt"](request, query)

    policy = loopback_policy(robots=True, deadline=2)
    with serve() as other:
        for each in (server, other):
            each.robots = (200, "User-agent: *\nDisallow: /a\n")
            each.route("/robots.txt", slow_robots)
        rules = OriginRules(loopback_fetcher(), policy)
        allowance = rules.allowance()

        async def scenario() -> list[bool | None]:
            urls = [server.url("/a"), other.url("/a"), server.url("/a/1"), other.url("/b")]
            return [await rules.forbids(url, allowance) for url in urls]

        assert asyncio.run(scenario()) == [True, True, True, False]
    assert allowance.checked < 1


def test_an_origins_rules_serve_every_spelling_of_its_urls(server: MisbehavingServer) -> None:
    """User info and capitals do not make another origin: its rules, kept a day, hold."""
    policy = loopback_policy(robots=True)
    fetcher_clock = ManualClock()
    fetcher = Fetcher(
        LimiterRegistry(lambda: SourceLimiter(spacing=0)), RobotsCache(clock=fetcher_clock)
    )
    rules = OriginRules(fetcher, policy, ManualClock())
    server.robots = (200, "User-agent: *\nDisallow: /a\n")
    spelled = server.url("/a").replace("http://", "HTTP://visitor@")

    async def scenario() -> list[bool | None]:
        seen = [await rules.forbids(server.url("/a"), rules.allowance())]
        server.robots = (200, "User-agent: *\nDisallow: /b\n")
        fetcher_clock.advance(ROBOTS_TTL * 1000 + 1)  # the fetcher would read the file again
        seen.append(await rules.forbids(spelled, rules.allowance()))
        return seen

    assert asyncio.run(scenario()) == [True, True]
    assert server.hits("/robots.txt") == 1


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("http://site.test/a", "http://site.test"),
        ("HTTP://visitor:secret@Site.TEST:80/b?c#d", "http://site.test"),
        ("https://site.test:443/", "https://site.test"),
        ("https://site.test:8443/a", "https://site.test:8443"),
        ("http://[::1]:8080/a", "http://[::1]:8080"),
        ("mailto:someone@site.test", None),
        ("http:///a", None),
        ("http://site.test:99999/", None),
    ],
)
def test_each_spelling_of_an_origin_gives_it_one_key(url: str, key: str | None) -> None:
    """What a crawl tells its links' origins by (one urlsplit a link): user info, capitals
    and a default port make no other origin; a port or scheme does."""
    assert origin_key(url) == key


def test_a_link_its_fetch_finds_disallowed_is_left_out_not_failed(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """The claim's check is a shortcut: robots.txt changes after a link was queued (its rules
    the run holds said yes), and the link's fetch, reading the file anew, refuses it: the link
    is left out all the same, its place in the limit given back, never a failure."""
    clock = ManualClock()  # the fetcher's robots.txt cache: a day passes when /a is served
    fetcher = Fetcher(LimiterRegistry(lambda: SourceLimiter(spacing=0)), RobotsCache(clock=clock))
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    serve_page(server, "/", page("Home", ["/a"]))
    serve_page(server, "/b", page("B", []))
    changed = page("A", ["/x", "/b"])

    def a_day_later(request: Request, query: Query) -> None:
        server.robots = (200, "User-agent: *\nDisallow: /x\n")
        clock.advance(ROBOTS_TTL * 1000 + 1)
        request.answer(200, changed, {"Content-Type": "text/html"})

    server.route("/a", a_day_later)
    with open_store(tmp_path / "crawl.db") as store:
        ended = crawl(server.url("/"), limit=3, policy=loopback_policy(), store=store,
                      fetcher=fetcher)  # fmt: skip
        left_out = list(crawl_disallowed(store, ended.crawl))
        failed = list(crawl_failures(store, ended.crawl))
    assert failed == [] and left_out == [server.url("/x")] and server.hits("/x") == 0
    assert (ended.done, ended.failed, ended.disallowed) == (3, 0, 1)  # "/", "/a", "/b"
    assert server.hits("/robots.txt") == 2
