"""Firecrawl's job routes through the unmodified firecrawl-py SDK against ``citesift serve``
on loopback, over a local site: crawl with limit, include and exclude paths, depth, the
start's path, robots.txt, cancel and pagination; batch scrape with a failing page; a 400
naming each option citesift cannot honour; a crawl asked to render with no browser that
starts, which says so in its ``warning``; and a server killed mid-crawl and started again,
which keeps every finished result and reports the crawl it cut off as failed."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from firecrawl import Firecrawl
from firecrawl.v2.types import PaginationConfig
from firecrawl.v2.utils.error_handler import BadRequestError, FirecrawlError

from chromium import JS_PAGE
from citesift.scrape.crawl import NO_BROWSER
from citesift.settings import Settings
from citesift.store import open_store
from citesift.store.frontier import frontier_in
from citesift.store.jobs import INTERRUPTED, JobStore
from citesift.store.runs import runs_in
from citesift.store.snapshots import snapshots_in
from local_site import page, serve_page
from servers import MisbehavingServer
from serving import CONTACT, running
from test_scrape import page_route

pytestmark = pytest.mark.timeout(60)
POLL = 0.25
"""Seconds between the SDK's status checks, the spacing of one host's starts: a crawl of
the local site ends a moment after its last page, and a check a second apart made each wait
up to a second more (the SDK types it ``int``; it sleeps any number). Four checks a second
stay far inside the server's 120 requests a minute."""


@pytest.fixture
def api() -> Iterator[str]:
    """The API's base URL (local addresses allowed, no key)."""
    with running() as base:
        yield base


def client(base: str) -> Firecrawl:
    return Firecrawl(api_key="any-key", api_url=base, max_retries=1)


def site(server: MisbehavingServer) -> None:
    """Home links to /a, /b, /docs/intro and /private/x; /a links on to /a/deep."""
    serve_page(server, "/", page("Home", ["/a", "/b", "/docs/intro", "/private/x"]))
    serve_page(server, "/a", page("Page A", ["/a/deep", "/"]))
    serve_page(server, "/a/deep", page("Deep", []))
    serve_page(server, "/b", page("Page B", []))
    serve_page(server, "/docs/intro", page("Intro", ["/docs/more", "/b"]))
    serve_page(server, "/docs/more", page("More docs", []))
    serve_page(server, "/private/x", page("Private", []))


def urls_of(job: object) -> set[str]:
    return {doc.metadata.source_url for doc in job.data}  # type: ignore[attr-defined]


def test_a_crawl_reads_the_site_within_its_limit_paths_and_depth(
    api: str, server: MisbehavingServer
) -> None:
    site(server)
    fc = client(api)
    every = fc.crawl(server.url("/"), limit=20, poll_interval=POLL, timeout=30)
    assert every.status == "completed" and every.completed == every.total == 7
    assert urls_of(every) == {server.url(p) for p in ("/", "/a", "/a/deep", "/b")} | {
        server.url(p) for p in ("/docs/intro", "/docs/more", "/private/x")
    }
    doc = next(d for d in every.data if d.metadata and d.metadata.source_url == server.url("/a"))
    assert doc.markdown and "Page A" in doc.markdown and doc.metadata is not None
    assert doc.metadata.title == "Page A" and doc.metadata.status_code == 200
    assert doc.metadata.model_extra["citesift"]["depth"] == 1  # type: ignore[index]
    limited = fc.crawl(server.url("/"), limit=3, poll_interval=POLL, timeout=30)
    assert limited.completed == 3 and len(limited.data) == 3
    shallow = fc.crawl(server.url("/"), max_discovery_depth=1, poll_interval=POLL, timeout=30)
    assert server.url("/a") in urls_of(shallow) and server.url("/a/deep") not in urls_of(shallow)
    chosen = fc.crawl(
        server.url("/"),
        include_paths=["^/a", "^/docs"],
        exclude_paths=["deep", "more"],
        poll_interval=POLL,
        timeout=30,
    )
    assert urls_of(chosen) == {server.url(p) for p in ("/", "/a", "/docs/intro")}
    under = fc.crawl(server.url("/docs/intro"), poll_interval=POLL, timeout=30)
    assert urls_of(under) == {server.url("/docs/intro")}  # /docs/more is not under it
    whole = fc.crawl(
        server.url("/docs/intro"), crawl_entire_domain=True, poll_interval=POLL, timeout=30
    )
    assert urls_of(whole) == {server.url(p) for p in ("/docs/intro", "/docs/more", "/b")}


