"""Broken compressed bodies through every command that fetches: a gzip, deflate, brotli or
zstd body cut short (its Content-Length matching what was sent) is a failure, never a
shorter page, and never stored to be replayed as whole; a gzip body of several members is
read whole."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.store import SQLiteStore
from citesift.store.snapshots import SnapshotStore
from servers import ARTICLE, MisbehavingServer, Query, Request, Route, compressed, serve

pytestmark = pytest.mark.timeout(60)
CONTACT = "https://example.org/contact"
ENCODINGS = ["gzip", "deflate", "br", "zstd"]
LAST = "The last paragraph ends the article."
BOUND = 10.0  # seconds: far above what a broken body takes, even on a busy machine


def run(*args: str) -> tuple[int, str, str]:
    started = time.monotonic()
    result = CliRunner().invoke(app, list(args), env={"CITESIFT_CONTACT": CONTACT})
    assert time.monotonic() - started < BOUND
    return result.exit_code, result.stdout, result.stderr


def serving(encoding: str, keep: float, members: int = 1) -> Route:
    """A route answering ``ARTICLE`` compressed, cut to its first ``keep`` fraction."""
    whole = compressed(ARTICLE.encode("ascii"), encoding, members)
    body = whole[: int(len(whole) * keep)]
    headers = {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": encoding}

    def route(request: Request, _: Query) -> None:
        request.answer(200, body, headers)

    return route


@pytest.fixture
def server() -> Iterator[MisbehavingServer]:
    with serve() as running:
        for encoding in ENCODINGS:
            for name, keep in (("half", 0.5), ("nearly", 0.98)):
                running.route(f"/wiki/{encoding}-{name}", serving(encoding, keep))
        running.route("/wiki/members", serving("gzip", 1.0, members=4))
        running.robots = (200, "User-agent: *\nAllow: /\n")
        yield running


def page_of(server: MisbehavingServer, key: str) -> str:
    return server.url(f"/wiki/{key}")


def stored(path: Path, url: str) -> object:
    with SQLiteStore(path) as store:
        return SnapshotStore(store).latest(url)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("cut", ["half", "nearly"])
def test_fetch_refuses_a_cut_body_and_keeps_nothing(
    server: MisbehavingServer, tmp_path: Path, encoding: str, cut: str
) -> None:
    url, store = page_of(server, f"{encoding}-{cut}"), tmp_path / "s.db"
    code, out, err = run("fetch", url, "--allow-private", "--save", "--store", str(store))
    assert code == 1 and out == "" and "could not be decompressed" in err
    assert stored(store, url) is None
    replay = run("fetch", url, "--offline", "--store", str(store))
    assert replay[0] == 1 and "not in the store" in replay[2]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("command", ["page", "scrape"])
def test_page_and_scrape_refuse_a_cut_body(
    server: MisbehavingServer, tmp_path: Path, encoding: str, command: str
) -> None:
    url, store = page_of(server, f"{encoding}-nearly"), tmp_path / "s.db"
    code, out, err = run(command, url, "--allow-private", "--store", str(store))
    assert code == 1 and LAST not in out and "could not be decompressed" in err
    assert stored(store, url) is None


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_wiki_read_refuses_a_cut_body(server: MisbehavingServer, encoding: str) -> None:
    args = ("wiki", "read", f"{encoding}-nearly", "--origin", server.url(""))
    code, out, err = run(*args, "--page-path", "/wiki/{key}", "--allow-private")
    assert code == 1 and out == "" and "could not be decompressed" in err


def test_index_add_names_a_cut_page_and_adds_nothing(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    store = str(tmp_path / "index.db")
    code, _, err = run("index", "add", page_of(server, "gzip-nearly"), "--store", store,
                         "--retrieval", "bm25", "--allow-private")  # fmt: skip
    assert code != 0 and "could not be decompressed" in err


def test_a_gzip_body_of_several_members_is_read_whole_by_every_command(
    server: MisbehavingServer,
) -> None:
    url = page_of(server, "members")
    fetched = run("fetch", url, "--allow-private", "--format", "text")
    assert fetched[0] == 0 and fetched[1].rstrip().endswith(LAST)
    page = run("page", url, "--allow-private", "--format", "blocks")
    assert page[0] == 0 and LAST in page[1]
    scraped = run("scrape", url, "--allow-private", "--format", "text")
    assert scraped[0] == 0 and scraped[1].rstrip().endswith(LAST)
    args = ("wiki", "read", "members", "--origin", server.url(""), "--page-path", "/wiki/{key}")
    read = run(*args, "--allow-private", "--format", "blocks")
    assert read[0] == 0 and LAST in read[1]
