"""The store's side of an ANN index: a log of the chunk rows whose vectors changed, written
by triggers in the same transaction as the change, and a record of each saved index file
and how far into the log it reaches. An index read from its file catches up by the log
(whoever wrote the change, and whatever crashed before the file was saved): it is never
behind the store when it answers."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np

MIGRATIONS = [
    """
    CREATE TABLE vector_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, row INTEGER NOT NULL);
    CREATE TABLE vector_files (
        embedder TEXT PRIMARY KEY,
        file TEXT NOT NULL,
        covered INTEGER NOT NULL,
        dim INTEGER NOT NULL
    );
    """,
]
TRIGGERS = (
    # a chunk replaced by INSERT OR REPLACE goes without a delete trigger: log its row first
    "CREATE TRIGGER IF NOT EXISTS vector_log_replace BEFORE INSERT ON chunks BEGIN"
    " INSERT INTO vector_log (row) SELECT rowid FROM chunks WHERE id = NEW.id; END",
    "CREATE TRIGGER IF NOT EXISTS vector_log_insert AFTER INSERT ON chunks BEGIN"
    " INSERT INTO vector_log (row) VALUES (NEW.rowid); END",
    "CREATE TRIGGER IF NOT EXISTS vector_log_delete AFTER DELETE ON chunks BEGIN"
    " INSERT INTO vector_log (row) VALUES (OLD.rowid); END",
    "CREATE TRIGGER IF NOT EXISTS vector_log_update AFTER UPDATE OF embedder, vector ON chunks"
    " BEGIN INSERT INTO vector_log (row) VALUES (NEW.rowid); END",
)
_PER_QUERY = 500
"""Values per ``IN (...)`` query, well under SQLite's bound-parameter limit."""
BATCH_ROWS = 20_000
"""Rows read at a time when every vector of an embedder is read (memory stays bounded)."""


@dataclass(frozen=True)
class VectorFile:
    """A saved index file of one embedder's vectors, complete up to log entry ``covered``."""

    embedder: str
    file: str
    covered: int
    dim: int


def start_log(conn: sqlite3.Connection) -> None:
    """Log every later change of a chunk row (in the caller's write transaction; a store
    with no ANN index logs nothing)."""
    for statement in TRIGGERS:
        conn.execute(statement)


