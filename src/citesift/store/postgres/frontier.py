"""The crawl frontier in PostgreSQL: the SQLite frontier's tables and rules, with claims that
take rows with ``FOR UPDATE SKIP LOCKED`` (as ``claims`` does), so workers on many machines
share one crawl and never wait on each other's rows.

Results are followed in the order their transactions became visible, not their sequence
numbers (a number is drawn before its transaction commits, so a later one can be seen
first): each row keeps its transaction's id and a reader takes only rows of transactions
older than every one still running.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from citesift.store.frontier import PAGE, Frontier
from citesift.store.postgres import placeholders

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
    """
]


class PostgresFrontier(Frontier):
    """A ``Frontier`` in a ``PostgresStore`` (its own tables, migrated on first use)."""

    steps: ClassVar[list[str]] = STEPS
    skip_locked: ClassVar[str] = " FOR UPDATE SKIP LOCKED"
    lock_row: ClassVar[str] = " FOR UPDATE"

    def _sql(self, sql: str) -> str:
        return placeholders(sql)

    def _many(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> int:
        if not rows:
            return 0
        with conn.cursor() as cursor:
            cursor.executemany(self._sql(sql), rows)
            return max(int(cursor.rowcount), 0)

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
