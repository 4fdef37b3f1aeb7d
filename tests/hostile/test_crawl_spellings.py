"""A site naming one page under many spellings (percent-escapes of its letters in either
case, a default port, fragments, dot segments): a crawl reads the page once, and keeps
apart addresses that may differ (a doubled slash, an escaped slash, an escaped %, the case
of a letter)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from citesift.scrape.crawl import crawl
from citesift.scrape.urls import normalise
from citesift.store import SQLiteStore
from local_site import page, serve_page
from servers import MisbehavingServer, loopback_fetcher, loopback_policy

pytestmark = pytest.mark.timeout(60)


def spellings(path: str) -> list[str]:
    """``path`` with each character as it is, escaped in lower-case hex or in upper."""
    ways = [(char, f"%{ord(char):02x}", f"%{ord(char):02X}") for char in path]
    return ["/" + "".join(chosen) for chosen in itertools.product(*ways)]


def test_one_page_under_hundreds_of_spellings_is_read_once(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    named = spellings("~tide")  # 243 spellings of /~tide
    port = server.url("/").split(":")[-1].rstrip("/")
    named += [f"{spelling}#{n}" for n, spelling in enumerate(named[:20])]
    named += ["/./~tide", "/x/../%7Etide", f"http://127.0.0.1:{port}/%7etide"]
    serve_page(server, "/", page("Home", named))
    serve_page(server, "/~tide", page("Tide", ["/"], "High water at noon."))
    records: list[dict[str, object]] = []
    with SQLiteStore(tmp_path / "s.db") as store:
        crawl(
            server.url("/"), policy=loopback_policy(), store=store, fetcher=loopback_fetcher(),
            on_result=records.append, limit=500,
        )  # fmt: skip
    asked = [seen.path for seen in server.seen if seen.path != "/robots.txt"]
    assert asked == ["/", "/~tide"]
    assert [record["url"] for record in records] == [server.url("/"), server.url("/~tide")]


def test_addresses_that_may_differ_are_kept_apart() -> None:
    base = "http://example.org"
    assert normalise(f"{base}/a%2fb") == f"{base}/a%2Fb" != normalise(f"{base}/a/b")
    assert normalise(f"{base}/%25%37%65") == f"{base}/%257e"  # an escaped % stays escaped
    assert normalise(f"{base}/A") != normalise(f"{base}/a")
    assert normalise(f"{base}/a//b") == f"{base}/a//b" != normalise(f"{base}/a/b")
    assert normalise(f"{base}//a/./b/../c") == f"{base}//a/c"
    assert normalise(f"{base}/a//../b") == f"{base}/a/b"  # '..' removes the empty segment


def test_pages_a_doubled_slash_tells_apart_are_both_read(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", ["/shelf//book", "/shelf/book"]))
    serve_page(server, "/shelf//book", page("Shelf gap", [], "A book between two slashes."))
    serve_page(server, "/shelf/book", page("Shelf", [], "A book on the shelf."))
    records: list[dict[str, object]] = []
    with SQLiteStore(tmp_path / "s.db") as store:
        crawl(
            server.url("/"), policy=loopback_policy(), store=store, fetcher=loopback_fetcher(),
            on_result=records.append,
        )  # fmt: skip
    # the two shelf pages are read at once: either may end first
    by_url = {record["url"]: str(record) for record in records}
    assert len(records) == 3 and records[0]["url"] == server.url("/")
    assert "between two slashes" in by_url[server.url("/shelf//book")]
    assert "on the shelf" in by_url[server.url("/shelf/book")]