def last_seq(conn: sqlite3.Connection) -> int:
    """The newest log entry ever written (0 before the first)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'").fetchone()
    return int(row[0]) if row else 0


def first_kept(conn: sqlite3.Connection) -> int:
    """The oldest log entry still kept (an index covering less than one before it is too
    old to catch up); past the newest when the log is empty."""
    row = conn.execute("SELECT MIN(seq) FROM vector_log").fetchone()
    return int(row[0]) if row and row[0] is not None else last_seq(conn) + 1


def changed_rows(conn: sqlite3.Connection, after: int) -> tuple[np.ndarray, int]:
    """The distinct chunk rows logged after entry ``after``, and the newest entry."""
    rows = conn.execute("SELECT seq, row FROM vector_log WHERE seq > ?", (after,)).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), after
    pairs = np.array(rows, dtype=np.int64)
    return np.unique(pairs[:, 1]), int(pairs[:, 0].max())


def vectors_of(
    conn: sqlite3.Connection, embedder: str, rows: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """The rows among ``rows`` holding a vector of ``embedder``, and those vectors."""
    return _unpacked(_embedded_rows(conn, "vector", embedder, rows))


def pages(
    read: Callable[[], AbstractContextManager[sqlite3.Connection]],
    embedder: str,
    size: int | None = None,
) -> Iterator[tuple[np.ndarray, list[str], np.ndarray]]:
    """Every row holding a vector of ``embedder``, its chunk id and its vector, in row order
    ``size`` (None: ``BATCH_ROWS``) at a time; each page is read under its own ``read()``,
    so a lock it takes is held for one page, not the whole walk (inside the caller's
    transaction, the pages are of one snapshot)."""
    after = 0
    while True:
        with read() as conn:
            page = conn.execute(
                "SELECT rowid, id, vector FROM chunks WHERE embedder = ? AND vector IS NOT NULL"
                " AND rowid > ? ORDER BY rowid LIMIT ?",
                (embedder, after, BATCH_ROWS if size is None else size),
            ).fetchall()
        if not page:
            return
        after = int(page[-1][0])
        labels, vectors = _unpacked([(r[0], r[2]) for r in page])
        yield labels, [r[1] for r in page], vectors


def rows(conn: sqlite3.Connection, embedder: str) -> np.ndarray:
    """The rows of every chunk embedded by ``embedder`` (read from the embedder's index)."""
    cursor = conn.execute("SELECT rowid FROM chunks WHERE embedder = ?", (embedder,))
    return np.array([r[0] for r in cursor.fetchall()], dtype=np.int64)


def dim(conn: sqlite3.Connection, embedder: str) -> int:
    """The length of the vectors of ``embedder`` (0 when the store holds none)."""
    row = conn.execute(
        "SELECT length(vector) FROM chunks WHERE embedder = ? AND vector IS NOT NULL LIMIT 1",
        (embedder,),
    ).fetchone()
    return int(row[0]) // 4 if row else 0


def count(conn: sqlite3.Connection, embedder: str) -> int:
    """How many chunks are embedded by ``embedder`` (read from the embedder's index)."""
    row = conn.execute("SELECT COUNT(*) FROM chunks WHERE embedder = ?", (embedder,)).fetchone()
    return int(row[0])


def chunk_ids(conn: sqlite3.Connection, embedder: str, rows: Sequence[int]) -> dict[int, str]:
    """The chunk id of each row among ``rows`` that still holds a vector of ``embedder``."""
    return dict(_embedded_rows(conn, "id", embedder, rows))


def _embedded_rows(
    conn: sqlite3.Connection, column: str, embedder: str, rows: Sequence[int]
) -> list[tuple[int, Any]]:
    """``(rowid, column)`` of the rows among ``rows`` holding a vector of ``embedder``,
    asked ``_PER_QUERY`` rows at a time (``column`` is one of this module's names)."""
    found: list[tuple[int, Any]] = []
    for start in range(0, len(rows), _PER_QUERY):
        part = [int(r) for r in rows[start : start + _PER_QUERY]]
        found.extend(
            conn.execute(
                f"SELECT rowid, {column} FROM chunks WHERE embedder = ? AND vector IS NOT NULL"
                f" AND rowid IN ({','.join('?' * len(part))})",
                [embedder, *part],
            ).fetchall()
        )
    return found


def vectors_by_id(
    conn: sqlite3.Connection, embedder: str, ids: Sequence[str]
) -> tuple[list[str], np.ndarray]:
    """The chunks among ``ids`` holding a vector of ``embedder``, and those vectors."""
    found: list[tuple[str, bytes]] = []
    for start in range(0, len(ids), _PER_QUERY):
        part = list(ids[start : start + _PER_QUERY])
        found.extend(
            conn.execute(
                "SELECT id, vector FROM chunks WHERE embedder = ? AND vector IS NOT NULL"
                f" AND id IN ({','.join('?' * len(part))})",
                [embedder, *part],
            ).fetchall()
        )
    return [r[0] for r in found], _matrix([r[1] for r in found])


def recorded(conn: sqlite3.Connection, embedder: str) -> VectorFile | None:
    """The saved file of ``embedder`` (None before the store's first ANN index)."""
    if not conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vector_files'"
    ).fetchone():
        return None
    row = conn.execute(
        "SELECT embedder, file, covered, dim FROM vector_files WHERE embedder = ?", (embedder,)
    ).fetchone()
    return VectorFile(*row) if row else None


def record(conn: sqlite3.Connection, saved: VectorFile) -> bool:
    """Record a saved file unless one covering more is recorded already (another process
    saved later); then drop the log entries every recorded file covers. Whether it was."""
    held = recorded(conn, saved.embedder)
    if held is not None and held.covered >= saved.covered:
        return False
    conn.execute(
        "INSERT OR REPLACE INTO vector_files (embedder, file, covered, dim) VALUES (?, ?, ?, ?)",
        (saved.embedder, saved.file, saved.covered, saved.dim),
    )
    oldest = conn.execute("SELECT MIN(covered) FROM vector_files").fetchone()[0]
    conn.execute("DELETE FROM vector_log WHERE seq <= ?", (oldest,))
    return True


def _unpacked(rows: Sequence[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """Row numbers and a float32 matrix from ``(rowid, vector blob)`` pairs."""
    labels = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return labels, _matrix([r[1] for r in rows])


def _matrix(blobs: Sequence[bytes]) -> np.ndarray:
    """Stored vectors (little-endian float32 blobs of one length) as one matrix."""
    if not blobs:
        return np.zeros((0, 0), dtype=np.float32)
    flat = np.frombuffer(b"".join(blobs), dtype="<f4")
    return flat.reshape(len(blobs), -1).astype(np.float32, copy=False)
