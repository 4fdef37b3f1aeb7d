"""A crawl's pages that only JavaScript writes, rendered in the real headless Chromium when
the crawl asks (``render="auto"``, ``--render auto``): one lazy browser for the run, the
rendered page kept beside the static one and cited, its links followed; never by default;
read as served, with a warning, when no browser can start."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chromium import browsers_seen, left_behind
from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.scrape.browser import find_executable
from citesift.scrape.crawl import NO_BROWSER, CrawlOptions, CrawlProgress, crawl
from citesift.scrape.crawl_workers import crawl_with_workers
from citesift.store import SQLiteStore
from citesift.store.snapshots import snapshots_in
from local_site import page, serve_page
from servers import MisbehavingServer, Query, Request, loopback_fetcher, loopback_policy
from test_scrape import page_route
from test_scrape_cli import CONTACT

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
SCRIPTED = """<!doctype html><html><head><title>Log {n}</title></head>
<body><div id="root"></div><script>
document.getElementById("root").innerHTML = "<h1>Harbour log {n}</h1>"
  + "<p>Only the script wrote that ferry {n} left at noon.</p><a href='/next{n}'>next</a>";
</script></body></html>"""
WARNING_BOUND_S = 10.0
"""Seconds a page waits for the caller to see a worker's warning before giving up (within
the fetch deadline, so the page is still read when the warning never comes)."""


def site(server: MisbehavingServer) -> None:
    """A static home linking two pages only JavaScript writes, each linking on (by script)."""
    serve_page(server, "/", page("Home", ["/js1", "/js2"]))
    for n in (1, 2):
        page_route(server, f"/js{n}", SCRIPTED.format(n=n))
        serve_page(server, f"/next{n}", page(f"Next {n}", []))


def crawled(server: MisbehavingServer, store: SQLiteStore, **options: Any) -> dict[str, Any]:
    """The records of a crawl of the site, by path."""
    seen: list[dict[str, Any]] = []
    crawl(server.url("/"), formats=["markdown"], policy=loopback_policy(), store=store,
          fetcher=loopback_fetcher(), on_result=seen.append, **options)  # fmt: skip
    return {record["url"].removeprefix(server.url("")) or "/": record for record in seen}


def test_pages_javascript_writes_are_rendered_by_one_browser_only_when_asked(
    server: MisbehavingServer,
    tmp_path: Path,
    own_tmp: str,
) -> None:
    site(server)
    with SQLiteStore(tmp_path / "plain.db") as store, browsers_seen(own_tmp) as none:
        plain = crawled(server, store)
    assert sorted(plain) == ["/", "/js1", "/js2"] and not none  # never: no browser started
    assert "left at noon" not in plain["/js1"]["markdown"]
    with SQLiteStore(tmp_path / "rendered.db") as store, browsers_seen(own_tmp) as launched:
        rendered = crawled(server, store, render="auto")
        kept = snapshots_in(store)
        cited = {path: kept.get(record["snapshot_id"]) for path, record in rendered.items()}
    assert sorted(rendered) == ["/", "/js1", "/js2", "/next1", "/next2"]  # script links followed
    assert len(launched) == 1  # one browser for the run, started by the first page needing it
    for n in (1, 2):
        assert f"ferry {n} left at noon" in rendered[f"/js{n}"]["markdown"]
        snapshot = cited[f"/js{n}"]
        assert snapshot is not None and snapshot.header("x-citesift-derived") == "rendered"
        assert f"ferry {n} left at noon" in snapshot.body.decode()
    home = cited["/"]
    assert home is not None and home.header("x-citesift-derived") is None  # rich: as served
    assert left_behind(own_tmp) == []


def test_the_crawl_command_renders_with_render_auto(
    server: MisbehavingServer,
    tmp_path: Path,
    own_tmp: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    site(server)
    args = ["crawl", server.url("/"), "--allow-private", "--contact", CONTACT, "--max-depth", "1"]
    result = CliRunner().invoke(app, [*args, "--render", "auto"])
    assert result.exit_code == 0, result.output
    records = {json.loads(line)["url"]: json.loads(line) for line in result.stdout.splitlines()}
    assert "ferry 2 left at noon" in records[server.url("/js2")]["markdown"]
    refused = CliRunner().invoke(app, [*args, "--render", "always"])
    assert refused.exit_code == 2 and "always" in refused.output
    unrendered = CliRunner().invoke(app, [*args, "--wait-for", "300"])  # waits need a browser
    assert unrendered.exit_code == EXIT_USAGE and "render='auto'" in unrendered.output
    assert left_behind(own_tmp) == []


def test_the_crawl_renders_with_the_browser_citesift_toml_names_and_a_bad_one_is_an_error(
    server: MisbehavingServer,
    tmp_path: Path,
    own_tmp: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    site(server)
    marker = tmp_path / "launched"
    named = tmp_path / "named-chromium"
    named.write_text(f'#!/bin/sh\ntouch "{marker}"\nexec "{find_executable()}" "$@"\n')
    named.chmod(0o755)
    args = ["crawl", server.url("/"), "--allow-private", "--contact", CONTACT, "--max-depth", "1"]
    (tmp_path / "citesift.toml").write_text(f'browser = "{named}"\n')
    result = CliRunner().invoke(app, [*args, "--render", "auto", "--wait-for", "#root h1"])
    assert result.exit_code == 0, result.output
    assert marker.exists()  # the crawl's Chromium is the one the setting names
    assert "ferry 1 left at noon" in result.stdout
    (tmp_path / "citesift.toml").write_text('browser = "/nonexistent/chromium"\n')
    refused = CliRunner().invoke(app, [*args, "--render", "auto"])
    assert refused.exit_code == EXIT_USAGE
    assert "browser" in refused.output and "/nonexistent/chromium" in refused.output
    assert "citesift.toml" in refused.output
    plain = CliRunner().invoke(app, [*args, "--render", "never"])  # no browser: not checked
    assert plain.exit_code == 0, plain.output
    assert left_behind(own_tmp) == []


def test_a_crawl_asked_to_render_when_no_browser_starts_reads_as_served_and_warns_once(
    server: MisbehavingServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site(server)
    seen: list[dict[str, Any]] = []
    with SQLiteStore(tmp_path / "unrendered.db") as store:
        ended = crawl(server.url("/"), render="auto", executable="/nonexistent/chromium",
                      policy=loopback_policy(), store=store, fetcher=loopback_fetcher(),
                      on_result=seen.append)  # fmt: skip
        plain = crawl(server.url("/"), policy=loopback_policy(), store=store,
                      fetcher=loopback_fetcher())  # fmt: skip
    with SQLiteStore(tmp_path / "workers.db") as store:
        shared = crawl(server.url("/"), render="auto", executable="/nonexistent/chromium",
                       policy=loopback_policy(), store=store, workers=2)  # fmt: skip
    assert ended.done == 3 and not any("left at noon" in r["markdown"] for r in seen)
    [warning] = ended.warnings  # two pages needed a browser: one warning
    assert NO_BROWSER in warning and "/nonexistent/chromium" in warning
    assert shared.done == 3 and shared.warnings == (warning,)  # once, whichever workers saw it
    assert plain.warnings == ()  # never asked to render: nothing to warn of
    monkeypatch.chdir(tmp_path)
    broken = tmp_path / "broken-chromium"  # there, but it cannot start
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    (tmp_path / "citesift.toml").write_text(f'browser = "{broken}"\n')
    args = ["crawl", server.url("/"), "--allow-private", "--contact", CONTACT, "--max-depth", "1"]
    result = CliRunner().invoke(app, [*args, "--render", "auto", "--store", "cli.db"])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 3 and "left at noon" not in result.stdout
    said = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(said) == 1 and NO_BROWSER in said[0] and str(broken) in said[0]
    assert "Call log" not in result.stderr  # why, in a line: not the launch's whole log


def test_a_workers_warning_reaches_the_caller_while_the_crawl_runs(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """The last page is answered only once the caller's progress shows the warning (or, the
    warning never coming, after a bound, so the test fails rather than hangs)."""
    released = threading.Event()
    held: list[bool] = []

    def last(request: Request, query: Query) -> None:
        held.append(released.wait(WARNING_BOUND_S))
        request.answer(200, page("Last", []), {"Content-Type": "text/html"})

    def heard(progress: CrawlProgress) -> None:
        if progress.warnings:
            released.set()

    serve_page(server, "/", page("Home", ["/js"]))
    page_route(
        server, "/js", SCRIPTED.format(n=1).replace("</body>", "<a href='/last'></a></body>")
    )
    server.route("/last", last)
    with SQLiteStore(tmp_path / "workers.db") as store:
        ended = crawl_with_workers(server.url("/"), CrawlOptions(render="auto"), 2,
                                   policy=loopback_policy(), store=store, on_progress=heard,
                                   executable="/nonexistent/chromium")  # fmt: skip
    assert held == [True]  # the warning was seen while the last page was still being read
    assert ended.done == 3 and len(ended.warnings) == 1 and NO_BROWSER in ended.warnings[0]
