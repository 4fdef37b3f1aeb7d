"""Chunks in the SQLite store: text, offsets, metadata and vectors, replaced per document."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from citesift.store.sqlite import SQLiteStore

PARTITION_KEY = "_partition"
"""The metadata key naming a chunk's partition (also kept in its own column)."""

MIGRATIONS = [
    """
    CREATE TABLE chunks (
        id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL,
        partition TEXT NOT NULL DEFAULT '',
        seq INTEGER NOT NULL,
        start INTEGER NOT NULL,
        stop INTEGER NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        embedder TEXT,
        vector BLOB
    );
    CREATE INDEX chunks_document ON chunks (document_id);
    CREATE INDEX chunks_partition ON chunks (partition);
    """,
]

_COLUMNS = "id, document_id, seq, start, stop, content, metadata, embedder, vector"


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """One chunk of a document: ``content`` is ``document[start:end]``."""

    id: str
    document_id: str
    seq: int
    start: int
    end: int
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    embedder: str | None = None
    vector: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)


def content_hash(text: str) -> str:
    """The sha256 of ``text`` (UTF-8, lone surrogates escaped), in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ChunkTable:
    """The ``chunks`` component of a ``SQLiteStore``."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        store.migrate("chunks", MIGRATIONS)

    def replace(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None:
        """In one transaction, drop every chunk of ``document_ids`` and store ``chunks``."""
        with self.store.transaction() as conn:
            _delete(conn, document_ids)
            conn.executemany(
                "INSERT OR REPLACE INTO chunks (id, document_id, partition, seq, start, stop,"
                " content, content_hash, metadata, embedder, vector)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_row(c) for c in chunks],
            )

    def delete(self, document_ids: Sequence[str]) -> int:
        """Drop every chunk of these documents; how many chunks went."""
        with self.store.transaction() as conn:
            return _delete(conn, document_ids)

    def set_vectors(self, ids: Sequence[str], embedder: str, vectors: np.ndarray) -> None:
        """Store vectors of ``embedder`` for existing chunks (one transaction)."""
        blobs = [_blob(v) for v in vectors]
        with self.store.transaction() as conn:
            conn.executemany(
                "UPDATE chunks SET embedder = ?, vector = ? WHERE id = ?",
                [(embedder, b, i) for i, b in zip(ids, blobs, strict=True)],
            )

    def all(self) -> Iterator[StoredChunk]:
        """Every chunk, in document then sequence order."""
        with self.store.reading() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM chunks ORDER BY document_id, seq")
            yield from (_chunk(r) for r in rows.fetchall())

    def stats(self) -> dict[str, Any]:
        """Counts of documents, chunks and embedded chunks (by embedder), and partitions."""
        with self.store.reading() as conn:
            docs, chunks = conn.execute(
                "SELECT COUNT(DISTINCT document_id), COUNT(*) FROM chunks"
            ).fetchone()
            by = conn.execute(
                "SELECT embedder, COUNT(*) FROM chunks WHERE embedder IS NOT NULL GROUP BY embedder"
            ).fetchall()
            parts = conn.execute("SELECT COUNT(DISTINCT partition) FROM chunks").fetchone()[0]
        return {"documents": docs, "chunks": chunks, "embedded": dict(by), "partitions": parts}


def _delete(conn: Any, document_ids: Sequence[str]) -> int:
    cursor = conn.executemany(
        "DELETE FROM chunks WHERE document_id = ?", [(d,) for d in document_ids]
    )
    return max(cursor.rowcount, 0)


def _row(c: StoredChunk) -> tuple[Any, ...]:
    partition = c.metadata.get(PARTITION_KEY, "")
    return (
        c.id,
        c.document_id,
        partition if isinstance(partition, str) else json.dumps(partition),
        c.seq,
        c.start,
        c.end,
        c.content,
        c.content_hash,
        json.dumps(c.metadata, ensure_ascii=False, default=str),
        c.embedder if c.vector is not None else None,
        _blob(c.vector) if c.vector is not None else None,
    )


def _chunk(r: tuple[Any, ...]) -> StoredChunk:
    vector = np.frombuffer(r[8], dtype=np.float32) if r[8] is not None else None
    return StoredChunk(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], vector)


def _blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()
