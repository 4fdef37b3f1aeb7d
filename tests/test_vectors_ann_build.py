"""The embedded store builds its ANN index in the background, and reads a saved one there
too: searches meanwhile are answered exactly from the store's vectors, the index is used
after (caught up with the writes made meanwhile), closing
stops the build without recording anything, a process killed mid-build leaves a store that
builds again, a build whose save fails is used unsaved and saved later, and one build at a time
holds per store file across store objects and processes (the others answer exactly, then
read the file it recorded). The build is held
under way by holding the store's lock (the builder reads the store under it), never by
sleeping."""

from __future__ import annotations

import errno
import fcntl
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from citesift.errors import StoreError
from citesift.index import ann_build, ann_files, ann_lock, dense
from citesift.index.ann import HnswIndex
from citesift.index.local import LocalStore
from citesift.store import vector_log
from citesift.store.sqlite import SQLiteStore
from test_vectors_ann import (
    CLUSTERS,
    DIM,
    EMBEDDER,
    PER_CLUSTER,
    THRESHOLD,
    assert_ranks_as_exact,
    built,
    chunks,
    dense_ids,
    fill,
    probes,
)

ROOT = Path(__file__).resolve().parent.parent
VECTORS = CLUSTERS * PER_CLUSTER
HOLD_A_BUILD = """
import sys
from citesift.index.local import LocalStore

store = LocalStore(sys.argv[1], ann_threshold=int(sys.argv[2]))
with store.sqlite.reading():  # the build cannot read a page: it stays under way
    info = store.dense_info(sys.argv[3])
    print("building" if info is not None and info.building else "not building", flush=True)
    sys.stdin.read()
"""

WAIT_BESIDE = """
import sys
from citesift.index.local import LocalStore

store = LocalStore(sys.argv[1], ann_threshold=int(sys.argv[2]))
with store.sqlite.reading():  # its build starts when the parent's does
    store.dense_info(sys.argv[3])
    print("started", flush=True)
    sys.stdin.readline()
info = store.wait_for_dense(sys.argv[3])
print(info.builds, info.file, flush=True)
store.close()
"""


def seeded(tmp_path: Path) -> Path:
    """A store holding every cluster's chunks and no ANN index yet."""
    path = tmp_path / "s.db"
    store = LocalStore(path, ann_threshold=None)
    fill(store, chunks(range(CLUSTERS)))
    store.close()
    return path


def exact_ids(path: Path, query: np.ndarray, where: dict[str, object] | None = None) -> list[str]:
    store = LocalStore(path, ann_threshold=None)
    try:
        return dense_ids(store, query, 10, where)
    finally:
        store.close()


def builders() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == ann_build.THREAD_NAME]


def recorded(path: Path) -> vector_log.VectorFile | None:
    with SQLiteStore(path) as sqlite, sqlite.reading() as conn:
        return vector_log.recorded(conn, EMBEDDER)


def left_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".usearch" in p.name)


def spawned(script: str, path: Path) -> subprocess.Popen[str]:
    """A Python process running ``script`` on the store at ``path``, talking over pipes."""
    return subprocess.Popen(
        [sys.executable, "-c", script, str(path), str(THRESHOLD), EMBEDDER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )


def test_searches_during_the_build_are_exact_and_the_built_index_is_used_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dense, "FILTER_EXACT_ROWS", 50)  # a group's 200 are read in pages
    monkeypatch.setattr(vector_log, "BATCH_ROWS", 64)
    path = seeded(tmp_path)
    store = LocalStore(path, ann_threshold=THRESHOLD)
    with store.sqlite.reading():
        assert store.dense_info(EMBEDDER) == dense.DenseInfo("hnsw", VECTORS, building=True)
        for probe in probes():
            assert dense_ids(store, probe) == exact_ids(path, probe)
            for where in ({"group": "b"}, {"rare": True}):
                assert dense_ids(store, probe, 10, where) == exact_ids(path, probe, where)
        assert left_files(tmp_path) == []
    info = built(store)
    assert info.builds == 1 and info.vectors == VECTORS and info.file is not None
    assert Path(info.file).exists() and recorded(path) is not None
    assert_ranks_as_exact(store, path)
    store.close()
    assert builders() == []


