"""Terminal escapes in a page (its title, headings and text) never reach the terminal: every
command that prints what a source holds writes them as visible escapes, JSON included."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.terminal import safe_json
from servers import MisbehavingServer, Query, Request, serve

CONTACT = "https://example.org/contact"
HOSTILE = (
    "<html><head><title>Ti\x1b]0;owned\x07tle\x1b[31m</title></head><body>"
    "<h1>Head\x1b[2J\x1b[H</h1><p>Text \x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\"
    " and a C1 \x9b31m colour \x7f, a bell \x07.</p><p>Second\ttabbed paragraph.</p>"
    "</body></html>"
).encode()
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""What a terminal acts on: every control character but tab and newline."""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"CITESIFT_CONTACT": CONTACT})
    return result.exit_code, result.stdout, result.stderr


def assert_harmless(code: int, out: str, err: str) -> str:
    assert code == 0, err
    assert not CONTROLS.search(out) and not CONTROLS.search(err)
    assert "\\x1b" in out  # shown, not hidden: the reader sees the page held an escape
    return out


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.html"
    path.write_bytes(HOSTILE)
    return path


@pytest.fixture
def server() -> Iterator[MisbehavingServer]:
    with serve() as running:

        def hostile(request: Request, _: Query) -> None:
            request.answer(200, HOSTILE, {"Content-Type": "text/html; charset=utf-8"})

        running.route("/hostile", hostile)
        running.route("/wiki/Hostile", hostile)
        yield running


@pytest.mark.parametrize("output", ["blocks", "text", "markdown"])
def test_extract_writes_no_control_character(page_file: Path, output: str) -> None:
    out = assert_harmless(*run("extract", str(page_file), "--mode", "page", "--format", output))
    assert "Second\ttabbed" in out or "Second tabbed" in out  # layout characters stay


def test_extract_json_escapes_controls_and_still_parses_to_the_text(page_file: Path) -> None:
    code, out, _ = run("extract", str(page_file), "--format", "json")
    assert code == 0 and not CONTROLS.search(out)
    document = json.loads(out)
    assert document["title"] == "Ti\x1b]0;owned\x07tle\x1b[31m"  # the data itself is kept


@pytest.mark.parametrize("output", ["passages", "blocks", "markdown", "json"])
def test_page_writes_no_control_character(server: MisbehavingServer, output: str) -> None:
    args = ("page", server.url("/hostile"), "--allow-private", "--format", output)
    code, out, err = run(*args)
    assert code == 0 and not CONTROLS.search(out) and not CONTROLS.search(err)


@pytest.mark.parametrize("output", ["markdown", "text", "links", "json"])
def test_scrape_writes_no_control_character(server: MisbehavingServer, output: str) -> None:
    args = ("scrape", server.url("/hostile"), "--allow-private", "--format", output)
    code, out, err = run(*args)
    assert code == 0 and not CONTROLS.search(out) and not CONTROLS.search(err)


def test_wiki_read_writes_no_control_character(server: MisbehavingServer) -> None:
    args = ("wiki", "read", "Hostile", "--origin", server.url(""), "--page-path", "/wiki/{key}")
    assert_harmless(*run(*args, "--allow-private"))


def test_search_and_ls_write_no_control_character(
    server: MisbehavingServer, page_file: Path, tmp_path: Path
) -> None:
    store = str(tmp_path / "index.db")
    added = run("index", "add", str(page_file), server.url("/hostile"), "--store", store,
                "--retrieval", "bm25", "--allow-private", "--mode", "page")  # fmt: skip
    assert added[0] == 0 and "indexed 2 document(s)" in added[1]
    assert_harmless(*run("search", "link colour", "--store", store, "--retrieval", "bm25"))
    assert_harmless(*run("index", "ls", "--store", store))
    code, out, _ = run("search", "link", "--store", store, "--retrieval", "bm25",
                       "--format", "json")  # fmt: skip
    assert code == 0 and not CONTROLS.search(out)
    assert any("\x1b]8;;" in hit["content"] for hit in json.loads(out))


BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("output", ["text", "json"])
def test_check_writes_no_control_that_reorders_text(tmp_path: Path, output: str) -> None:
    """A cited address ending in a right-to-left override showed reversed in the report,
    so that the page named was not the page read."""
    url = "http://10.0.0.1/\u202egpj.exe"  # a private address: refused, nothing is sent
    document = tmp_path / "bidi.md"
    document.write_text(f"A claim \u2067here\u2069 [1].\n\n[1]: {url}\n", "utf-8")
    result = CliRunner().invoke(
        app, ["check", str(document), "--format", output], env={"CITESIFT_CONTACT": CONTACT}
    )
    assert result.exit_code == 1, result.output
    assert not BIDI.search(result.stdout) and "\\u202e" in result.stdout
    if output == "json":
        (citation,) = json.loads(result.stdout)["citations"]
        assert citation["url"] == url


def test_json_output_writes_no_nan_or_infinity() -> None:
    """JSON output is strict: a NaN or an infinity (which Python's reader takes from a
    model's answer) is written null, never ``NaN``, which other readers refuse."""
    written = safe_json({"a": [float("nan"), 1.5], "b": {"c": float("-inf")}, "d": "\x1b"})
    assert "NaN" not in written and "Infinity" not in written
    assert json.loads(written) == {"a": [None, 1.5], "b": {"c": None}, "d": "\x1b"}
