"""One build of an embedder's HNSW index from the store's vectors, in a background thread:
at a million vectors it takes minutes, which no search should wait for (the store answers
exactly from its vectors meanwhile). The store is read a page at a time, its lock held for
one page only; the build covers the store's log up to the entry newest when it was
started, so the writes made since are replayed into the index once it is swapped in.
Stopping is seen between pages and before the file is recorded: a stopped build records
nothing."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from citesift.errors import StoreError
from citesift.index import ann_files
from citesift.index.ann import HnswIndex
from citesift.store import vector_log
from citesift.store.sqlite import SQLiteStore

BUILD_ROWS = 2_000
"""Vectors read and added at a time: a stop waits for at most one such step."""
THREAD_NAME = "citesift-hnsw-build"


@dataclass(frozen=True)
class Built:
    """A finished build: the index, the last log entry it covers and the file it was saved
    to (None for a ``:memory:`` store)."""

    index: HnswIndex
    covered: int
    file: Path | None


class Builder:
    """The build of ``embedder``'s index over ``sqlite``, running from its creation."""

    def __init__(self, sqlite: SQLiteStore, embedder: str, dim: int) -> None:
        self.sqlite, self.embedder, self.dim = sqlite, embedder, dim
        with sqlite.reading() as conn:
            self.covered = vector_log.last_seq(conn)
        self._stop = threading.Event()
        self._built: Built | None = None
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def wait(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` seconds (None: until done) for the build; whether it is."""
        self._thread.join(timeout)
        return not self.running

    def stop(self) -> None:
        """Stop the build and wait for its thread to end (one step of ``BUILD_ROWS``, or
        the save under way)."""
        self._stop.set()
        self._thread.join()

    def result(self) -> Built:
        """The finished build; ``StoreError`` naming the store when it failed or was stopped."""
        if self.running:
            raise RuntimeError("the build is still running")
        if self._built is not None:
            return self._built
        reason = "it was stopped" if self._error is None else str(self._error)
        raise StoreError(
            f"building the HNSW index of {self.embedder!r} for the store"
            f" {str(self.sqlite.path)!r} failed: {reason}; the next search builds it again"
        ) from self._error

    def _run(self) -> None:
        try:
            self._built = self._build()
        except Exception as error:  # the next search raises it (``result``)
            self._error = error

    def _build(self) -> Built | None:
        """Every vector of the embedder read into a new index, which is saved (None when
        stopped)."""
        index = HnswIndex(self.dim)
        for labels, _, vectors in vector_log.pages(self.sqlite.reading, self.embedder, BUILD_ROWS):
            if self._stop.is_set():
                return None
            index.add(labels, vectors)
        if self._stop.is_set():
            return None
        file = ann_files.save(self.sqlite, self.embedder, index, self.covered, self._stop.is_set)
        return None if self._stop.is_set() else Built(index, self.covered, file)
