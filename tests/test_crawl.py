"""crawl against a local site: each page once, breadth-first or best-first, scope, robots.txt
and Crawl-delay, 404s, soft 404s, redirects out of scope, include/exclude, depth and limit,
and a second run of the same crawl that fetches nothing again."""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path
from typing import Any

import pytest

from citesift.errors import InvalidArgument
from citesift.scrape.crawl import (
    MAX_PAUSE,
    UNDECIDED,
    CrawlOptions,
    crawl,
    crawl_disallowed,
    crawl_failures,
    crawl_id,
    crawl_results,
)
from citesift.scrape.map import MAX_SENDS
from citesift.store import SQLiteStore
from citesift.store.frontier import Frontier
from local_site import HTML, page, serve_page
from made_documents import pdf, word_file
from servers import MisbehavingServer, Query, Request, loopback_fetcher, loopback_policy, serve

pytestmark = pytest.mark.timeout(60)
PAGES = ["/", "/a", "/b", "/a/deep", "/a/deep/deeper"]


def build_site(server: MisbehavingServer, other: MisbehavingServer) -> None:
    """Pages that loop back, spell one page several ways, and lead to a 404, a soft 404, a
    page robots.txt disallows and a redirect to another host."""
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    serve_page(
        server,
        "/",
        page(
            "Home",
            ["/a", "/b", "/a#top", "./a", "/A/../a", "/missing", "/private", "/gone", "/out"],
        ),
    )
    serve_page(server, "/a", page("A", ["/", "/a/deep", "/b", "/out"]))
    serve_page(server, "/b", page("B", ["/", "/a"]))
    serve_page(server, "/a/deep", page("Deep", ["/a/deep/deeper"]))
    serve_page(server, "/a/deep/deeper", page("Deeper", ["/a/deep/deeper/deepest"]))
    serve_page(server, "/private", page("Private", []))
    soft = b"<html><head><title>Page not found</title></head><body>Sorry.</body></html>"
    server.route("/gone", lambda r, q: r.answer(200, soft, {"Content-Type": HTML}))
    to = other.url("/elsewhere")
    server.route("/out", lambda r, q: r.answer(302, b"", {"Location": to}))
    serve_page(other, "/elsewhere", page("Elsewhere", []))


def run(server: MisbehavingServer, store: SQLiteStore, **options: Any) -> list[dict[str, Any]]:
    """The records of a crawl of the server's site, one page at a time unless ``options``
    say otherwise (so they come in the order the pages were taken from the frontier)."""
    seen: list[dict[str, Any]] = []
    options.setdefault("concurrency", 1)
    crawl(
        server.url("/"),
        policy=loopback_policy(max_redirects=3),  # robots.txt off, redirects on: a crawl decides
        store=store,
        fetcher=loopback_fetcher(),
        on_result=seen.append,
        **options,
    )
    return seen


def paths(records: list[dict[str, Any]], server: MisbehavingServer) -> list[str]:
    return [record["url"].removeprefix(server.url("")) or "/" for record in records]


