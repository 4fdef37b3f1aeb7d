"""Pages that turn the headless browser on their host: fetching in a loop, reloading or
leaving themselves, opening windows without end. Each render ends in bounded time with a
clear outcome, the host sees at most the page's request budget (never a flood past the
limiter), what is read is the page fetched, and no context or browser is left behind."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from chromium import left_behind
from citesift.scrape.browser import MAX_REQUESTS, Browser, find_executable
from citesift.scrape.page import scrape
from citesift.scrape.result import ScrapeFailure, ScrapeResult
from servers import TEST_IDENTITY, MisbehavingServer, loopback_policy
from test_scrape import page_route

find_executable()  # no Chromium here fails these tests, naming what is missing: never a pass

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
TEXT = "<p>The lighthouse keeper wrote that the lamp was lit at dusk and kept till dawn.</p>"
PAGES = {
    "/fetching": "<div id=app></div><script>setInterval(() => { for (let i = 0; i < 20; i++)"
    " fetch('/data?' + Math.random()); }, 5);</script>",
    "/reloading": "<div id=app></div><script>location.reload();</script>",
    "/wandering": "<div id=app></div><script>location.href = '/wandering?' + Math.random();"
    "</script>",
    "/leaving": TEXT + "<div id=app></div><script>addEventListener('load', () =>"
    " setTimeout(() => { location.href = '/elsewhere'; }, 50));</script>",
    "/opening": TEXT + "<div id=app></div><script>setInterval(() => { for (let i = 0; i < 10;"
    " i++) window.open('/elsewhere?' + Math.random()); }, 10);</script>",
}
ELSEWHERE = "<p>Another page the server wrote, which the page fetched never held at all.</p>"
DEADLINE = 8.0
BOUND = DEADLINE + 6.0  # the deadline, and closing the page: never the storm's own length
FETCHING_DEADLINE = 60.0


def render(
    server: MisbehavingServer, path: str, wait_ms: int, deadline: float = DEADLINE
) -> tuple[Any, float, int]:
    """The outcome of rendering ``path`` (waiting ``wait_ms`` after its load, within
    ``deadline`` seconds), the seconds it took and the contexts left open after it."""

    async def go() -> tuple[Any, float, int]:
        async with Browser() as browser:
            started = time.monotonic()
            outcome = await scrape(
                server.url(path), ("text",), identity=TEST_IDENTITY, policy=loopback_policy(),
                browser=browser, render="always", timeout=deadline, wait_for=wait_ms,
            )  # fmt: skip
            return outcome, time.monotonic() - started, browser.open_contexts

    return asyncio.run(go())


@pytest.fixture
def site(server: MisbehavingServer) -> MisbehavingServer:
    for path, body in PAGES.items():
        page_route(server, path, f"<!doctype html><html><body>{body}</body></html>")
    page_route(server, "/elsewhere", f"<!doctype html><html><body>{ELSEWHERE}</body></html>")
    page_route(server, "/data", "a tide", content_type="text/plain")
    return server


def test_a_page_fetching_in_a_loop_is_stopped_at_its_request_budget(
    site: MisbehavingServer, own_tmp: str
) -> None:
    # Its budget, not its deadline, must end it: a loaded machine passes the page's requests
    # more slowly than it makes them, so it is given time to reach the budget.
    outcome, seconds, still_open = render(site, "/fetching", 60_000, FETCHING_DEADLINE)
    assert isinstance(outcome, ScrapeFailure) and outcome.code == "RENDER_FAILED", outcome
    assert f"more than {MAX_REQUESTS} addresses" in outcome.message
    assert seconds < FETCHING_DEADLINE
    assert site.hits("/data") <= MAX_REQUESTS
    assert still_open == 0 and left_behind(own_tmp) == []


@pytest.mark.parametrize("path", ["/reloading", "/wandering"])
def test_a_page_reloading_itself_forever_never_reaches_the_host_again(
    site: MisbehavingServer, own_tmp: str, path: str
) -> None:
    outcome, seconds, still_open = render(site, path, 0)
    assert isinstance(outcome, ScrapeFailure) and outcome.code == "TIMEOUT", outcome
    assert seconds < BOUND
    assert site.hits(path) == 1  # the fetch; the browser was answered from its bytes
    assert still_open == 0 and left_behind(own_tmp) == []


def test_a_page_navigating_away_after_load_is_read_as_the_page_fetched(
    site: MisbehavingServer, own_tmp: str
) -> None:
    outcome, seconds, still_open = render(site, "/leaving", 1000)
    assert isinstance(outcome, ScrapeResult), outcome
    assert "the lamp was lit at dusk" in outcome.formats["text"]
    assert "Another page" not in outcome.formats["text"]
    assert site.hits("/elsewhere") == 0 and site.hits("/leaving") == 1
    [said] = [w for w in outcome.warnings if "tried to go to" in w]
    assert said.startswith(f"the page's script tried to go to {site.url('/elsewhere')}, not")
    assert seconds < BOUND and still_open == 0 and left_behind(own_tmp) == []


def test_a_storm_of_windows_is_closed_and_kept_within_the_budget(
    site: MisbehavingServer, own_tmp: str
) -> None:
    outcome, seconds, still_open = render(site, "/opening", 3000)
    assert isinstance(outcome, (ScrapeResult, ScrapeFailure)), outcome
    if isinstance(outcome, ScrapeResult):
        assert "the lamp was lit at dusk" in outcome.formats["text"]
    else:
        assert f"more than {MAX_REQUESTS} addresses" in outcome.message
    assert site.hits("/elsewhere") <= MAX_REQUESTS
    assert seconds < BOUND and still_open == 0 and left_behind(own_tmp) == []
