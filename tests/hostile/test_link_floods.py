"""A 10 MB page of 600,000 relative links: a map and a crawl read its first links in
bounded time and say how many anchors they left unread, as other caps do; 6 MB pages of tags
that are no links (``<base href>``, bare or named anchors, closing tags) are held to the
deadline too."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citesift.scrape.crawl import UNREAD, crawl
from citesift.scrape.map import map_site
from citesift.scrape.urls import MAX_LINKS, page_links
from citesift.store import SQLiteStore
from local_site import serve_page
from servers import MisbehavingServer, loopback_fetcher, loopback_policy

pytestmark = pytest.mark.timeout(90)

ANCHORS = 600_000
BOUND_S = 20.0
"""Seconds a map or a crawl of the page may take on a busy machine (a few on an idle one)."""


def flood() -> bytes:
    """An HTML page of ``ANCHORS`` relative links, each to a page of its own."""
    anchors = "".join(f"<a href=p{n}>x</a>" for n in range(ANCHORS))
    return f"<html><body><p>Index of the ledger.</p>{anchors}</body></html>".encode()


TAG_FLOODS = ("<base href='/x/'>", "<a>", "<a name=x>", "</a>")
FLOOD_SECONDS = 0.5


@pytest.mark.parametrize("tag", TAG_FLOODS)
def test_a_page_of_tags_that_are_no_links_is_cut_at_the_deadline(tag: str) -> None:
    html = tag * ((6 << 20) // len(tag)) + "<a href=/last>Last</a>"
    started = time.monotonic()
    read = page_links(html, "https://example.org/", seconds=FLOOD_SECONDS)
    assert time.monotonic() - started < FLOOD_SECONDS + 3.0  # seconds past it before
    assert read.late and not read.found
    anchors = html.count("<a")  # the flood's own anchors, and the link after them
    assert (1 < read.unread < anchors) if tag.startswith("<a") else read.unread == 1
    assert "deadline" in (read.problem() or "")


def big_pages() -> dict[str, int]:
    return {"max_declared_bytes": 16 << 20, "max_body_bytes": 16 << 20}


def test_a_map_of_a_page_of_600000_links_is_quick_and_says_what_it_left(
    server: MisbehavingServer,
) -> None:
    serve_page(server, "/", flood())
    started = time.monotonic()
    found = map_site(
        server.url("/"), policy=loopback_policy(**big_pages()), fetcher=loopback_fetcher()
    )
    assert time.monotonic() - started < BOUND_S
    assert len(found.urls) == MAX_LINKS + 1  # the start and its first links
    unread = ANCHORS - MAX_LINKS
    assert f"{server.url('/')}: {unread:,} anchor(s) of the page were not read" in "\n".join(
        found.problems
    )


def test_a_crawl_of_a_page_of_600000_links_is_quick_and_warns_of_the_cap(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", flood())
    started = time.monotonic()
    with SQLiteStore(tmp_path / "s.db") as store:
        policy = loopback_policy(**big_pages())
        ended = crawl(server.url("/"), limit=1, formats=("links",), store=store,
                      policy=policy, fetcher=loopback_fetcher())  # fmt: skip
    assert time.monotonic() - started < BOUND_S
    assert ended.done == 1 and ended.queued == MAX_LINKS
    unread = ANCHORS - MAX_LINKS
    assert [w for w in ended.warnings if w.startswith(UNREAD)] == [
        f"{UNREAD}: {unread:,} on 1 page(s) (a page's first {MAX_LINKS:,} links are read,"
        " within 5 s)"
    ]
