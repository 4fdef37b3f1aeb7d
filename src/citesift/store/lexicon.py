"""The lexical index kept in the SQLite store, so that opening a store reads it back instead
of tokenizing every passage again: the vocabulary; each index's sealed segments, holding
their postings and their rows (number, id, owner, length) as a few blobs each, so a million
rows read back in a few reads; the rows not sealed yet, one a row with their term counts;
and the sealed rows removed since (a merge drops them from its segment).

Every change is written in the transaction that changes the chunks, with a generation
number a process compares with its own to see that another process wrote meanwhile.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from citesift.store.sqlite import SQLiteStore

COMPONENT = "bm25"
_FORGET = (
    "DELETE FROM bm25_terms",
    "DELETE FROM bm25_rows",
    "DELETE FROM bm25_segments",
    "DELETE FROM bm25_removed",
    "DELETE FROM bm25_state WHERE name NOT IN ('generation', 'tokenizer')",
    "UPDATE bm25_state SET value = value + 1 WHERE name = 'generation'",
)
"""Forget the kept index (it is built again from the chunks when next read), and tell every
process holding it in memory to read it again."""
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
        members BLOB NOT NULL,
        ids TEXT NOT NULL,
        owners TEXT NOT NULL,
        lengths BLOB NOT NULL,
        PRIMARY KEY (kind, key)
    );
    CREATE TABLE bm25_removed (kind TEXT NOT NULL, row INTEGER NOT NULL,
        PRIMARY KEY (kind, row)) WITHOUT ROWID;
    CREATE TABLE bm25_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    """,
    # Words with combining marks are one term since (Devanagari, vocalised Arabic…), and
    # Thai, Lao, Burmese and Khmer character pairs: the kept index is built again.
    ";\n".join(_FORGET),
    # The version of the tokenizer rules the kept index is made by: those of the step above.
    "INSERT OR IGNORE INTO bm25_state (name, value) VALUES ('tokenizer', 2);",
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
    """A sealed segment: its postings (``terms``, ``starts``, ``rows``, ``tf``) and its
    rows (``members``, ascending, with their ids, owners and lengths)."""

    key: int
    terms: np.ndarray
    starts: np.ndarray
    rows: np.ndarray
    tf: np.ndarray
    members: np.ndarray
    ids: list[str]
    owners: list[str | None]
    lengths: np.ndarray


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


def match_tokenizer(store: SQLiteStore, version: int) -> None:
    """Forget the kept index when it was made by tokenizer rules older than ``version``'s,
    and keep ``version`` (a newer one is left: it is a newer program's)."""
    with store.reading() as conn:
        if _tokenizer(conn) >= version:
            return
    with store.transaction() as conn:
        if _tokenizer(conn) >= version:
            return  # another process forgot it meanwhile
        for statement in _FORGET:
            conn.execute(statement)
        set_state(conn, tokenizer=version)


