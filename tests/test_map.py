"""map_site against a local site: sitemaps (robots.txt lines, /sitemap.xml, indexes, gzip,
text, oversized, DOCTYPE), the start page's links, normalisation, scope and ranking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.errors import InvalidArgument
from citesift.scrape.map import SitemapBounds, map_site
from citesift.scrape.sitemaps import read_sitemap
from citesift.scrape.urls import normalise
from local_site import gzipped, page, serve_bytes, serve_page, sitemap_index, urlset
from servers import MisbehavingServer, loopback_fetcher, loopback_policy


def paths(found: tuple[str, ...], server: MisbehavingServer) -> list[str]:
    return [url.removeprefix(server.url("")) for url in found]


def test_urls_are_normalised_conservatively() -> None:
    assert normalise("HTTP://Example.ORG:80/a/./b/../c#frag") == "http://example.org/a/c"
    assert normalise("https://example.org:443") == "https://example.org/"
    assert normalise("https://example.org:8443/x/?b=2&a=1") == "https://example.org:8443/x/?b=2&a=1"
    assert normalise("../up", "http://example.org/a/b/") == "http://example.org/a/up"
    assert normalise("mailto:someone@example.org") is None
    assert normalise("javascript:alert(1)") is None
    assert normalise("http://[::1]:8080/") == "http://[::1]:8080/"


def test_a_map_reads_robots_sitemaps_indexes_gzip_text_and_the_start_page(
    server: MisbehavingServer,
) -> None:
    base = server.url("")
    server.robots = (200, f"User-agent: *\nAllow: /\nSitemap: {base}/index.xml\n")
    serve_bytes(
        server,
        "/index.xml",
        sitemap_index([f"{base}/pages.xml.gz", f"{base}/more.txt", "http://elsewhere.test/x.xml"]),
        "application/xml",
    )
    serve_bytes(
        server,
        "/pages.xml.gz",
        gzipped(urlset([f"{base}/a", f"{base}/b#top", f"{base}/a", "http://elsewhere.test/p"])),
        "application/gzip",
    )
    serve_bytes(server, "/more.txt", f"{base}/c\nnot a url\n{base}/./d\n".encode(), "text/plain")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/e"]), "application/xml")
    serve_page(server, "/", page("Home", ["/f", "/a", "https://elsewhere.test/g", "mailto:x@y"]))

    found = map_site(server.url("/"), policy=loopback_policy(), fetcher=loopback_fetcher())

    assert paths(found.urls, server) == ["/", "/f", "/a", "/e", "/b", "/c", "/d"]
    assert paths(found.sitemaps, server) == [
        "/index.xml",
        "/sitemap.xml",
        "/pages.xml.gz",
        "/more.txt",
    ]
    assert server.hits("/x.xml") == 0  # another host's sitemap is not read


def test_a_map_ranks_by_search_words_and_keeps_to_its_limit(server: MisbehavingServer) -> None:
    base = server.url("")
    serve_bytes(
        server,
        "/sitemap.xml",
        urlset([f"{base}/news/sports", f"{base}/blog/solar-panels", f"{base}/about"]),
        "application/xml",
    )
    serve_page(server, "/", page("Home", []))
    found = map_site(
        server.url("/"), "Solar panels", 2, policy=loopback_policy(), fetcher=loopback_fetcher()
    )
    assert paths(found.urls, server) == ["/blog/solar-panels", "/"]


def test_nested_indexes_stop_at_their_depth_and_loops_end(server: MisbehavingServer) -> None:
    base = server.url("")
    serve_bytes(server, "/sitemap.xml", sitemap_index([f"{base}/one.xml"]), "application/xml")
    serve_bytes(
        server, "/one.xml", sitemap_index([f"{base}/two.xml", f"{base}/sitemap.xml"]), "text/xml"
    )
    serve_bytes(server, "/two.xml", sitemap_index([f"{base}/three.xml"]), "text/xml")
    serve_bytes(server, "/three.xml", urlset([f"{base}/deep"]), "text/xml")
    found = map_site(
        server.url("/"),
        policy=loopback_policy(),
        fetcher=loopback_fetcher(),
        bounds=SitemapBounds(max_depth=2),
    )
    assert paths(found.sitemaps, server) == ["/sitemap.xml", "/one.xml", "/two.xml"]
    assert server.hits("/three.xml") == 0 and server.hits("/sitemap.xml") == 1
    assert any("nested past 2 levels" in problem for problem in found.problems)


def test_an_oversized_sitemap_is_read_up_to_its_caps(server: MisbehavingServer) -> None:
    base = server.url("")
    many = urlset([f"{base}/p{i}" for i in range(5_000)])
    serve_bytes(server, "/sitemap.xml", many, "application/xml")
    by_bytes = map_site(
        server.url("/"),
        policy=loopback_policy(),
        fetcher=loopback_fetcher(),
        bounds=SitemapBounds(max_bytes=20_000),
    )
    assert 10 < len(by_bytes.urls) < 500
    assert any("cut short" in problem for problem in by_bytes.problems)
    by_count = read_sitemap(gzipped(many), max_urls=100)
    assert len(by_count.urls) == 100 and by_count.capped
    bomb = read_sitemap(gzipped(b"<urlset>" + b" " * 10_000_000), max_bytes=1_000)
    assert bomb.capped and bomb.urls == []


def test_a_document_type_declaration_is_refused() -> None:
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        b"<urlset><url><loc>http://example.org/&b;</loc></url></urlset>"
    )
    read = read_sitemap(laughs)
    assert read.urls == [] and read.problem is not None and "refused" in read.problem


def test_robots_disallow_keeps_the_map_from_reading_a_sitemap(server: MisbehavingServer) -> None:
    base = server.url("")
    server.robots = (200, "User-agent: *\nDisallow: /sitemap.xml\n")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/hidden"]), "application/xml")
    serve_page(server, "/", page("Home", ["/open"]))
    found = map_site(
        server.url("/"), policy=loopback_policy(robots=True), fetcher=loopback_fetcher()
    )
    assert paths(found.urls, server) == ["/", "/open"]
    assert server.hits("/sitemap.xml") == 0


def test_a_map_refuses_what_makes_no_sense(server: MisbehavingServer) -> None:
    with pytest.raises(InvalidArgument, match="url"):
        map_site("ftp://example.org/", policy=loopback_policy())
    with pytest.raises(InvalidArgument, match="limit"):
        map_site(server.url("/"), limit=0, policy=loopback_policy())
    with pytest.raises(InvalidArgument, match="max_depth"):
        SitemapBounds(max_depth=-1)


def test_the_map_command_prints_one_url_a_line_made_safe(
    server: MisbehavingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    base = server.url("")
    text = f"{base}/b\n{base}/a\x1b]0;x\n".encode()  # a text sitemap
    serve_bytes(server, "/sitemap.xml", text, "text/plain")
    serve_page(server, "/", page("Home", ["/a"]))
    args = ["map", server.url("/"), "--allow-private", "--contact", "https://example.org/c"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"{base}/",
        f"{base}/a",
        f"{base}/b",
        f"{base}/a\\x1b]0;x",
    ]
    ranked = CliRunner().invoke(app, [*args, "--search", "b", "--limit", "1", "--format", "json"])
    assert json.loads(ranked.stdout)["urls"] == [f"{base}/b"]
    refused = CliRunner().invoke(app, [*args, "--limit", "0"])
    assert refused.exit_code == 64 and "limit" in refused.stderr


def test_a_start_page_that_fails_is_listed_by_the_map_not_the_command_which_exits_1(
    server: MisbehavingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    base = server.url("")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/a", f"{base}/b"]), "application/xml")
    found = map_site(server.url("/nothere"), policy=loopback_policy(), fetcher=loopback_fetcher())
    assert paths(found.urls, server) == ["/nothere", "/a", "/b"]  # as Firecrawl's map lists it
    assert paths(found.readable_urls(), server) == ["/a", "/b"]
    assert found.start_failure == f"{base}/nothere: HTTP 404 Not Found"
    assert found.start_failure in found.problems
    args = ["map", server.url("/nothere"), "--allow-private", "--contact", "https://example.org/c"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"{base}/a", f"{base}/b"]
    assert result.stderr.splitlines()[-1] == (
        f"error: the start page could not be read: {base}/nothere: HTTP 404 Not Found"
    )
    assert "note:" not in result.stderr  # said once, as the error
    limited = CliRunner().invoke(app, [*args, "--limit", "2"])  # the failed start costs none
    assert limited.stdout.splitlines() == [f"{base}/a", f"{base}/b"]
    listed = CliRunner().invoke(app, [*args, "--format", "json"])
    assert listed.exit_code == 1
    assert json.loads(listed.stdout)["start_failure"] == found.start_failure


def test_a_start_page_robots_txt_forbids_is_a_start_failure(server: MisbehavingServer) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /\n")
    serve_page(server, "/", page("Home", ["/open"]))
    found = map_site(
        server.url("/"), policy=loopback_policy(robots=True), fetcher=loopback_fetcher()
    )
    assert found.urls == () and found.readable_urls() == ()  # left out, as any it disallows
    assert found.disallowed == 1 and found.start_failure is not None
    assert "robots.txt" in found.start_failure and server.hits("/") == 0


def test_a_start_page_that_fails_but_a_sitemap_names_is_readable(
    server: MisbehavingServer,
) -> None:
    base = server.url("")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/a", f"{base}/gone"]), "application/xml")
    found = map_site(server.url("/gone"), policy=loopback_policy(), fetcher=loopback_fetcher())
    assert found.start_failure is not None and found.start_in_sitemap
    assert paths(found.readable_urls(), server) == ["/gone", "/a"]
