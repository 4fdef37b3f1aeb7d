"""A crawl's frontier and results in the store, so a crawl killed at any moment resumes and
many workers (processes, machines) share one crawl.

Each crawl has a row (its start URL, options, and how many URLs were taken toward its
limit) and one frontier row per URL it has found (depth, score, redirects followed to reach
it, state ``queued``, ``claimed``, ``done``, ``failed``, ``moved`` (a redirect, whose target
is queued in its place) or ``disallowed`` (left out: robots.txt disallows it; never read
nor taken toward the limit), and why one failed or moved); a URL is in a crawl's frontier
once, whatever its spellings found. A worker claims a URL under a lease (``holder``,
``lease_until``) that it renews while the page is read: a worker that dies mid-page never
says so, and its URL is claimed again once the lease runs out, so no page is lost and none
is read by two live workers. Claims of a process of this machine that is gone are given
back at once when the crawl starts again. A page's result is stored in the transaction that
marks it done, with the links it adds, so a crash loses nothing finished and finishes
nothing twice.

``frontier_in(store)`` gives the frontier of either store: the SQLite one (one writer at a
time, ``BEGIN IMMEDIATE``, so several processes of one machine may share it) or PostgreSQL's
(claims take rows with ``FOR UPDATE SKIP LOCKED``; see ``citesift.store.postgres.frontier``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from citesift.errors import invalid, written_number
from citesift.store.holders import holder_gone, holder_name
from citesift.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore

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
    """,
    """
    ALTER TABLE crawl_frontier ADD COLUMN holder TEXT;
    ALTER TABLE crawl_frontier ADD COLUMN lease_until REAL NOT NULL DEFAULT 0;
    UPDATE crawl_frontier SET state = 'queued' WHERE state = 'claimed';
    ALTER TABLE crawls ADD COLUMN taken INTEGER NOT NULL DEFAULT 0;
    UPDATE crawls SET taken = (
        SELECT count(*) FROM crawl_frontier f WHERE f.crawl = crawls.id AND f.state <> 'queued');
    """,
    """
    ALTER TABLE crawl_frontier ADD COLUMN hops INTEGER NOT NULL DEFAULT 0;
    """,
    """
    CREATE INDEX crawl_frontier_found ON crawl_frontier (crawl, state, seq);
    """,
]
STATES = ("queued", "claimed", "done", "failed", "moved", "disallowed")
PAGE = 200
LEASE_S = 60.0
"""How long a claim holds unless renewed: a worker killed mid-page holds its URL this long."""
MIN_LEASE_S, MAX_LEASE_S = 1.0, 3600.0


@dataclass(frozen=True, slots=True)
class Added:
    """How many URLs a finished page added to its crawl's frontier that were new to it:
    ``queued`` to be read, ``disallowed`` left out (robots.txt disallows them)."""

    queued: int = 0
    disallowed: int = 0


@dataclass(frozen=True, slots=True)
class Entry:
    """One URL of a crawl's frontier."""

    url: str
    host: str
    depth: int
    score: float = 0.0
    hops: int = 0
    """Redirects followed to reach the URL from the page whose link (or the crawl's start)
    began its chain."""


