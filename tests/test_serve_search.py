"""Firecrawl's search route through the unmodified firecrawl-py SDK against ``citesift
serve`` on loopback: answered by the configured search source (a SearXNG stand-in on the
local site), results read as pages when formats are asked, a 501 saying what to configure
when no source is, and a 400 naming each option citesift cannot honour."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from firecrawl.v2.types import ScrapeOptions
from firecrawl.v2.utils.error_handler import BadRequestError, FirecrawlError

from citesift.api.config import ServeConfig
from citesift.api.run import create_app
from citesift.errors import InvalidArgument
from citesift.settings import Settings
from servers import MisbehavingServer
from serving import CONTACT, client, running
from test_agent_run import site
from wikipedia_server import fresh_stand_in

pytestmark = pytest.mark.timeout(60)
SECRET = {"Authorization": "Bearer harbour-key"}


def searching(server: MisbehavingServer) -> Settings:
    return Settings(
        contact=CONTACT,
        allow_private=True,
        browser="/nonexistent/chromium",
        search="searxng",
        search_url=server.url("/"),
    )


def test_search_answers_the_sources_results_and_reads_them_when_asked(
    server: MisbehavingServer,
) -> None:
    site(server)
    with running(settings=searching(server)) as base:
        fc = client(base)
        found = fc.search("City Museum", limit=3)
        read = fc.search("City Museum", limit=3, scrape_options=ScrapeOptions(formats=["markdown"]))
    assert found.web is not None and [hit.url for hit in found.web] == [server.url("/museum")]
    assert found.web[0].title == "City Museum" and found.web[0].description == "opened 1998"
    assert read.web is not None and len(read.web) == 1
    page = read.web[0]
    assert page.markdown is not None and "312 rooms on 12 floors" in page.markdown  # type: ignore[union-attr]
    assert server.hits("/museum") == 1


def test_without_a_search_source_search_is_a_501_saying_what_to_configure() -> None:
    with running() as base, pytest.raises(FirecrawlError) as raised:
        client(base).search("City Museum")
    assert raised.value.status_code == 501 and "search" in str(raised.value)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"sources": ["news"]}, "sources"),
        ({"include_domains": ["example.org"]}, "includeDomains"),
        ({"tbs": "qdr:d"}, "tbs"),
        (
            {"scrape_options": ScrapeOptions(formats=["markdown"], headers=SECRET)},
            "scrapeOptions.headers",
        ),
    ],
)
def test_a_search_option_citesift_cannot_honour_is_a_400_naming_it(
    server: MisbehavingServer, options: dict[str, object], named: str
) -> None:
    site(server)
    with running(settings=searching(server)) as base, pytest.raises(BadRequestError) as raised:
        client(base).search("City Museum", **options)  # type: ignore[arg-type]
    assert named in str(raised.value) and "not supported by citesift" in str(raised.value)
    assert "harbour-key" not in str(raised.value)
    assert server.hits("/search") == 0 and server.hits("/museum") == 0


def test_with_a_search_source_an_agent_run_may_start_from_a_search(
    server: MisbehavingServer,
) -> None:
    site(server)
    with running(settings=searching(server)) as base:
        done = client(base).agent(prompt="City Museum floors", poll_interval=1, timeout=30)
    assert done.status == "completed" and "12 floors" in str(done.data)
    assert server.hits("/search") >= 1 and server.hits("/museum") == 1


@pytest.mark.parametrize(("search", "named"), [("altavista", "search"), ("searxng", "search_url")])
def test_a_search_source_that_cannot_be_used_is_refused_before_listening(
    search: str, named: str
) -> None:
    wrong = Settings(contact=CONTACT, allow_private=True, search=search)
    with pytest.raises(InvalidArgument, match=named):
        create_app(ServeConfig(port=0), wrong)


def test_a_query_wikipedias_search_cannot_take_is_a_400_naming_it(
    wikipedia_fixtures: Path,
) -> None:
    with fresh_stand_in(wikipedia_fixtures) as wiki:
        wikipedia = Settings(
            contact=CONTACT, allow_private=True, search="wikipedia", search_url=wiki.origin
        )
        with running(settings=wikipedia) as base:
            found = httpx.post(f"{base}/v2/search", json={"query": "Dog", "limit": 1})
            refused = [
                httpx.post(f"{base}/v2/search", json={"query": query})
                for query in ("d" * 301, "d" * 2000, "   ")
            ]
    assert found.status_code == 200 and found.json()["data"]["web"][0]["title"] == "Dog"
    for answer in refused:
        assert answer.status_code == 400, answer.text
        [detail] = answer.json()["details"]
        assert detail["path"] == ["query"]
        assert detail["message"].startswith("query must be text of 1 to 300 characters")
    assert len(wiki.requests) == 1
