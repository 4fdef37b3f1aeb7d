"""One embedder's vectors of the embedded store in an HNSW index, saved beside the SQLite
file and kept in step with the store through its change log.

Opening reads the saved file when the store's record says it can catch up (the log still
holds every change after the file's last entry), marks what the store no longer holds
deleted, adds what it lacks, and replays the changed rows; otherwise it builds the index
from the store's vectors and saves it. Every search first replays the changes made since
(by this process or another), so a file saved before a crash, or never saved after a
change, costs time but never a wrong result. A ``:memory:`` store's index lives in memory.
"""

from __future__ import annotations

import hashlib
import math
import re
import sqlite3
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citesift.index.ann import HnswIndex
from citesift.index.embedders.base import check_vectors, normalise_rows
from citesift.index.vectors import VectorIndex
from citesift.store import vector_log
from citesift.store.sqlite import MEMORY, SQLiteStore

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
twentieth of the index); closing the store saves what is left."""
_CACHED_FILTERS = 8


@dataclass(frozen=True)
class DenseInfo:
    """Which dense search a store uses for one embedder, over how many vectors; for an
    ANN index, how many times this process built it from the store's vectors and the
    file it was read from or saved to."""

    kind: str
    vectors: int
    builds: int = 0
    file: str | None = None


class AnnVectors:
    """The HNSW index of one embedder's vectors in one store."""

    def __init__(self, sqlite: SQLiteStore, embedder: str, dim: int) -> None:
        self.sqlite, self.embedder, self.dim = sqlite, embedder, dim
        self.builds = 0
        self.file: Path | None = None
        self._covered = 0
        self._unsaved = 0
        self._exact: dict[frozenset[str], VectorIndex] = {}
        sqlite.migrate("vector_log", vector_log.MIGRATIONS)
        with sqlite.transaction() as conn:
            vector_log.start_log(conn)
        self.index = self._open()

    def info(self) -> DenseInfo:
        file = str(self.file) if self.file else None
        return DenseInfo("hnsw", len(self.index), self.builds, file)

    def flush(self) -> None:
        """Replay what changed and save the index if it holds unsaved changes."""
        self.refresh()
        if self._unsaved:
            self.save()

    def refresh(self) -> None:
        """Replay the store's changes since the last look (read the saved index again when
        another process saved a newer one and the log no longer reaches back to this one);
        save when many are unsaved."""
        with self.sqlite.reading() as conn:
            conn.execute("BEGIN")
            try:
                behind = vector_log.first_kept(conn) - 1 > self._covered
                changed = 0 if behind else self._replay(conn)
            finally:
                conn.execute("COMMIT")
        if behind:
            self.index, self._unsaved = self._open(), 0
        if changed or behind:
            self._exact.clear()
        if self._unsaved >= max(SAVE_CHANGES, len(self.index) // 20):
            self.save()

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
        stays in memory); files of this embedder no longer recorded are removed."""
        if str(self.sqlite.path) == MEMORY:
            self._unsaved = 0
            return
        target = _file_for(self.sqlite.path, self.embedder, self._covered)
        partial = target.with_name(target.name + ".partial")
        self.index.save(partial)
        partial.replace(target)
        saved = vector_log.VectorFile(self.embedder, target.name, self._covered, self.dim)
        with self.sqlite.transaction() as conn:
            vector_log.record(conn, saved)
            kept = vector_log.recorded(conn, self.embedder)
        self._unsaved = 0
        self.file = target.parent / kept.file if kept is not None else target
        for old in target.parent.glob(_file_for(self.sqlite.path, self.embedder, None).name):
            if old != self.file:
                with suppress(OSError):
                    old.unlink()

    def _open(self) -> HnswIndex:
        """The saved index caught up with the store, or one built from its vectors."""
        with self.sqlite.reading() as conn:
            conn.execute("BEGIN")
            try:
                index = self._load(conn)
            finally:
                conn.execute("COMMIT")
        return index if index is not None else self._build()

    def _load(self, conn: sqlite3.Connection) -> HnswIndex | None:
        """The recorded file if it can catch up with the store (read in one snapshot)."""
        saved = vector_log.recorded(conn, self.embedder)
        if saved is None or saved.dim != self.dim or str(self.sqlite.path) == MEMORY:
            return None
        newest = vector_log.last_seq(conn)
        if not vector_log.first_kept(conn) - 1 <= saved.covered <= newest:
            return None
        path = self.sqlite.path.parent / saved.file
        try:
            self.index = HnswIndex.load(path, self.dim)
        except (OSError, RuntimeError, ValueError, MemoryError):  # missing, cut or damaged
            return None
        self.file, self._covered = path, saved.covered
        missing = self.index.keep_only(vector_log.rows(conn, self.embedder))
        self._replay(conn, missing)
        return self.index

    def _build(self) -> HnswIndex:
        """An index of every vector the store holds of this embedder, saved."""
        with self.sqlite.reading() as conn:
            conn.execute("BEGIN")
            try:
                self._covered = vector_log.last_seq(conn)
                self.index = HnswIndex(self.dim)
                for labels, vectors in vector_log.all_vectors(conn, self.embedder):
                    self.index.add(labels, vectors)
            finally:
                conn.execute("COMMIT")
        self.builds += 1
        self._exact.clear()
        self.save()
        return self.index

    def _replay(self, conn: sqlite3.Connection, missing: np.ndarray | None = None) -> int:
        """Bring the index to the store's state for every row logged since the last
        replay, and the ``missing`` ones (in the caller's snapshot); how many changed."""
        changed, newest = vector_log.changed_rows(conn, self._covered)
        if missing is not None and len(missing):
            changed = np.union1d(changed, missing)
        self.index.remove(changed.tolist())
        for start in range(0, len(changed), vector_log.BATCH_ROWS):  # memory stays bounded
            part = changed[start : start + vector_log.BATCH_ROWS].tolist()
            self.index.add(*vector_log.vectors_of(conn, self.embedder, part))
        self._covered = max(newest, vector_log.last_seq(conn))
        self._unsaved += len(changed)
        return len(changed)

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


def _file_for(store: Path, embedder: str, covered: int | None) -> Path:
    """``<store>.<embedder>-<hash>.<covered>.usearch`` beside the store (a glob pattern of every
    such file when ``covered`` is None)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", embedder)[:40]
    digest = hashlib.sha256(embedder.encode()).hexdigest()[:8]
    step = "*" if covered is None else str(covered)
    return store.with_name(f"{store.name}.{name}-{digest}.{step}.usearch")
