"""Snapshots kept in the store: bodies compressed and content-addressed, one row per fetch.

A body is stored once under the sha256 of its bytes (zstd-compressed); each fetch that got
it adds a row with its URL, final URL, status, kept headers, content type, charset and
time. Reading a body checks its hash, so a replay is known to use the very bytes fetched.
The interface (``save``, ``get``, ``latest``) is what a PostgreSQL store implements too.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

import zstandard

from citesift.errors import StoreCorrupt
from citesift.model import MAX_BODY_BYTES, Snapshot
from citesift.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore

COMPONENT = "snapshots"
PAGE = 200
"""Snapshots read per query when reading them all (bodies can be large)."""
CODEC = "zstd"
ZSTD_LEVEL = 6
STEPS = [
    """
    CREATE TABLE snapshot_bodies (
        id TEXT PRIMARY KEY, codec TEXT NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL);
    CREATE TABLE snapshots (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL REFERENCES snapshot_bodies (id),
        url TEXT NOT NULL, final_url TEXT NOT NULL, status INTEGER NOT NULL,
        headers TEXT NOT NULL, content_type TEXT NOT NULL, charset TEXT,
        fetched_at INTEGER NOT NULL,
        UNIQUE (id, url, fetched_at));
    CREATE INDEX snapshots_by_url ON snapshots (url, fetched_at);
    CREATE INDEX snapshots_by_final_url ON snapshots (final_url, fetched_at);
    CREATE INDEX snapshots_by_id ON snapshots (id, fetched_at);
    """
]
_COLUMNS = "s.id, s.url, s.final_url, s.status, s.headers, s.content_type, s.charset, s.fetched_at"
COLUMNS = f"{_COLUMNS}, b.codec, b.data"
JOINED = "snapshots s JOIN snapshot_bodies b USING (id)"
SELECT = f"SELECT {COLUMNS} FROM {JOINED}"


class Snapshots(Protocol):
    """What any snapshot store offers (this SQLite one, or a PostgreSQL one)."""

    def save(self, snapshot: Snapshot) -> str: ...

    def get(self, id: str) -> Snapshot | None: ...

    def latest(self, url: str) -> Snapshot | None: ...

    def every(self) -> Iterator[Snapshot]: ...


class SnapshotCorrupted(StoreCorrupt, ValueError):
    """A stored body whose bytes no longer hash to its id."""


def snapshot_id(body: bytes) -> str:
    """The id of a body: the hex sha256 of its bytes."""
    return hashlib.sha256(body).hexdigest()


def packed_body(snapshot: Snapshot) -> bytes:
    """The body of ``snapshot`` compressed for keeping, once it is checked to be the body its
    id names (``SnapshotCorrupted`` otherwise)."""
    if snapshot_id(snapshot.body) != snapshot.id:
        raise SnapshotCorrupted(f"snapshot {snapshot.id} does not match its body")
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(snapshot.body)


class SnapshotStore:
    """``Snapshots`` in a ``SQLiteStore`` (its own tables, migrated on first use)."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        store.migrate(COMPONENT, STEPS)

    def save(self, snapshot: Snapshot) -> str:
        """Keep ``snapshot`` (its body once per id); returns its id."""
        data = packed_body(snapshot)
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO snapshot_bodies (id, codec, size, data) VALUES (?, ?, ?, ?)",
                (snapshot.id, CODEC, len(snapshot.body), data),
            )
            conn.execute(
                "INSERT OR IGNORE INTO snapshots (id, url, final_url, status, headers,"
                " content_type, charset, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                snapshot_row(snapshot),
            )
        return snapshot.id

    def get(self, id: str) -> Snapshot | None:
        """The latest fetch that got the body ``id``, or None."""
        return self._one(f"{SELECT} WHERE s.id = ? ORDER BY s.fetched_at DESC, s.seq DESC", id)

    def latest(self, url: str) -> Snapshot | None:
        """The latest snapshot fetched from ``url`` (asked for, or reached by redirect)."""
        found = self._one(f"{SELECT} WHERE s.url = ? ORDER BY s.fetched_at DESC, s.seq DESC", url)
        if found is not None:
            return found
        return self._one(
            f"{SELECT} WHERE s.final_url = ? ORDER BY s.fetched_at DESC, s.seq DESC", url
        )

    def every(self) -> Iterator[Snapshot]:
        """Every fetch kept, in the order they were saved, read a page at a time."""
        seq = 0
        while True:
            with self.store.reading() as conn:
                rows = conn.execute(
                    f"SELECT s.seq, {COLUMNS} FROM {JOINED} WHERE s.seq > ? ORDER BY s.seq LIMIT ?",
                    (seq, PAGE),
                ).fetchall()
            yield from (snapshot_from_row(row[1:]) for row in rows)
            if len(rows) < PAGE:
                return
            seq = rows[-1][0]

    def _one(self, sql: str, value: str) -> Snapshot | None:
        with self.store.reading() as conn:
            row = conn.execute(sql + " LIMIT 1", (value,)).fetchone()
        return snapshot_from_row(row) if row is not None else None


def snapshot_row(snapshot: Snapshot) -> tuple[object, ...]:
    return (
        snapshot.id,
        snapshot.url,
        snapshot.final_url,
        snapshot.status,
        json.dumps([list(pair) for pair in snapshot.headers]),
        snapshot.content_type,
        snapshot.charset,
        snapshot.fetched_at,
    )


def snapshot_from_row(row: sqlite3.Row | tuple[Any, ...]) -> Snapshot:
    id_, url, final_url, status, headers, content_type, charset, fetched_at, codec, data = row
    if codec != CODEC:
        raise SnapshotCorrupted(f"snapshot {id_} uses an unknown codec {codec!r}")
    body = _inflated(id_, data)
    if snapshot_id(body) != id_:
        raise SnapshotCorrupted(f"snapshot {id_} does not match its stored body")
    try:
        pairs = tuple((str(k), str(v)) for k, v in json.loads(str(headers)))
        return Snapshot(
            id=str(id_),
            url=str(url),
            final_url=str(final_url),
            status=int(status),
            headers=pairs,
            content_type=str(content_type),
            charset=None if charset is None else str(charset),
            fetched_at=int(fetched_at),
            body=body,
        )
    except (TypeError, ValueError, RecursionError) as error:
        raise SnapshotCorrupted(f"snapshot {id_} has a damaged row: {error}"[:300]) from None


def _inflated(id_: object, data: bytes) -> bytes:
    """A stored body, decompressed: bytes that are no zstd frame, or a frame that says it
    holds more than any fetch may keep, are a damaged row, not an allocation to attempt."""
    try:
        size = zstandard.frame_content_size(data)
        if not 0 <= size <= MAX_BODY_BYTES:
            raise SnapshotCorrupted(f"snapshot {id_} declares a body of {size} bytes")
        return zstandard.ZstdDecompressor().decompress(data)
    except (zstandard.ZstdError, TypeError) as error:
        raise SnapshotCorrupted(f"snapshot {id_} is not a readable body: {error}") from None


def snapshots_in(store: SQLiteStore | PostgresStore | Snapshots) -> Snapshots:
    """The snapshots of ``store``: a SQLite or PostgreSQL store's, or ``store`` itself."""
    if isinstance(store, SQLiteStore):
        return SnapshotStore(store)
    if all(callable(getattr(store, m, None)) for m in ("save", "get", "latest")):
        return store  # type: ignore[return-value]
    from citesift.store.postgres.snapshots import PostgresSnapshots  # needs the extra

    return PostgresSnapshots(store)  # type: ignore[arg-type]
