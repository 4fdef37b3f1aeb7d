"""A server's searches of a SQLite index read by a connection of their own: the limiters
claim each fetch's budget through the server's one store connection, which a long search
must not hold meanwhile (PostgreSQL's pool serves both at once)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from citesift.index.rag import create_rag
from citesift.settings import Settings, source_setup

pytestmark = pytest.mark.timeout(60)
CONTACT = "https://example.org/contact"


async def nothing() -> str:
    return "done"


def test_a_long_search_keeps_no_fetch_admission_waiting(tmp_path: Path) -> None:
    """While a search holds its read, a fetch is admitted (its budget claimed in the store)
    at once; the search's connection is the same for every search, and still answers."""
    settings = Settings(contact=CONTACT, store=str(tmp_path / "s.db"))
    with source_setup(settings) as setup:
        searching = setup.search_store()
        assert searching is not None and searching is setup.search_store()
        with create_rag(store=searching, retrieval="bm25") as rag:
            rag.ingest([{"id": "tides", "content": "The tides rise twice a day."}])
        held, release = threading.Event(), threading.Event()

        def long_search() -> None:
            with searching.reading():
                held.set()
                release.wait(10)

        search = threading.Thread(target=long_search)
        search.start()
        try:
            assert held.wait(5)
            limiter = setup.fetcher.limiters.limiter_for("example.org")
            started = time.monotonic()
            assert asyncio.run(asyncio.wait_for(limiter.run(nothing), 8)) == "done"
            assert time.monotonic() - started < 2
        finally:
            release.set()
            search.join()
        with create_rag(store=setup.search_store(), retrieval="bm25") as rag:
            assert [hit.id for hit in rag.search("tides", 1)] != []
    assert setup.search_store() is setup.budget  # closed: no connection opened again


def test_searches_read_the_servers_store_when_a_connection_of_their_own_cannot_open(
    tmp_path: Path,
) -> None:
    """A file that can no longer be opened (here a folder in its place) leaves searches on
    the store already open, not failing at each search."""
    path = tmp_path / "s.db"
    with source_setup(Settings(contact=CONTACT, store=str(path))) as setup:
        path.unlink()
        path.mkdir()
        assert setup.search_store() is setup.budget


def test_an_in_memory_store_is_searched_by_its_one_connection() -> None:
    """A second connection to ``:memory:`` would be another, empty database."""
    with source_setup(Settings(contact=CONTACT, store=":memory:")) as setup:
        assert setup.search_store() is setup.budget
