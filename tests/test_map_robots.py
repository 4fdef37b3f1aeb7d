"""A map's politeness against local servers: URLs robots.txt disallows left out and counted
(by the file the fetcher keeps, fetched once), sitemaps kept to the links' scope and to
robots.txt, a Crawl-delay longer than the limiter waits, and hosts answering 429."""

from __future__ import annotations

import json
import time
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.errors import InvalidArgument
from citesift.net import Fetcher
from citesift.scrape.map import SitemapBounds, map_site
from citesift.sources.snapshots import fetching
from citesift.store import SQLiteStore
from local_site import page, serve_bytes, serve_page, sitemap_index, urlset
from servers import MisbehavingServer, Query, Request, loopback_fetcher, loopback_policy, serve


def paths(found: tuple[str, ...], server: MisbehavingServer) -> list[str]:
    return [url.removeprefix(server.url("")) for url in found]


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


def test_a_map_saving_to_a_store_leaves_out_the_same_and_a_replay_reads_no_robots_txt(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    private_site(server)
    policy = loopback_policy(robots=True)
    with SQLiteStore(tmp_path / "s.db") as store:
        saved = map_site(
            server.url("/"), policy=policy, fetcher=fetching(loopback_fetcher(), store, False)
        )
        assert paths(saved.urls, server) == ["/", "/b", "/a"] and saved.disallowed == 4
        replayed = map_site(
            server.url("/"), policy=policy, fetcher=fetching(Fetcher(), store, True)
        )
    assert paths(replayed.urls, server) == ["/", "/b", "/private/x", "/private/z"]
    assert replayed.disallowed == 0 and server.hits("/robots.txt") == 1


def test_with_robots_txt_not_honoured_nothing_is_left_out_and_its_sitemaps_are_read(
    server: MisbehavingServer,
) -> None:
    private_site(server)
    found = map_site(server.url("/"), policy=loopback_policy(), fetcher=loopback_fetcher())
    assert paths(found.urls, server) == ["/", "/b", "/private/x", "/private/z", "/a",
                                         "/theirs", "/private/y"]  # fmt: skip
    assert found.disallowed == 0 and found.disallowed_note() is None
    assert server.hits("/robots.txt") == 1


def test_an_off_site_sitemap_is_read_only_when_its_links_would_be_listed(
    server: MisbehavingServer,
) -> None:
    with serve() as other:
        there = other.url("")
        server.robots = (200, f"User-agent: *\nAllow: /\nSitemap: {there}/map.xml\n")
        other.robots = (200, "User-agent: *\nDisallow: /hidden\n")
        serve_bytes(other, "/map.xml", urlset([f"{there}/p", f"{there}/hidden"]), "text/xml")
        serve_page(server, "/", page("Home", []))
        policy = loopback_policy(robots=True)
        kept = map_site(server.url("/"), policy=policy, fetcher=loopback_fetcher())
        assert kept.urls == (server.url("/"),) and kept.sitemaps == ()
        assert other.hits("/map.xml") == 0 and other.hits("/robots.txt") == 0
        wide = map_site(
            server.url("/"), policy=policy, fetcher=loopback_fetcher(), allow_external=True
        )
        assert wide.urls == (server.url("/"), f"{there}/p")
        assert wide.disallowed == 1  # the other host's robots.txt holds for its URLs
        assert other.hits("/map.xml") == 1 and other.hits("/robots.txt") == 1


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


def test_a_crawl_delay_longer_than_the_limiter_waits_is_waited_for(
    server: MisbehavingServer,
) -> None:
    base = server.url("")
    server.robots = (200, "User-agent: *\nCrawl-delay: 3\n")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/listed"]), "application/xml")
    serve_page(server, "/", page("Home", ["/linked"]))
    found = map_site(
        server.url("/"), policy=loopback_policy(robots=True), fetcher=loopback_fetcher()
    )
    assert paths(found.urls, server) == ["/", "/linked", "/listed"]
    assert found.start_failure is None and found.problems == ()
    times = [seen.at for seen in server.seen]
    assert [seen.path for seen in server.seen] == ["/robots.txt", "/", "/sitemap.xml"]
    assert all(later - earlier >= 2.9 for earlier, later in pairwise(times))
    impatient = map_site(
        server.url("/"),
        policy=loopback_policy(robots=True),
        fetcher=loopback_fetcher(),
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
    server.robots = (200, f"Sitemap: {base}/first.xml\nSitemap: {base}/second.xml\n")
    answers_429_first(server, "/first.xml", "3600", urlset([f"{base}/never"]))
    serve_page(server, "/", page("Home", ["/linked"]))
    began = time.monotonic()
    found = map_site(server.url("/"), policy=loopback_policy(), fetcher=loopback_fetcher())
    assert time.monotonic() - began < 10
    assert paths(found.urls, server) == ["/", "/linked"]
    assert server.hits("/first.xml") == 1 and server.hits("/second.xml") == 0
    assert server.hits("/sitemap.xml") == 0
    assert "3 sitemap(s) left unread: the host held the map back (blocked)" in found.problems[-1]
    with pytest.raises(InvalidArgument, match="max_wait"):
        SitemapBounds(max_wait=-1)


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
