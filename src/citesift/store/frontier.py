"""A crawl's frontier and results in the store, so a crawl killed at any moment resumes.

Each crawl has a row (its start URL and options) and one frontier row per URL it has
found (depth, score, state ``queued``, ``claimed``, ``done``, ``failed`` or ``moved`` (a
redirect, whose target is queued in its place), and why one failed or moved); a URL is
in a crawl's frontier once, whatever its spellings found.
A page's result is stored in the transaction that marks it done, with the links it adds,
so a crash loses nothing finished and finishes nothing twice. Rows claimed by a run that
died are queued again when the crawl starts again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from citesift.store.sqlite import SQLiteStore

COMPONENT = "frontier"
STEPS = [
    """
    CREATE TABLE crawls (
        id TEXT PRIMARY KEY, start TEXT NOT NULL, options TEXT NOT NULL,
        created_at INTEGER NOT NULL);
    CREATE TABLE crawl_frontier (
        seq INTEGER PRIMARY KEY,
        crawl TEXT NOT NULL REFERENCES crawls (id),
        url TEXT NOT NULL, host TEXT NOT NULL, depth INTEGER NOT NULL,
        score REAL NOT NULL, state TEXT NOT NULL, reason TEXT,
        UNIQUE (crawl, url));
    CREATE INDEX crawl_frontier_next ON crawl_frontier (crawl, state, score DESC, depth, seq);
    CREATE TABLE crawl_results (
        seq INTEGER PRIMARY KEY,
        crawl TEXT NOT NULL REFERENCES crawls (id),
        url TEXT NOT NULL, record TEXT NOT NULL,
        UNIQUE (crawl, url));
    """
]
STATES = ("queued", "claimed", "done", "failed", "moved")
PAGE = 200


@dataclass(frozen=True, slots=True)
class Entry:
    """One URL of a crawl's frontier."""

    url: str
    host: str
    depth: int
    score: float = 0.0


class Frontier:
    """The frontiers and results of crawls in a ``SQLiteStore`` (migrated on first use)."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        store.migrate(COMPONENT, STEPS)

    def begin(self, crawl: str, start: Entry, options: dict[str, Any]) -> None:
        """Make the crawl (queueing its start) unless it exists; queue again what a run
        that ended without finishing had claimed."""
        with self.store.transaction() as conn:
            made = conn.execute(
                "INSERT OR IGNORE INTO crawls (id, start, options, created_at) VALUES (?, ?, ?, ?)",
                (crawl, start.url, json.dumps(options, sort_keys=True), int(time.time())),
            ).rowcount
            if made:
                _queue(conn, crawl, [start])
            conn.execute(
                "UPDATE crawl_frontier SET state = 'queued' WHERE crawl = ? AND state = 'claimed'",
                (crawl,),
            )

    def options(self, crawl: str) -> tuple[str, dict[str, Any]] | None:
        """The start URL and options of ``crawl``, or None when the store has no such crawl."""
        with self.store.reading() as conn:
            row = conn.execute(
                "SELECT start, options FROM crawls WHERE id = ?", (crawl,)
            ).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def claim(self, crawl: str, count: int, busy: Iterable[str] = ()) -> list[Entry]:
        """Up to ``count`` queued URLs (best score, then shallowest, then oldest first) on
        hosts not in ``busy``, marked claimed."""
        hosts = sorted(set(busy))
        marks = ",".join("?" * len(hosts))
        with self.store.transaction() as conn:
            rows = conn.execute(
                "SELECT url, host, depth, score FROM crawl_frontier"
                f" WHERE crawl = ? AND state = 'queued' AND host NOT IN ({marks})"
                " ORDER BY score DESC, depth, seq LIMIT ?",
                (crawl, *hosts, count),
            ).fetchall()
            conn.executemany(
                "UPDATE crawl_frontier SET state = 'claimed' WHERE crawl = ? AND url = ?",
                [(crawl, row[0]) for row in rows],
            )
        return [Entry(*row) for row in rows]

    def waiting_hosts(self, crawl: str) -> set[str]:
        """The hosts of the URLs of ``crawl`` still queued."""
        with self.store.reading() as conn:
            rows = conn.execute(
                "SELECT DISTINCT host FROM crawl_frontier WHERE crawl = ? AND state = 'queued'",
                (crawl,),
            ).fetchall()
        return {row[0] for row in rows}

    def release(self, crawl: str, url: str) -> None:
        """Queue a claimed URL again (it could not be fetched yet)."""
        with self.store.transaction() as conn:
            conn.execute(
                "UPDATE crawl_frontier SET state = 'queued' WHERE crawl = ? AND url = ?",
                (crawl, url),
            )

    def finish(
        self,
        crawl: str,
        url: str,
        record: dict[str, Any] | None,
        reason: str | None = None,
        found: Iterable[Entry] = (),
        state: str | None = None,
    ) -> int:
        """In one transaction: mark ``url`` done with its ``record`` stored (failed for
        ``reason`` when there is none, or the ``state`` given: ``moved`` for a redirect),
        and queue the URLs it ``found`` not yet known; returns how many were new."""
        state = state or ("done" if record is not None else "failed")
        with self.store.transaction() as conn:
            conn.execute(
                "UPDATE crawl_frontier SET state = ?, reason = ? WHERE crawl = ? AND url = ?",
                (state, reason, crawl, url),
            )
            if record is not None:
                conn.execute(
                    "INSERT OR IGNORE INTO crawl_results (crawl, url, record) VALUES (?, ?, ?)",
                    (crawl, url, json.dumps(record, ensure_ascii=False)),
                )
            return _queue(conn, crawl, found)

    def counts(self, crawl: str) -> dict[str, int]:
        """How many URLs of ``crawl`` are in each state."""
        with self.store.reading() as conn:
            rows = conn.execute(
                "SELECT state, COUNT(*) FROM crawl_frontier WHERE crawl = ? GROUP BY state",
                (crawl,),
            ).fetchall()
        return {state: 0 for state in STATES} | {state: n for state, n in rows}

    def results(self, crawl: str) -> Iterator[dict[str, Any]]:
        """The stored results of ``crawl`` in the order they were stored, read a page at a
        time (so a long crawl is never held in memory)."""
        after = 0
        while True:
            with self.store.reading() as conn:
                rows = conn.execute(
                    "SELECT seq, record FROM crawl_results WHERE crawl = ? AND seq > ?"
                    " ORDER BY seq LIMIT ?",
                    (crawl, after, PAGE),
                ).fetchall()
            if not rows:
                return
            for seq, record in rows:
                after = seq
                yield json.loads(record)

    def failures(self, crawl: str) -> Iterator[tuple[str, str]]:
        """The failed URLs of ``crawl`` and why each failed."""
        with self.store.reading() as conn:
            rows = conn.execute(
                "SELECT url, reason FROM crawl_frontier WHERE crawl = ? AND state = 'failed'"
                " ORDER BY seq",
                (crawl,),
            ).fetchall()
        yield from ((url, reason or "") for url, reason in rows)


def _queue(conn: Any, crawl: str, entries: Iterable[Entry]) -> int:
    """Queue the entries not yet in the crawl's frontier; returns how many were new."""
    return int(
        conn.executemany(
            "INSERT OR IGNORE INTO crawl_frontier (crawl, url, host, depth, score, state)"
            " VALUES (?, ?, ?, ?, ?, 'queued')",
            [(crawl, e.url, e.host, e.depth, e.score) for e in entries],
        ).rowcount
    )
