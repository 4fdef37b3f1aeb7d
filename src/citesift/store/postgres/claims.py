"""Work shared by many workers through one PostgreSQL table: each item is claimed by one
worker at a time, under a lease, with ``FOR UPDATE SKIP LOCKED`` (no broker of our own).

A worker claims a batch, does it and marks each item done. A worker that dies mid-item
never says so: its lease runs out and the item goes back to whoever claims next, so no item
is lost and none is done by two live workers at once (a worker slower than its lease can
renew it). Items are named by a queue and a key; adding a key already queued does nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from citesift.errors import invalid
from citesift.store.postgres import PostgresStore

COMPONENT = "claims"
STEPS = [
    """
    CREATE TABLE claims (
        queue TEXT NOT NULL,
        key TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '',
        done BOOLEAN NOT NULL DEFAULT FALSE,
        holder TEXT,
        lease_until DOUBLE PRECISION NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        added BIGINT GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (queue, key)
    );
    CREATE INDEX claims_waiting ON claims (queue, lease_until, added) WHERE NOT done;
    """
]


@dataclass(frozen=True, slots=True)
class Claim:
    """One item held by a worker until ``lease_until`` (wall-clock seconds)."""

    key: str
    payload: str
    attempts: int
    lease_until: float


class ClaimQueue:
    """The items of one ``queue`` in a ``PostgresStore``, claimed by ``holder``."""

    def __init__(self, store: PostgresStore, queue: str, holder: str) -> None:
        if not queue or not holder:
            raise invalid("queue" if not queue else "holder", queue or holder, "a name")
        self.store, self.queue, self.holder = store, queue, holder
        store.migrate(COMPONENT, STEPS)

    def add(self, items: Sequence[tuple[str, str]]) -> int:
        """Queue (key, payload) items; keys already queued (done or not) are left as they
        are. How many were new."""
        with self.store.transaction() as conn:
            added = conn.execute(
                "INSERT INTO claims (queue, key, payload)"
                " SELECT %s, key, payload FROM unnest(%s::text[], %s::text[]) AS t (key, payload)"
                " ON CONFLICT DO NOTHING",
                (self.queue, [k for k, _ in items], [p for _, p in items]),
            )
            return max(added.rowcount, 0)

    def claim(self, limit: int, lease_s: float) -> list[Claim]:
        """Up to ``limit`` items no live worker holds (never claimed, or whose lease ran
        out), oldest first, now held by this worker for ``lease_s`` seconds."""
        now = time.time()
        with self.store.transaction() as conn:
            rows = conn.execute(
                "UPDATE claims c SET holder = %(holder)s, lease_until = %(until)s,"
                " attempts = c.attempts + 1 FROM ("
                "  SELECT queue, key FROM claims WHERE queue = %(queue)s AND NOT done"
                "  AND lease_until <= %(now)s ORDER BY lease_until, added LIMIT %(limit)s"
                "  FOR UPDATE SKIP LOCKED) free"
                " WHERE c.queue = free.queue AND c.key = free.key"
                " RETURNING c.key, c.payload, c.attempts, c.lease_until",
                {
                    "holder": self.holder,
                    "until": now + lease_s,
                    "queue": self.queue,
                    "now": now,
                    "limit": limit,
                },
            ).fetchall()
        return sorted((Claim(*row) for row in rows), key=lambda c: c.key)

    def renew(self, keys: Sequence[str], lease_s: float) -> list[str]:
        """Extend this worker's leases on ``keys``; the keys it still held."""
        return self._update("lease_until = %(until)s", keys, time.time() + lease_s)

    def finish(self, keys: Sequence[str]) -> list[str]:
        """Mark ``keys`` done; the keys this worker still held (one whose lease ran out and
        that another worker claimed is that worker's now)."""
        return self._update("done = TRUE, holder = NULL", keys, 0.0)

    def release(self, keys: Sequence[str]) -> list[str]:
        """Give ``keys`` back for any worker to claim at once."""
        return self._update("lease_until = 0, holder = NULL", keys, 0.0)

    def _update(self, change: str, keys: Sequence[str], until: float) -> list[str]:
        with self.store.transaction() as conn:
            rows = conn.execute(
                f"UPDATE claims SET {change} WHERE queue = %(queue)s AND key = ANY(%(keys)s)"
                " AND holder = %(holder)s AND NOT done RETURNING key",
                {"queue": self.queue, "keys": list(keys), "holder": self.holder, "until": until},
            ).fetchall()
        return sorted(str(row[0]) for row in rows)

    def forget_when_done(self) -> bool:
        """Drop the queue's items once every one is done (none held or waiting), so the same
        keys can be queued afresh; whether it was done."""
        with self.store.transaction() as conn:
            gone = conn.execute(
                "DELETE FROM claims WHERE queue = %(queue)s AND NOT EXISTS"
                " (SELECT 1 FROM claims WHERE queue = %(queue)s AND NOT done)",
                {"queue": self.queue},
            ).rowcount
        return gone > 0

    def pending(self) -> int:
        """How many items are not done yet (held or waiting)."""
        with self.store.reading() as conn:
            row = conn.execute(
                "SELECT count(*) FROM claims WHERE queue = %s AND NOT done", (self.queue,)
            ).fetchone()
        return int(row[0]) if row else 0
