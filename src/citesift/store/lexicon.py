"""The lexical index kept in the SQLite store, so that opening a store reads it back instead
of tokenizing every passage again: the vocabulary, each index's rows (id, length, owner;
the term counts of rows not yet sealed) and its sealed segments of postings, as arrays.

Every change is written in the transaction that changes the chunks, with a generation
number a process compares with its own to see that another process wrote meanwhile.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from citesift.store.sqlite import SQLiteStore

COMPONENT = "bm25"
MIGRATIONS = [
    """
    CREATE TABLE bm25_terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
    CREATE TABLE bm25_rows (
        kind TEXT NOT NULL,
        row INTEGER NOT NULL,
        id TEXT NOT NULL,
        owner TEXT,
        length REAL NOT NULL,
        terms BLOB,
        counts BLOB,
        PRIMARY KEY (kind, row)
    ) WITHOUT ROWID;
    CREATE TABLE bm25_segments (
        kind TEXT NOT NULL,
        key INTEGER NOT NULL,
        terms BLOB NOT NULL,
        starts BLOB NOT NULL,
        rows BLOB NOT NULL,
        tf BLOB NOT NULL,
        PRIMARY KEY (kind, key)
    );
    CREATE TABLE bm25_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    """,
]
_ARRAYS = ("<i4", "<i8", "<i4", "<f4")
"""The types of a segment's terms, starts, rows and tf, as kept."""


@dataclass(frozen=True, slots=True)
class KeptRow:
    """One row of an index as kept: its number, id, owner (a passage's document), length,
    and term ids and counts while it is not sealed into a segment."""

    row: int
    id: str
    owner: str | None
    length: float
    terms: np.ndarray | None = None
    counts: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class KeptRows:
    """The rows of one index as kept, column by column (row numbers ascending), and the
    term ids and counts of those not sealed yet, by row."""

    rows: np.ndarray
    ids: list[str]
    owners: list[str | None]
    lengths: np.ndarray
    pending: list[tuple[int, np.ndarray, np.ndarray]]


@dataclass(frozen=True, slots=True)
class KeptSegment:
    key: int
    terms: np.ndarray
    starts: np.ndarray
    rows: np.ndarray
    tf: np.ndarray


@dataclass(slots=True)
class KeptIndex:
    """Everything kept: the vocabulary in id order, rows and segments by kind, the number
    of rows each kind has used, the generation, and whether the index was built at all."""

    terms: list[str] = field(default_factory=list)
    rows: dict[str, KeptRows] = field(default_factory=dict)
    segments: dict[str, list[KeptSegment]] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)
    generation: int = 0
    built: bool = False


def migrate_lexicon(store: SQLiteStore) -> None:
    store.migrate(COMPONENT, MIGRATIONS)


def load(conn: sqlite3.Connection, kinds: Sequence[str]) -> KeptIndex:
    """What is kept of the index (its arrays read without a copy)."""
    state = dict(conn.execute("SELECT name, value FROM bm25_state").fetchall())
    kept = KeptIndex(generation=int(state.get("generation", 0)), built=bool(state.get("built")))
    kept.terms = [t for (t,) in conn.execute("SELECT term FROM bm25_terms ORDER BY id")]
    for kind in kinds:
        kept.used[kind] = int(state.get(f"rows:{kind}", 0))
        kept.rows[kind] = _rows(conn, kind)
        kept.segments[kind] = [
            KeptSegment(key, *(_arrays(arrays)))
            for key, *arrays in conn.execute(
                "SELECT key, terms, starts, rows, tf FROM bm25_segments WHERE kind = ?"
                " ORDER BY key",
                (kind,),
            )
        ]
    return kept


def _rows(conn: sqlite3.Connection, kind: str) -> KeptRows:
    """The rows of one index, read column by column."""
    found = conn.execute(
        "SELECT row, id, owner, length FROM bm25_rows WHERE kind = ? ORDER BY row", (kind,)
    ).fetchall()
    rows, ids, owners, lengths = (list(c) for c in zip(*found, strict=True)) if found else ([],) * 4
    pending = [
        (row, np.frombuffer(terms, dtype="<i4"), np.frombuffer(counts, dtype="<f4"))
        for row, terms, counts in conn.execute(
            "SELECT row, terms, counts FROM bm25_rows WHERE kind = ? AND terms IS NOT NULL"
            " ORDER BY row",
            (kind,),
        )
    ]
    return KeptRows(
        np.array(rows, dtype=np.int64), ids, owners, np.array(lengths, dtype=np.float64), pending
    )


def generation(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM bm25_state WHERE name = 'generation'").fetchone()
    return int(row[0]) if row else 0


def set_state(conn: sqlite3.Connection, **values: int) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO bm25_state (name, value) VALUES (?, ?)",
        [(name.replace("rows_", "rows:"), value) for name, value in values.items()],
    )


def save_terms(conn: sqlite3.Connection, first: int, terms: Sequence[str]) -> None:
    """Keep new vocabulary terms, numbered from ``first``."""
    conn.executemany(
        "INSERT INTO bm25_terms (id, term) VALUES (?, ?)",
        [(first + i, t) for i, t in enumerate(terms)],
    )


def save_rows(conn: sqlite3.Connection, kind: str, rows: Iterable[KeptRow]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO bm25_rows (kind, row, id, owner, length, terms, counts)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (kind, r.row, r.id, r.owner, r.length, _blob(r.terms, "<i4"), _blob(r.counts, "<f4"))
            for r in rows
        ],
    )


def drop_rows(conn: sqlite3.Connection, kind: str, rows: Iterable[int]) -> None:
    conn.executemany("DELETE FROM bm25_rows WHERE kind = ? AND row = ?", [(kind, r) for r in rows])


def seal(
    conn: sqlite3.Connection, kind: str, made: Sequence[KeptSegment], dropped: Iterable[int]
) -> None:
    """Keep the segments ``made``, forget those ``dropped`` (by key), and forget the term
    counts of rows now in a segment (every pending row is sealed at once)."""
    conn.executemany(
        "DELETE FROM bm25_segments WHERE kind = ? AND key = ?", [(kind, k) for k in dropped]
    )
    conn.executemany(
        "INSERT INTO bm25_segments (kind, key, terms, starts, rows, tf) VALUES (?, ?, ?, ?, ?, ?)",
        [
            (kind, s.key, *(_blob(a, t) for a, t in zip(_parts(s), _ARRAYS, strict=True)))
            for s in made
        ],
    )
    conn.execute(
        "UPDATE bm25_rows SET terms = NULL, counts = NULL WHERE kind = ? AND terms IS NOT NULL",
        (kind,),
    )


def _arrays(blobs: Sequence[bytes]) -> list[np.ndarray]:
    """A segment's arrays from their blobs (read in place, not copied)."""
    return [np.frombuffer(b, dtype=t) for b, t in zip(blobs, _ARRAYS, strict=True)]


def _parts(s: KeptSegment) -> tuple[np.ndarray, ...]:
    return s.terms, s.starts, s.rows, s.tf


def _blob(array: np.ndarray | None, dtype: str) -> bytes | None:
    return None if array is None else np.ascontiguousarray(array, dtype=dtype).tobytes()
