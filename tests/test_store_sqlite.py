"""The SQLite store: WAL mode, idempotent per-component migrations, atomic transactions."""

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