def test_crawl_paths_are_searched_in_the_pathname_not_the_query(
    api: str, server: MisbehavingServer
) -> None:
    serve_page(server, "/", page("Home", ["/list?page=2", "/notes?from=/list"]))
    serve_page(server, "/list", page("List", []))
    serve_page(server, "/notes", page("Notes", []))
    fc = client(api)
    every = {server.url(p) for p in ("/", "/list?page=2", "/notes?from=/list")}
    kept = fc.crawl(server.url("/"), exclude_paths=["page="], poll_interval=POLL, timeout=30)
    assert urls_of(kept) == every
    only = fc.crawl(server.url("/"), include_paths=["^/list"], poll_interval=POLL, timeout=30)
    assert urls_of(only) == {server.url("/"), server.url("/list?page=2")}


def test_robots_txt_always_holds_and_its_refusals_are_listed(
    api: str, server: MisbehavingServer
) -> None:
    site(server)
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    fc = client(api)
    job = fc.crawl(server.url("/"), formats=["markdown", "links"], poll_interval=POLL, timeout=30)
    assert server.url("/private/x") not in urls_of(job) and server.hits("/private/x") == 0
    home = next(d for d in job.data if d.metadata and d.metadata.source_url == server.url("/"))
    assert home.links is not None and server.url("/private/x") in home.links
    errors = fc.get_crawl_errors(job.id)  # type: ignore[arg-type]
    assert errors.robots_blocked == [server.url("/private/x")]
    assert errors.errors == []  # a link left out is no failure of the crawl
    with pytest.raises(BadRequestError) as raised:
        fc.start_crawl(server.url("/"), ignore_robots_txt=True)
    assert "ignoreRobotsTxt" in str(raised.value)


def test_a_private_site_is_not_crawled_unless_the_server_allows_it(
    server: MisbehavingServer,
) -> None:
    site(server)
    with running(settings=Settings(contact=CONTACT)) as base:
        fc = client(base)
        job = fc.crawl(server.url("/"), poll_interval=POLL, timeout=30)
        errors = fc.get_crawl_errors(job.id)  # type: ignore[arg-type]
    assert job.status == "completed" and job.data == [] and len(server.seen) == 0
    assert [(e.url, e.code) for e in errors.errors] == [(server.url("/"), "SSRF_BLOCKED")]


def test_results_page_with_next_and_the_sdk_follows_every_page(
    api: str, server: MisbehavingServer
) -> None:
    site(server)
    fc = client(api)
    started = fc.start_crawl(server.url("/"))
    whole = fc.crawl(server.url("/"), poll_interval=POLL, timeout=30)  # waits for its own
    deadline = time.monotonic() + 30
    while httpx.get(started.url).json()["status"] == "scraping":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    first = httpx.get(f"{started.url}?limit=3").json()
    assert first["status"] == "completed" and len(first["data"]) == 3 and first["total"] == 7
    assert first["next"].endswith(f"/v2/crawl/{started.id}?skip=3&limit=3")
    seen = [doc["metadata"]["sourceURL"] for doc in first["data"]]
    after = first["next"]
    while after:
        more = httpx.get(after).json()
        seen += [doc["metadata"]["sourceURL"] for doc in more["data"]]
        after = more.get("next")
    assert sorted(seen) == sorted(urls_of(whole)) and len(seen) == 7
    one_page = fc.get_crawl_status(started.id, PaginationConfig(auto_paginate=False))
    assert len(one_page.data) == 7 and one_page.next is None  # all on the first page
    assert httpx.get(f"{api}/v2/crawl/{started.id}?limit=1000").status_code == 400


