"""A crawl leaves out the links robots.txt disallows before it queues them: never fetched,
never a failure, never one of the ``limit`` pages, but counted (``disallowed``) and listed
(``crawl_disallowed``), in one process and in worker processes alike; robots.txt is asked
for once per host."""

from __future__ import annotations

from pathlib import Path

import pytest

from citesift.scrape.crawl import crawl, crawl_disallowed, crawl_failures, crawl_results
from citesift.store import open_store
from local_site import page, serve_page
from servers import MisbehavingServer, loopback_fetcher, loopback_policy

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