def test_a_saved_index_is_read_in_the_background_and_writes_meanwhile_are_caught_up(
    tmp_path: Path,
) -> None:
    path = seeded(tmp_path)
    first = LocalStore(path, ann_threshold=THRESHOLD)
    saved = built(first).file
    first.close()
    store = LocalStore(path, ann_threshold=THRESHOLD)
    with store.sqlite.reading():  # the reader cannot look at the store's record yet
        assert store.dense_info(EMBEDDER) == dense.DenseInfo("hnsw", VECTORS, building=True)
        assert builders()
        for probe in probes()[:5]:
            assert dense_ids(store, probe) == exact_ids(path, probe)
        store.delete([f"d4_{i}" for i in range(PER_CLUSTER)])
    info = built(store)
    assert (info.builds, info.file, info.vectors) == (0, saved, VECTORS - PER_CLUSTER)
    assert not any(i.startswith("c4_") for i in dense_ids(store, probes()[4], 50))
    store.close()
    assert builders() == []


def test_writes_during_the_build_are_caught_up_when_it_is_swapped_in(tmp_path: Path) -> None:
    path = seeded(tmp_path)
    store = LocalStore(path, ann_threshold=THRESHOLD)
    with store.sqlite.reading():
        assert store.dense_info(EMBEDDER) == dense.DenseInfo("hnsw", VECTORS, building=True)
        store.delete([f"d4_{i}" for i in range(PER_CLUSTER)])
        (moved,) = chunks(range(1))[:1]
        store.set_vectors([moved], EMBEDDER, np.stack([probes()[9]]))
    assert built(store).vectors == VECTORS - PER_CLUSTER
    assert not any(i.startswith("c4_") for i in dense_ids(store, probes()[4], 50))
    assert dense_ids(store, probes()[9], 1) == ["c0_0"]
    store.close()


def test_closing_the_store_during_a_build_stops_it_and_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ann_build, "BUILD_ROWS", 10)  # forty steps: a stop is seen between
    path = seeded(tmp_path)
    store = LocalStore(path, ann_threshold=THRESHOLD)
    with store.sqlite.reading():
        info = store.dense_info(EMBEDDER)
        assert info is not None and info.building and builders()
    store.close()  # right as the builder gets the lock: it is far from done
    assert builders() == []
    assert recorded(path) is None and left_files(tmp_path) == []


def test_a_store_whose_process_died_mid_build_builds_again_and_answers(tmp_path: Path) -> None:
    path = seeded(tmp_path)
    held = spawned(HOLD_A_BUILD, path)
    try:
        assert held.stdout is not None and held.stdout.readline().strip() == "building"
    finally:
        held.kill()
        held.communicate(timeout=30)
    assert held.returncode != 0 and recorded(path) is None
    store = LocalStore(path, ann_threshold=THRESHOLD)
    assert built(store).builds == 1 and recorded(path) is not None
    assert_ranks_as_exact(store, path)
    store.close()


def blocked_save(path: Path, covered: int | None = None) -> Path:
    """A folder where the next save of the store's index (covering the log up to
    ``covered``, by default its newest entry) writes its partial file, so that the save
    fails; removing it lets the save through."""
    if covered is None:
        with SQLiteStore(path) as sqlite, sqlite.reading() as conn:
            covered = vector_log.last_seq(conn)
    target = ann_files.file_for(path, EMBEDDER, covered)
    blocker = target.with_name(target.name + ann_files.PARTIAL)
    blocker.mkdir()
    return blocker


def test_a_build_whose_save_fails_is_used_unsaved_and_saved_after_as_many_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dense, "SAVE_CHANGES", 1)  # a twentieth of the index is enough
    path = seeded(tmp_path)
    blockers = [
        blocked_save(path, 0)
    ]  # nothing logged yet: the build's save cannot write the index
    store = LocalStore(path, ann_threshold=THRESHOLD)
    info = built(store)
    assert (info.kind, info.vectors, info.builds, info.file) == ("hnsw", VECTORS, 1, None)
    assert_ranks_as_exact(store, path)
    assert recorded(path) is None and builders() == []
    store.delete([f"d{c}_{i}" for c in (4, 5) for i in range(PER_CLUSTER)])
    blockers.append(blocked_save(path))  # the save after as many changes fails too
    for _ in range(2):
        assert not any(i.startswith("c4_") for i in dense_ids(store, probes()[4], 50))
    info = built(store)
    assert (info.builds, info.file, info.vectors) == (1, None, VECTORS - 2 * PER_CLUSTER)
    assert recorded(path) is None and builders() == []
    for blocker in blockers:
        blocker.rmdir()
    store.delete([f"d{c}_{i}" for c in (6, 7) for i in range(PER_CLUSTER)])
    assert not any(i.startswith("c6_") for i in dense_ids(store, probes()[6], 50))
    info = built(store)
    saved = recorded(path)
    assert info.builds == 1 and saved is not None and info.file == str(tmp_path / saved.file)
    store.close()
    assert left_files(tmp_path) == [saved.file]


