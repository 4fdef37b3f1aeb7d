"""The crawl frontier in PostgreSQL: the SQLite frontier's tables and rules, with claims that
take rows with ``FOR UPDATE SKIP LOCKED`` (as ``claims`` does), so workers on many machines
share one crawl and never wait on each other's rows.

A claim and a page's finish are each one statement (the SQLite frontier's steps joined in
common table expressions): every statement is a round trip a worker waits for, and a claim
holds the crawl's row (its count toward the limit) until it commits, so claims by many
workers take turns for no longer than one statement.

Results are followed in the order their transactions became visible, not their sequence
numbers (a number is drawn before its transaction commits, so a later one can be seen
first): each row keeps its transaction's id and a reader takes only rows of transactions
older than every one still running.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from citesift.store.frontier import PAGE, Added, Entry, Frontier
from citesift.store.postgres import placeholders

NO_LIMIT = 2**62
CLAIM = """
WITH budget AS (
    SELECT taken FROM crawls WHERE id = %(crawl)s FOR UPDATE
), lapsed AS (
    SELECT seq FROM crawl_frontier
    WHERE crawl = %(crawl)s AND state = 'claimed' AND lease_until <= %(now)s
        AND host <> ALL (%(busy)s::text[])
    ORDER BY seq LIMIT %(count)s FOR UPDATE SKIP LOCKED
), fresh AS (
    SELECT seq FROM crawl_frontier
    WHERE crawl = %(crawl)s AND state = 'queued' AND host <> ALL (%(busy)s::text[])
    ORDER BY score DESC, depth, seq
    LIMIT greatest(0, least(%(count)s - (SELECT count(*) FROM lapsed),
                            %(limit)s - (SELECT taken FROM budget)))
    FOR UPDATE SKIP LOCKED
), counted AS (
    UPDATE crawls SET taken = taken + (SELECT count(*) FROM fresh)
    WHERE id = %(crawl)s AND EXISTS (SELECT 1 FROM fresh)
)
UPDATE crawl_frontier f SET state = 'claimed', holder = %(holder)s, lease_until = %(until)s
WHERE f.seq IN (SELECT seq FROM lapsed UNION ALL SELECT seq FROM fresh)
RETURNING f.url, f.host, f.depth, f.score, f.hops, f.seq
"""
FINISH = """
WITH done AS (
    UPDATE crawl_frontier SET state = %(state)s, reason = %(reason)s, holder = NULL
    WHERE crawl = %(crawl)s AND url = %(url)s AND state = 'claimed' AND holder = %(holder)s
    RETURNING url
), given_back AS (
    UPDATE crawls SET taken = taken - 1
    WHERE id = %(crawl)s AND %(state)s::text = 'disallowed' AND EXISTS (SELECT 1 FROM done)
), kept AS (
    INSERT INTO crawl_results (crawl, url, record)
    SELECT %(crawl)s, url, %(record)s::text FROM done WHERE %(record)s::text IS NOT NULL
    ON CONFLICT DO NOTHING
), found AS (
    INSERT INTO crawl_frontier (crawl, url, host, depth, score, hops, state)
    SELECT %(crawl)s, u, h, d, s, n, t.state
    FROM unnest(%(urls)s::text[], %(hosts)s::text[], %(depths)s::int[], %(scores)s::float8[],
                %(hops)s::int[], %(states)s::text[])
        AS t (u, h, d, s, n, state)
    ON CONFLICT DO NOTHING RETURNING state
)
SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'disallowed')
FROM found
"""
STEPS = [
    """
    CREATE TABLE crawls (
        id TEXT PRIMARY KEY, start TEXT NOT NULL, options TEXT NOT NULL,
        created_at BIGINT NOT NULL, taken BIGINT NOT NULL DEFAULT 0);
    CREATE TABLE crawl_frontier (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        crawl TEXT NOT NULL REFERENCES crawls (id),
        url TEXT NOT NULL, host TEXT NOT NULL, depth INTEGER NOT NULL,
        score DOUBLE PRECISION NOT NULL, state TEXT NOT NULL, reason TEXT,
        holder TEXT, lease_until DOUBLE PRECISION NOT NULL DEFAULT 0,
        UNIQUE (crawl, url));
    CREATE INDEX crawl_frontier_next ON crawl_frontier (crawl, state, score DESC, depth, seq);
    CREATE TABLE crawl_results (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
        crawl TEXT NOT NULL REFERENCES crawls (id),
        url TEXT NOT NULL, record TEXT NOT NULL,
        UNIQUE (crawl, url));
    CREATE INDEX crawl_results_order ON crawl_results (crawl, xact, seq);
    """,
    """
    ALTER TABLE crawl_frontier ADD COLUMN hops INTEGER NOT NULL DEFAULT 0;
    """,
    """
    CREATE INDEX crawl_frontier_found ON crawl_frontier (crawl, state, seq);
    """,
]


class PostgresFrontier(Frontier):
    """A ``Frontier`` in a ``PostgresStore`` (its own tables, migrated on first use)."""

    steps: ClassVar[list[str]] = STEPS

    def _sql(self, sql: str) -> str:
        return placeholders(sql)

    def _many(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        if not rows:
            return 0
        with conn.cursor() as cursor:
            cursor.executemany(self._sql(sql), rows)
            return max(int(cursor.rowcount), 0)

    def claim(
        self, crawl: str, count: int, busy: Iterable[str] = (), limit: int | None = None
    ) -> list[Entry]:
        now = time.time()
        values = {
            "crawl": crawl,
            "now": now,
            "busy": sorted(set(busy)),
            "count": count,
            "limit": NO_LIMIT if limit is None else limit,
            "holder": self.holder,
            "until": now + self.lease_s,
        }
        with self.store.transaction() as conn:
            rows = self._run(conn, CLAIM, values).fetchall()
        rows.sort(key=lambda row: (-row[3], row[2], row[5]))
        return [Entry(*row[:5]) for row in rows]

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
        queued, left_out = list(found), list(disallowed)
        entries = [*queued, *left_out]
        values = {
            "state": state or ("done" if record is not None else "failed"),
            "reason": reason,
            "crawl": crawl,
            "url": url,
            "holder": self.holder,
            "record": None if record is None else json.dumps(record, ensure_ascii=False),
            "urls": [e.url for e in entries],
            "hosts": [e.host for e in entries],
            "depths": [e.depth for e in entries],
            "scores": [e.score for e in entries],
            "hops": [e.hops for e in entries],
            "states": ["queued"] * len(queued) + ["disallowed"] * len(left_out),
        }
        with self.store.transaction() as conn:
            row = self._run(conn, FINISH, values).fetchone()
        return Added(int(row[0]), int(row[1])) if row else Added()

    def results_after(
        self, crawl: str, after: tuple[int, int] = (0, 0)
    ) -> list[tuple[tuple[int, int], dict[str, Any]]]:
        with self.store.reading() as conn:
            rows = conn.execute(
                "SELECT xact::text::bigint, seq, record FROM crawl_results"
                " WHERE crawl = %s AND (xact, seq) > (%s::text::xid8, %s)"
                " AND xact < pg_snapshot_xmin(pg_current_snapshot())"
                " ORDER BY xact, seq LIMIT %s",
                (crawl, str(after[0]), after[1], PAGE),
            ).fetchall()
        return [((int(xact), int(seq)), json.loads(record)) for xact, seq, record in rows]

    def results_end(self, crawl: str) -> tuple[int, int]:
        with self.store.reading() as conn:
            row = conn.execute(
                "SELECT xact::text::bigint, seq FROM crawl_results"
                " WHERE crawl = %s AND xact < pg_snapshot_xmin(pg_current_snapshot())"
                " ORDER BY xact DESC, seq DESC LIMIT 1",
                (crawl,),
            ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)
