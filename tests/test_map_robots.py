"""A map's politeness against local servers: URLs robots.txt disallows left out and counted
(by the file the fetcher keeps, fetched once; only on the hosts the map reads, within a time
budget a hostile file cannot stretch), the sitemaps robots.txt names read wherever they are,
a Crawl-delay longer than the limiter waits, hosts answering 429 and limiter refusals."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.agent.tools import WebPages
from citesift.cli import app
from citesift.errors import InvalidArgument
from citesift.net import Fetcher, LimiterRegistry, SourceLimiter
from citesift.net.robots import RobotsCache
from citesift.scrape.map import SiteMap, SitemapBounds, amap_site, map_site
from citesift.sources.snapshots import fetching
from citesift.store import SQLiteStore
from citesift.store.snapshots import snapshots_in
from local_site import page, serve_bytes, serve_page, sitemap_index, urlset
from servers import MisbehavingServer, Query, Request, loopback_fetcher, loopback_policy, serve


def paths(found: tuple[str, ...], server: MisbehavingServer) -> list[str]:
    return [url.removeprefix(server.url("")) for url in found]


def by_name(name: str, server: MisbehavingServer, path: str) -> str:
    """``path`` on ``server`` named by the host ``name`` (``resolving`` answers it), so a
    fetcher takes it for another host with limiters and robots.txt of its own."""
    return server.url(path).replace("127.0.0.1", name, 1)


def resolving(host: str) -> Sequence[str]:
    """The loopback address for the names these tests use."""
    if host not in ("127.0.0.1", "cdn.test", "elsewhere.test"):
        raise OSError(f"no such host {host}")
    return ["127.0.0.1"]


def unchecked_note(found: SiteMap) -> str | None:
    """The problem saying how many URLs were listed unchecked against robots.txt."""
    return next((p for p in found.problems if "listed unchecked against robots.txt" in p), None)


def private_site(server: MisbehavingServer) -> None:
    """A site whose robots.txt disallows /private to every agent and /theirs to ours, and
    lists a sitemap; its sitemap and start page name pages of both kinds."""
    base = server.url("")
    server.robots = (
        200,
        "User-agent: citesift-test\nDisallow: /private\nDisallow: /theirs\n\n"
        f"User-agent: *\nDisallow: /private\n\nSitemap: {base}/pages.xml\n",
    )
    serve_bytes(
        server,
        "/pages.xml",
        urlset([f"{base}/a", f"{base}/private/x", f"{base}/theirs", f"{base}/private/y"]),
        "application/xml",
    )
    serve_page(server, "/", page("Home", ["/b", "/private/x", "/private/z"]))


def test_urls_robots_txt_disallows_to_our_agent_are_left_out_and_counted_once(
    server: MisbehavingServer,
) -> None:
    private_site(server)
    found = map_site(
        server.url("/"), policy=loopback_policy(robots=True), fetcher=loopback_fetcher()
    )
    assert paths(found.urls, server) == ["/", "/b", "/a"]
    assert found.disallowed == 4  # /private/x named twice, counted once
    assert found.disallowed_note() == (
        "4 URL(s) left out: robots.txt disallows them to this client"
    )
    assert server.hits("/robots.txt") == 1  # the fetcher's file, read for the sitemap lines too
    assert paths(found.sitemaps, server) == ["/pages.xml"]


def test_a_map_saved_to_a_store_is_replayed_as_it_was_saved_robots_txt_included(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    private_site(server)
    base = server.url("")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/c", f"{base}/private/w"]), "text/xml")
    policy = loopback_policy(robots=True)
    with SQLiteStore(tmp_path / "s.db") as store:
        saved = map_site(
            server.url("/"), policy=policy, fetcher=fetching(loopback_fetcher(), store, False)
        )
        assert paths(saved.urls, server) == ["/", "/b", "/a", "/c"] and saved.disallowed == 5
        assert server.hits("/robots.txt") == 1  # the fetcher's file, kept by the save
        sent = len(server.seen)
        replayed = map_site(
            server.url("/"), policy=policy, fetcher=fetching(Fetcher(), store, True)
        )
    assert replayed == saved and len(server.seen) == sent


def test_a_research_runs_maps_saved_to_its_store_ask_robots_txt_once(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """Each map of a research run saves through a fetcher of its own over the run's one
    fetcher: two maps of a site and a page read from it fetch its robots.txt once, and the
    file is kept for a replay."""
    private_site(server)
    policy = loopback_policy(robots=True)
    with SQLiteStore(tmp_path / "s.db") as store:
        pages = WebPages(policy, loopback_fetcher(), store=store, render="never")

        async def research() -> list[SiteMap]:
            maps = [await pages.map(server.url("/"), None) for _ in range(2)]
            await pages.fetcher.fetch(server.url("/a"), policy)
            return maps

        first, again = asyncio.run(research())
        kept = snapshots_in(store).latest(server.url("/robots.txt"))
    assert first == again and first.disallowed == 4
    assert server.hits("/robots.txt") == 1 and server.hits("/a") == 1
    assert kept is not None and b"Disallow: /private" in kept.body


def test_with_robots_txt_not_honoured_nothing_is_left_out_and_its_sitemaps_are_read(
    server: MisbehavingServer,
) -> None:
    private_site(server)
    found = map_site(server.url("/"), policy=loopback_policy(), fetcher=loopback_fetcher())
    assert paths(found.urls, server) == ["/", "/b", "/private/x", "/private/z", "/a",
                                         "/theirs", "/private/y"]  # fmt: skip
    assert found.disallowed == 0 and found.disallowed_note() is None
    assert server.hits("/robots.txt") == 1


def test_sitemaps_robots_txt_names_on_another_host_are_read_and_their_urls_kept_to_scope(
    server: MisbehavingServer,
) -> None:
    with serve() as other:
        base, there = server.url(""), other.url("")
        server.robots = (200, f"User-agent: *\nDisallow: /hidden\nSitemap: {there}/index.xml\n")
        other.robots = (200, "User-agent: *\nDisallow: /private\n")
        elsewhere = by_name("elsewhere.test", server, "/more.xml")
        serve_bytes(
            other, "/index.xml", sitemap_index([f"{there}/pages.xml", elsewhere]), "text/xml"
        )
        listed = [f"{base}/listed", f"{base}/hidden", f"{there}/p", f"{there}/private"]
        serve_bytes(other, "/pages.xml", urlset(listed), "text/xml")
        serve_bytes(server, "/more.xml", urlset([f"{base}/never"]), "text/xml")
        serve_page(server, "/", page("Home", []))
        policy = loopback_policy(robots=True, resolver=resolving)
        kept = map_site(server.url("/"), policy=policy, fetcher=loopback_fetcher())
        assert paths(kept.urls, server) == ["/", "/listed"] and kept.disallowed == 1
        assert kept.sitemaps == (f"{there}/index.xml", f"{there}/pages.xml")
        assert server.hits("/more.xml") == 0  # named by the index, on neither its host nor ours
        assert other.hits("/robots.txt") == 1  # checked by the fetcher before its sitemaps
        wide = map_site(
            server.url("/"), policy=policy, fetcher=loopback_fetcher(), allow_external=True
        )
        assert paths(wide.urls, server) == ["/", "/listed", f"{there}/p", f"{there}/private",
                                            "/never"]  # fmt: skip
        assert wide.disallowed == 1 and server.hits("/more.xml") == 1
        assert unchecked_note(wide) == (
            "2 URL(s) listed unchecked against robots.txt (2 on hosts whose pages the map does"
            " not read); a fetch of one still checks it"
        )
    assert {seen.path for seen in other.seen} == {"/robots.txt", "/index.xml", "/pages.xml"}


def test_urls_on_other_hosts_are_listed_unchecked_and_nothing_is_sent_there(
    server: MisbehavingServer,
) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /a\nDisallow: /x\n")
    cdn = [by_name("cdn.test", server, "/x"), by_name("cdn.test", server, "/y")]
    serve_page(server, "/", page("Home", ["/a", "/b", *cdn]))
    found = map_site(
        server.url("/"),
        policy=loopback_policy(robots=True, resolver=resolving),
        fetcher=loopback_fetcher(),
        allow_external=True,
    )
    assert paths(found.urls, server) == ["/", "/b", *cdn] and found.disallowed == 1
    assert server.hits("/robots.txt") == 1  # cdn.test's robots.txt (served here) not asked
    assert unchecked_note(found) is not None and unchecked_note(found).startswith("2 URL(s)")


def test_a_robots_txt_the_limiter_refuses_leaves_its_urls_counted_unchecked(
    server: MisbehavingServer,
) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /a\n")
    serve_page(server, "/", page("Home", ["/a", "/b"]))
    fetcher = Fetcher(  # robots.txt asked again at each use, two requests a minute
        LimiterRegistry(lambda: SourceLimiter(spacing=0, per_minute=2)), RobotsCache(ttl=0)
    )
    found = map_site(server.url("/"), policy=loopback_policy(robots=True), fetcher=fetcher)
    assert paths(found.urls, server) == ["/", "/a", "/b"] and found.disallowed == 0
    assert unchecked_note(found) == (
        "2 URL(s) listed unchecked against robots.txt (2 their robots.txt could not be had);"
        " a fetch of one still checks it"
    )
    assert f"{server.url('/sitemap.xml')}: the limiter refused (minute)" in found.problems


def test_a_hostile_robots_txt_cannot_hold_a_map_nor_the_event_loop(
    server: MisbehavingServer,
) -> None:
    base = server.url("")
    rules = "".join(f"Disallow: /*a*b*c*d*e*f*{n}$\n" for n in range(5_000))
    server.robots = (200, f"User-agent: *\n{rules}")
    named_again = [f"{base}/a/b/c/d/e/f/1"] * 500  # checked once: each check is slow
    listed = [*named_again, f"{base}/a/b/c/d/e/f/2", *(f"{base}/page/{n}" for n in range(4_000))]
    serve_bytes(server, "/sitemap.xml", urlset(listed), "text/xml")
    serve_page(server, "/", page("Home", []))
    policy = loopback_policy(robots=True, deadline=2)

    async def scenario() -> tuple[SiteMap, float, float]:
        fetcher = loopback_fetcher()
        await fetcher.robots_rules(server.url("/"), policy)  # parsed before the clock starts
        loop = asyncio.get_running_loop()
        gaps: list[float] = []

        async def tick() -> None:
            last = loop.time()
            while True:
                await asyncio.sleep(0.01)
                gaps.append(loop.time() - last)
                last = loop.time()

        ticking = asyncio.create_task(tick())
        began = loop.time()
        found = await amap_site(server.url("/"), policy=policy, fetcher=fetcher)
        took = loop.time() - began
        ticking.cancel()
        return found, took, max(gaps)

    found, took, longest_gap = asyncio.run(scenario())
    # Margins for a loaded machine: a map held by its checks takes about 10 s, and a loop
    # never given a turn is held for the whole 2 s allowance.
    assert took < 7 and longest_gap < 1.0
    assert found.disallowed == 2 and len(found.urls) == 4_001
    note = unchecked_note(found)
    assert note is not None and "past the 2 s the map checks for" in note


def test_a_sitemap_robots_txt_disallows_is_not_fetched(server: MisbehavingServer) -> None:
    base = server.url("")
    server.robots = (200, f"User-agent: *\nDisallow: /maps/\nSitemap: {base}/maps/one.xml\n")
    serve_bytes(server, "/sitemap.xml", sitemap_index([f"{base}/maps/two.xml"]), "text/xml")
    for name in ("one", "two"):
        serve_bytes(server, f"/maps/{name}.xml", urlset([f"{base}/{name}"]), "text/xml")
    serve_page(server, "/", page("Home", []))
    found = map_site(
        server.url("/"), policy=loopback_policy(robots=True), fetcher=loopback_fetcher()
    )
    assert found.urls == (server.url("/"),)
    assert server.hits("/maps/one.xml") == 0 and server.hits("/maps/two.xml") == 0
    assert sum("disallowed by robots.txt" in problem for problem in found.problems) == 2


def hurried_fetcher() -> Fetcher:
    """A fetcher whose unspaced limiters wait at most 0.2 s for a start: shorter than a
    Crawl-delay of 1 s (the shortest whole second robots.txt is read in), which the map
    must wait out."""
    return Fetcher(LimiterRegistry(lambda: SourceLimiter(spacing=0, wait=0.2)))


def test_a_crawl_delay_longer_than_the_limiter_waits_is_waited_for(
    server: MisbehavingServer,
) -> None:
    base = server.url("")
    server.robots = (200, "User-agent: *\nCrawl-delay: 1\n")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/listed"]), "application/xml")
    serve_page(server, "/", page("Home", ["/linked"]))
    found = map_site(
        server.url("/"), policy=loopback_policy(robots=True), fetcher=hurried_fetcher()
    )
    assert paths(found.urls, server) == ["/", "/linked", "/listed"]
    assert found.start_failure is None and found.problems == ()
    times = [seen.at for seen in server.seen]
    assert [seen.path for seen in server.seen] == ["/robots.txt", "/", "/sitemap.xml"]
    assert all(later - earlier >= 0.95 for earlier, later in pairwise(times))
    impatient = map_site(
        server.url("/"),
        policy=loopback_policy(robots=True),
        fetcher=hurried_fetcher(),
        bounds=SitemapBounds(max_wait=0),
    )
    assert impatient.start_failure is not None and "wait" in impatient.start_failure


def answers_429_first(server: MisbehavingServer, path: str, retry_after: str, body: bytes) -> None:
    """Serve ``body`` at ``path``, but answer its first request 429 with ``retry_after``."""

    def handler(request: Request, query: Query) -> None:
        if server.hits(path) == 1:
            request.answer(429, b"slow down", {"Retry-After": retry_after})
        else:
            request.answer(200, body, {"Content-Type": "application/xml"})

    server.route(path, handler)


def test_a_host_answering_429_is_waited_for_then_asked_again(server: MisbehavingServer) -> None:
    base = server.url("")
    answers_429_first(server, "/sitemap.xml", "1", urlset([f"{base}/later"]))
    serve_page(server, "/", page("Home", []))
    began = time.monotonic()
    found = map_site(server.url("/"), policy=loopback_policy(), fetcher=loopback_fetcher())
    assert paths(found.urls, server) == ["/", "/later"]
    assert server.hits("/sitemap.xml") == 2 and time.monotonic() - began >= 0.9
    [first, second] = [seen.at for seen in server.seen if seen.path == "/sitemap.xml"]
    assert second - first >= 0.9


def test_a_host_asking_for_longer_than_the_map_waits_ends_the_reading_at_once(
    server: MisbehavingServer,
) -> None:
    base = server.url("")
    cdn = by_name("cdn.test", server, "/third.xml")
    lines = "".join(f"Sitemap: {url}\n" for url in [f"{base}/first.xml", f"{base}/second.xml", cdn])
    server.robots = (200, lines)
    answers_429_first(server, "/first.xml", "3600", urlset([f"{base}/never"]))
    serve_bytes(server, "/third.xml", urlset([f"{base}/from-third"]), "text/xml")
    serve_page(server, "/", page("Home", ["/linked"]))
    began = time.monotonic()
    found = map_site(
        server.url("/"), policy=loopback_policy(resolver=resolving), fetcher=loopback_fetcher()
    )
    assert time.monotonic() - began < 10
    assert paths(found.urls, server) == ["/", "/linked", "/from-third"]  # the other host read
    assert server.hits("/first.xml") == 1 and server.hits("/second.xml") == 0
    assert server.hits("/sitemap.xml") == 0
    assert found.problems[-1] == (
        f"{base.removeprefix('http://')}: 3 sitemap(s) left unread: the host held the map back"
        " (blocked) longer than its 30 s of waiting"
    )
    with pytest.raises(InvalidArgument, match="max_wait"):
        SitemapBounds(max_wait=-1)


def test_a_limiter_refusing_one_sitemap_for_its_minute_budget_ends_no_other_reading(
    server: MisbehavingServer,
) -> None:
    base = server.url("")
    cdn = by_name("cdn.test", server, "/two.xml")
    server.robots = (200, f"Sitemap: {base}/one.xml\nSitemap: {cdn}\n")
    serve_bytes(server, "/one.xml", urlset([f"{base}/never"]), "text/xml")
    serve_bytes(server, "/two.xml", urlset([f"{base}/from-two"]), "text/xml")
    serve_page(server, "/", page("Home", []))
    fetcher = Fetcher(LimiterRegistry(lambda: SourceLimiter(spacing=0, per_minute=2)))
    found = map_site(server.url("/"), policy=loopback_policy(resolver=resolving), fetcher=fetcher)
    assert paths(found.urls, server) == ["/", "/from-two"] and found.sitemaps == (cdn,)
    assert found.problems == (
        f"{base}/one.xml: the limiter refused (minute)",
        f"{base}/sitemap.xml: the limiter refused (minute)",
    )


def test_the_map_command_says_how_many_urls_robots_txt_left_out(
    server: MisbehavingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    private_site(server)
    args = ["map", server.url("/"), "--allow-private", "--contact", "https://example.org/c"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert paths(tuple(result.stdout.splitlines()), server) == ["/", "/b", "/a", "/theirs"]
    assert "note: 3 URL(s) left out: robots.txt disallows them to this client" in result.stderr
    listed = CliRunner().invoke(app, [*args, "--format", "json"])
    assert json.loads(listed.stdout)["disallowed"] == 3


def test_a_start_page_robots_txt_disallows_is_left_out_and_counted_though_a_sitemap_names_it(
    server: MisbehavingServer,
) -> None:
    private_site(server)
    found = map_site(
        server.url("/private/x"), policy=loopback_policy(robots=True), fetcher=loopback_fetcher()
    )
    assert found.start_in_sitemap and found.start_failure is not None
    assert paths(found.urls, server) == ["/a"]
    assert found.disallowed == 3  # the start, /theirs and /private/y
    assert found.readable_urls() == found.urls
