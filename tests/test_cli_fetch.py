"""``citesift fetch`` against a local server, with settings from flags, environment and file."""

from __future__ import annotations

import re
import socket
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.settings import ConfigError, Settings, load_settings
from local_site import serve_bytes
from servers import SAMPLE_TEXT, MisbehavingServer
from test_scrape_documents import REPORT

pytestmark = pytest.mark.timeout(60)
CONTACT = "https://example.org/contact"


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner in an empty directory, no ``CITESIFT_*`` settings, no host state left over."""
    monkeypatch.chdir(tmp_path)
    for name in ("CONFIG", "HOME", *(field.name.upper() for field in fields(Settings))):
        monkeypatch.delenv(f"CITESIFT_{name}", raising=False)
    return CliRunner()


def fetch(runner: CliRunner, *args: str, env: dict[str, str] | None = None) -> object:
    return runner.invoke(app, ["fetch", *args], env=env)


def as_text(runner: CliRunner, url: str) -> object:
    """``fetch --format text`` of ``url`` (loopback allowed), which must succeed."""
    result = fetch(runner, url, "--allow-private", "--contact", CONTACT, "--format", "text")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    return result


def test_fetch_prints_status_final_url_type_charset_and_size(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    result = fetch(runner, server.url("/ok"), "--allow-private", "--contact", CONTACT)
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines() if line)  # type: ignore[attr-defined]
    assert lines["status"] == "200"
    assert lines["charset"] == "utf-8"
    assert lines["size"] == "60 bytes"
    assert f"final url    {server.url('/ok')}" in result.stdout  # type: ignore[attr-defined]
    ua = server.seen[-1].headers["User-Agent"]
    assert ua.startswith("citesift/") and ua.endswith(f"({CONTACT})")


def test_text_prints_the_readable_text_decoded_and_the_summary_on_stderr(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    url = server.url("/charset?actual=cp1252&meta=windows-1252")
    result = as_text(runner, url)
    assert result.stdout == SAMPLE_TEXT + "\n"  # type: ignore[attr-defined]
    assert "cp1252" in result.stderr and "status" in result.stderr  # type: ignore[attr-defined]


def test_text_of_a_plain_text_body_is_the_body_decoded(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    url = server.url("/ok?body=a%3Cb%3E+plain&type=text/plain")
    assert as_text(runner, url).stdout == "a<b> plain\n"  # type: ignore[attr-defined]


WIDE_PAGE = "<html><p>Glaciers carve fjords.</p></html>"


@pytest.mark.parametrize("order", ["utf-16-le", "utf-16-be"])
def test_an_undeclared_utf16_page_reads_alike_fetched_extracted_and_indexed(
    runner: CliRunner, server: MisbehavingServer, tmp_path: Path, order: str
) -> None:
    """BOM-less UTF-16 served as text/html with no charset: its NULs tell it, so fetching,
    extracting its snapshot and indexing the same bytes as a file all read its words."""
    body = WIDE_PAGE.encode(order)
    serve_bytes(server, "/wide", body, "text/html")
    summary = fetch(runner, server.url("/wide"), "--allow-private", "--contact", CONTACT)
    assert f"charset      {order}" in summary.stdout  # type: ignore[attr-defined]
    assert as_text(runner, server.url("/wide")).stdout == "Glaciers carve fjords.\n"  # type: ignore[attr-defined]
    page = tmp_path / "wide.html"
    page.write_bytes(body)
    store = str(tmp_path / "index.db")
    added = runner.invoke(app, ["index", "add", str(page), "--store", store, "--retrieval", "bm25"])
    assert added.exit_code == 0, added.output
    found = runner.invoke(app, ["search", "fjords", "--store", store, "--retrieval", "bm25"])
    assert "Glaciers carve fjords." in found.stdout


def test_not_a_url_is_a_usage_error(runner: CliRunner) -> None:
    for text in ("not-a-url", "ftp://example.org/", "http://"):
        result = fetch(runner, text, "--contact", CONTACT)
        assert result.exit_code == 64, text
        assert "not an http(s) URL" in result.stderr  # type: ignore[attr-defined]


def test_an_unreachable_host_is_said_to_be_unreachable_not_a_robots_txt_problem(
    runner: CliRunner,
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = fetch(runner, f"http://127.0.0.1:{port}/", "--allow-private", "--contact", CONTACT)
    assert result.exit_code == 1
    assert "unreachable" in result.stderr and "robots" not in result.stderr  # type: ignore[attr-defined]
    assert "retry later" not in result.stderr  # type: ignore[attr-defined]


def test_a_hosts_retry_after_block_holds_for_the_next_run_which_sends_nothing(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    args = ("--allow-private", "--contact", CONTACT, "--no-robots")
    first = fetch(runner, server.url("/status?code=429&retry-after=3600"), *args)
    assert first.exit_code == 75 and "try again in" in first.stderr  # type: ignore[attr-defined]
    second = fetch(runner, server.url("/ok"), *args)
    assert second.exit_code == 75
    assert "blocked" in second.stderr  # type: ignore[attr-defined]
    assert re.search(r"try again in (59|60) min", second.stderr)  # type: ignore[attr-defined]
    assert len(server.seen) == 1


def test_raw_writes_the_body_bytes_only(runner: CliRunner, server: MisbehavingServer) -> None:
    url = server.url("/charset?actual=cp1252")
    result = fetch(runner, url, "--allow-private", "--contact", CONTACT, "--format", "raw")
    assert result.exit_code == 0
    page = f"<html><head></head><body><p>{SAMPLE_TEXT}</p></body></html>"
    assert result.stdout_bytes == page.encode("cp1252")  # type: ignore[attr-defined]


def test_save_then_offline_replays_the_same_snapshot(
    runner: CliRunner, server: MisbehavingServer, tmp_path: Path
) -> None:
    store = str(tmp_path / "s.db")
    common = ("--allow-private", "--contact", CONTACT, "--store", store)
    saved = fetch(runner, server.url("/ok"), "--save", *common)
    assert saved.exit_code == 0
    replayed = fetch(runner, server.url("/ok"), "--offline", *common)
    assert replayed.exit_code == 0
    assert replayed.stdout == saved.stdout  # type: ignore[attr-defined]
    assert "snapshot" in saved.stdout  # type: ignore[attr-defined]
    uncontactable = fetch(runner, server.url("/ok"), "--offline", "--store", store)
    assert uncontactable.stdout == saved.stdout  # type: ignore[attr-defined]  # no contact needed
    assert len(server.seen) == 2  # robots.txt and the page, once


def test_store_and_offline_settings_come_from_the_environment_too(
    runner: CliRunner, server: MisbehavingServer, tmp_path: Path
) -> None:
    env = {
        "CITESIFT_CONTACT": CONTACT,
        "CITESIFT_ALLOW_PRIVATE": "yes",
        "CITESIFT_STORE": str(tmp_path / "s.db"),
    }
    saved = fetch(runner, server.url("/ok"), "--save", env=env)
    assert saved.exit_code == 0, saved.output  # type: ignore[attr-defined]
    replayed = fetch(runner, server.url("/ok"), env={**env, "CITESIFT_OFFLINE": "1"})
    assert replayed.stdout == saved.stdout  # type: ignore[attr-defined]
    assert len(server.seen) == 2  # the replay sent nothing
    (tmp_path / "citesift.toml").write_text("offline = true\n")
    unsaved = fetch(runner, server.url("/ok?never-saved"), env=env)
    assert unsaved.exit_code == 1 and len(server.seen) == 2  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("path", "code", "message"),
    [("/missing", 1, "HTTP 404"), ("/status?code=429", 75, "HTTP 429")],
)
def test_an_outcome_other_than_a_snapshot_exits_non_zero(
    runner: CliRunner, server: MisbehavingServer, path: str, code: int, message: str
) -> None:
    result = fetch(runner, server.url(path), "--allow-private", "--contact", CONTACT)
    assert result.exit_code == code
    assert message in result.stderr  # type: ignore[attr-defined]


def test_private_addresses_and_other_schemes_are_refused_unless_allowed(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    refused = fetch(runner, server.url("/ok"), "--contact", CONTACT)
    assert refused.exit_code == 1 and "loopback" in refused.stderr  # type: ignore[attr-defined]
    assert "--allow-private" in refused.stderr  # type: ignore[attr-defined]
    assert server.seen == []
    assert fetch(runner, "file:///etc/passwd", "--contact", CONTACT).exit_code == 64


def test_a_missing_contact_is_a_usage_error(runner: CliRunner) -> None:
    result = fetch(runner, "http://127.0.0.1:9/")
    assert result.exit_code == 64
    assert "contact" in result.stderr  # type: ignore[attr-defined]


def test_settings_come_from_the_environment_and_the_config_file(
    runner: CliRunner, server: MisbehavingServer, tmp_path: Path
) -> None:
    (tmp_path / "citesift.toml").write_text(f'contact = "{CONTACT}"\nrobots = false\n')
    env = {"CITESIFT_ALLOW_PRIVATE": "true"}
    result = fetch(runner, server.url("/ok"), env=env)
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert server.hits("/robots.txt") == 0


def test_flags_override_the_environment_which_overrides_the_file(tmp_path: Path) -> None:
    config = tmp_path / "other.toml"
    config.write_text('contact = "file@example.org"\ndeadline = 4\nmax_redirects = 2\n')
    env = {"CITESIFT_CONFIG": str(config), "CITESIFT_DEADLINE": "9.5"}
    settings = load_settings({"max_redirects": 1}, env)
    assert (settings.contact, settings.deadline, settings.max_redirects) == (
        "file@example.org",
        9.5,
        1,
    )
    policy = settings.fetch_policy()
    assert (policy.deadline, policy.max_redirects) == (9.5, 1)


@pytest.mark.parametrize(
    ("text", "env"),
    [
        ('deadline = "soon"\n', {}),
        ("colour = 1\n", {}),
        ("not toml [", {}),
        ("", {"CITESIFT_ALLOW_PRIVATE": "maybe"}),
        ("", {"CITESIFT_MAX_BODY_BYTES": "lots"}),
    ],
)
def test_bad_settings_are_clear_errors(tmp_path: Path, text: str, env: dict[str, str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text(text)
    with pytest.raises(ConfigError):
        load_settings({}, {"CITESIFT_CONFIG": str(config), **env})


def test_a_config_variable_naming_no_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_settings({}, {"CITESIFT_CONFIG": str(tmp_path / "absent.toml")})


@pytest.mark.parametrize(
    ("flag", "value", "named"),
    [
        ("--deadline", "nan", "deadline"),
        ("--max-body-bytes", "-5", "max_body_bytes"),
        ("--max-redirects", "999999", "max_redirects"),
    ],
)
def test_absurd_flag_values_are_usage_errors_naming_the_setting(
    runner: CliRunner, server: MisbehavingServer, flag: str, value: str, named: str
) -> None:
    result = fetch(runner, server.url("/ok"), "--allow-private", "--contact", CONTACT, flag, value)
    assert result.exit_code == 64, result.output  # type: ignore[attr-defined]
    assert f"{named} must be" in result.stderr  # type: ignore[attr-defined]
    assert server.seen == []


def test_a_small_body_cap_refuses_a_larger_body(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    tiny = fetch(
        runner, server.url("/ok"), "--allow-private", "--contact", CONTACT, "--max-body-bytes", "10"
    )
    assert tiny.exit_code == 1 and "cap of 10 bytes" in tiny.stderr  # type: ignore[attr-defined]


def test_text_never_sends_a_pages_control_characters_to_the_terminal(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    url = server.url("/ok?body=%3Cp%3Ebefore%1B]0;owned%07after%3C/p%3E")
    result = as_text(runner, url)
    assert "\x1b" not in result.stdout and "\\x1b]0;owned" in result.stdout  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", [("page",), ("index", "add", "--retrieval", "bm25")])
def test_other_commands_that_fetch_keep_a_hosts_block_between_runs(
    runner: CliRunner, server: MisbehavingServer, command: tuple[str, ...]
) -> None:
    server.route("/busy", lambda r, q: r.answer(503, b"", {"Retry-After": "600"}))
    args = ("--allow-private", "--contact", CONTACT)
    first = runner.invoke(app, [*command[:2], server.url("/busy"), *command[2:], *args])
    assert first.exit_code != 0
    again = runner.invoke(app, [*command[:2], server.url("/ok"), *command[2:], *args])
    assert again.exit_code == 75 and "blocked" in again.stderr  # type: ignore[attr-defined]
    assert re.search(r"try again in (59\d|600) s", again.stderr)  # type: ignore[attr-defined]
    assert server.hits("/ok") == 0


def test_text_of_a_binary_body_names_the_commands_that_read_it(
    runner: CliRunner, server: MisbehavingServer
) -> None:
    serve_bytes(server, "/report", REPORT, "application/octet-stream")
    url = server.url("/report")
    result = fetch(runner, url, "--allow-private", "--contact", CONTACT, "--format", "text")
    assert result.exit_code == 1 and result.stdout == ""  # type: ignore[attr-defined]
    said = result.stderr  # type: ignore[attr-defined]
    assert "binary (application/octet-stream): use --format raw" in said
    assert "`citesift page URL` or `citesift scrape URL` to read a PDF" in said