def test_a_crawl_is_cancelled_at_once_and_a_finished_one_is_not(
    api: str, server: MisbehavingServer
) -> None:
    links = [f"/slow/{n}" for n in range(30)]
    serve_page(server, "/", page("Home", links))
    for link in links:
        serve_page(server, link, page(link, []), delay=0.5)
    fc = client(api)
    started = fc.start_crawl(server.url("/"), limit=30)
    time.sleep(0.8)
    assert fc.cancel_crawl(started.id) is True
    status = fc.get_crawl_status(started.id)
    assert status.status == "cancelled"
    hits = len(server.seen)
    time.sleep(1.2)
    assert len(server.seen) <= hits + 2  # only the reads in flight at the cancel ended
    assert fc.cancel_crawl(started.id) is False  # 409: it had ended
    unknown = httpx.get(f"{api}/v2/crawl/00000000-0000-0000-0000-000000000000")
    assert unknown.status_code == 404 and unknown.json()["error"] == "Job not found"


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"sitemap": "include"}, "sitemap"),
        ({"allow_subdomains": True}, "allowSubdomains"),
        ({"webhook": "https://hooks.example/x"}, "webhook"),
        ({"delay": 2}, "delay"),
        ({"limit": 5000}, "limit"),
        ({"scrape_options": {"formats": ["rawHtml"]}}, "formats"),
        ({"scrape_options": {"formats": ["markdown"], "only_main_content": False}}, "onlyMain"),
        ({"scrape_options": {"actions": [{"type": "click", "selector": "a"}]}}, "actions.0"),
    ],
)
def test_a_crawl_option_citesift_cannot_honour_is_a_400_naming_it(
    api: str, server: MisbehavingServer, options: dict[str, object], named: str
) -> None:
    with pytest.raises(BadRequestError) as raised:
        client(api).start_crawl(server.url("/"), **options)  # type: ignore[arg-type]
    assert named in str(raised.value) and "not supported by citesift" in str(raised.value)
    assert server.hits("/") == 0


def test_a_batch_scrapes_each_page_and_lists_what_failed(
    api: str, server: MisbehavingServer
) -> None:
    site(server)
    fc = client(api)
    urls = [server.url("/a"), server.url("/b"), "http://unresolvable.invalid/x"]
    job = fc.batch_scrape(urls, formats=["markdown", "links"], poll_interval=POLL)
    assert job.status == "completed" and job.completed == 2 and job.total == 3
    assert urls_of(job) == {server.url("/a"), server.url("/b")}
    page_a = next(d for d in job.data if d.metadata and d.metadata.source_url == server.url("/a"))
    assert page_a.links and server.url("/a/deep") in page_a.links
    errors = httpx.get(f"{api}/v2/batch/scrape/{job_id(api, fc, urls)}/errors").json()
    assert [e["url"] for e in errors["errors"]] == ["http://unresolvable.invalid/x"]
    assert errors["errors"][0]["code"] == "NETWORK_ERROR"
    with pytest.raises(BadRequestError) as raised:
        fc.start_batch_scrape([server.url("/a")], formats=["markdown"], mobile=True)
    assert "mobile" in str(raised.value)
    invalid = httpx.post(f"{api}/v2/batch/scrape", json={"urls": ["ftp://x.example/"]})
    assert invalid.status_code == 400 and invalid.json()["details"][0]["path"] == ["urls", 0]


def test_a_batch_is_cancelled_and_the_v1_style_crawl_langchain_makes_is_served(
    api: str, server: MisbehavingServer
) -> None:
    site(server)
    for n in range(8):
        serve_page(server, f"/slow/{n}", page(f"Slow {n}", []), delay=0.5)
    fc = client(api)
    started = fc.start_batch_scrape([server.url(f"/slow/{n}") for n in range(8)])
    time.sleep(0.3)
    assert fc.cancel_batch_scrape(started.id) is True
    assert fc.get_batch_scrape_status(started.id).status == "cancelled"
    with warnings.catch_warnings():  # the SDK warns once a process that v1 calls are old
        warnings.filterwarnings("ignore", "firecrawl: v1-style calls", DeprecationWarning)
        crawled = fc.crawl_url(
            server.url("/"), params={"limit": 2, "integration": "langchain"}, poll_interval=POLL
        )
    assert crawled.status == "completed" and len(crawled.data) == 2


def job_id(api: str, fc: Firecrawl, urls: list[str]) -> str:
    """A new batch of ``urls``, run to its end; its id."""
    started = fc.start_batch_scrape(urls)
    deadline = time.monotonic() + 30
    while fc.get_batch_scrape_status(started.id).status == "scraping":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    return started.id


