"""The scale-out store: one PostgreSQL database shared by many workers and machines, reached
through a psycopg 3 connection pool, with per-component migrations as in the SQLite store.

Each component (snapshots, chunks, embeddings, limits) declares its tables as an ordered
list of SQL steps; ``migrate`` applies the steps not yet applied, each in its own
transaction under an advisory lock, so workers starting together apply each step once.
A server that cannot be reached, or refuses us, is a ``StoreUnreachable`` naming the URL
(its passwords left out); a URL psycopg cannot read is a ``StoreUnusable``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import psycopg
from psycopg.rows import TupleRow
from psycopg_pool import ConnectionPool, PoolTimeout

from citesift.errors import (
    StoreError,
    StoreUnreachable,
    StoreUnusable,
    invalid,
    masked,
    without_secrets,
)
from citesift.store.location import is_postgres_url

POOL_SIZE = 8
"""Connections one process keeps at most: a worker's threads share them."""
CONNECT_TIMEOUT_S = 10.0
MIGRATION_LOCK = 0x63697465
"""The advisory lock key that serialises migrations of one database."""


class PostgresStore:
    """A thread-safe handle on one PostgreSQL database: a pool of connections to ``url``."""

    def __init__(self, url: str, *, pool_size: int = POOL_SIZE) -> None:
        if not is_postgres_url(url):
            raise invalid("url", url, "a postgresql:// URL")
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise invalid("pool_size", pool_size, "a whole number of connections, 1 or more")
        self.url = url
        self.name = masked(url)
        self._prepare()
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            open=False,
            timeout=CONNECT_TIMEOUT_S,
            kwargs={"connect_timeout": int(CONNECT_TIMEOUT_S)},
            configure=_without_jit,
            name="citesift",
        )
        self._pool.open()

    def _prepare(self) -> None:
        """Connect once, before any pool: a server that cannot be reached or refuses us is
        said at once, not after the pool's retries; then make the steps table."""
        try:
            with psycopg.connect(self.url, connect_timeout=int(CONNECT_TIMEOUT_S)) as conn:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_steps ("
                    " component TEXT NOT NULL, step INTEGER NOT NULL,"
                    " PRIMARY KEY (component, step))"
                )
        except psycopg.Error as error:  # unreachable, refused, or not a connection URL
            if isinstance(error, psycopg.OperationalError):
                raise self._unreachable(error) from None
            reason = self._reason(error)
            raise StoreUnusable(f"cannot use the store URL {self.name}: {reason}") from None

    def _reason(self, error: Exception) -> str:
        """The first line of what ``error`` says, every password of the URL left out."""
        said = without_secrets(str(error), self.url).strip()
        return said.splitlines()[0] if said else "refused"

    def _unreachable(self, error: Exception) -> StoreUnreachable:
        """The failure to reach the server ``error`` says, naming the store."""
        return StoreUnreachable(f"cannot reach the store {self.name}: {self._reason(error)}")

    def migrate(self, component: str, steps: Sequence[str]) -> None:
        """Apply the steps of ``component`` not applied yet, in order, one transaction each
        (finding them all applied is a read). A store holding steps past ``steps`` was
        written by a newer citesift, whose tables this one would misread: a ``StoreError``."""
        with self.reading() as conn:
            rows = conn.execute(
                "SELECT step FROM schema_steps WHERE component = %s", (component,)
            ).fetchall()
        done = {row[0] for row in rows}
        if done and max(done) >= len(steps):
            raise StoreError(
                f"the store {self.name} was written by a newer citesift: its {component}"
                f" tables are at step {max(done)}, this version knows steps up to"
                f" {len(steps) - 1}; upgrade citesift to use it"
            )
        for number, sql in enumerate(steps):
            if number not in done:
                self._apply(component, number, sql)

    def _apply(self, component: str, number: int, sql: str) -> None:
        """Apply one step in one transaction, unless another worker applied it meanwhile; a
        step the server refuses (pgvector not installed there) is a ``StoreError`` saying so."""
        try:
            self._apply_once(component, number, sql)
        except psycopg.Error as error:
            raise StoreError(
                f"cannot prepare the store {self.name} for {component} (step {number}):"
                f" {without_secrets(str(error), self.url)}"
            ) from None

    def _apply_once(self, component: str, number: int, sql: str) -> None:
        with self.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            applied = conn.execute(
                "SELECT 1 FROM schema_steps WHERE component = %s AND step = %s",
                (component, number),
            ).fetchone()
            if applied:
                return
            conn.execute(sql.encode())  # a step may hold several statements
            conn.execute(
                "INSERT INTO schema_steps (component, step) VALUES (%s, %s)", (component, number)
            )

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection[TupleRow]]:
        """One connection of the pool for one transaction (committed, or rolled back on error)."""
        with self._connection() as conn, conn.transaction():
            yield conn

    @contextmanager
    def reading(self) -> Iterator[psycopg.Connection[TupleRow]]:
        """One connection of the pool for reads."""
        with self._connection() as conn:
            yield conn

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[TupleRow]]:
        """A pooled connection; failing to get one, or losing it (the server ended it), is a
        ``StoreUnreachable``; another failure of the server's, as a deadlock, is the cause
        of the ``StoreError``, for a caller to retry: a copy of it of the same kind, saying
        what it says without the URL's secrets (a traceback prints a cause whole)."""
        try:
            with self._pool.connection() as conn:
                try:
                    yield conn
                except psycopg.OperationalError as error:
                    if not conn.broken:
                        raise
                    raise self._unreachable(error) from None
        except PoolTimeout as error:
            raise self._unreachable(error) from None
        except psycopg.OperationalError as error:
            cause = type(error)(without_secrets(str(error), self.url))
            raise StoreError(f"cannot use the store {self.name}: {self._reason(error)}") from cause

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _without_jit(conn: psycopg.Connection[TupleRow]) -> None:
    """Each pooled session runs without PostgreSQL's JIT compiler, which compiles any plan
    estimated dearer than ``jit_above_cost``: our statements are short, and the BM25 query
    passes that estimate from some ten thousand passages on, where compiling it took 54 ms
    of a 130 ms query (Debian's PostgreSQL 15, which has JIT)."""
    conn.execute("SET jit = off")
    conn.commit()


def placeholders(sql: str) -> str:
    """``sql`` written with SQLite's ``?`` placeholders in psycopg's ``%s``: one statement
    serves both stores (none of ours holds a literal ``?`` or ``%``)."""
    return sql.replace("?", "%s")


__all__ = ["PostgresStore", "is_postgres_url", "placeholders"]
