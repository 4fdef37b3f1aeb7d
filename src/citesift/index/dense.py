"""One embedder's vectors of the embedded store in an HNSW index, saved beside the SQLite
file and kept in step with the store through its change log.

Opening starts, in the background (``citesift.index.ann_build``), reading the saved file
when the store's record says it can catch up (the log still holds every change after the
file's last entry) and marking what the store no longer holds deleted, or otherwise
building the index from the store's vectors; until it is ready searches are answered
exactly from the store's vectors, read a page at a time, and the first search after adds
what the file lacked and replays the changed rows. Every search first replays the changes
made since (by this process or another), so a file saved before a crash, or never saved
after a change, costs time but never a wrong result. A ``:memory:`` store's index lives in memory.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citesift.errors import StoreError
from citesift.index import ann_files
from citesift.index.ann import HnswIndex
from citesift.index.ann_build import Builder
from citesift.index.embedders.base import check_vectors, normalise_rows
from citesift.index.vectors import VectorIndex, top_k_of_batches
from citesift.store import vector_log
from citesift.store.sqlite import SQLiteStore

ANN_THRESHOLD = 300_000
"""Vectors of one embedder from which dense search goes through HNSW: the exact product
over 384 dimensions costs 33 to 37 ms of CPU a query there and passes 50 ms near 450,000
(bench/scale.py); the margin is for a busier machine."""
FILTER_EXACT_ROWS = 20_000
"""Allowed sets up to this size are searched exactly over their own vectors."""
OVERSAMPLE = 2.0
"""How many more candidates than needed a filtered ANN search asks for, beyond the share
of the vectors the filter allows."""
MAX_CANDIDATES = 4096
"""The most candidates one filtered ANN search asks for before it searches exactly."""
SAVE_CHANGES = 10_000
"""Changes replayed since the last save past which the file is saved again (also past a
twentieth of the index; after a save that failed, as many more); closing the store saves
what is left, and tries once more a save that failed."""
_CACHED_FILTERS = 8


@dataclass(frozen=True)
class DenseInfo:
    """Which dense search a store uses for one embedder, over how many vectors; for an
    ANN index, how many times this process built it from the store's vectors, the file it
    was read from or saved to (None while a built one is unsaved, as its save failed: it is
    saved again after as many changes as a periodic save and on closing), and whether a
    build is under way (its searches are exact until it is done)."""

    kind: str
    vectors: int
    builds: int = 0
    file: str | None = None
    building: bool = False


class AnnVectors:
    """The HNSW index of one embedder's vectors in one store."""

    def __init__(self, sqlite: SQLiteStore, embedder: str, dim: int) -> None:
        self.sqlite, self.embedder, self.dim = sqlite, embedder, dim
        self.builds = 0
        self.file: Path | None = None
        self.index: HnswIndex | None = None
        """None while it is read or built."""
        self._builder: Builder | None = None
        self._covered = 0
        self._unsaved = 0
        self._save_failed = False
        """Whether the last periodic save failed: closing tries it again."""
        self._missing = np.zeros(0, dtype=np.int64)
        self._exact: dict[frozenset[str], VectorIndex] = {}
        sqlite.migrate("vector_log", vector_log.MIGRATIONS)
        with sqlite.transaction() as conn:
            vector_log.start_log(conn)
        self._open()

    def info(self) -> DenseInfo:
        file = str(self.file) if self.file else None
        if self.index is None:
            with self.sqlite.reading() as conn:
                held = vector_log.count(conn, self.embedder)
            return DenseInfo("hnsw", held, self.builds, file, building=True)
        return DenseInfo("hnsw", len(self.index), self.builds, file)

    def wait(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` seconds (None: as long as it takes) for a build under way;
        whether none is left running (the next ``refresh`` swaps the index in)."""
        builder = self._builder
        return builder is None or builder.wait(timeout)

    def close(self) -> None:
        """Save the index's unsaved changes (trying again a periodic save that failed, whose
        error is raised when it fails again); stop a build under way (nothing of it is
        recorded), also one the catch-up of that save started."""
        if self._builder is None and self.index is not None:
            self.flush()
        if self._builder is not None:
            self._builder.stop()
            self._builder = None

    def flush(self) -> None:
        """Replay what changed and save the index if it holds unsaved changes, was never
        saved (its build's save failed) or its last periodic save failed."""
        self.refresh()
        if self._unsaved or self.file is None or self._save_failed:
            self.save()

    def refresh(self) -> None:
        """Swap in a finished build (raise the error of a failed one; one whose save failed
        is swapped in unsaved); replay the store's changes since the last look (read the
        saved index again, in the background, when another process saved a newer one and
        the log no longer reaches back to this one); save when many are unsaved (a save
        that fails does not fail the search: the store's log still holds what the file
        lacks)."""
        index = self._ready()
        if index is None:
            return
        with self.sqlite.reading() as conn:
            conn.execute("BEGIN")
            try:
                behind = vector_log.first_kept(conn) - 1 > self._covered
                changed = 0 if behind else self._replay(index, conn)
            finally:
                conn.execute("COMMIT")
        if behind:
            self._open()
        if changed or behind:
            self._exact.clear()
        if self.index is not None and self._unsaved >= max(SAVE_CHANGES, len(self.index) // 20):
            try:
                self.save()
            except StoreError:  # the log keeps the changes: tried again after as many more
                self._unsaved, self._save_failed = 0, True

    def search(
        self, query_vec: np.ndarray, k: int, allowed: frozenset[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` chunks nearest ``query_vec`` (only ``allowed`` ones, if given): small
        allowed sets exactly, others by ANN asked for more and filtered, exactly again
        when too few of those pass."""
        flat = np.asarray(query_vec, dtype=np.float32).reshape(1, -1)
        query = normalise_rows(check_vectors(flat, 1, self.dim, "dense search"))[0]
        if allowed is not None and len(allowed) <= FILTER_EXACT_ROWS:
            return self._exact_over(allowed).search(query, k)
        if self.index is None:
            return self._scanned(query, k, allowed)
        share = 1.0 if allowed is None else len(allowed) / max(len(self.index), 1)
        wanted = k if allowed is None else math.ceil(k * OVERSAMPLE / max(share, 1e-9))
        labels, scores = self.index.search(query, min(wanted, max(MAX_CANDIDATES, k)))
        with self.sqlite.reading() as conn:
            ids = vector_log.chunk_ids(conn, self.embedder, labels.tolist())
        hits = [
            (ids[int(x)], float(s)) for x, s in zip(labels, scores, strict=True) if int(x) in ids
        ]
        if allowed is not None:
            hits = [h for h in hits if h[0] in allowed]
            if len(hits) < min(k, len(allowed)):
                return self._exact_over(allowed).search(query, k)
        return hits[:k]

    def save(self) -> None:
        """Save the index beside the store and record it there (a ``:memory:`` store's
        stays in memory)."""
        if self.index is None:
            return
        self.file = ann_files.save(self.sqlite, self.embedder, self.index, self._covered)
        self._unsaved, self._save_failed = 0, False

    def _open(self) -> None:
        """Start reading the saved index, or building one, in the background."""
        self.index, self._unsaved = None, 0
        self._builder = Builder(self.sqlite, self.embedder, self.dim)

    def _ready(self) -> HnswIndex | None:
        """The index in place, a finished build swapped in (``StoreError`` when it failed;
        the next call builds again); None while a build is under way."""
        if self._builder is not None:
            if self._builder.running:
                return None
            builder, self._builder = self._builder, None
            built = builder.result()
            self.index, self._covered, self.file = built.index, built.covered, built.file
            self.builds, self._unsaved = self.builds + (not built.read), 0  # as after a save
            self._save_failed = False
            self._missing = built.missing
            self._exact.clear()
        if self.index is None:
            self._open()
        return self.index

    def _replay(self, index: HnswIndex, conn: sqlite3.Connection) -> int:
        """Bring ``index`` to the store's state for every row logged since the last
        replay, and the rows a file read lacked (in the caller's snapshot); how many
        changed."""
        changed, newest = vector_log.changed_rows(conn, self._covered)
        if len(self._missing):
            changed, self._missing = np.union1d(changed, self._missing), self._missing[:0]
        index.remove(changed.tolist())  # once for all: ``add`` only adds
        for start in range(0, len(changed), vector_log.BATCH_ROWS):  # memory stays bounded
            part = changed[start : start + vector_log.BATCH_ROWS].tolist()
            index.add(*vector_log.vectors_of(conn, self.embedder, part))
        self._covered = max(newest, vector_log.last_seq(conn))
        self._unsaved += len(changed)
        return len(changed)

    def _scanned(
        self, query: np.ndarray, k: int, allowed: frozenset[str] | None
    ) -> list[tuple[str, float]]:
        """The exact ``k`` nearest of the store's vectors (``allowed`` ones, if given), read
        a page at a time in one snapshot while the index is built: slower than the index,
        never wrong, and never every vector in memory at once."""
        with self.sqlite.reading() as conn:
            conn.execute("BEGIN")
            try:
                return top_k_of_batches(self._pages(allowed), query, k)
            finally:
                conn.execute("COMMIT")

    def _pages(self, allowed: frozenset[str] | None) -> Iterator[tuple[list[str], np.ndarray]]:
        """The store's chunk ids and vectors of this embedder, a page at a time (only the
        ``allowed`` ones, if given)."""
        for _, ids, vectors in vector_log.pages(self.sqlite.reading, self.embedder):
            if allowed is None:
                yield ids, vectors
            else:
                kept = [n for n, i in enumerate(ids) if i in allowed]
                yield [ids[n] for n in kept], vectors[kept]

    def _exact_over(self, allowed: frozenset[str]) -> VectorIndex:
        """An exact index of the ``allowed`` chunks' vectors (a small set's is kept for the
        next search with the same filter until the store changes; a large one, met when
        too few ANN candidates pass, is read for this search only)."""
        if allowed in self._exact:
            return self._exact[allowed]
        with self.sqlite.reading() as conn:
            ids, vectors = vector_log.vectors_by_id(conn, self.embedder, sorted(allowed))
        exact = VectorIndex(self.dim)
        if ids:
            exact.add(ids, vectors)
        if len(allowed) <= FILTER_EXACT_ROWS:
            if len(self._exact) >= _CACHED_FILTERS:
                self._exact.pop(next(iter(self._exact)))
            self._exact[allowed] = exact
        return exact
