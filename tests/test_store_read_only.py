"""A store in a folder that cannot be written is still searched, listed and counted: the
commands that only read open it read-only (SQLite ``mode=ro``, else ``immutable=1`` when
no writer has it open), and a write through such a handle is refused by name.

Tests run as root, whom file permissions do not stop, so the commands run in a process of
the unprivileged user ``nobody``, over a folder made read-only (0555) in a place that user
can reach; run as another user, the same folder stops that user alike."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import citesift
from citesift import index_add
from citesift.errors import InvalidArgument, StoreError, StoreUnusable
from citesift.index.rag import create_rag
from citesift.store import SQLiteStore, open_store

SOURCE = str(Path(citesift.__file__).parents[1])
TEXT = "Spring tides follow the new and the full moon."


@pytest.fixture
def shelf() -> Iterator[Path]:
    """A folder anyone may enter, holding a store indexed by this process in ``ro/``."""
    root = Path(tempfile.mkdtemp(prefix="citesift-ro-"))
    root.chmod(0o755)
    (root / "tides.txt").write_text(TEXT)
    (root / "ro").mkdir()
    index_add([str(root / "tides.txt")], store=root / "ro" / "s.db", retrieval="bm25")
    yield root
    (root / "ro").chmod(0o755)
    shutil.rmtree(root)


def run_as_reader(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``citesift ARGS`` in a process of a user who cannot write ``root/ro`` (made 0555)."""
    (root / "ro").chmod(0o555)
    (root / "ro" / "s.db").chmod(0o444)
    user = {"user": pwd.getpwnam("nobody").pw_uid, "group": pwd.getpwnam("nobody").pw_gid,
            "extra_groups": []} if os.geteuid() == 0 else {}  # fmt: skip
    env = {"PYTHONPATH": SOURCE, "HOME": str(root), "CITESIFT_HOME": str(root / "home"),
           "PATH": os.environ.get("PATH", "")}  # fmt: skip
    command = [sys.executable, "-m", "citesift", *args, "--store", str(root / "ro" / "s.db")]
    return subprocess.run(command, env=env, cwd=root, capture_output=True, text=True,
                          timeout=120, check=False, **user)  # type: ignore[call-overload]  # fmt: skip


def test_search_ls_and_stats_read_a_store_in_a_folder_that_cannot_be_written(
    shelf: Path,
) -> None:
    listed = run_as_reader(shelf, "index", "ls")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith((shelf / "tides.txt").as_uri())
    counted = run_as_reader(shelf, "index", "stats")
    assert counted.returncode == 0 and '"chunks": 1' in counted.stdout, counted.stderr
    found = run_as_reader(shelf, "search", "tides", "--retrieval", "bm25")
    assert found.returncode == 0 and TEXT in found.stdout, found.stderr
    assert sorted(p.name for p in (shelf / "ro").iterdir()) == ["s.db"]  # no side file made
    removed = run_as_reader(shelf, "index", "rm", (shelf / "tides.txt").as_uri())
    assert removed.returncode != 0 and "readonly" in removed.stderr  # rm writes: refused


def test_a_store_whose_writer_left_a_wal_file_is_not_read_as_it_lies(shelf: Path) -> None:
    (shelf / "ro" / "s.db-wal").touch()  # a writer has it open, or left changes there
    listed = run_as_reader(shelf, "index", "ls")
    assert listed.returncode == 64
    assert "a writer has it open or left changes in its -wal file" in listed.stderr


def test_a_read_only_handle_makes_no_file_and_writes_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "none" / "s.db"
    with pytest.raises(StoreUnusable, match="no store at"):
        SQLiteStore(missing, read_only=True)
    assert not missing.parent.exists()
    with pytest.raises(InvalidArgument, match="read_only"):
        SQLiteStore(":memory:", read_only=True)
    (tmp_path / "empty.db").touch()
    with pytest.raises(StoreUnusable, match="empty file"):
        SQLiteStore(tmp_path / "empty.db", read_only=True)
    made = tmp_path / "s.db"
    with create_rag(store=made, retrieval="bm25") as rag:
        rag.ingest([{"id": "tides", "content": TEXT}])
    with open_store(made, read_only=True) as kept, create_rag(store=kept, retrieval="bm25") as rag:
        assert [h.id for h in rag.search("moon")] == ["tides_chunk_0"]
        with pytest.raises(StoreError, match="opened read-only"):
            rag.delete(["tides"])
        assert rag.stats().chunks == 1


def test_ls_and_stats_in_a_writable_folder_open_the_store_as_ever(tmp_path: Path) -> None:
    """A store this process can write is listed without leaving a reader's side files beside
    it, and one made by an older release (a schema step missing) is brought up to date."""
    (tmp_path / "tides.txt").write_text(TEXT)
    store = tmp_path / "s.db"
    index_add([str(tmp_path / "tides.txt")], store=store, retrieval="bm25")
    with SQLiteStore(store) as opened, opened.transaction() as conn:
        conn.execute("DELETE FROM schema_steps WHERE rowid = (SELECT max(rowid) FROM schema_steps)")
    env = {**os.environ, "PYTHONPATH": SOURCE, "CITESIFT_HOME": str(tmp_path / "home")}
    for command in ("ls", "stats"):
        done = subprocess.run([sys.executable, "-m", "citesift", "index", command, "--store",
                               str(store)], env=env, capture_output=True, text=True,
                              timeout=120, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("s.db-")]


def test_a_store_whose_name_is_not_utf8_is_opened_only_to_read_it(tmp_path: Path) -> None:
    path = Path(os.fsdecode(bytes(tmp_path) + b"/st\xff.db"))
    SQLiteStore(path).close()
    with SQLiteStore(path, read_only=True) as store:
        assert store.read_only
