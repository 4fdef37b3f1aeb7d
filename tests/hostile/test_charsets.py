"""Charset labels that lie: a page (or a caller) naming a codec that is no web encoding, one
that cannot decode at all (``idna``, ``undefined``), one that is no text encoding (``zlib``)
or one that rewrites what the page says (``unicode_escape``, ``utf-7``). Each is ignored as a
browser ignores a label it does not know: the page is read as its bytes say, never a crash."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.encoding import charset_label, decode_html
from citesift.model import Snapshot
from servers import SAMPLE_TEXT, MisbehavingServer, serve

pytestmark = pytest.mark.timeout(120)
LYING = ["idna", "undefined", "zlib", "uu", "punycode", "unicode_escape", "utf-7", "cp037"]


@pytest.mark.parametrize("label", LYING)
def test_a_label_of_no_web_encoding_is_ignored(label: str) -> None:
    assert charset_label(label) is None
    body = f"<p>{SAMPLE_TEXT} \\x41 +AGEA-</p>".encode()
    assert decode_html(body, label) == (body.decode(), "utf-8")


@pytest.mark.parametrize(
    "label", ["windows-1251", "shift_jis", "euc-kr", "gbk", "utf-16le", "tis-620"]
)
def test_the_labels_browsers_know_are_still_read(label: str) -> None:
    assert charset_label(label) is not None


@pytest.mark.parametrize("label", ["idna", "undefined", "zlib"])
def test_a_snapshot_holding_such_a_label_still_gives_its_text(label: str) -> None:
    snapshot = Snapshot(
        id="x", url="https://example.org/", final_url="https://example.org/", status=200,
        headers=(), content_type="text/html", charset=label, fetched_at=0,
        body=SAMPLE_TEXT.encode(),
    )  # fmt: skip
    assert snapshot.text() == SAMPLE_TEXT


@pytest.fixture(scope="module")
def server() -> Iterator[MisbehavingServer]:
    with serve() as running:
        running.robots = (200, "User-agent: *\nAllow: /\n")
        yield running


@pytest.mark.parametrize("label", ["idna", "undefined", "unicode_escape"])
@pytest.mark.parametrize("command", [["fetch", "--format", "text"], ["scrape"]])
def test_commands_read_a_page_whose_header_names_such_a_label(
    server: MisbehavingServer, label: str, command: list[str]
) -> None:
    url = server.url(f"/charset?declared={label}&actual=utf-8")
    result = CliRunner().invoke(
        app, [*command, url, "--allow-private"], env={"CITESIFT_CONTACT": "https://example.org/c"}
    )
    assert result.exit_code == 0 and result.exception is None
    assert SAMPLE_TEXT in result.stdout
