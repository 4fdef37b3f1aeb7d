"""Redirect chains in a crawl: each hop joins the frontier, and a chain is cut at the bound a
single fetch keeps (the policy's ``max_redirects``: ``PAGE_REDIRECTS`` for web pages, fewer or
none when the caller says so) whatever the crawl's limit, in either store; a loop ends at the
first URL met again; a frontier stored before hops were counted is migrated in place and its
crawl goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from citesift.net.policy import PAGE_REDIRECTS
from citesift.scrape.crawl import CrawlOptions, crawl, crawl_id
from citesift.store import SQLiteStore, open_store
from citesift.store.frontier import COMPONENT, STEPS, Frontier, frontier_in
from local_site import page, serve_page
from servers import MisbehavingServer, Query, Request, loopback_fetcher, loopback_policy

pytestmark = pytest.mark.timeout(60)


def endless(request: Request, query: Query) -> None:
    """A redirect to a new URL every time: the next number."""
    hop = int(query.get("n", "0"))
    request.answer(302, b"", {"Location": f"/hop?n={hop + 1}"})


def crawled(
    server: MisbehavingServer, start: str, location: str, redirects: int = PAGE_REDIRECTS
) -> None:
    with open_store(location) as store:
        crawl(server.url(start), limit=100, policy=loopback_policy(max_redirects=redirects),
              store=store, fetcher=loopback_fetcher(), concurrency=1)  # fmt: skip


def test_an_endless_redirect_chain_is_cut_at_the_fetch_bound_not_the_crawl_limit(
    server: MisbehavingServer, store_location: str
) -> None:
    server.route("/hop", endless)
    crawled(server, "/hop?n=0", store_location)
    assert server.hits("/hop") == PAGE_REDIRECTS + 1  # the start and its redirects followed
    with open_store(store_location) as store:
        frontier = frontier_in(store)
        crawl_of = crawl_id(server.url("/hop?n=0"), CrawlOptions(limit=100))
        last = server.url(f"/hop?n={PAGE_REDIRECTS}")
        assert dict(frontier.failures(crawl_of)) == {
            last: f"redirect to {server.url(f'/hop?n={PAGE_REDIRECTS + 1}')} not followed:"
            f" a chain of more than {PAGE_REDIRECTS} redirect(s)"
        }
        assert frontier.counts(crawl_of)["moved"] == PAGE_REDIRECTS


@pytest.mark.parametrize("redirects", [0, 2])
def test_a_chain_is_cut_at_the_callers_max_redirects(
    server: MisbehavingServer, tmp_path: Path, redirects: int
) -> None:
    """A policy following fewer redirects (or none) cuts a crawl's chains there too; one
    following none says so rather than naming a chain of more than none."""
    server.route("/hop", endless)
    crawled(server, "/hop?n=0", str(tmp_path / "s.db"), redirects)
    assert server.hits("/hop") == redirects + 1
    with SQLiteStore(tmp_path / "s.db") as store:
        frontier = Frontier(store)
        crawl_of = crawl_id(server.url("/hop?n=0"), CrawlOptions(limit=100))
        why = (
            f"a chain of more than {redirects} redirect(s)"
            if redirects
            else "redirects are not followed under this policy (max_redirects 0;"
            f" FetchPolicy.for_pages follows {PAGE_REDIRECTS})"
        )
        assert dict(frontier.failures(crawl_of)) == {
            server.url(f"/hop?n={redirects}"): f"redirect to"
            f" {server.url(f'/hop?n={redirects + 1}')} not followed: {why}"
        }
        assert frontier.counts(crawl_of)["moved"] == redirects


def test_a_chain_a_page_links_to_counts_its_hops_from_the_link(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """Hops count from the page a chain starts at, not from the crawl's start: a link found
    at the end of one chain starts a chain of its own."""
    server.route("/hop", endless)
    serve_page(server, "/", page("Home", ["/first", "/hop?n=0"]))
    server.route("/first", lambda r, q: r.answer(301, b"", {"Location": "/second"}))
    serve_page(server, "/second", page("Second", ["/hop?n=0"]))
    crawled(server, "/", str(tmp_path / "s.db"))
    assert server.hits("/second") == 1
    assert server.hits("/hop") == PAGE_REDIRECTS + 1


def test_a_redirect_loop_reads_each_url_once_and_ends(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    server.route("/a", lambda r, q: r.answer(302, b"", {"Location": "/b"}))
    server.route("/b", lambda r, q: r.answer(302, b"", {"Location": "/a"}))
    crawled(server, "/a", str(tmp_path / "s.db"))
    crawled(server, "/loop", str(tmp_path / "s.db"))  # a route that redirects to itself
    assert (server.hits("/a"), server.hits("/b"), server.hits("/loop")) == (1, 1, 1)
    with SQLiteStore(tmp_path / "s.db") as store:
        failed = dict(Frontier(store).failures(crawl_id(server.url("/loop"), CrawlOptions())))
    assert failed == {server.url("/loop"): f"redirect loop back to {server.url('/loop')}"}


def test_a_frontier_stored_before_hops_were_counted_is_migrated_and_goes_on(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", ["/a"]))
    serve_page(server, "/a", page("A", []))
    start = server.url("/")
    options = CrawlOptions(limit=100)
    crawl_of = crawl_id(start, options)
    with SQLiteStore(tmp_path / "s.db") as store:  # the frontier as an older release left it
        store.migrate(COMPONENT, STEPS[:2])
        with store.transaction() as conn:
            conn.execute(
                "INSERT INTO crawls (id, start, options, created_at) VALUES (?, ?, ?, 0)",
                (crawl_of, start, '{"limit": 100}'),
            )
            conn.execute(
                "INSERT INTO crawl_frontier (crawl, url, host, depth, score, state)"
                " VALUES (?, ?, '127.0.0.1', 0, 0, 'queued')",
                (crawl_of, start),
            )
    crawled(server, "/", str(tmp_path / "s.db"))
    with SQLiteStore(tmp_path / "s.db") as store:
        assert Frontier(store).counts(crawl_of)["done"] == 2
        with store.reading() as conn:
            hops = conn.execute("SELECT DISTINCT hops FROM crawl_frontier").fetchall()
    assert hops == [(0,)]
    assert (server.hits("/"), server.hits("/a")) == (1, 1)
