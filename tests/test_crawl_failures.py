"""A crawl's failures are visible: ``crawl_failures`` lists each page that failed with why,
and ``citesift crawl`` writes them after the pages, sums them up on standard error, exits 1
when no page could be read, and checks its arguments before it says anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift import CrawlProgress, SQLiteStore, crawl, crawl_failures, crawl_results
from citesift.cli import app
from citesift.cli.crawl import _FailureSummary, unread_ending
from citesift.sources.reasons import skipped_reason
from local_site import page, serve_page
from servers import MisbehavingServer, loopback_policy

pytestmark = pytest.mark.timeout(60)
CONTACT = "https://example.org/contact"


def crawl_args(server: MisbehavingServer, path: str, *more: str) -> list[str]:
    return ["crawl", server.url(path), "--allow-private", "--contact", CONTACT, *more]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory to run in (its default store is its own)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_crawl_failures_lists_each_failed_page_with_why_and_its_code(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    serve_page(server, "/", page("Home", ["/a", "/missing", "/private"]))
    serve_page(server, "/a", page("A", []))
    with SQLiteStore(tmp_path / "crawl.db") as store:
        policy = loopback_policy().with_(robots=True)
        ended = crawl(server.url("/"), policy=policy, store=store)
        failed = list(crawl_failures(store, ended.crawl))
        assert len(list(crawl_results(store, ended.crawl))) == 2
    by_url = {failure["url"]: failure for failure in failed}
    assert set(by_url) == {server.url("/missing")}  # /private is left out, not failed
    assert by_url[server.url("/missing")]["error"].startswith("HTTP 404")
    assert ended.failed == 1 and ended.disallowed == 1


def test_a_crawl_whose_start_page_fails_says_why_and_exits_1(
    server: MisbehavingServer, here: Path
) -> None:
    result = CliRunner().invoke(app, crawl_args(server, "/nothere"))
    assert result.exit_code == 1, result.output
    [line] = result.stdout.splitlines()
    failure = json.loads(line)
    assert failure["url"] == server.url("/nothere") and failure["error"].startswith("HTTP 404")
    assert "1 page(s) failed:" in result.stderr
    assert "1 × HTTP 404 Not Found" in result.stderr and server.url("/nothere") in result.stderr
    assert "0 done, 0 queued, 1 failed" in result.stderr
    assert "error: no page of the crawl could be read" in result.stderr


def test_a_start_page_robots_txt_forbids_is_a_failure_with_its_reason(
    server: MisbehavingServer, here: Path
) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /\n")
    serve_page(server, "/", page("Home", []))
    result = CliRunner().invoke(app, crawl_args(server, "/"))
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["code"] == "ROBOTS_DISALLOWED"
    assert "robots.txt" in result.stderr
    assert server.hits("/") == 0


def test_failures_are_grouped_by_reason_and_follow_the_pages_in_out(
    server: MisbehavingServer, here: Path
) -> None:
    missing = [f"/gone{i}" for i in range(5)]
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    serve_page(server, "/", page("Home", [*missing, "/private", "/a"]))
    serve_page(server, "/a", page("A", []))
    out = here / "pages.jsonl"
    result = CliRunner().invoke(app, crawl_args(server, "/", "--out", str(out)))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    records = [json.loads(line) for line in out.read_text().splitlines()]
    pages = [r["url"] for r in records if "error" not in r]
    failed = [r["url"] for r in records if "error" in r]
    assert pages == [server.url("/"), server.url("/a")]
    assert sorted(failed) == sorted(server.url(p) for p in missing)  # /private left out
    assert records[: len(pages)] == [r for r in records if "error" not in r]  # pages first
    summary = result.stderr.splitlines()
    assert "5 page(s) failed:" in summary
    [grouped] = [line for line in summary if line.startswith("  5 × HTTP 404")]
    assert grouped.endswith(", …") and grouped.count(server.url("")) == 3  # the first three
    assert not any("robots.txt" in line for line in summary)
    assert "2 done, 0 queued, 5 failed, 1 disallowed," in summary[-1]
    assert server.hits("/private") == 0
    again = CliRunner().invoke(app, crawl_args(server, "/", "--out", str(out)))
    assert again.exit_code == 0 and out.read_text().splitlines() == [
        json.dumps(r, ensure_ascii=False) for r in records
    ]  # a run again writes every page and every failure once


def test_redirect_targets_in_reasons_do_not_split_a_group(
    server: MisbehavingServer, here: Path
) -> None:
    def away(target: str) -> object:
        def handler(request: object, query: object) -> None:
            request.answer(302, b"", {"Location": target})  # type: ignore[attr-defined]

        return handler

    links = [f"/out{i}" for i in range(3)]
    for i, path in enumerate(links):
        server.route(path, away(f"https://elsewhere{i}.example/"))  # type: ignore[arg-type]
    serve_page(server, "/", page("Home", links))
    result = CliRunner().invoke(app, crawl_args(server, "/"))
    assert result.exit_code == 0, result.output
    assert "  3 × redirected out of scope, to …:" in result.stderr


def test_arguments_are_checked_before_the_crawl_is_announced(
    server: MisbehavingServer, here: Path
) -> None:
    unknown = CliRunner().invoke(app, ["crawl", "--resume", "nosuchid", "--contact", CONTACT])
    assert unknown.exit_code == 64 and "resume" in unknown.stderr
    assert "crawl nosuchid" not in unknown.stderr
    serve_page(server, "/", page("Home", []))
    folder = CliRunner().invoke(app, crawl_args(server, "/", "--out", str(here)))
    assert folder.exit_code == 64 and "cannot write" in folder.stderr
    assert "run the same command" not in folder.stderr
    assert server.hits("/") == 0


def test_a_reason_names_the_status_with_its_phrase_once() -> None:
    assert skipped_reason(404, "HTTP 404") == "HTTP 404 Not Found"
    blocked = "HTTP 503: the host asked us to wait; it is blocked"
    assert skipped_reason(503, blocked) == (
        "HTTP 503 Service Unavailable: the host asked us to wait; it is blocked"
    )
    assert skipped_reason(599, "HTTP 599") == "HTTP 599"
    assert skipped_reason(None, "disallowed by robots.txt") == "disallowed by robots.txt"


def test_the_summary_names_the_most_frequent_reasons_and_counts_the_rest() -> None:
    summary = _FailureSummary()
    for kind in range(7):
        for n in range(kind + 1):
            url = f"https://a.example/{kind}/{n}" + "x" * (500 if n == 0 else 0)
            summary.add({"url": url, "error": f"reason {kind}\n  said twice", "code": "X"})
    lines = summary.lines()
    assert lines[0] == "28 page(s) failed:"
    assert [line.split(":")[0] for line in lines[1:6]] == [
        f"  {k + 1} × reason {k} said twice" for k in range(6, 1, -1)
    ]
    assert lines[6] == "  3 more for 2 other reason(s)" and len(lines) == 7
    assert all(len(line) < 500 for line in lines)  # a long URL is cut short


def test_a_crawl_its_limit_stops_before_a_page_is_read_exits_75_not_1(
    server: MisbehavingServer, here: Path
) -> None:
    serve_page(server, "/a", page("A", []))
    result = CliRunner().invoke(app, crawl_args(server, "/redirect?to=/a", "--limit", "1"))
    assert result.exit_code == 75, result.output
    assert "0 done, 1 queued, 0 failed" in result.stderr
    assert "error: the crawl reached its --limit before a page was read (1 queued);" in (
        result.stderr
    )
    assert "raise --limit to go on" in result.stderr
    assert "could not be read" not in result.stderr and server.hits("/a") == 0


@pytest.mark.parametrize(
    ("done", "queued", "failed", "status"),
    [(1, 5, 3, None), (0, 2, 0, 75), (0, 2, 1, 1), (0, 0, 1, 1), (0, 0, 0, 1)],
)
def test_a_crawl_that_read_nothing_exits_75_only_when_its_limit_alone_stopped_it(
    done: int, queued: int, failed: int, status: int | None
) -> None:
    ending = unread_ending(CrawlProgress("c", done, queued, failed, 0.0))
    assert (ending and ending[1]) == status
    if ending is not None and failed:  # a retry would fail again: no "retry later"
        assert "--limit" not in ending[0]


def test_a_crawl_its_limit_counts_pages_tried_failures_included(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    linked = ["/gone1", "/gone2", "/gone3", "/a"]
    serve_page(server, "/", page("Home", linked))
    serve_page(server, "/a", page("A", []))
    with SQLiteStore(tmp_path / "crawl.db") as store:
        ended = crawl(server.url("/"), limit=3, policy=loopback_policy(), store=store)
    assert ended.done + ended.failed == 3 and ended.queued == 2  # a 404 uses up the limit
    assert sum(server.hits(path) for path in linked) == 2
    help_text = CliRunner().invoke(app, ["crawl", "--help"], terminal_width=200).stdout
    assert "failures included" in " ".join(help_text.split())
