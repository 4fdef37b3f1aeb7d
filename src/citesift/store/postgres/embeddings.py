"""The embedding cache in PostgreSQL: the SQLite table's rows (little-endian float32 bytes
keyed by embedder and text hash), so a cached vector reads back bit for bit either way."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citesift.store.postgres import PostgresStore

MIGRATIONS = [
    """
    CREATE TABLE embeddings (
        embedder TEXT NOT NULL,
        text_sha256 TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vector BYTEA NOT NULL,
        PRIMARY KEY (embedder, text_sha256)
    );
    """,
]


def load_rows(
    store: PostgresStore, embedder: str, dim: int, keys: Sequence[str]
) -> list[tuple[str, bytes]]:
    """The (key, bytes) rows cached for ``keys`` of ``embedder`` at ``dim``."""
    with store.reading() as conn:
        rows = conn.execute(
            "SELECT text_sha256, vector FROM embeddings"
            " WHERE embedder = %s AND dim = %s AND text_sha256 = ANY(%s)",
            (embedder, dim, list(keys)),
        ).fetchall()
    return [(str(key), bytes(blob)) for key, blob in rows]


def save_rows(store: PostgresStore, embedder: str, keys: Sequence[str], rows: np.ndarray) -> None:
    """Store one row of ``rows`` (float32, little-endian) per key, replacing older ones."""
    with store.transaction() as conn, conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO embeddings (embedder, text_sha256, dim, vector) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (embedder, text_sha256) DO UPDATE"
            " SET dim = excluded.dim, vector = excluded.vector",
            [(embedder, k, rows.shape[1], r.tobytes()) for k, r in zip(keys, rows, strict=True)],
        )


def count_rows(store: PostgresStore, embedder: str | None) -> int:
    """How many vectors are cached (for one embedder, or in all)."""
    with store.reading() as conn:
        row = conn.execute(
            "SELECT count(*) FROM embeddings WHERE %s::text IS NULL OR embedder = %s",
            (embedder, embedder),
        ).fetchone()
    return int(row[0]) if row else 0


def forget_rows(store: PostgresStore, embedder: str) -> int:
    """Drop every cached vector of ``embedder``; how many went."""
    with store.transaction() as conn:
        return conn.execute("DELETE FROM embeddings WHERE embedder = %s", (embedder,)).rowcount
