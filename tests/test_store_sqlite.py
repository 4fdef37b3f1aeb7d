"""The SQLite store: WAL mode, idempotent per-component migrations, atomic transactions,
reads that never wait for a writer, and faults of the file as errors that name it."""

import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.errors import InvalidArgument, StoreBusy, StoreCorrupt, StoreUnusable
from citesift.store import SQLiteStore
from citesift.store.chunks import ChunkTable, StoredChunk
from citesift.store.embeddings import migrate_embeddings
from citesift.store.lexicon import migrate_lexicon
from citesift.store.limits import StoreBudget
from citesift.store.snapshots import snapshots_in

STEPS = ["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);", "ALTER TABLE t ADD COLUMN w TEXT;"]


def test_migrations_apply_once_and_survive_reopen(tmp_path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.migrate("demo", STEPS)
        store.migrate("demo", STEPS)
        with store.transaction() as conn:
            conn.execute("INSERT INTO t (v, w) VALUES ('a', 'b')")
        with store.reading() as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with SQLiteStore(path) as store:
        store.migrate("demo", [*STEPS, "CREATE INDEX t_v ON t (v);"])
        with store.reading() as conn:
            assert conn.execute("SELECT v, w FROM t").fetchall() == [("a", "b")]
            assert conn.execute("SELECT count(*) FROM schema_steps").fetchone()[0] == 3


def test_failed_transaction_keeps_what_was_committed(tmp_path) -> None:
    with SQLiteStore(tmp_path / "s.db") as store:
        store.migrate("demo", STEPS[:1])
        with store.transaction() as conn:
            conn.execute("INSERT INTO t (v) VALUES ('kept')")
        with pytest.raises(RuntimeError), store.transaction() as conn:
            conn.execute("INSERT INTO t (v) VALUES ('lost')")
            raise RuntimeError("crash mid-write")
        with store.reading() as conn:
            assert [r[0] for r in conn.execute("SELECT v FROM t")] == ["kept"]


OPENER = """
import sys, time
from citesift.store import SQLiteStore
from citesift.store.limits import StoreBudget
from citesift.store.snapshots import snapshots_in
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
store = SQLiteStore(sys.argv[1])
StoreBudget(store)
snapshots_in(store)
print("opened")
"""


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_processes_opening_one_new_store_at_once_all_get_it_migrated(tmp_path) -> None:
    # Both races were seen here: two processes applying the same step ("table already exists")
    # and the switch to WAL meeting a lock the busy handler does not wait out.
    for round_ in range(4):
        path, start_at = tmp_path / f"s{round_}.db", str(time.time() + 1.0)
        openers = [
            subprocess.Popen(
                [sys.executable, "-c", OPENER, str(path), start_at],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        results = [opener.communicate(timeout=60) for opener in openers]
        assert [out for out, _ in results] == ["opened\n"] * 4, [err for _, err in results]
        with SQLiteStore(path) as store, store.reading() as conn:
            steps = conn.execute("SELECT component, COUNT(*) FROM schema_steps GROUP BY 1")
            assert dict(steps.fetchall()).keys() >= {"limits", "snapshots"}


WRITER = """
import sys
from citesift.store import SQLiteStore
store = SQLiteStore(sys.argv[1])
with store.transaction() as conn:
    conn.execute("INSERT INTO schema_steps (component, step) VALUES ('writer', 0)")
    print("holding", flush=True)
    sys.stdin.readline()
print("committed", flush=True)
"""


CLI = [sys.executable, "-c", "from citesift.cli import main; main()"]


def chunk(number: int, text: str) -> StoredChunk:
    return StoredChunk(f"doc{number}_0", f"doc{number}", 0, 0, len(text), text)


def make_index(path: Path, texts: list[str]) -> None:
    """A store as ``index add`` leaves it: every component migrated, chunks kept."""
    with SQLiteStore(path) as store:
        StoreBudget(store)
        snapshots_in(store)
        migrate_embeddings(store)
        migrate_lexicon(store)
        ChunkTable(store).replace(
            [f"doc{n}" for n in range(len(texts))], [chunk(n, t) for n, t in enumerate(texts)]
        )


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process in the middle of a write to ``tmp_path/s.db`` (a line on its standard
    input lets it commit)."""
    make_index(tmp_path / "s.db", ["The Eiffel Tower opened in 1889.", "Tides follow the Moon."])
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path / "s.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None and process.stdout.readline() == "holding\n"
        yield process
        process.kill()


def test_opening_and_reading_a_store_never_waits_for_a_writer(writer, tmp_path) -> None:
    # Opening used to begin a write transaction, which waited for the writer and then died
    # with "database is locked". Every component's migrations are found applied by a read.
    with SQLiteStore(tmp_path / "s.db", busy_timeout_ms=2_000) as store:
        StoreBudget(store)
        snapshots_in(store)
        migrate_embeddings(store)
        table = ChunkTable(store)
        assert sorted(c.content for c in table.all()) == [
            "The Eiffel Tower opened in 1889.",
            "Tides follow the Moon.",
        ]


def test_search_answers_while_another_process_writes(writer, tmp_path) -> None:
    done = subprocess.run(
        [*CLI, "search", "Eiffel", "--store", str(tmp_path / "s.db"), "--retrieval", "bm25"],
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Eiffel Tower" in done.stdout
    assert "waiting for the store" not in done.stderr  # it never asked for the write lock


def test_a_write_waits_for_the_lock_then_says_the_store_is_busy(writer, tmp_path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path, busy_timeout_ms=300) as store:
        started = time.monotonic()
        named = re.escape(repr(str(path)))
        with pytest.raises(StoreBusy, match=named), store.transaction() as conn:
            conn.execute("INSERT INTO schema_steps (component, step) VALUES ('reader', 0)")
        assert time.monotonic() - started >= 0.25
        writer.communicate("go\n", timeout=60)
        with store.transaction() as conn:  # the lock is free again: the write goes through
            conn.execute("INSERT INTO schema_steps (component, step) VALUES ('reader', 0)")
        with store.reading() as conn:
            rows = conn.execute("SELECT component FROM schema_steps WHERE step = 0").fetchall()
        assert {"writer", "reader", "chunks"} <= {r[0] for r in rows}


def test_a_missing_step_waits_for_the_writer_and_says_the_store_is_busy(writer, tmp_path):
    with SQLiteStore(tmp_path / "s.db", busy_timeout_ms=200) as store:
        with pytest.raises(StoreBusy, match="busy"):
            store.migrate("new", ["CREATE TABLE new (id INTEGER);"])
        writer.communicate("go\n", timeout=60)
        store.migrate("new", ["CREATE TABLE new (id INTEGER);"])


def test_a_write_says_once_that_it_waits_for_another_process(writer, tmp_path, caplog) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path, busy_timeout_ms=1_500) as store:
        started = time.monotonic()
        with pytest.raises(StoreBusy), store.transaction():
            pass
        assert time.monotonic() - started >= 1.4
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "citesift.store",
            "WARNING",
            f"waiting for the store {str(path)!r}: another process is writing to it",
        )
    ]


@pytest.mark.slow
def test_a_busy_store_ends_a_command_saying_it_waited_then_with_the_temporary_failure_status(
    writer, tmp_path
) -> None:
    path = str(tmp_path / "s.db")
    done = subprocess.run(
        [*CLI, "index", "rm", "doc0", "--store", path],
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert (done.returncode, done.stdout) == (75, "")
    assert done.stderr.splitlines() == [
        f"waiting for the store {path!r}: another process is writing to it",
        f"error: the store {path!r} is busy: another process has held its write lock for more"
        " than 10 s; try again when it is done",
    ]


def garbage(path: Path) -> Path:
    path.write_bytes(os.urandom(8192))
    return path


def truncated(path: Path) -> Path:
    make_index(path, [f"passage {n} " + "words " * 200 for n in range(300)])
    data = path.read_bytes()
    assert len(data) > 100_000
    path.write_bytes(data[: len(data) // 2])
    return path


def another_programs(path: Path) -> Path:
    with closing(sqlite3.connect(path)) as other, other:
        other.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
        other.execute("INSERT INTO moz_places (url) VALUES ('https://example.org/')")
    return path


@pytest.mark.parametrize("damage", [garbage, truncated, another_programs])
def test_a_damaged_file_is_store_corrupt_naming_it_and_left_as_it_is(tmp_path, damage) -> None:
    path = damage(tmp_path / "s.db")
    before = path.read_bytes()
    with pytest.raises(StoreCorrupt, match=re.escape(repr(str(path)))), SQLiteStore(path) as s:
        list(ChunkTable(s).all())
    assert path.read_bytes() == before


def not_a_file(tmp_path: Path) -> Path:
    return Path("/dev/null")


def a_directory(tmp_path: Path) -> Path:
    return tmp_path


def under_a_file(tmp_path: Path) -> Path:
    (tmp_path / "plain").write_text("in the way")
    return tmp_path / "plain" / "s.db"


def with_a_nul(tmp_path: Path) -> Path:
    return tmp_path / "s\0.db"


@pytest.mark.parametrize("where", [not_a_file, a_directory, under_a_file, with_a_nul])
def test_a_path_that_cannot_hold_a_store_is_refused_naming_it(tmp_path, where) -> None:
    path = where(tmp_path)
    with pytest.raises(StoreUnusable, match="cannot open a store at") as raised:
        SQLiteStore(path)
    assert repr(str(path)) in str(raised.value)
    assert str(raised.value).count("cannot open a store at") == 1  # said once


@pytest.mark.parametrize("timeout", [-1, 1.5, True, "10"])
def test_a_busy_timeout_that_makes_no_sense_is_refused(tmp_path, timeout) -> None:
    with pytest.raises(InvalidArgument, match="busy_timeout_ms"):
        SQLiteStore(tmp_path / "s.db", busy_timeout_ms=timeout)


@pytest.mark.parametrize(
    ("store", "says", "status"),
    [
        ("/dev/null", "not a regular file", EXIT_USAGE),
        ("folder", "not a regular file", EXIT_USAGE),
        ("garbage", "is not a citesift store, or a damaged one", EXIT_USAGE),
    ],
)
def test_the_cli_says_what_is_wrong_with_a_store_in_one_line(tmp_path, store, says, status) -> None:
    if store == "garbage":
        store = str(garbage(tmp_path / "s.db"))
    elif store == "folder":
        store = str(tmp_path)
    for command in (["search", "anything"], ["index", "stats"]):
        result = CliRunner().invoke(app, [*command, "--store", store])
        assert result.exit_code == EXIT_USAGE
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.stderr.count("\n") == 1 and says in result.stderr
        assert result.stderr.startswith("error: ") and store in result.stderr
