"""Rendering behind ``citesift serve``, in the real headless Chromium: a batch scrape renders
its pages in one browser of its own, ended with the job; the server's scrapes share one
browser, started by the first page that needs it; none is left once the server stops."""

from __future__ import annotations

import os
import signal
import time

import pytest
from firecrawl.v2.types import ScrapeOptions, WaitAction

from chromium import BUSY, JS_PAGE, browsers_seen, chromium_pids, left_behind
from citesift.scrape.browser import find_executable
from citesift.settings import Settings
from local_site import page, serve_page
from servers import MisbehavingServer
from serving import CONTACT, client, running
from test_agent_render import BUS_PAGE
from test_scrape import page_route

find_executable()  # no Chromium here fails these tests, naming what is missing: never a pass

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
RENDERING = Settings(contact=CONTACT, allow_private=True)
"""Settings that reach the local test site and render with the system's Chromium."""


def script_pages(server: MisbehavingServer) -> list[str]:
    """Two pages whose text only their script writes."""
    page_route(server, "/ferry", JS_PAGE)
    page_route(server, "/bus", BUS_PAGE)
    return [server.url("/ferry"), server.url("/bus")]


def test_a_batch_renders_its_pages_in_one_browser_ended_with_the_job(
    server: MisbehavingServer,
    own_tmp: str,
) -> None:
    pages = script_pages(server)
    with running(settings=RENDERING) as api, browsers_seen(own_tmp) as seen:
        job = client(api).batch_scrape(pages, formats=["markdown"], poll_interval=1)
        assert job.status == "completed" and len(job.data) == 2
        written = {doc.metadata.source_url: doc.markdown for doc in job.data if doc.metadata}
        assert "the ferry left at noon" in (written[pages[0]] or "")
        assert "the bus left at dusk" in (written[pages[1]] or "")
        assert len(seen) == 1  # both pages rendered by one launch
        assert gone(own_tmp)  # the job's browser ended with the job
    assert left_behind(own_tmp) == []


def test_a_crawl_asking_to_wait_renders_its_pages_with_the_servers_browser(
    server: MisbehavingServer,
    own_tmp: str,
) -> None:
    pages = script_pages(server)
    serve_page(server, "/", page("Home", ["/ferry", "/bus"]))
    with running(settings=RENDERING) as api, browsers_seen(own_tmp) as seen:
        fc = client(api)
        plain = fc.crawl(server.url("/"), limit=3, poll_interval=1, timeout=60)
        assert len(plain.data) == 3 and not seen  # no wait asked: read as served, no browser
        waited = fc.crawl(
            server.url("/"), limit=3, scrape_options=ScrapeOptions(wait_for=600),
            poll_interval=1, timeout=60,
        )  # fmt: skip
        written = {d.metadata.source_url: d.markdown or "" for d in waited.data if d.metadata}
        assert "the ferry left at noon" in written[pages[0]]
        assert "A late line arrived after the load." in written[pages[0]]  # waited 600 ms
        assert "the bus left at dusk" in written[pages[1]]
        assert "Home" in written[server.url("/")]  # a static page is read as served
        selector = ScrapeOptions(actions=[WaitAction(selector="#late")])
        late = fc.crawl(pages[0], limit=1, scrape_options=selector, poll_interval=1, timeout=60)
        assert "A late line arrived after the load." in (late.data[0].markdown or "")
        assert len(seen) == 1 and len(chromium_pids(own_tmp)) == 1  # the server's, still up
    assert chromium_pids(own_tmp) == [] and left_behind(own_tmp) == []


def gone(marker: str) -> bool:
    """Whether every browser launched for ``marker`` ends within ten seconds."""
    deadline = time.monotonic() + 10
    while chromium_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return chromium_pids(marker) == []


def test_a_batch_cancelled_mid_render_ends_its_browser_at_once(
    server: MisbehavingServer,
    own_tmp: str,
) -> None:
    page_route(server, "/busy", BUSY)
    busy = [server.url(f"/busy?n={n}") for n in range(4)]
    with running(settings=RENDERING) as api:
        fc = client(api)
        started = fc.start_batch_scrape(busy, formats=["markdown"], timeout=60_000)
        deadline = time.monotonic() + 20
        while not chromium_pids(own_tmp) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert chromium_pids(own_tmp)  # rendering the pages that never finish loading
        assert fc.cancel_batch_scrape(started.id) is True
        assert gone(own_tmp)  # ended with the job, not with the server
        assert fc.get_batch_scrape_status(started.id).status == "cancelled"
    assert left_behind(own_tmp) == []


def test_the_servers_scrapes_share_one_browser_that_ends_with_the_server(
    server: MisbehavingServer,
    own_tmp: str,
) -> None:
    pages = script_pages(server)
    page_route(server, "/static", "<html><body><h1>Plain</h1><p>No script here.</p></body></html>")
    with running(settings=RENDERING) as api, browsers_seen(own_tmp) as seen:
        fc = client(api)
        plain = fc.scrape(server.url("/static"), formats=["markdown"])
        assert "No script here." in (plain.markdown or "") and not seen  # none was needed
        ferry = fc.scrape(pages[0], formats=["markdown"])
        bus = fc.scrape(pages[1], formats=["markdown"])
        assert "the ferry left at noon" in (ferry.markdown or "")
        assert "the bus left at dusk" in (bus.markdown or "")
        assert len(seen) == 1 and len(chromium_pids(own_tmp)) == 1  # still up, for the next
    assert chromium_pids(own_tmp) == [] and left_behind(own_tmp) == []


def test_the_servers_browser_killed_is_replaced_by_the_next_page_that_needs_one(
    server: MisbehavingServer,
    own_tmp: str,
) -> None:
    pages = script_pages(server)
    with running(settings=RENDERING) as api, browsers_seen(own_tmp) as seen:
        fc = client(api)
        assert "the ferry left at noon" in (
            fc.scrape(pages[0], formats=["markdown"]).markdown or ""
        )
        (first,) = chromium_pids(own_tmp)
        os.kill(first, signal.SIGKILL)
        assert gone(own_tmp)
        time.sleep(0.5)  # the driver sees its browser gone
        bus = fc.scrape(pages[1], formats=["markdown"])
        assert "the bus left at dusk" in (bus.markdown or "") and not bus.warning
        assert len(seen) == 2 and first not in chromium_pids(own_tmp)
    assert chromium_pids(own_tmp) == [] and left_behind(own_tmp) == []
