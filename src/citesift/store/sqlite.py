"""One SQLite connection in WAL mode, with per-component, append-only schema migrations.

Each component (snapshots, chunks, ...) owns its tables and declares them as an ordered
list of SQL steps; ``migrate`` applies the steps not yet applied, each in its own
transaction, so components evolve independently and a crash never half-applies a step.
Several processes may open and migrate one new file at once: the switch to WAL is retried
while another process holds the file, and each step is applied by whichever process takes
the write lock first (the others find it done).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

STORE_DIR_ENV = "CITESIFT_HOME"
STORE_FILE = "citesift.db"
LOCK_RETRY_SECONDS = 0.01


def default_store_path() -> Path:
    """``$CITESIFT_HOME/citesift.db``, else ``./.citesift/citesift.db``."""
    return Path(os.environ.get(STORE_DIR_ENV) or ".citesift") / STORE_FILE


def _connect(path: Path) -> sqlite3.Connection:
    """A connection to the database at ``path`` (its folder made when missing); a path that
    cannot hold one (a file in the way, no permission, a NUL byte) is a ``ValueError``."""
    try:
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        connection.execute("PRAGMA schema_version")  # opening is lazy: fail here, clearly
    except (OSError, sqlite3.Error) as error:
        raise ValueError(f"cannot open a store at {str(path)!r}: {error}") from None
    return connection


class SQLiteStore:
    """A thread-safe handle on one SQLite database file (or ``":memory:"``)."""

    def __init__(self, path: str | Path | None = None, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self._lock = threading.RLock()
        self._conn = _connect(self.path)
        self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        _while_locked(lambda: self._conn.execute("PRAGMA journal_mode = WAL"), busy_timeout_ms)
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute("PRAGMA foreign_keys = ON")
        with self.transaction() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_steps ("
                " component TEXT NOT NULL, step INTEGER NOT NULL,"
                " PRIMARY KEY (component, step))"
            )

    def migrate(self, component: str, steps: Sequence[str]) -> None:
        """Apply the steps of ``component`` not applied yet, in order, one transaction each."""
        with self._lock:
            done = {
                row[0]
                for row in self._conn.execute(
                    "SELECT step FROM schema_steps WHERE component = ?", (component,)
                )
            }
            for number, sql in enumerate(steps):
                if number not in done:
                    self._apply(component, number, sql)

    def _apply(self, component: str, number: int, sql: str) -> None:
        """Apply one step in one transaction, unless another process applied it meanwhile."""
        with self.transaction() as conn:
            applied = conn.execute(
                "SELECT 1 FROM schema_steps WHERE component = ? AND step = ?", (component, number)
            ).fetchone()
            if applied:
                return
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_steps (component, step) VALUES (?, ?)", (component, number)
            )

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the store's lock for one ``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on error)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """Hold the store's lock for reads outside a transaction."""
        with self._lock:
            yield self._conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _while_locked(call: Callable[[], object], timeout_ms: int) -> None:
    """Run ``call``, again while another process holds the file locked, up to ``timeout_ms``
    (switching to WAL can meet a lock that SQLite's busy handler does not wait out)."""
    give_up = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            call()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > give_up:
                raise
            time.sleep(LOCK_RETRY_SECONDS)


def _statements(sql: str) -> list[str]:
    """Split a step into complete statements (``sqlite3.complete_statement`` decides)."""
    out: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    if pending.strip():
        out.append(pending.strip())
    return out