def _tokenizer(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM bm25_state WHERE name = 'tokenizer'").fetchone()
    return int(row[0]) if row else 0


def load(conn: sqlite3.Connection, kinds: Sequence[str]) -> KeptIndex:
    """What is kept of the index (its arrays read without a copy)."""
    state = dict(conn.execute("SELECT name, value FROM bm25_state").fetchall())
    kept = KeptIndex(generation=int(state.get("generation", 0)), built=bool(state.get("built")))
    kept.terms = [t for (t,) in conn.execute("SELECT term FROM bm25_terms ORDER BY id")]
    for kind in kinds:
        kept.used[kind] = int(state.get(f"rows:{kind}", 0))
        kept.segments[kind] = [
            _segment(key, arrays, members, ids, owners, lengths)
            for key, *arrays, members, ids, owners, lengths in conn.execute(
                "SELECT key, terms, starts, rows, tf, members, ids, owners, lengths"
                " FROM bm25_segments WHERE kind = ? ORDER BY key",
                (kind,),
            )
        ]
        kept.rows[kind] = _rows(conn, kind, kept.segments[kind])
    return kept


def _rows(conn: sqlite3.Connection, kind: str, segments: Sequence[KeptSegment]) -> KeptRows:
    """The live rows of one index: those of its segments less the removed ones, and the
    rows not sealed yet (with their term counts)."""
    pending = conn.execute(
        "SELECT row, id, owner, length, terms, counts FROM bm25_rows WHERE kind = ?", (kind,)
    ).fetchall()
    rows = np.concatenate(
        [s.members for s in segments] + [np.array([p[0] for p in pending], dtype=np.int64)]
    )
    ids = list(chain.from_iterable([*(s.ids for s in segments), (p[1] for p in pending)]))
    owners = list(chain.from_iterable([*(s.owners for s in segments), (p[2] for p in pending)]))
    lengths = np.concatenate(
        [s.lengths for s in segments] + [np.array([p[3] for p in pending], dtype=np.float64)]
    )
    removed = [r for (r,) in conn.execute("SELECT row FROM bm25_removed WHERE kind = ?", (kind,))]
    if removed:
        live = ~np.isin(rows, np.array(removed, dtype=np.int64))
        rows, lengths = rows[live], lengths[live]
        ids = [i for i, keep in zip(ids, live.tolist(), strict=True) if keep]
        owners = [o for o, keep in zip(owners, live.tolist(), strict=True) if keep]
    order = np.argsort(rows, kind="stable")
    terms = [(p[0], np.frombuffer(p[4], "<i4"), np.frombuffer(p[5], "<f4")) for p in pending]
    return KeptRows(
        rows[order],
        [ids[i] for i in order.tolist()],
        [owners[i] for i in order.tolist()],
        lengths[order],
        sorted(terms, key=lambda p: p[0]),
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
    """Forget removed rows: a pending one goes, a sealed one is marked removed."""
    pairs = [(kind, r) for r in rows]
    conn.executemany("DELETE FROM bm25_rows WHERE kind = ? AND row = ?", pairs)
    conn.executemany("INSERT OR IGNORE INTO bm25_removed (kind, row) VALUES (?, ?)", pairs)


def seal(
    conn: sqlite3.Connection, kind: str, made: Sequence[KeptSegment], dropped: Iterable[int]
) -> None:
    """Keep the segments ``made``, forget those ``dropped`` (by key), and the pending rows
    (every pending row is sealed at once)."""
    conn.executemany(
        "DELETE FROM bm25_segments WHERE kind = ? AND key = ?", [(kind, k) for k in dropped]
    )
    conn.executemany(
        "INSERT INTO bm25_segments (kind, key, terms, starts, rows, tf, members, ids, owners,"
        " lengths) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                kind,
                s.key,
                *(_blob(a, t) for a, t in zip(_parts(s), _ARRAYS, strict=True)),
                _blob(s.members, "<i8"),
                json.dumps(s.ids, ensure_ascii=False),
                json.dumps(s.owners, ensure_ascii=False),
                _blob(s.lengths, "<f8"),
            )
            for s in made
        ],
    )
    conn.execute("DELETE FROM bm25_rows WHERE kind = ?", (kind,))


def _segment(
    key: int, blobs: Sequence[bytes], members: bytes, ids: str, owners: str, lengths: bytes
) -> KeptSegment:
    """A segment from what is kept (its arrays read in place, not copied)."""
    terms, starts, rows, tf = (
        np.frombuffer(b, dtype=t) for b, t in zip(blobs, _ARRAYS, strict=True)
    )
    return KeptSegment(
        key,
        terms,
        starts,
        rows,
        tf,
        np.frombuffer(members, dtype="<i8"),
        json.loads(ids),
        json.loads(owners),
        np.frombuffer(lengths, dtype="<f8"),
    )


def _parts(s: KeptSegment) -> tuple[np.ndarray, ...]:
    return s.terms, s.starts, s.rows, s.tf


def _blob(array: np.ndarray | None, dtype: str) -> bytes | None:
    return None if array is None else np.ascontiguousarray(array, dtype=dtype).tobytes()
