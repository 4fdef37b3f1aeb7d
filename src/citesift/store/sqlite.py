"""One SQLite connection in WAL mode, with per-component, append-only schema migrations.

Each component (snapshots, chunks, ...) owns its tables and declares them as an ordered
list of SQL steps; ``migrate`` applies the steps not yet applied, each in its own
transaction, so components evolve independently and a crash never half-applies a step.
Opening a store and finding its steps applied only reads, so a reader never waits for a
process that is writing. Several processes may open and migrate one new file at once: the
switch to WAL is retried while another process holds the file, and each step is applied by
whichever process takes the write lock first (the others find it done).

A fault of the file is a ``StoreError`` naming it: ``StoreBusy`` when another process keeps
the write lock past the wait, ``StoreCorrupt`` when the file is not a store or is damaged.
A damaged file is never rewritten.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from citesift.errors import StoreBusy, StoreCorrupt, StoreError, StoreUnusable, invalid

STORE_DIR_ENV = "CITESIFT_HOME"
STORE_FILE = "citesift.db"
MEMORY = ":memory:"
BUSY_TIMEOUT_MS = 10_000
"""How long a write waits for another process's write lock before ``StoreBusy``."""
NOTICE_AFTER_MS = 1_000
"""How long a write waits in silence; past it, the wait is said once on ``LOG``."""
LOG = logging.getLogger("citesift.store")
LOCK_RETRY_SECONDS = 0.01

_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")
_CORRUPT = ("SQLITE_NOTADB", "SQLITE_CORRUPT")
_UNUSABLE = ("SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_FULL", "SQLITE_PERM")
"""Error families (``sqlite_errorname`` prefixes) that are the file's fault, not a query's."""


def default_store_path() -> Path:
    """``$CITESIFT_HOME/citesift.db``, else ``./.citesift/citesift.db``."""
    return Path(os.environ.get(STORE_DIR_ENV) or ".citesift") / STORE_FILE


class SQLiteStore:
    """A thread-safe handle on one SQLite database file (or ``":memory:"``)."""

    def __init__(
        self, path: str | Path | None = None, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS
    ) -> None:
        if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int):
            raise invalid("busy_timeout_ms", busy_timeout_ms, "a whole number of milliseconds")
        if busy_timeout_ms < 0:
            raise invalid("busy_timeout_ms", busy_timeout_ms, "0 or more")
        self.path = Path(path) if path is not None else default_store_path()
        self.busy_timeout_ms = busy_timeout_ms
        self._lock = threading.RLock()
        self._conn = _connect(self.path)
        try:
            self._prepare()
        except BaseException:
            self._conn.close()
            raise

    def _prepare(self) -> None:
        """Set the connection up, and make an empty file a store (a write only then: a store
        already in WAL mode with its steps table is only read). Another program's database
        is refused, never written to."""
        with self._translated():
            self._conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            tables = {
                row[0]
                for row in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if tables and "schema_steps" not in tables:
                raise StoreCorrupt(
                    f"{str(self.path)!r} is a database of something else, not a citesift"
                    " store; it was left as it is: name another store"
                )
            if self._conn.execute("PRAGMA journal_mode").fetchone()[0] not in ("wal", "memory"):
                _while_locked(
                    lambda: self._conn.execute("PRAGMA journal_mode = WAL"), self.busy_timeout_ms
                )
            if not tables:
                with self.transaction() as conn:
                    conn.execute(
                        "CREATE TABLE IF NOT EXISTS schema_steps ("
                        " component TEXT NOT NULL, step INTEGER NOT NULL,"
                        " PRIMARY KEY (component, step))"
                    )

    def migrate(self, component: str, steps: Sequence[str]) -> None:
        """Apply the steps of ``component`` not applied yet, in order, one transaction each
        (finding them all applied is a read)."""
        with self.reading() as conn:
            rows = conn.execute("SELECT step FROM schema_steps WHERE component = ?", (component,))
            done = {row[0] for row in rows.fetchall()}
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
        with self._lock, self._translated():
            self._begin()
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise

    def _begin(self) -> None:
        """Take the write lock; while another process holds it past ``NOTICE_AFTER_MS``, say
        so once (a warning on ``LOG``: the command line shows it) and wait out the rest."""
        first = min(NOTICE_AFTER_MS, self.busy_timeout_ms)
        self._conn.execute(f"PRAGMA busy_timeout = {first}")
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as error:
            if not _busy(error) or first == self.busy_timeout_ms:
                raise
            LOG.warning(
                "waiting for the store %r: another process is writing to it", str(self.path)
            )
            self._conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms - first}")
            self._conn.execute("BEGIN IMMEDIATE")
        finally:
            self._conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """Hold the store's lock for reads outside a transaction."""
        with self._lock, self._translated():
            yield self._conn

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """Turn a fault of the file met inside into the ``StoreError`` that names it."""
        try:
            yield
        except sqlite3.Error as error:
            fault = _fault(self.path, error, self.busy_timeout_ms)
            if fault is None:
                raise
            raise fault from error

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _connect(path: Path) -> sqlite3.Connection:
    """A connection to the database at ``path`` (its folder made when missing); a path that
    cannot hold one (a directory, a device, a file in the way, a NUL byte) is
    ``StoreUnusable``."""
    if str(path) == MEMORY:
        return sqlite3.connect(MEMORY, check_same_thread=False, isolation_level=None)
    try:
        if path.exists() and not path.is_file():
            raise StoreUnusable(f"cannot open a store at {str(path)!r}: not a regular file")
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    except (OSError, ValueError, sqlite3.Error) as error:
        raise StoreUnusable(f"cannot open a store at {str(path)!r}: {error}") from None
    return connection


def _fault(path: Path, error: sqlite3.Error, busy_timeout_ms: int) -> StoreError | None:
    """The ``StoreError`` that ``error`` means for the file at ``path``, or None when the
    error is a query's, not the file's."""
    name = getattr(error, "sqlite_errorname", "") or ""
    if _busy(error):
        return StoreBusy(
            f"the store {str(path)!r} is busy: another process has held its write lock for"
            f" more than {busy_timeout_ms / 1000:g} s; try again when it is done"
        )
    if name.startswith(_CORRUPT):
        return StoreCorrupt(
            f"{str(path)!r} is not a citesift store, or a damaged one ({error}); it was left as"
            " it is: move it aside or name another store"
        )
    if name.startswith(_UNUSABLE):
        return StoreError(f"cannot use the store {str(path)!r}: {error}")
    return None


def _busy(error: sqlite3.Error) -> bool:
    """Whether ``error`` says another connection holds a lock we waited for."""
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(_BUSY) or "database is locked" in str(error)


def _while_locked(call: Callable[[], object], timeout_ms: int) -> None:
    """Run ``call``, again while another process holds the file locked, up to ``timeout_ms``
    (switching to WAL can meet a lock that SQLite's busy handler does not wait out)."""
    give_up = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            call()
            return
        except sqlite3.OperationalError as error:
            if not _busy(error) or time.monotonic() > give_up:
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
