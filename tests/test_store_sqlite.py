"""The SQLite store: WAL mode, idempotent per-component migrations, atomic transactions."""

import subprocess
import sys
import time

import pytest

from citesift.store import SQLiteStore

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
