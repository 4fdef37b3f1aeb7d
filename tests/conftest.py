"""Shared test fixtures: paths to the recorded pages in ``fixtures/``, a local server, the
HTTP API on loopback, a short temporary folder of a test's own for the browser's profile."""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from postgres_server import PostgresServer, postgres_server
from servers import MisbehavingServer, serve

FIXTURES = Path(__file__).resolve().parent / "fixtures"
WIKIPEDIA_FIXTURES = FIXTURES / "wikipedia"
"""Recorded Wikipedia API responses, as the stand-in serves them (see fixtures/README.md)."""
ARTICLE_PAGES = sorted((FIXTURES / "pages").glob("*.html"))
"""Real news and blog article pages, as a browser received them."""

# Hypothesis shows a failing example as a patch made with libcst when that is installed, and
# libcst's import warns (a deprecation in mypy_extensions): under -W error that warning would
# end the whole run in place of the failure's report. It is imported here first, quietly.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    importlib.import_module("libcst")

# Bounded time is each test's pytest timeout, not hypothesis's per-example deadline, which a
# busy machine can overrun on a first call. The default run draws the same examples every
# time, so a result never depends on luck; "thorough" (--hypothesis-profile=thorough) draws
# new ones on every run, and more of them, to find what the fixed draw misses.
settings.register_profile("default", deadline=None, derandomize=True, database=None)
settings.register_profile("thorough", deadline=None, max_examples=2_000)
settings.load_profile("default")


@pytest.fixture
def wikipedia_fixtures() -> Path:
    """The recorded Wikipedia responses."""
    return WIKIPEDIA_FIXTURES


@pytest.fixture
def server() -> Iterator[MisbehavingServer]:
    """A misbehaving HTTP server on 127.0.0.1 for one test (see ``servers.py``)."""
    with serve() as running:
        yield running


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL server (with pgvector) for the whole run, started on first use."""
    with postgres_server() as running:
        yield running


@pytest.fixture
def postgres_url(postgres: PostgresServer) -> str:
    """The URL of a new, empty database on the test server."""
    return postgres.database()


@pytest.fixture(params=["sqlite", "postgres"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store is, once for each backend: a new SQLite file's path, or a new database's
    URL on the test PostgreSQL server (started only when a test asks for it)."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with no ``CITESIFT_*`` setting of the machine's (a contact there could
    let a command reach a real site), and its default store in its own folder."""
    for name in [name for name in os.environ if name.startswith("CITESIFT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CITESIFT_HOME", str(tmp_path / "citesift-home"))


@pytest.fixture
def own_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A temporary folder of this test's own, where the browser makes its profile (short:
    Chromium refuses a profile whose socket path is over about a hundred characters)."""
    folder = tempfile.mkdtemp(prefix="csb-")
    monkeypatch.setenv("TMPDIR", folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def served() -> Iterator[str]:
    """The HTTP API on loopback: its base URL (local addresses allowed, no key)."""
    from serving import running  # uvicorn and the API loaded only by the tests that serve

    with running() as base:
        yield base
