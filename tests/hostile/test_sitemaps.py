"""Hostile sitemaps: a few kilobytes of gzip that inflate to millions of empty elements (at
the top, inside a ``<url>``, or nested ever deeper), a text sitemap of millions of short
lines, addresses a megabyte long, image addresses beside the page's, and a site whose
sitemaps name millions of pages. Each is read within seconds and a small multiple of its
inflated bytes: no tree of elements, no list of lines, no sitemap read past the map's
limit."""

from __future__ import annotations

import pytest

from citesift.scrape.map import map_site
from citesift.scrape.sitemaps import (
    MAX_SITEMAP_DEPTH,
    MAX_SITEMAP_ELEMENTS,
    SitemapRead,
    read_sitemap,
)
from citesift.scrape.urls import MAX_URL_CHARS
from local_site import gzipped, page, serve_bytes, serve_page, sitemap_index, urlset
from measure import traced
from servers import loopback_fetcher, loopback_policy, serve

INFLATED = 8_000_000  # bytes: twice as many four-byte elements as the cap
SECONDS = 10.0  # each takes well under a second alone; shared machines are slow
URLSET = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'


def bounded(body: bytes) -> SitemapRead:
    """``read_sitemap(body)``, held to ``SECONDS`` and a peak of three times ``INFLATED``."""
    read, seconds, peak = traced(lambda: read_sitemap(body))
    assert seconds < SECONDS
    assert peak < 3 * INFLATED, peak
    return read


@pytest.mark.parametrize(
    ("opening", "urls"),
    [(URLSET, []), (URLSET + b"<url><loc>http://example.org/a</loc>", ["http://example.org/a"])],
    ids=["top", "in a url"],
)
def test_millions_of_empty_elements_are_cut_at_the_cap(opening: bytes, urls: list[str]) -> None:
    flood = opening + b"<x/>" * (INFLATED // 4)
    assert flood.count(b"<x/>") > MAX_SITEMAP_ELEMENTS
    read = bounded(gzipped(flood))
    assert read.capped and read.urls == urls


def test_elements_nested_ever_deeper_stop_the_read() -> None:
    read = bounded(gzipped(URLSET + b"<x>" * (INFLATED // 3)))
    assert read.problem == f"elements nested over {MAX_SITEMAP_DEPTH} deep: read no further"


def test_a_text_sitemap_of_millions_of_short_lines_is_read_in_one_scan() -> None:
    lines = b"ab\n" * (INFLATED // 3) + b"https://example.org/last\n"
    read = bounded(gzipped(lines))
    assert read.urls == ["https://example.org/last"] and not read.capped


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
def test_a_text_sitemap_is_read_whatever_its_lines_end_in(end: bytes) -> None:
    urls = [f"https://example.org/{n}" for n in range(3)]
    assert read_sitemap(end.join(u.encode() for u in urls) + end).urls == urls


def test_addresses_longer_than_any_server_takes_are_passed_over() -> None:
    long = "https://example.org/" + "a" * MAX_URL_CHARS
    xml = read_sitemap(urlset([long, "https://example.org/short"]))
    text = read_sitemap(f"{long}\nhttps://example.org/short\n".encode())
    assert xml.urls == text.urls == ["https://example.org/short"]


def test_only_the_loc_of_a_url_is_a_page() -> None:
    body = (
        URLSET + b'<url xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
        b"<loc>https://example.org/page</loc><image:image>"
        b"<image:loc>https://example.org/photo.jpg</image:loc></image:image></url></urlset>"
    )
    assert read_sitemap(body).urls == ["https://example.org/page"]


def test_a_map_reads_no_more_sitemaps_once_it_has_its_limit() -> None:
    with serve() as server:
        base = server.url("")
        children = [f"{base}/s{number}.xml" for number in range(15)]
        serve_bytes(server, "/sitemap.xml", sitemap_index(children), "application/xml")
        for number in range(15):
            pages = urlset([f"{base}/p/{number}/{page}" for page in range(6_000)])
            serve_bytes(server, f"/s{number}.xml", pages, "application/xml")
        serve_page(server, "/", page("Home", []))
        found = map_site(server.url("/"), policy=loopback_policy(), fetcher=loopback_fetcher())
        assert len(found.urls) == 5_000 and found.problems == ()
        assert server.hits("/s0.xml") == 1 and server.hits("/s1.xml") == 0  # all 15 before
        ranked = map_site(server.url("/"), "14 5999", policy=loopback_policy(),
                          fetcher=loopback_fetcher())  # fmt: skip
        assert server.hits("/s14.xml") == 1 and ranked.urls[0] == f"{base}/p/14/5999"


@pytest.mark.parametrize("declared", ["GTF-8", "zlib", "idna", "utf-7", "utf-32", "punycode"])
def test_a_declared_encoding_is_not_taken_sitemaps_are_utf8(declared: str) -> None:
    body = f'<?xml version="1.0" encoding="{declared}"?>'.encode() + urlset(["https://e.org/é"])
    read = read_sitemap(body.replace(b'<?xml version="1.0" encoding="UTF-8"?>', b""))
    assert read.urls == ["https://e.org/é"] and read.problem is None  # each raised before