def test_with_a_postgresql_store_jobs_snapshots_frontiers_and_runs_are_kept_there(
    server: MisbehavingServer, postgres_url: str
) -> None:
    site(server)
    shared = Settings(contact=CONTACT, allow_private=True, store=postgres_url)
    with running(settings=shared) as base:
        fc = client(base)
        job = fc.crawl(server.url("/"), limit=3, poll_interval=POLL, timeout=30)
        paged = httpx.get(f"{base}/v2/crawl/{job.id}?limit=2").json()
        done = fc.agent(
            urls=[server.url("/a")], prompt="what is page A", poll_interval=POLL, timeout=30
        )
        run = httpx.get(f"{base}/v2/agent/{done.id}").json()["citesift"]["runId"]
        traced = httpx.get(f"{base}/citesift/runs/{run}")
    assert job.status == "completed" and len(job.data) == 3
    assert len(paged["data"]) == 2 and paged["next"].endswith("?skip=2&limit=2")
    assert done.status == "completed" and traced.status_code == 200, traced.text
    assert traced.json()["task"] == "what is page A"
    with open_store(postgres_url) as store:
        kept = JobStore(store).get(job.id)  # type: ignore[arg-type]
        cited = [doc.metadata.scrape_id for doc in job.data if doc.metadata]
        snapshots = [snapshots_in(store).get(snapshot) for snapshot in cited if snapshot]
        frontier = frontier_in(store)
        crawled = (frontier.counts(job.id)["done"], len(list(frontier.results(job.id))))
        stored_run = runs_in(store).get(run)
    assert kept is not None and kept.status == "completed" and kept.results == 3
    assert len(snapshots) == 3 and all(snapshots)  # each page cites bytes kept in PostgreSQL
    assert crawled == (3, 3)  # the crawl's frontier is the store's, not a temporary file's
    assert stored_run is not None and stored_run.task == "what is page A"


@contextmanager
def serve_process(port: int, store: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``citesift serve`` as a process of its own on ``port``, keeping its jobs in ``store``."""
    command = [sys.executable, "-c", "from citesift.cli import main; main()", "serve"]
    given = ["--port", str(port), "--contact", CONTACT, "--allow-private", "--store", str(store)]
    process = subprocess.Popen(
        [*command, *given], cwd=store.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None and time.monotonic() < deadline
            try:
                httpx.get(f"{base}/openapi.json")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield base, process
    finally:
        process.kill()
        process.wait(15)


def test_a_killed_server_started_again_reports_its_cut_off_crawl_failed_with_its_pages(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    links = [f"/slow/{n}" for n in range(20)]
    serve_page(server, "/", page("Home", links))
    serve_page(server, "/done", page("Done", []))
    for link in links:
        serve_page(server, link, page(link, []), delay=0.4)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    store = tmp_path / "store.db"
    with serve_process(port, store) as (base, process):
        fc = client(base)
        done = fc.crawl(server.url("/done"), poll_interval=POLL, timeout=30)
        cut = fc.start_crawl(server.url("/"), limit=20)
        deadline = time.monotonic() + 30
        while fc.get_crawl_status(cut.id).completed < 2:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        process.kill()  # no shutdown: the job is left running in the store
        process.wait(15)
    with serve_process(port, store) as (base, _):
        status = httpx.get(f"{base}/v2/crawl/{cut.id}").json()
        kept = client(base).get_crawl_status(done.id)  # type: ignore[arg-type]
        with pytest.raises(FirecrawlError) as raised:  # how the SDK reports a failed crawl
            client(base).get_crawl_status(cut.id)
    assert INTERRUPTED in str(raised.value)
    assert status["status"] == "failed" and status["error"] == INTERRUPTED
    assert status["completed"] >= 2 and len(status["data"]) == status["completed"]
    assert kept.status == "completed" and urls_of(kept) == {server.url("/done")}


def test_a_crawl_asked_to_render_when_no_browser_starts_says_so_in_a_warning(
    api: str, server: MisbehavingServer
) -> None:
    page_route(server, "/ferry", JS_PAGE)
    serve_page(server, "/", page("Home", ["/ferry"]))
    asked = {"url": server.url("/"), "limit": 2, "scrapeOptions": {"waitFor": 100}}
    waited = httpx.post(f"{api}/v2/crawl", json=asked).json()["id"]
    plain = client(api).crawl(server.url("/"), limit=2, poll_interval=POLL, timeout=30)
    deadline = time.monotonic() + 30
    while (status := httpx.get(f"{api}/v2/crawl/{waited}").json())["status"] == "scraping":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert status["status"] == "completed" and status["completed"] == 2
    assert NO_BROWSER in status["warning"] and "/nonexistent/chromium" in status["warning"]
    assert not any("left at noon" in doc["markdown"] for doc in status["data"])  # as served
    unasked = httpx.get(f"{api}/v2/crawl/{plain.id}").json()  # type: ignore[attr-defined]
    assert unasked["status"] == "completed" and "warning" not in unasked