def test_a_crawl_reads_each_page_once_breadth_first_and_fails_what_is_not_a_page(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    with serve() as other, SQLiteStore(tmp_path / "s.db") as store:
        build_site(server, other)
        records = run(server, store, max_depth=3, formats=["markdown", "links"])
        assert paths(records, server) == PAGES
        assert [server.hits(path) for path in PAGES] == [1] * len(PAGES)
        assert server.hits("/a/deep/deeper/deepest") == 0  # past max_depth
        assert server.hits("/private") == 0 and server.hits("/missing") == 1
        assert "page about Deeper" in records[-1]["markdown"]
        assert {link["url"] for link in records[1]["links"]} >= {server.url("/a/deep")}
        assert other.hits("/elsewhere") == 0  # a redirect out of scope is never followed
        crawl_of = crawl_id(
            server.url("/"), CrawlOptions(max_depth=3, formats=("markdown", "links"))
        )
        failed = dict(Frontier(store).failures(crawl_of))
        assert failed[server.url("/missing")].startswith("HTTP 404")
        assert server.url("/private") not in failed  # left out, not failed
        assert list(crawl_disallowed(store, crawl_of)) == [server.url("/private")]
        assert "soft 404" in failed[server.url("/gone")]
        assert "out of scope" in failed[server.url("/out")]
        assert [r["url"] for r in crawl_results(store, crawl_of)] == [r["url"] for r in records]


def test_the_same_crawl_run_again_fetches_nothing_again(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    with serve() as other, SQLiteStore(tmp_path / "s.db") as store:
        build_site(server, other)
        first = run(server, store)
        hits = len(server.seen)
        assert run(server, store) == []
        assert len(server.seen) == hits
        assert len(first) == len(PAGES)


def test_a_redirect_target_joins_the_frontier_and_is_read_once(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", ["/moved", "/b"]))
    server.route("/moved", lambda r, q: r.answer(301, b"", {"Location": "/b"}))
    serve_page(server, "/b", page("B", ["/"]))
    with SQLiteStore(tmp_path / "s.db") as store:
        records = run(server, store)
    assert [r["url"] for r in records] == [server.url("/"), server.url("/b")]
    assert server.hits("/moved") == 1 and server.hits("/b") == 1


def test_each_format_a_page_can_give(server: MisbehavingServer, tmp_path: Path) -> None:
    body = (
        b'<html lang="en"><head><title>Solar</title>'
        b'<meta name="description" content="About panels."></head>'
        b"<body><h1>Solar</h1><h2>How panels work</h2><p>Panels turn light into power.</p>"
        b'<a href="/next">Next page</a></body></html>'
    )
    server.route("/", lambda r, q: r.answer(200, body, {"Content-Type": HTML}))
    kinds = ["markdown", "text", "blocks", "links", "metadata"]
    with SQLiteStore(tmp_path / "s.db") as store:
        [record] = run(server, store, max_depth=0, formats=kinds)
    assert "# How panels work\n" in record["markdown"]
    assert "Panels turn light into power." in record["text"]
    para = next(block for block in record["blocks"] if block["kind"] == "paragraph")
    html = body.decode()
    assert html[para["source_start"] : para["source_end"]] == "Panels turn light into power."
    assert record["links"] == [{"url": server.url("/next"), "text": "Next page"}]
    assert record["metadata"]["description"] == "About panels."
    assert record["metadata"]["language"] == "en"


def test_pdf_and_office_files_are_read_by_their_bytes_and_other_files_fail(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", ["/report", "/survey.html", "/logo.png"]))
    binary = "application/octet-stream"
    report = pdf(["Silt rose in March.", "It fell in May."], {"Title": "River report"})
    server.route("/report", lambda r, q: r.answer(200, report, {"Content-Type": binary}))
    survey = word_file()
    server.route("/survey.html", lambda r, q: r.answer(200, survey, {"Content-Type": binary}))
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    server.route("/logo.png", lambda r, q: r.answer(200, png, {"Content-Type": "image/png"}))
    with SQLiteStore(tmp_path / "s.db") as store:
        records = run(server, store, formats=["text", "blocks"])
        crawl_of = crawl_id(server.url("/"), CrawlOptions(formats=("text", "blocks")))
        failed = dict(Frontier(store).failures(crawl_of))
    by_path = {r["url"].removeprefix(server.url("")): r for r in records}
    assert sorted(by_path) == ["/", "/report", "/survey.html"]
    assert by_path["/report"]["title"] == "River report"
    assert "It fell in May." in by_path["/report"]["text"]
    assert [b["place"]["page"] for b in by_path["/report"]["blocks"]] == [1, 2]
    assert "record silt" in by_path["/survey.html"]["text"]
    assert "neither an HTML page nor" in failed[server.url("/logo.png")]


def test_depth_limit_include_and_exclude(server: MisbehavingServer, tmp_path: Path) -> None:
    with serve() as other, SQLiteStore(tmp_path / "s.db") as store:
        build_site(server, other)
        assert paths(run(server, store, max_depth=1), server) == ["/", "/a", "/b"]
        assert paths(run(server, store, limit=2), server) == ["/", "/a"]
        assert paths(run(server, store, include_paths=[r"^/a"]), server) == [
            "/",
            "/a",
            "/a/deep",
            "/a/deep/deeper",
        ]
        assert paths(run(server, store, exclude_paths=["deep", "^/b"]), server) == ["/", "/a"]


def test_include_and_exclude_patterns_search_the_path_not_the_query(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """As Firecrawl's includePaths: a pattern sees the link's pathname, never its query."""
    serve_page(server, "/", page("Home", ["/list?page=2", "/notes?from=/list"]))
    serve_page(server, "/list", page("List", []))
    serve_page(server, "/notes", page("Notes", []))
    with SQLiteStore(tmp_path / "s.db") as store:
        every = ["/", "/list?page=2", "/notes?from=/list"]
        assert paths(run(server, store, exclude_paths=["page="]), server) == every
        assert paths(run(server, store, include_paths=["^/list"]), server) == ["/", every[1]]
        assert paths(run(server, store, include_paths=["from=/list"]), server) == ["/"]


def backtracking_crawl(server: MisbehavingServer, tmp_path: Path, **options: Any) -> Any:
    """The crawl from ``/`` held to a pattern that backtracks without end on ``/aaa…!``,
    one page at a time, and the seconds it took."""
    with SQLiteStore(tmp_path / "s.db") as store:
        started = time.monotonic()
        ended = crawl(
            server.url("/"), policy=loopback_policy(), store=store, fetcher=loopback_fetcher(),
            include_paths=["^/(a|a)*$"], concurrency=1, **options,
        )  # fmt: skip
        return ended, time.monotonic() - started


def test_a_link_a_pattern_cannot_decide_in_time_is_not_followed_and_the_crawl_goes_on(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    trap = "/" + "a" * 40 + "!"  # ^/(a|a)*$ backtracks without end on it
    serve_page(server, "/", page("Home", [trap, "/aaa"]))
    serve_page(server, trap, page("Trap", []))
    serve_page(server, "/aaa", page("Aaa", []))
    seen: list[dict[str, Any]] = []
    ended, seconds = backtracking_crawl(server, tmp_path, on_result=seen.append)
    assert seconds < 20
    assert paths(seen, server) == ["/", "/aaa"]
    assert ended.warnings == (UNDECIDED,)


def test_a_pattern_that_keeps_running_out_of_time_stops_stalling_the_crawl(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    traps = [f"/{'a' * 40}!{n}" for n in range(300)]  # 50 ms each: 15 s of stalling in all
    serve_page(server, "/", page("Home", traps))
    ended, seconds = backtracking_crawl(server, tmp_path)
    assert seconds < 8  # the run's 2 s of stalling, not 15 s
    assert ended.warnings == (UNDECIDED,)


def test_a_query_crawls_best_first(server: MisbehavingServer, tmp_path: Path) -> None:
    serve_page(server, "/", page("Home", ["/news", "/shop", "/solar-power"]))
    serve_page(server, "/news", page("News", []))
    serve_page(server, "/shop", page("Shop", []))
    serve_page(server, "/solar-power", page("Solar", ["/solar-power/panels"]))
    serve_page(server, "/solar-power/panels", page("Panels", []))
    with SQLiteStore(tmp_path / "s.db") as store:
        found = paths(run(server, store, query="solar panels", limit=3), server)
    assert found == ["/", "/solar-power", "/solar-power/panels"]


def test_crawl_delay_spaces_the_requests(server: MisbehavingServer, tmp_path: Path) -> None:
    server.robots = (200, "User-agent: *\nCrawl-delay: 0.4\n")
    serve_page(server, "/", page("Home", ["/a", "/b"]))
    serve_page(server, "/a", page("A", []))
    serve_page(server, "/b", page("B", []))
    with SQLiteStore(tmp_path / "s.db") as store:
        run(server, store)
    times = [seen.at for seen in server.seen if seen.path != "/robots.txt"]
    assert len(times) == 3
    assert all(later - earlier >= 0.35 for earlier, later in itertools.pairwise(times))


def answers_429(server: MisbehavingServer, path: str, times: int) -> None:
    """Answer ``path``'s first ``times`` requests 429 (Retry-After: 1 s), then a page."""

    def handler(request: Request, query: Query) -> None:
        if server.hits(path) <= times:
            request.answer(429, b"slow down", {"Retry-After": "1"})
        else:
            request.answer(200, page("Later", []), {"Content-Type": HTML})

    server.route(path, handler)


def test_a_page_answered_429_is_asked_again_after_its_retry_after(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", ["/a", "/b"]))
    answers_429(server, "/a", 1)
    serve_page(server, "/b", page("B", []))
    with SQLiteStore(tmp_path / "s.db") as store:
        assert sorted(paths(run(server, store), server)) == ["/", "/a", "/b"]
    asked = [seen.at for seen in server.seen if seen.path == "/a"]
    assert len(asked) == 2 and asked[1] - asked[0] >= 0.9


def test_a_page_answered_429_every_time_fails_after_a_few_requests(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", ["/a"]))
    answers_429(server, "/a", 100)
    with SQLiteStore(tmp_path / "s.db") as store:
        ended = crawl(
            server.url("/"), policy=loopback_policy(), store=store, fetcher=loopback_fetcher()
        )
        [failure] = crawl_failures(store, ended.crawl)
    assert ended.done == 1 and ended.failed == 1
    assert failure["url"] == server.url("/a") and "429" in failure["error"]
    assert server.hits("/a") == MAX_SENDS


def test_a_host_asking_to_wait_longer_than_a_crawl_waits_fails_its_pages_at_once(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", ["/a", "/b"]))
    server.route("/a", lambda r, q: r.answer(429, b"later", {"Retry-After": "3600"}))
    serve_page(server, "/b", page("B", []))
    began = time.monotonic()
    with SQLiteStore(tmp_path / "s.db") as store:
        ended = crawl(
            server.url("/"), policy=loopback_policy(), store=store, fetcher=loopback_fetcher(),
            concurrency=1,
        )  # fmt: skip
        failures = list(crawl_failures(store, ended.crawl))
    assert time.monotonic() - began < 10
    assert ended.done == 1 and ended.failed == 2 and server.hits("/a") == 1
    assert server.hits("/b") == 0  # failed without being asked: its host is blocked
    [waited] = [f["error"] for f in failures if f["url"] == server.url("/a")]
    bound = rf"longer than a crawl waits \({MAX_PAUSE:g} s\)"
    assert re.fullmatch(rf"the host asked to wait 3[56]\d\d s more, {bound}", waited)


def test_a_host_answering_every_page_503_has_its_later_pages_failed_at_their_first_answer(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    pages = ["/a", "/b", "/c", "/d"]
    serve_page(server, "/", page("Home", pages))
    for path in pages:
        server.route(path, lambda r, q: r.answer(503, b"checking", {"Retry-After": "1"}))
    with SQLiteStore(tmp_path / "s.db") as store:
        ended = crawl(
            server.url("/"), policy=loopback_policy(), store=store, fetcher=loopback_fetcher(),
            concurrency=1,
        )  # fmt: skip
    assert ended.done == 1 and ended.failed == len(pages)
    asked = sum(server.hits(path) for path in pages)  # three times a page before
    assert MAX_SENDS + len(pages) - 1 <= asked <= MAX_SENDS + len(pages)


def test_several_hosts_are_crawled_at_once_each_within_its_limit(tmp_path: Path) -> None:
    def slow(request: Request, query: Query) -> None:
        time.sleep(0.3)
        request.answer(200, page("Slow", []), {"Content-Type": HTML})

    with serve() as one, serve() as two, SQLiteStore(tmp_path / "s.db") as store:
        links = [one.url(f"/p{i}") for i in range(4)] + [two.url(f"/p{i}") for i in range(4)]
        serve_page(one, "/", page("Home", links))
        for server in (one, two):
            for i in range(4):
                server.route(f"/p{i}", slow)
        records = run(one, store, allow_external=True, max_depth=1, concurrency=8)
    assert len(records) == 9
    for server in (one, two):
        starts = sorted(seen.at for seen in server.seen if seen.path.startswith("/p"))
        # at most two requests in flight per host: the third starts after the first ended
        assert starts[2] - starts[0] >= 0.25
    first = min(seen.at for seen in two.seen)
    assert first < max(seen.at for seen in one.seen)  # the hosts overlapped


def test_a_crawl_refuses_options_that_make_no_sense(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument, match="limit"):
        CrawlOptions(limit=0)
    with pytest.raises(InvalidArgument, match="include_paths"):
        CrawlOptions(include_paths=("(",))
    with pytest.raises(InvalidArgument, match="formats"):
        CrawlOptions(formats=("pdf",))
    with pytest.raises(InvalidArgument, match="exclude_paths"):
        CrawlOptions(exclude_paths="deep")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="lease"):
        CrawlOptions(lease=0.5)
