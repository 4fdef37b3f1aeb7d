"""The embedding cache table: float32 vectors keyed by (embedder name, sha256 of the text)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from citesift.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore

Store: TypeAlias = "SQLiteStore | PostgresStore"
"""Either store keeps the cache: the embedded SQLite file or a PostgreSQL server."""

COMPONENT = "embeddings"
MIGRATIONS = [
    """
    CREATE TABLE embeddings (
        embedder TEXT NOT NULL,
        text_sha256 TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (embedder, text_sha256)
    ) WITHOUT ROWID;
    """,
]
BLOB_DTYPE = np.dtype("<f4")
"""Vectors are stored as little-endian float32, so a database file moves between machines."""
LOOKUP_CHUNK = 500
"""Hashes per ``IN (...)`` query, well under SQLite's bound-parameter limit."""


def text_key(text: str) -> str:
    """The cache key of a text: hex sha256 of its UTF-8 bytes (lone surrogates replaced)."""
    if not isinstance(text, str):
        raise TypeError(f"embeddings are keyed by text, got {type(text).__name__}")
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def migrate_embeddings(store: Store) -> None:
    """Create (or bring up to date) the embeddings table."""
    if isinstance(store, SQLiteStore):
        store.migrate(COMPONENT, MIGRATIONS)
    else:
        from citesift.store.postgres import embeddings

        store.migrate(COMPONENT, embeddings.MIGRATIONS)


def load_vectors(
    store: Store, embedder: str, dim: int, keys: Sequence[str]
) -> dict[str, np.ndarray]:
    """The cached vectors of ``keys`` for ``embedder``; rows of another size are ignored."""
    found: dict[str, np.ndarray] = {}
    unique = list(dict.fromkeys(keys))
    if not isinstance(store, SQLiteStore):
        from citesift.store.postgres import embeddings

        return dict(_decoded(embeddings.load_rows(store, embedder, dim, unique), dim))
    with store.reading() as conn:
        for start in range(0, len(unique), LOOKUP_CHUNK):
            chunk = unique[start : start + LOOKUP_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                "SELECT text_sha256, vector FROM embeddings"
                f" WHERE embedder = ? AND dim = ? AND text_sha256 IN ({marks})",
                (embedder, dim, *chunk),
            )
            found.update(_decoded(rows, dim))
    return found


def save_vectors(store: Store, embedder: str, keys: Sequence[str], vectors: np.ndarray) -> None:
    """Store ``vectors`` (one row per key) for ``embedder`` in one transaction."""
    rows = np.ascontiguousarray(vectors, dtype=BLOB_DTYPE)
    if not isinstance(store, SQLiteStore):
        from citesift.store.postgres import embeddings

        return embeddings.save_rows(store, embedder, keys, rows)
    values = [(embedder, k, rows.shape[1], r.tobytes()) for k, r in zip(keys, rows, strict=True)]
    with store.transaction() as conn:
        conn.executemany(
            "INSERT OR REPLACE INTO embeddings (embedder, text_sha256, dim, vector)"
            " VALUES (?, ?, ?, ?)",
            values,
        )


def count_vectors(store: Store, embedder: str | None = None) -> int:
    """How many vectors are cached (for one embedder, or in all)."""
    if not isinstance(store, SQLiteStore):
        from citesift.store.postgres import embeddings

        return embeddings.count_rows(store, embedder)
    where, args = ("WHERE embedder = ?", (embedder,)) if embedder is not None else ("", ())
    with store.reading() as conn:
        return int(conn.execute(f"SELECT COUNT(*) FROM embeddings {where}", args).fetchone()[0])


def forget_vectors(store: Store, embedder: str) -> int:
    """Drop every cached vector of ``embedder``; returns how many went."""
    if not isinstance(store, SQLiteStore):
        from citesift.store.postgres import embeddings

        return embeddings.forget_rows(store, embedder)
    with store.transaction() as conn:
        return conn.execute("DELETE FROM embeddings WHERE embedder = ?", (embedder,)).rowcount


def every_vector(store: Store, page: int) -> Iterator[tuple[str, list[str], np.ndarray]]:
    """Every cached vector, as (embedder, keys, float32 rows) of one embedder and size each,
    read ``page`` rows at a time in key order."""
    mark = "?" if isinstance(store, SQLiteStore) else "%s"
    sql = (
        "SELECT embedder, text_sha256, dim, vector FROM embeddings"
        f" WHERE (embedder, text_sha256) > ({mark}, {mark})"
        f" ORDER BY embedder, text_sha256 LIMIT {mark}"
    )
    after = ("", "")
    while True:
        with store.reading() as conn:
            rows = conn.execute(sql, (*after, page)).fetchall()
        groups: dict[tuple[str, int], list[tuple[str, bytes]]] = {}
        for embedder, key, dim, blob in rows:
            groups.setdefault((embedder, dim), []).append((key, bytes(blob)))
        for (embedder, dim), found in groups.items():
            kept = dict(_decoded(found, dim))
            if kept:
                yield embedder, list(kept), np.stack(list(kept.values()))
        if len(rows) < page:
            return
        after = (rows[-1][0], rows[-1][1])


def _decoded(rows: Iterable[tuple[str, bytes]], dim: int) -> Iterable[tuple[str, np.ndarray]]:
    """(key, vector) pairs for the rows whose blob holds exactly ``dim`` float32 values."""
    for key, blob in rows:
        if len(blob) == dim * 4:
            yield key, np.frombuffer(blob, dtype=BLOB_DTYPE).astype(np.float32)
