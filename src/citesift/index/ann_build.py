"""An embedder's HNSW index made ready in a background thread: read from the file the store
records when it can be caught up, otherwise built from the store's vectors, one build of an
embedder at a time per store file (``citesift.index.ann_lock``; a build that waited reads
the file the other recorded). At a million vectors reading takes seconds and building
minutes, which no search should wait for (the store answers exactly from its vectors
meanwhile). The store is read a page at a time, its lock held for one page only (the file
is read without it); the index covers the store's log up to an entry (the file's, or the
newest when the build started), so the writes made since are replayed into it once it is
swapped in. Stopping is seen between pages, while waiting for another build, after the
file is read and before a built one is recorded: a stopped build records nothing."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from citesift.errors import StoreError
from citesift.index import ann_files, ann_lock
from citesift.index.ann import HnswIndex
from citesift.store import vector_log
from citesift.store.sqlite import MEMORY, SQLiteStore

BUILD_ROWS = 2_000
"""Vectors read and added at a time: a stop waits for at most one such step."""
THREAD_NAME = "citesift-hnsw-build"


@dataclass(frozen=True)
class Built:
    """A ready index: the last log entry it covers, the file it was read from or saved to
    (None for a ``:memory:`` store, or when its save failed: the index is right all the
    same), whether it was read (not built), and the store's rows it lacked when read (to
    add with the changes since ``covered``)."""

    index: HnswIndex
    covered: int
    file: Path | None
    read: bool = False
    missing: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


class Builder:
    """The reading or build of ``embedder``'s index over ``sqlite``, running from its
    creation."""

    def __init__(self, sqlite: SQLiteStore, embedder: str, dim: int) -> None:
        self.sqlite, self.embedder, self.dim = sqlite, embedder, dim
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
        """Stop the build and wait for its thread to end (one step of ``BUILD_ROWS``, the
        save or the reading of a file under way)."""
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
            self._built = self._read() or self._build_alone()
        except Exception as error:  # the next search raises it (``result``)
            self._error = error

    def _read(self) -> Built | None:
        """The recorded file's index with the rows the store no longer holds dropped, when
        the store's log still holds every change after it (None otherwise, when it cannot be
        read, or when stopped)."""
        if self._stop.is_set() or str(self.sqlite.path) == MEMORY:
            return None
        with self.sqlite.reading() as conn:
            saved = vector_log.recorded(conn, self.embedder)
            kept = vector_log.first_kept(conn) - 1, vector_log.last_seq(conn)
        if saved is None or saved.dim != self.dim or not kept[0] <= saved.covered <= kept[1]:
            return None
        path = self.sqlite.path.parent / saved.file
        try:
            index = HnswIndex.load(path, self.dim)
        except (OSError, RuntimeError, ValueError, MemoryError):  # missing, cut or damaged
            return None
        if self._stop.is_set():
            return None
        with self.sqlite.reading() as conn:
            live = vector_log.rows(conn, self.embedder)
        return Built(index, saved.covered, path, read=True, missing=index.keep_only(live))

    def _build_alone(self) -> Built | None:
        """Build while holding the embedder's build lock of the store's file; when another
        build (of this process or another) held it, the file it recorded is read instead.
        A ``:memory:`` store is this object's alone: it builds at once."""
        if str(self.sqlite.path) == MEMORY:
            return self._build()
        lock = ann_files.lock_for(self.sqlite.path, self.embedder)
        with ann_lock.held(lock, self._stop) as free:
            return (self._read() or self._build()) if free else None

    def _build(self) -> Built | None:
        """Every vector of the embedder read into a new index, which is saved (None when
        stopped). A save that fails (a full disk, a folder it cannot write in) still gives
        the index, unsaved: minutes of building are not thrown away for it."""
        if self._stop.is_set():
            return None
        with self.sqlite.reading() as conn:
            covered = vector_log.last_seq(conn)
        index = HnswIndex(self.dim)
        for labels, _, vectors in vector_log.pages(self.sqlite.reading, self.embedder, BUILD_ROWS):
            if self._stop.is_set():
                return None
            index.add(labels, vectors)
        if self._stop.is_set():
            return None
        try:
            file = ann_files.save(self.sqlite, self.embedder, index, covered, self._stop.is_set)
        except StoreError:  # saved again after as many changes, and on closing
            file = None
        return None if self._stop.is_set() else Built(index, covered, file)
