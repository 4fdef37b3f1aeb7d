"""The limiter's shared budget in PostgreSQL: every worker on every machine that fetches
from one host under one identity claims its starts here (the SQLite budget's rules).

A claim holds a transaction-scoped advisory lock on its host, so two workers never both
see room for one start; other hosts are not held up.
"""

from __future__ import annotations

from typing import Literal

from citesift.store.limits import COMPONENT, WINDOW_MS
from citesift.store.postgres import PostgresStore

STEPS = [
    """
    CREATE TABLE limiter_starts (host TEXT NOT NULL, at_ms DOUBLE PRECISION NOT NULL);
    CREATE INDEX limiter_starts_by_host ON limiter_starts (host, at_ms);
    CREATE TABLE limiter_blocks (host TEXT PRIMARY KEY, until_ms DOUBLE PRECISION NOT NULL);
    """
]


class PostgresBudget:
    """A ``SharedBudget`` kept in a ``PostgresStore`` (pass it to a ``LimiterRegistry``)."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        store.migrate(COMPONENT, STEPS)

    def claim(
        self, host: str, now_ms: float, spacing_ms: float, per_minute: int
    ) -> float | Literal["blocked", "minute"] | None:
        """Record a start at ``now_ms`` (None), or the wait in ms, or ``blocked``/``minute``."""
        with self.store.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (host,))
            blocked = conn.execute(
                "SELECT until_ms FROM limiter_blocks WHERE host = %s", (host,)
            ).fetchone()
            if blocked is not None and now_ms < float(blocked[0]):
                return "blocked"
            conn.execute(
                "DELETE FROM limiter_starts WHERE host = %s AND at_ms <= %s",
                (host, now_ms - WINDOW_MS),
            )
            row = conn.execute(
                "SELECT count(*), max(at_ms) FROM limiter_starts WHERE host = %s", (host,)
            ).fetchone()
            count, last = row if row is not None else (0, None)
            if int(count) >= per_minute:
                return "minute"
            if last is not None and now_ms - float(last) < spacing_ms:
                return float(last) + spacing_ms - now_ms
            conn.execute("INSERT INTO limiter_starts (host, at_ms) VALUES (%s, %s)", (host, now_ms))
        return None

    def blocked_until(self, host: str) -> float | None:
        """When the host's block ends (wall-clock ms), or None when it was never blocked."""
        with self.store.reading() as conn:
            row = conn.execute(
                "SELECT until_ms FROM limiter_blocks WHERE host = %s", (host,)
            ).fetchone()
        return None if row is None else float(row[0])

    def block(self, host: str, until_ms: float) -> None:
        """Refuse the host's starts until ``until_ms`` (a later block never shortens one)."""
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO limiter_blocks (host, until_ms) VALUES (%s, %s) ON CONFLICT (host)"
                " DO UPDATE SET until_ms = greatest(limiter_blocks.until_ms, excluded.until_ms)",
                (host, until_ms),
            )
