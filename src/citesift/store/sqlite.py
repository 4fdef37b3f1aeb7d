"""One SQLite connection in WAL mode, with per-component, append-only schema migrations.

Each component (snapshots, chunks, ...) owns its tables and declares them as an ordered
list of SQL steps; ``migrate`` applies the steps not yet applied, each in its own
transaction, so components evolve independently and a crash never half-applies a step.
Opening a store and finding its steps applied only reads, so a reader never waits for a
process that is writing. Several processes may open and migrate one new file at once: the
switch to WAL is retried while another process holds the file, and each step is applied by
whichever process takes the write lock first (the others find it done).

A store opened ``read_only`` is read through SQLite's ``mode=ro`` (see ``_open_read_only``),
so one in a folder or file this process cannot write can still be searched and listed; a
write through it is a ``StoreError`` saying so.

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
from urllib.parse import quote

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
_NO_SIDE_FILES = ("SQLITE_CANTOPEN", "SQLITE_READONLY")
"""What a read-only reader of a WAL store meets when it cannot make the side files (the
folder read-only: ``SQLITE_READONLY_DIRECTORY``; or they cannot be opened)."""


def default_store_path() -> Path:
    """``$CITESIFT_HOME/citesift.db``, else ``./.citesift/citesift.db``."""
    return Path(os.environ.get(STORE_DIR_ENV) or ".citesift") / STORE_FILE


class SQLiteStore:
    """A thread-safe handle on one SQLite database file (or ``":memory:"``); ``read_only``:
    an existing store, only read (no file is made, nothing written)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        read_only: bool = False,
    ) -> None:
        if isinstance(busy_timeout_ms, bool) or not isinstance(busy_timeout_ms, int):
            raise invalid("busy_timeout_ms", busy_timeout_ms, "a whole number of milliseconds")
        if busy_timeout_ms < 0:
            raise invalid("busy_timeout_ms", busy_timeout_ms, "0 or more")
        self.path = Path(path) if path is not None else default_store_path()
        if read_only and str(self.path) == MEMORY:
            raise invalid("path", MEMORY, "a store's file when read_only: memory holds none")
        self.busy_timeout_ms = busy_timeout_ms
        self.read_only = read_only
        self._lock = threading.RLock()
        self._conn = _open_read_only(self.path) if read_only else _connect(self.path)
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
            if self.read_only:
                if not tables:
                    raise StoreUnusable(f"{str(self.path)!r} is an empty file, not a store")
                return
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
        """Hold the store's lock for one ``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on error);
        a ``StoreError`` in a store opened read-only."""
        if self.read_only:
            raise StoreError(
                f"cannot write to the store {str(self.path)!r}: it was opened read-only, to be"
                " searched and listed (writing it needs a folder and file this process can write)"
            )
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
            raise OSError("not a regular file")
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    except (OSError, ValueError, sqlite3.Error) as error:
        raise StoreUnusable(f"cannot open a store at {str(path)!r}: {error}") from None
    return connection


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that only reads the store at ``path`` (SQLite's ``mode=ro``), so a file
    or folder this process cannot write is no obstacle.

    A reader of a store in WAL mode still needs its ``-shm`` side file, made beside it on
    first use. Where it cannot be made (a read-only folder) the file is opened
    ``immutable=1`` instead, which reads it as it lies, but only when no ``-wal`` file is
    there: every connection to a WAL store keeps that file while it is open (the last to
    close folds it in and removes it), so no process has the store open, and one that
    would write must first make its side files in that same folder. The one risk left, a
    process with rights this one lacks starting to write meanwhile, is that of a folder
    kept read-only (an archive, a mounted snapshot), where no writer is expected. With a
    ``-wal`` file there and no side file to read it by, the store is refused: a writer has
    it open, or left changes not yet in the file that an immutable read would miss."""
    if path.exists() and not path.is_file():
        raise StoreUnusable(f"cannot open a store at {str(path)!r}: not a regular file")
    if not path.exists():
        raise StoreUnusable(f"no store at {str(path)!r} to read")
    connection = _uri_connect(path, "mode=ro")
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return connection
    except sqlite3.Error as error:
        connection.close()
        if not _named(error, _NO_SIDE_FILES):
            raise _fault(path, error, 0) or StoreUnusable(f"{str(path)!r}: {error}") from None
    if Path(f"{path}-wal").exists():
        raise StoreUnusable(
            f"cannot read the store {str(path)!r}: its folder cannot be written, and a writer"
            " has it open or left changes in its -wal file; open it once where it can be"
            " written, then read it here"
        )
    return _uri_connect(path, "immutable=1")


def _uri_connect(path: Path, mode: str) -> sqlite3.Connection:
    """A connection to ``path`` opened by URI with the query ``mode`` (``mode=ro``); a
    ``StoreUnusable`` when none opens."""
    uri = f"file:{quote(os.fsencode(path.absolute()))}?{mode}"
    try:
        return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    except (OSError, ValueError, sqlite3.Error) as error:
        raise StoreUnusable(f"cannot open a store at {str(path)!r}: {error}") from None


def _named(error: sqlite3.Error, names: tuple[str, ...]) -> bool:
    """Whether ``error`` is of one of SQLite's error families ``names``."""
    return (getattr(error, "sqlite_errorname", "") or "").startswith(names)


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
