"""A page of links 100 KB long each: a scrape's ``links`` pass them over, as a crawl does
(no server answers such an address), and give the page's ordinary links."""

from __future__ import annotations

import pytest

from citesift.scrape.result import ScrapeResult
from citesift.scrape.urls import MAX_URL_CHARS
from servers import MisbehavingServer
from test_scrape import page_route, run

pytestmark = pytest.mark.timeout(60)


def test_links_of_100_kb_are_passed_over_and_the_rest_given(server: MisbehavingServer) -> None:
    giants = "".join(f'<a href="/{n}{"x" * 100_000}">giant {n}</a>' for n in range(12))
    body = f"<p>The harbour master keeps a ledger of every ship that comes in.</p>{giants}"
    page_route(server, "/giants", f"<html><body>{body}<a href='/ledger'>Ledger</a></body></html>")
    result = run(server, "/giants", "links")
    assert isinstance(result, ScrapeResult), result
    assert result.formats["links"] == [{"url": server.url("/ledger"), "text": "Ledger"}]
    assert all(len(link["url"]) <= MAX_URL_CHARS for link in result.formats["links"])