def test_an_unsaved_build_is_saved_on_close_or_its_failure_raised_there(tmp_path: Path) -> None:
    path = seeded(tmp_path)
    blocker = blocked_save(path, 0)  # nothing was logged before the build
    store = LocalStore(path, ann_threshold=THRESHOLD)
    assert built(store).file is None
    with pytest.raises(StoreError, match="could not be saved"):
        store.close()  # still blocked: closing says so, and closes all the same
    with pytest.raises(sqlite3.ProgrammingError, match="closed"), store.sqlite.reading() as c:
        c.execute("SELECT 1")
    store = LocalStore(path, ann_threshold=THRESHOLD)  # nothing recorded: builds again
    assert built(store) == dense.DenseInfo("hnsw", VECTORS, 1, None)
    blocker.rmdir()
    store.close()
    saved = recorded(path)
    assert saved is not None and left_files(tmp_path) == [saved.file]
    reopened = LocalStore(path, ann_threshold=THRESHOLD)
    assert built(reopened).builds == 0  # the file saved on closing is read
    reopened.close()


def test_a_wait_is_bounded_and_refuses_a_nonsense_timeout(tmp_path: Path) -> None:
    path = seeded(tmp_path)
    store = LocalStore(path, ann_threshold=THRESHOLD)
    with store.sqlite.reading():
        info = store.wait_for_dense(EMBEDDER, timeout=0)
        assert info is not None and info.building
    for bad in (-1, float("nan"), "soon", 1e9):
        with pytest.raises(ValueError, match="timeout"):
            store.wait_for_dense(EMBEDDER, timeout=bad)  # type: ignore[arg-type]
    store.close()


def test_an_hnsw_index_adds_new_labels_only_and_replaces_by_removing_first() -> None:
    rng = np.random.default_rng(5)
    index = HnswIndex(8)
    index.add(np.arange(1, 101), rng.standard_normal((100, 8)))
    with pytest.raises(RuntimeError, match="Duplicate"):
        index.add(np.array([7]), rng.standard_normal((1, 8)))
    far = np.full((1, 8), 8**-0.5, dtype=np.float32)  # a unit vector, as searches ask
    index.remove([7])
    index.add(np.array([7]), far)
    labels, scores = index.search(far[0], 1)
    assert labels.tolist() == [7] and scores[0] == pytest.approx(1.0, abs=1e-3)
    assert len(index) == 100


def test_a_build_waits_for_another_on_the_same_file_answers_exactly_and_reads_its_file(
    tmp_path: Path,
) -> None:
    path = seeded(tmp_path)
    with ann_lock.held(ann_files.lock_for(path, EMBEDDER), threading.Event()) as free:
        assert free  # as a build elsewhere holds it
        store = LocalStore(path, ann_threshold=THRESHOLD)
        info = store.wait_for_dense(EMBEDDER, timeout=1)
        assert info is not None and info.building and builders()  # waiting, not building
        for probe in probes()[:5]:
            assert dense_ids(store, probe) == exact_ids(path, probe)
        with SQLiteStore(path) as sqlite:  # the other build ends: its file is recorded
            with sqlite.reading() as conn:
                covered = vector_log.last_seq(conn)
            index = HnswIndex(DIM)
            for labels, _, vectors in vector_log.pages(sqlite.reading, EMBEDDER):
                index.add(labels, vectors)
            theirs = ann_files.save(sqlite, EMBEDDER, index, covered)
    info = built(store)
    assert (info.builds, info.file) == (0, str(theirs))
    assert_ranks_as_exact(store, path)
    store.close()


