"""``citesift index add --workers N``: a folder's files shared by worker processes; with a
PostgreSQL store, the same command started twice at once (as on two machines) reads each
file once between them, and a later run finds them all unchanged; a worker killed mid-way
fails the command, and running it again goes on from what was indexed; the workers of a
command killed by SIGKILL end with it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.index.rag import create_rag
from worker_processes import still_running, workers_of

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]  # worker processes import the library
SRC = str(Path(__file__).resolve().parent.parent / "src")
NOTES = 24


def notes(folder: Path, count: int = NOTES) -> Path:
    """A folder of notes, each with a word of its own."""
    folder.mkdir()
    for n in range(count):
        text = f"# Note {n}\n\nThe tide table for harbour{n} lists two high waters a day.\n"
        (folder / f"note{n}.md").write_text(text, encoding="utf-8")
    return folder


def add(folder: Path, store: str, *more: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from citesift.cli import main; main()", "index", "add",
               str(folder), "--store", store, "--retrieval", "bm25", *more]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)  # fmt: skip


def indexed(said: str) -> int:
    found = re.search(r"indexed (\d+) document", said)
    return int(found.group(1)) if found else 0


def test_two_commands_on_one_postgresql_read_each_file_once(
    tmp_path: Path, postgres_url: str
) -> None:
    folder = notes(tmp_path / "notes")
    first, second = add(folder, postgres_url, "--workers", "2"), add(folder, postgres_url,
                                                                      "--workers", "2")  # fmt: skip
    said = [run.communicate(timeout=200) for run in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], said
    assert sum(indexed(out) for out, _ in said) == NOTES  # each file once between them
    # a command whose files the other took first says so, and has not failed
    assert all(indexed(out) == NOTES or "read by another command" in out for out, _ in said)
    with create_rag(store=postgres_url, retrieval="bm25") as rag:  # its pool closed here
        assert rag.stats().documents == NOTES
        for n in (0, NOTES - 1):
            hits = rag.search(f"harbour{n}", 1)
            assert hits and hits[0].provenance.document_id == (folder / f"note{n}.md").as_uri()
    again = add(folder, postgres_url, "--workers", "2")
    out, err = again.communicate(timeout=200)
    assert again.returncode == 0 and f"{NOTES} document(s) unchanged" in out, err
    # every process closed its connections before it ended, the workers' included
    assert sessions_dropped(postgres_url) == 0


def sessions_dropped(url: str) -> int:
    """How many sessions of the database ended with their client gone instead of closed
    (counted once every other session of it has ended)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(100):
            others = conn.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
            if others == (0,):
                break
            time.sleep(0.1)
        time.sleep(0.5)  # an ended session's counts reach the statistics as it exits
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT sessions_abandoned FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else -1


def test_workers_share_a_folder_on_a_sqlite_store(tmp_path: Path) -> None:
    folder = notes(tmp_path / "notes")
    store = str(tmp_path / "index.db")
    run = add(folder, store, "--workers", "3")
    out, err = run.communicate(timeout=200)
    assert run.returncode == 0, err
    assert indexed(out) == NOTES
    rag = create_rag(store=store, retrieval="bm25")
    assert rag.stats().documents == NOTES and rag.search("harbour7", 1)


def test_workers_must_be_a_sensible_number(tmp_path: Path) -> None:
    folder = notes(tmp_path / "notes")
    store = str(tmp_path / "index.db")
    for count in ("0", "65"):
        result = CliRunner().invoke(app, ["index", "add", str(folder), "--store", store,
                                          "--workers", count])  # fmt: skip
        assert result.exit_code == 64 and "workers must be" in result.stderr, result.stderr


def test_a_killed_worker_fails_the_command_and_running_it_again_goes_on(tmp_path: Path) -> None:
    many = 400
    folder = notes(tmp_path / "notes", many)
    store = str(tmp_path / "index.db")
    run = add(folder, store, "--workers", "2")
    victim = _worker_once_indexing(run, store)
    os.kill(victim, signal.SIGKILL)
    _, err = run.communicate(timeout=200)
    assert run.returncode == 1 and "a worker process ended" in err, err
    again = add(folder, store, "--workers", "2")
    out, err = again.communicate(timeout=200)
    assert again.returncode == 0, err
    unchanged = re.search(r"(\d+) document\(s\) unchanged", out)
    assert unchanged and int(unchanged.group(1)) >= 3  # what was indexed before is kept
    assert indexed(out) + int(unchanged.group(1)) == many
    with create_rag(store=store, retrieval="bm25") as rag:
        assert rag.stats().documents == many


def test_the_workers_of_a_killed_command_end_with_it_and_running_it_again_goes_on(
    tmp_path: Path,
) -> None:
    many = 400
    folder = notes(tmp_path / "notes", many)
    store = str(tmp_path / "index.db")
    run = add(folder, store, "--workers", "2")
    _worker_once_indexing(run, store)
    workers = workers_of(run.pid)
    run.kill()
    run.wait(timeout=30)
    assert len(workers) == 2 and still_running(workers) == []
    run.communicate(timeout=30)  # the workers held its output open till they ended
    with create_rag(store=store, retrieval="bm25") as rag:
        left = rag.stats().documents
    assert left < many  # the workers had not finished, and stopped: no one indexes any more
    time.sleep(1.0)
    with create_rag(store=store, retrieval="bm25") as rag:
        assert rag.stats().documents == left
    again = add(folder, store, "--workers", "2")
    out, err = again.communicate(timeout=200)
    assert again.returncode == 0, err
    unchanged = re.search(r"(\d+) document\(s\) unchanged", out)
    assert unchanged and int(unchanged.group(1)) == left
    assert indexed(out) + left == many
    with create_rag(store=store, retrieval="bm25") as rag:
        assert rag.stats().documents == many


def _worker_once_indexing(run: subprocess.Popen[str], store: str) -> int:
    """The process id of one of ``run``'s workers, once a few documents are indexed."""
    give_up = time.monotonic() + 120
    while time.monotonic() < give_up:
        assert run.poll() is None, "the command ended before a worker was killed"
        workers = workers_of(run.pid)
        if workers and Path(store).exists():
            with create_rag(store=store, retrieval="bm25") as rag:
                if rag.stats().documents >= 3:
                    return workers[0]
        time.sleep(0.05)
    raise AssertionError("no worker indexed anything in time")
