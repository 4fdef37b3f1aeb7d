"""Snapshots in PostgreSQL: the SQLite store's tables and rules (bodies zstd-compressed and
content-addressed, one row per fetch, hashes checked on reading) over a ``PostgresStore``."""

from __future__ import annotations

from collections.abc import Iterator

from citesift.model import Snapshot
from citesift.store.postgres import PostgresStore
from citesift.store.snapshots import (
    CODEC,
    COLUMNS,
    COMPONENT,
    JOINED,
    PAGE,
    SELECT,
    packed_body,
    snapshot_from_row,
    snapshot_row,
)

STEPS = [
    """
    CREATE TABLE snapshot_bodies (
        id TEXT PRIMARY KEY, codec TEXT NOT NULL, size BIGINT NOT NULL, data BYTEA NOT NULL);
    CREATE TABLE snapshots (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL REFERENCES snapshot_bodies (id),
        url TEXT NOT NULL, final_url TEXT NOT NULL, status INTEGER NOT NULL,
        headers TEXT NOT NULL, content_type TEXT NOT NULL, charset TEXT,
        fetched_at BIGINT NOT NULL,
        UNIQUE (id, url, fetched_at));
    CREATE INDEX snapshots_by_url ON snapshots (url, fetched_at);
    CREATE INDEX snapshots_by_final_url ON snapshots (final_url, fetched_at);
    CREATE INDEX snapshots_by_id ON snapshots (id, fetched_at);
    """
]


class PostgresSnapshots:
    """``Snapshots`` in a ``PostgresStore`` (its own tables, migrated on first use)."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        store.migrate(COMPONENT, STEPS)

    def save(self, snapshot: Snapshot) -> str:
        """Keep ``snapshot`` (its body once per id); returns its id."""
        data = packed_body(snapshot)
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO snapshot_bodies (id, codec, size, data) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (snapshot.id, CODEC, len(snapshot.body), data),
            )
            conn.execute(
                "INSERT INTO snapshots (id, url, final_url, status, headers, content_type,"
                " charset, fetched_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                snapshot_row(snapshot),
            )
        return snapshot.id

    def get(self, id: str) -> Snapshot | None:
        """The latest fetch that got the body ``id``, or None."""
        return self._one("s.id", id)

    def latest(self, url: str) -> Snapshot | None:
        """The latest snapshot fetched from ``url`` (asked for, or reached by redirect)."""
        found = self._one("s.url", url)
        return found if found is not None else self._one("s.final_url", url)

    def every(self) -> Iterator[Snapshot]:
        """Every fetch kept, in the order they were saved, read a page at a time."""
        seq = 0
        while True:
            with self.store.reading() as conn:
                rows = conn.execute(
                    f"SELECT s.seq, {COLUMNS} FROM {JOINED}"
                    " WHERE s.seq > %s ORDER BY s.seq LIMIT %s".encode(),
                    (seq, PAGE),
                ).fetchall()
            yield from (snapshot_from_row(row[1:]) for row in rows)
            if len(rows) < PAGE:
                return
            seq = rows[-1][0]

    def _one(self, column: str, value: str) -> Snapshot | None:
        sql = f"{SELECT} WHERE {column} = %s ORDER BY s.fetched_at DESC, s.seq DESC LIMIT 1"
        with self.store.reading() as conn:
            row = conn.execute(sql.encode(), (value,)).fetchone()
        return snapshot_from_row(row) if row is not None else None