def test_two_stores_on_one_file_build_once_in_one_process_and_across_two(tmp_path: Path) -> None:
    path = seeded(tmp_path)
    first, second = (LocalStore(path, ann_threshold=THRESHOLD) for _ in range(2))
    with first.sqlite.reading(), second.sqlite.reading():  # both builds start together
        for store in (first, second):
            info = store.dense_info(EMBEDDER)
            assert info is not None and info.building
    done = [built(first), built(second)]
    assert sorted(i.builds for i in done) == [0, 1] and done[0].file == done[1].file
    for store in (first, second):
        store.close()
    for saved in tmp_path.glob("*.usearch"):
        saved.unlink()
    mine = LocalStore(path, ann_threshold=THRESHOLD)
    other = spawned(WAIT_BESIDE, path)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "started"
        with mine.sqlite.reading():
            info = mine.dense_info(EMBEDDER)
            assert info is not None and info.building
            other.stdin.write("go\n")  # type: ignore[union-attr]
            other.stdin.flush()  # type: ignore[union-attr]
        out, _ = other.communicate(timeout=120)
    finally:
        other.kill()
    theirs = out.split()
    info = built(mine)
    assert sorted([info.builds, int(theirs[0])]) == [0, 1] and theirs[1] == info.file
    mine.close()
    assert len(left_files(tmp_path)) == 1


def test_a_store_named_with_glob_characters_keeps_only_its_newest_index_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s[1].db"  # "[1]" would be a class of characters in a pattern
    store = LocalStore(path, ann_threshold=THRESHOLD)
    fill(store, chunks(range(CLUSTERS)))
    first = built(store).file
    store.delete([f"d4_{i}" for i in range(PER_CLUSTER)])
    dense_ids(store, probes()[0])  # the deletions are replayed, unsaved
    store.close()  # saves them: the first file is not recorded any more
    saved = recorded(path)
    assert saved is not None and first is not None and Path(first).name != saved.file
    assert left_files(tmp_path) == [saved.file]


def test_a_save_failing_on_close_is_raised_and_the_store_is_closed_all_the_same(
    tmp_path: Path,
) -> None:
    path = seeded(tmp_path)
    store = LocalStore(path, ann_threshold=THRESHOLD)
    built(store)
    store.delete([f"d4_{i}" for i in range(PER_CLUSTER)])
    dense_ids(store, probes()[0])  # the deletions are replayed, unsaved
    with store.sqlite.reading() as conn:
        target = ann_files.file_for(path, EMBEDDER, vector_log.last_seq(conn))
    blocker = target.with_name(target.name + ann_files.PARTIAL)
    blocker.mkdir()  # the save on closing cannot write the index where it goes
    with pytest.raises(StoreError, match="could not be saved"):
        store.close()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"), store.sqlite.reading() as c:
        c.execute("SELECT 1")


@pytest.mark.parametrize("freed", [False, True], ids=["still failing", "freed"])
def test_a_save_failing_after_many_changes_is_tried_again_on_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, freed: bool
) -> None:
    """Searches keep answering from the index; closing tries the save again, and raises
    its error when it fails again (the store is closed all the same)."""
    monkeypatch.setattr(dense, "SAVE_CHANGES", 1)  # a twentieth of the index is enough
    path = seeded(tmp_path)
    store = LocalStore(path, ann_threshold=THRESHOLD)
    saved = built(store).file
    store.delete([f"d{c}_{i}" for c in (4, 5, 6) for i in range(PER_CLUSTER)])
    with store.sqlite.reading() as conn:
        newest = vector_log.last_seq(conn)
    blocker = blocked_save(path, newest)  # the save cannot write the index where it goes
    for _ in range(2):  # the changes are replayed, their save fails: the log still has them
        assert not any(i.startswith("c4_") for i in dense_ids(store, probes()[4], 50))
    info = store.dense_info(EMBEDDER)
    assert info is not None and (info.kind, info.file) == ("hnsw", saved)
    if freed:
        blocker.rmdir()
        store.close()
        kept = recorded(path)
        assert kept is not None and kept.covered == newest
        assert left_files(tmp_path) == [kept.file]
    else:
        with pytest.raises(StoreError, match="could not be saved"):
            store.close()
        with pytest.raises(sqlite3.ProgrammingError, match="closed"), store.sqlite.reading() as c:
            c.execute("SELECT 1")
        kept = recorded(path)
        assert saved is not None and kept is not None and kept.file == Path(saved).name
        blocker.rmdir()
    reopened = LocalStore(path, ann_threshold=THRESHOLD)  # reads the file, catches up
    assert not any(i.startswith("c5_") for i in dense_ids(reopened, probes()[5], 50))
    assert built(reopened).builds == 0
    reopened.close()


def test_a_file_system_refusing_locks_lets_the_build_go_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "no locks available")

    monkeypatch.setattr(fcntl, "flock", refuse)
    with ann_lock.held(tmp_path / "store.lock", threading.Event()) as may_build:
        assert may_build is True
