"""The limiter budget several processes share: recent starts and blocks per host, in the store.

It implements ``citesift.net.SharedBudget`` (by shape: ``store`` imports no ``net``); the
sources' settings hand it to a ``Fetcher``'s limiter registry, so a host's 429/503 block
outlives the process that received it.

Wikimedia's limits apply per client, not per process, so processes that fetch from one
host under one identity claim their starts here: each claim, in one ``BEGIN IMMEDIATE``
transaction, checks the host's block, its starts in the last minute and the spacing since
its last start, then records the new start. Times are wall-clock milliseconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from citesift.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore
    from citesift.store.postgres.limits import PostgresBudget

COMPONENT = "limits"
WINDOW_MS = 60_000
STEPS = [
    """
    CREATE TABLE limiter_starts (host TEXT NOT NULL, at_ms REAL NOT NULL);
    CREATE INDEX limiter_starts_by_host ON limiter_starts (host, at_ms);
    CREATE TABLE limiter_blocks (host TEXT PRIMARY KEY, until_ms REAL NOT NULL);
    """
]


class StoreBudget:
    """A ``SharedBudget`` kept in a ``SQLiteStore`` (pass it to a ``LimiterRegistry``)."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        store.migrate(COMPONENT, STEPS)

    def claim(
        self, host: str, now_ms: float, spacing_ms: float, per_minute: int
    ) -> float | Literal["blocked", "minute"] | None:
        """Record a start at ``now_ms`` (None), or the wait in ms, or ``blocked``/``minute``."""
        with self.store.transaction() as conn:
            blocked = conn.execute(
                "SELECT until_ms FROM limiter_blocks WHERE host = ?", (host,)
            ).fetchone()
            if blocked is not None and now_ms < blocked[0]:
                return "blocked"
            conn.execute(
                "DELETE FROM limiter_starts WHERE host = ? AND at_ms <= ?",
                (host, now_ms - WINDOW_MS),
            )
            count, last = conn.execute(
                "SELECT count(*), max(at_ms) FROM limiter_starts WHERE host = ?", (host,)
            ).fetchone()
            if count >= per_minute:
                return "minute"
            if last is not None and now_ms - last < spacing_ms:
                return float(last + spacing_ms - now_ms)
            conn.execute("INSERT INTO limiter_starts (host, at_ms) VALUES (?, ?)", (host, now_ms))
        return None

    def blocked_until(self, host: str) -> float | None:
        """When the host's block ends (wall-clock ms), or None when it was never blocked."""
        with self.store.reading() as conn:
            row = conn.execute(
                "SELECT until_ms FROM limiter_blocks WHERE host = ?", (host,)
            ).fetchone()
        return None if row is None else float(row[0])

    def block(self, host: str, until_ms: float) -> None:
        """Refuse the host's starts until ``until_ms`` (a later block never shortens one)."""
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO limiter_blocks (host, until_ms) VALUES (?, ?) ON CONFLICT (host)"
                " DO UPDATE SET until_ms = max(until_ms, excluded.until_ms)",
                (host, until_ms),
            )


def every_block(store: SQLiteStore | PostgresStore) -> list[tuple[str, float]]:
    """Every host block kept, as (host, until in wall-clock ms), by host."""
    budget_in(store)  # the tables exist
    with store.reading() as conn:
        rows = conn.execute("SELECT host, until_ms FROM limiter_blocks ORDER BY host").fetchall()
    return [(str(host), float(until)) for host, until in rows]


def budget_in(store: SQLiteStore | PostgresStore) -> StoreBudget | PostgresBudget:
    """The shared budget kept in ``store``, whichever kind it is."""
    if isinstance(store, SQLiteStore):
        return StoreBudget(store)
    from citesift.store.postgres.limits import PostgresBudget

    return PostgresBudget(store)
