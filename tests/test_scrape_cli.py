"""``citesift scrape`` against a local server: formats printed, failures said, settings taken."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.settings import Settings
from servers import MisbehavingServer
from test_scrape import APP_SHELL, CHALLENGE, RICH, page_route
from test_scrape_documents import REPORT

pytestmark = pytest.mark.timeout(60)
CONTACT = "https://example.org/contact"
NO_BROWSER = {"CITESIFT_BROWSER": "/nonexistent/chromium"}


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner in an empty directory with no ``CITESIFT_*`` settings."""
    monkeypatch.chdir(tmp_path)
    for name in ("CONFIG", *(field.name.upper() for field in fields(Settings))):
        monkeypatch.delenv(f"CITESIFT_{name}", raising=False)
    return CliRunner()


def scrape(runner: CliRunner, url: str, *args: str) -> object:
    given = [url, "--allow-private", "--contact", CONTACT, *args]
    return runner.invoke(app, ["scrape", *given], env=NO_BROWSER)


def test_scrape_prints_markdown_and_says_the_decision(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    page_route(server, "/rich", RICH)
    result = scrape(runner, server.url("/rich"))
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert result.stdout.startswith("The river rises")  # type: ignore[attr-defined]
    assert "render: not rendered: the static page is rich" in result.stderr  # type: ignore[attr-defined]


def test_scrape_prints_links_as_json(runner: CliRunner, server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    result = scrape(runner, server.url("/rich"), "--format", "links")
    links = json.loads(result.stdout)  # type: ignore[attr-defined]
    assert {"url": "https://example.org/x", "text": "a map"} in links


def test_scrape_json_holds_the_result(runner: CliRunner, server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    result = scrape(runner, server.url("/rich"), "--format", "json", "--exclude-tags", "p.lead")
    body = json.loads(result.stdout)  # type: ignore[attr-defined]
    assert body["success"] is True and body["status"] == 200
    assert set(body["formats"]) == {"markdown", "links", "metadata"}
    assert "The river rises" not in body["formats"]["markdown"]
    assert body["render"]["why"].startswith("the static page")


def test_scrape_of_a_challenge_fails_with_its_code(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    page_route(server, "/check", CHALLENGE)
    result = scrape(runner, server.url("/check"))
    assert result.exit_code == 1 and result.stdout == ""  # type: ignore[attr-defined]
    assert "scrape failed: ACCESS_BARRIER" in result.stderr  # type: ignore[attr-defined]


def test_render_always_without_a_browser_is_a_clear_error(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    page_route(server, "/app", APP_SHELL)
    result = scrape(runner, server.url("/app"), "--render", "always")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "RENDER_UNAVAILABLE" in result.stderr  # type: ignore[attr-defined]
    assert "/nonexistent/chromium" in result.stderr  # type: ignore[attr-defined]


def test_auto_without_a_browser_warns_and_prints_the_static_page(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    page_route(server, "/app", APP_SHELL)
    result = scrape(runner, server.url("/app"), "--format", "raw_html")
    assert result.exit_code == 0 and 'id="root"' in result.stdout  # type: ignore[attr-defined]
    assert "warning: rendering unavailable" in result.stderr  # type: ignore[attr-defined]


def test_bad_flags_are_usage_errors(runner: CliRunner, server: MisbehavingServer) -> None:
    assert scrape(runner, server.url("/ok"), "--wait-for", "[[[").exit_code == 64  # type: ignore[attr-defined]
    assert scrape(runner, server.url("/ok"), "--block-resources", "scripts").exit_code == 64  # type: ignore[attr-defined]
    assert scrape(runner, server.url("/ok"), "--viewport", "wide").exit_code == 64  # type: ignore[attr-defined]
    assert scrape(runner, server.url("/ok"), "--viewport", "²x²").exit_code == 64  # type: ignore[attr-defined]
    assert scrape(runner, server.url("/ok"), "--headers", "no colon").exit_code == 64  # type: ignore[attr-defined]
    assert scrape(runner, server.url("/ok"), "--headers", "User-Agent: x").exit_code == 64  # type: ignore[attr-defined]
    assert scrape(runner, "ftp://x/").exit_code == 64  # type: ignore[attr-defined]


def test_scrape_of_a_pdf_prints_its_text_and_no_html(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    page_route(server, "/report", REPORT, content_type="application/octet-stream")
    result = scrape(runner, server.url("/report"), "--format", "text")
    assert result.exit_code == 0 and "The ferry left at noon." in result.stdout  # type: ignore[attr-defined]
    assert "pdf file is read as a file" in result.stderr  # type: ignore[attr-defined]
    html = scrape(runner, server.url("/report"), "--format", "html")
    assert html.exit_code == 1 and "a pdf file has no html" in html.stderr  # type: ignore[attr-defined]


def test_a_host_asking_to_wait_exits_try_again_later(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    result = scrape(runner, server.url("/status?code=429&retry-after=30"))
    assert result.exit_code == 75 and "scrape failed: RATE_LIMITED" in result.stderr  # type: ignore[attr-defined]


def test_a_page_answered_with_404_is_a_failure_its_json_keeps(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    page_route(server, "/gone", RICH, status=404)
    shown = scrape(runner, server.url("/gone"))
    assert shown.exit_code == 1 and shown.stdout == ""  # type: ignore[attr-defined]
    assert "error: the server answered 404 Not Found" in shown.stderr  # type: ignore[attr-defined]
    body = scrape(runner, server.url("/gone"), "--format", "json")
    assert body.exit_code == 1  # type: ignore[attr-defined]
    answered = json.loads(body.stdout)  # type: ignore[attr-defined]
    assert answered["status"] == 404 and answered["success"] is True  # as Firecrawl answers
    assert "The river rises" in answered["formats"]["markdown"]
    assert "the server answered 404 Not Found" in body.stderr  # type: ignore[attr-defined]