class Frontier:
    """The frontiers and results of crawls in a ``SQLiteStore`` (migrated on first use),
    claimed by ``holder`` (a new name by default) under leases of ``lease_s`` seconds."""

    steps: ClassVar[list[str]] = STEPS

    def __init__(
        self,
        store: SQLiteStore | PostgresStore,
        holder: str | None = None,
        lease_s: float = LEASE_S,
    ) -> None:
        if (
            isinstance(lease_s, bool)
            or not isinstance(lease_s, int | float)
            or not MIN_LEASE_S <= lease_s <= MAX_LEASE_S
        ):
            span = f"{written_number(MIN_LEASE_S)} to {written_number(MAX_LEASE_S)}"
            raise invalid("lease_s", lease_s, f"seconds, {span}")
        self.store = store
        self.holder = holder or holder_name()
        self.lease_s = float(lease_s)
        store.migrate(COMPONENT, self.steps)

    def _sql(self, sql: str) -> str:
        """``sql`` in the store's own placeholders."""
        return sql

    def _run(self, conn: Any, sql: str, args: Sequence[Any] | dict[str, Any] = ()) -> Any:
        return conn.execute(self._sql(sql), args)

    def _many(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        """Run ``sql`` once per row; how many rows it changed in all."""
        return sum(max(self._run(conn, sql, row).rowcount, 0) for row in rows)

    def begin(self, crawl: str, start: Entry, options: dict[str, Any]) -> None:
        """Make the crawl (queueing its start) unless it exists; queue again what a process
        of this machine that has ended had claimed."""
        with self.store.transaction() as conn:
            made = self._run(
                conn,
                "INSERT INTO crawls (id, start, options, created_at, taken) VALUES (?, ?, ?, ?, 0)"
                " ON CONFLICT DO NOTHING",
                (crawl, start.url, json.dumps(options, sort_keys=True), int(time.time())),
            ).rowcount
            if made and made > 0:
                self._queue(conn, crawl, [start])
            holders = self._run(
                conn,
                "SELECT DISTINCT holder FROM crawl_frontier WHERE crawl = ? AND state = 'claimed'",
                (crawl,),
            ).fetchall()
            gone = [(crawl, row[0]) for row in holders if row[0] and holder_gone(str(row[0]))]
            back = self._many(
                conn,
                "UPDATE crawl_frontier SET state = 'queued', holder = NULL, lease_until = 0"
                " WHERE crawl = ? AND state = 'claimed' AND holder = ?",
                gone,
            )
            self._take(conn, crawl, -back)

    def options(self, crawl: str) -> tuple[str, dict[str, Any]] | None:
        """The start URL and options of ``crawl``, or None when the store has no such crawl."""
        with self.store.reading() as conn:
            row = self._run(conn, "SELECT start, options FROM crawls WHERE id = ?", (crawl,))
            found = row.fetchone()
        return None if found is None else (found[0], json.loads(found[1]))

    def claim(
        self, crawl: str, count: int, busy: Iterable[str] = (), limit: int | None = None
    ) -> list[Entry]:
        """Up to ``count`` URLs on hosts not in ``busy``, now held by this worker: first those
        whose holder's lease ran out, then queued ones (best score, then shallowest, then
        oldest), no more of these than keep the crawl's URLs taken within ``limit``."""
        hosts = sorted(set(busy))
        spare = f" AND host NOT IN ({','.join('?' * len(hosts))})" if hosts else ""
        now = time.time()
        with self.store.transaction() as conn:
            taken = self._run(conn, "SELECT taken FROM crawls WHERE id = ?", (crawl,)).fetchone()
            if taken is None:
                return []
            columns = "SELECT url, host, depth, score, hops FROM crawl_frontier WHERE crawl = ?"
            lapsed = self._run(
                conn,
                f"{columns} AND state = 'claimed' AND lease_until <= ?{spare} ORDER BY seq LIMIT ?",
                (crawl, now, *hosts, count),
            ).fetchall()
            room = count - len(lapsed)
            if limit is not None:
                room = min(room, limit - int(taken[0]))
            fresh = []
            if room > 0:
                fresh = self._run(
                    conn,
                    f"{columns} AND state = 'queued'{spare}"
                    " ORDER BY score DESC, depth, seq LIMIT ?",
                    (crawl, *hosts, room),
                ).fetchall()
            rows = [*lapsed, *fresh]
            self._many(
                conn,
                "UPDATE crawl_frontier SET state = 'claimed', holder = ?, lease_until = ?"
                " WHERE crawl = ? AND url = ?",
                [(self.holder, now + self.lease_s, crawl, row[0]) for row in rows],
            )
            self._take(conn, crawl, len(fresh))
        return [Entry(*row) for row in rows]

    def _take(self, conn: Any, crawl: str, count: int) -> None:
        """Count ``count`` more URLs taken toward the crawl's limit (fewer when negative)."""
        if count:
            self._run(conn, "UPDATE crawls SET taken = taken + ? WHERE id = ?", (count, crawl))

    def renew(self, crawl: str, urls: Iterable[str]) -> int:
        """Extend this worker's leases on ``urls``; how many it still held."""
        until = time.time() + self.lease_s
        with self.store.transaction() as conn:
            return self._many(
                conn,
                "UPDATE crawl_frontier SET lease_until = ?"
                " WHERE crawl = ? AND url = ? AND state = 'claimed' AND holder = ?",
                [(until, crawl, url, self.holder) for url in urls],
            )

    def waiting_hosts(self, crawl: str) -> set[str]:
        """The hosts of the URLs of ``crawl`` still queued, or claimed under a lease that
        ran out."""
        with self.store.reading() as conn:
            rows = self._run(
                conn,
                "SELECT DISTINCT host FROM crawl_frontier WHERE crawl = ? AND (state = 'queued'"
                " OR (state = 'claimed' AND lease_until <= ?))",
                (crawl, time.time()),
            ).fetchall()
        return {row[0] for row in rows}

    def release(self, crawl: str, url: str) -> None:
        """Queue a URL this worker claimed again (it could not be fetched yet)."""
        with self.store.transaction() as conn:
            back = self._run(
                conn,
                "UPDATE crawl_frontier SET state = 'queued', holder = NULL, lease_until = 0"
                " WHERE crawl = ? AND url = ? AND state = 'claimed' AND holder = ?",
                (crawl, url, self.holder),
            ).rowcount
            self._take(conn, crawl, -max(back, 0))

    def finish(
        self,
        crawl: str,
        url: str,
        record: dict[str, Any] | None,
        reason: str | None = None,
        found: Iterable[Entry] = (),
        state: str | None = None,
        disallowed: Iterable[Entry] = (),
    ) -> Added:
        """In one transaction: mark ``url`` done with its ``record`` stored (failed for
        ``reason`` when there is none, or the ``state`` given: ``moved`` for a redirect,
        ``disallowed`` for a URL robots.txt was found to disallow once claimed, whose place
        toward the limit is given back), queue the URLs it ``found`` not yet known and keep
        those robots.txt ``disallowed`` as left out; returns how many of each were new. A
        URL this worker no longer holds (its lease ran out and another took it) is left to
        that worker."""
        state = state or ("done" if record is not None else "failed")
        with self.store.transaction() as conn:
            held = self._run(
                conn,
                "UPDATE crawl_frontier SET state = ?, reason = ?, holder = NULL"
                " WHERE crawl = ? AND url = ? AND state = 'claimed' AND holder = ?",
                (state, reason, crawl, url, self.holder),
            ).rowcount
            if state == "disallowed":
                self._take(conn, crawl, -max(held, 0))
            if record is not None and held > 0:
                self._run(
                    conn,
                    "INSERT INTO crawl_results (crawl, url, record) VALUES (?, ?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (crawl, url, json.dumps(record, ensure_ascii=False)),
                )
            queued = self._queue(conn, crawl, found)
            return Added(queued, self._queue(conn, crawl, disallowed, "disallowed"))

    def disallowed(self, crawl: str) -> Iterator[str]:
        """The URLs of ``crawl`` left out because robots.txt disallows them, in the order
        they were found, read a page at a time."""
        for url, _ in self._listed(crawl, "disallowed"):
            yield url

    def counts(self, crawl: str) -> dict[str, int]:
        """How many URLs of ``crawl`` are in each state."""
        with self.store.reading() as conn:
            rows = self._run(
                conn,
                "SELECT state, COUNT(*) FROM crawl_frontier WHERE crawl = ? GROUP BY state",
                (crawl,),
            ).fetchall()
        return {state: 0 for state in STATES} | {state: int(n) for state, n in rows}

    def results(
        self, crawl: str, after: tuple[int, int] = (0, 0)
    ) -> Iterator[tuple[tuple[int, int], dict[str, Any]]]:
        """The results of ``crawl`` stored after the mark ``after`` (all from ``(0, 0)``),
        each with its mark, in the order they were stored, read a page at a time (so a long
        crawl is never held in memory)."""
        while page := self.results_after(crawl, after):
            after = page[-1][0]
            yield from page

    def results_after(
        self, crawl: str, after: tuple[int, int] = (0, 0)
    ) -> list[tuple[tuple[int, int], dict[str, Any]]]:
        """A page of the results of ``crawl`` stored after the mark ``after`` (start at
        ``(0, 0)``), each with its own mark: followed mark to mark while workers store
        more, every result comes once."""
        with self.store.reading() as conn:
            rows = self._run(
                conn,
                "SELECT seq, record FROM crawl_results WHERE crawl = ? AND seq > ?"
                " ORDER BY seq LIMIT ?",
                (crawl, after[1], PAGE),
            ).fetchall()
        return [((0, int(seq)), json.loads(record)) for seq, record in rows]

    def results_end(self, crawl: str) -> tuple[int, int]:
        """The mark of the last result of ``crawl`` stored so far (``(0, 0)`` when none):
        followed from there, only the results stored later come."""
        with self.store.reading() as conn:
            row = self._run(
                conn, "SELECT MAX(seq) FROM crawl_results WHERE crawl = ?", (crawl,)
            ).fetchone()
        return (0, int(row[0] or 0))

    def failures(self, crawl: str) -> Iterator[tuple[str, str]]:
        """The failed URLs of ``crawl`` and why each failed, in the order they were found,
        read a page at a time (a crawl may fail millions)."""
        return self._listed(crawl, "failed")

    def _listed(self, crawl: str, state: str) -> Iterator[tuple[str, str]]:
        """The URLs of ``crawl`` in ``state`` and their reasons, in the order they were
        found, read a page at a time."""
        after = 0
        while True:
            with self.store.reading() as conn:
                rows = self._run(
                    conn,
                    "SELECT seq, url, reason FROM crawl_frontier WHERE crawl = ?"
                    " AND state = ? AND seq > ? ORDER BY seq LIMIT ?",
                    (crawl, state, after, PAGE),
                ).fetchall()
            if not rows:
                return
            after = int(rows[-1][0])
            yield from ((url, reason or "") for _, url, reason in rows)

    def _queue(self, conn: Any, crawl: str, entries: Iterable[Entry], state: str = "queued") -> int:
        """Add the entries not yet in the crawl's frontier in ``state`` (queued, or left
        out); returns how many were new."""
        return self._many(
            conn,
            "INSERT INTO crawl_frontier (crawl, url, host, depth, score, hops, state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(crawl, e.url, e.host, e.depth, e.score, e.hops, state) for e in entries],
        )


def frontier_in(
    store: SQLiteStore | PostgresStore, holder: str | None = None, lease_s: float = LEASE_S
) -> Frontier:
    """The crawl frontier kept in ``store``, whichever kind it is."""
    if isinstance(store, SQLiteStore):
        return Frontier(store, holder, lease_s)
    from citesift.store.postgres.frontier import PostgresFrontier  # needs the extra

    return PostgresFrontier(store, holder, lease_s)
