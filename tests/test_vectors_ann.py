"""The embedded store's ANN index (HNSW) past its threshold: it ranks as the exact product on
well separated data, is saved beside the store and read back without a rebuild, never
returns a deleted chunk, catches up with changes its file missed (or rebuilds when the file
is damaged), and honours filters. The threshold is lowered so a few hundred vectors do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citesift.errors import InvalidArgument
from citesift.index import dense
from citesift.index.local import LocalStore
from citesift.index.query import Query
from citesift.store.chunks import StoredChunk

EMBEDDER, DIM, CLUSTERS, PER_CLUSTER = "test-embedder", 32, 40, 10
THRESHOLD = 200


def centres() -> np.ndarray:
    rng = np.random.default_rng(7)
    out = rng.standard_normal((CLUSTERS, DIM)).astype(np.float32)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def chunks(clusters: range, seed: int = 1) -> list[StoredChunk]:
    """``PER_CLUSTER`` chunks near each centre of ``clusters`` (one document each; a
    query's top 10 is its cluster), in group ``a`` or ``b`` by cluster parity and ``rare``
    for one chunk in ten."""
    rng = np.random.default_rng(seed)
    out = []
    for c in clusters:
        for i in range(PER_CLUSTER):
            vector = centres()[c] + 0.1 * rng.standard_normal(DIM).astype(np.float32)
            metadata = {"group": "ab"[c % 2], "rare": i % 10 == 0}
            out.append(
                StoredChunk(f"c{c}_{i}", f"d{c}_{i}", 0, 0, 4, "text", metadata, EMBEDDER, vector)
            )
    return out


def fill(store: LocalStore, items: list[StoredChunk]) -> None:
    store.upsert([c.document_id for c in items], items)


def dense_ids(
    store: LocalStore, query: np.ndarray, k: int = 10, where: dict[str, object] | None = None
) -> list[str]:
    found = store.search(Query("", k, "dense", query, EMBEDDER, where))
    return [m.id for m in found]


def probes() -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [c + 0.02 * rng.standard_normal(DIM).astype(np.float32) for c in centres()]


def exact_of(path: Path | str, query: np.ndarray, **kw: object) -> set[str]:
    store = LocalStore(path, ann_threshold=None)
    try:
        assert store.dense_info(EMBEDDER) is not None
        return set(dense_ids(store, query, **kw))  # type: ignore[arg-type]
    finally:
        store.close()


def assert_ranks_as_exact(store: LocalStore, path: Path, **kw: object) -> None:
    """The top 10 of every probe is the exact product's, but for an odd miss (HNSW is
    approximate: a vector its graph reaches badly); recall@10 at least 0.98."""
    found = 0
    for probe in probes():
        found += len(set(dense_ids(store, probe, **kw)) & exact_of(path, probe, **kw))  # type: ignore[arg-type]
    assert found >= 0.98 * 10 * len(probes())


def files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.usearch"))


def built(store: LocalStore) -> dense.DenseInfo:
    """The store's dense search once the build of its ANN index under way is done."""
    info = store.wait_for_dense(EMBEDDER)
    assert info is not None and not info.building
    return info


def test_past_the_threshold_ann_ranks_as_the_exact_product(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = LocalStore(path, ann_threshold=THRESHOLD)
    fill(store, chunks(range(CLUSTERS)))
    info = built(store)
    assert info.kind == "hnsw" and info.vectors == CLUSTERS * PER_CLUSTER
    assert info.builds == 1 and info.file is not None and Path(info.file).exists()
    assert_ranks_as_exact(store, path)
    small = LocalStore(tmp_path / "small.db", ann_threshold=THRESHOLD)
    fill(small, chunks(range(5)))
    assert small.dense_info(EMBEDDER) == dense.DenseInfo("exact", 5 * PER_CLUSTER)
    store.close()
    small.close()


def test_the_index_grows_past_the_threshold_during_use(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "s.db", ann_threshold=THRESHOLD)
    fill(store, chunks(range(5)))
    probe = probes()[20]
    assert dense_ids(store, probe)  # the exact index is read and kept in step
    fill(store, chunks(range(5, CLUSTERS)))
    hits = dense_ids(store, probe, PER_CLUSTER)
    assert len(set(hits) & {f"c20_{i}" for i in range(PER_CLUSTER)}) >= PER_CLUSTER - 1
    assert built(store).kind == "hnsw"
    assert dense_ids(store, probe, PER_CLUSTER) == hits
    store.close()


def test_a_reopened_store_reads_its_saved_index_without_building(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = LocalStore(path, ann_threshold=THRESHOLD)
    fill(store, chunks(range(CLUSTERS)))
    built(store)
    before = [dense_ids(store, p) for p in probes()]
    store.close()
    (saved,) = files(tmp_path)
    stamp = saved.stat().st_mtime_ns
    reopened = LocalStore(path, ann_threshold=THRESHOLD)
    assert [dense_ids(reopened, p) for p in probes()] == before
    info = built(reopened)  # read in the background
    assert info.builds == 0 and info.file == str(saved)
    reopened.close()  # nothing changed: nothing is written
    assert files(tmp_path) == [saved] and saved.stat().st_mtime_ns == stamp


def test_deleted_chunks_never_come_back(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = LocalStore(path, ann_threshold=THRESHOLD)
    fill(store, chunks(range(CLUSTERS)))
    built(store)
    probe = probes()[4]
    assert dense_ids(store, probe)[0].startswith("c4_")
    gone = [f"d4_{i}" for i in range(PER_CLUSTER)]
    store.delete(gone)
    assert not any(i.startswith("c4_") for i in dense_ids(store, probe, 50))
    other = LocalStore(path, ann_threshold=None)  # another writer, no ANN index of its own
    other.delete([f"d5_{i}" for i in range(PER_CLUSTER)])
    other.close()
    assert not any(i.startswith("c5_") for i in dense_ids(store, probes()[5], 50))
    store.close()
    reopened = LocalStore(path, ann_threshold=THRESHOLD)
    for c in (4, 5):
        assert not any(i.startswith(f"c{c}_") for i in dense_ids(reopened, probes()[c], 50))
    assert built(reopened).builds == 0
    reopened.close()


def test_changes_the_saved_file_missed_are_caught_up_on_open(tmp_path: Path) -> None:
    """A write after the file was saved (a crash before the next save, or another process)
    is replayed from the store's log: the results are those of the exact product."""
    path = tmp_path / "s.db"
    store = LocalStore(path, ann_threshold=THRESHOLD)
    fill(store, chunks(range(CLUSTERS - 5)))
    built(store)  # and saved
    (saved,) = files(tmp_path)
    writer = LocalStore(path, ann_threshold=None)
    fill(writer, chunks(range(CLUSTERS - 5, CLUSTERS)))
    moved = chunks(range(3), seed=9)[:1]  # c0_0 now sits near centre 29
    writer.set_vectors(moved, EMBEDDER, np.stack([centres()[29]]))
    writer.close()
    reopened = LocalStore(path, ann_threshold=THRESHOLD)
    assert_ranks_as_exact(reopened, path)
    assert "c0_0" in dense_ids(reopened, centres()[29], 5)
    info = built(reopened)
    assert info.builds == 0 and info.vectors == CLUSTERS * PER_CLUSTER
    assert saved.exists()  # the store's own process (``store``) never saved again
    store.close()
    reopened.close()


@pytest.mark.parametrize("damage", ["truncate", "remove"])
def test_a_damaged_or_missing_file_is_rebuilt(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "s.db"
    store = LocalStore(path, ann_threshold=THRESHOLD)
    fill(store, chunks(range(CLUSTERS)))
    built(store)
    store.close()
    (saved,) = files(tmp_path)
    if damage == "truncate":
        saved.write_bytes(saved.read_bytes()[: saved.stat().st_size // 2])
    else:
        saved.unlink()
    reopened = LocalStore(path, ann_threshold=THRESHOLD)
    assert built(reopened).builds == 1
    assert_ranks_as_exact(reopened, path)
    reopened.close()


def test_filters_small_and_large_match_the_exact_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Allowed sets up to 50 are searched exactly over their own vectors; larger ones by
    ANN asked for more and filtered, exactly when too few pass (group ``b`` seen from a
    cluster of group ``a``)."""
    monkeypatch.setattr(dense, "FILTER_EXACT_ROWS", 50)
    path = tmp_path / "s.db"
    store = LocalStore(path, ann_threshold=THRESHOLD)
    fill(store, chunks(range(CLUSTERS)))
    built(store)
    exact = LocalStore(path, ann_threshold=None)
    for group in ("a", "b"):
        assert_ranks_as_exact(store, path, where={"group": group})
        for probe in probes():
            got = store.search(Query("", 10, "dense", probe, EMBEDDER, {"group": group}))
            assert len(got) == 10 and {m.metadata["group"] for m in got} == {group}
    rare = {"rare": True}
    for probe in probes():
        assert dense_ids(store, probe, 10, rare) == dense_ids(exact, probe, 10, rare)
    store.close()
    exact.close()


def test_a_memory_store_builds_its_index_in_memory(tmp_path: Path) -> None:
    store = LocalStore(":memory:", ann_threshold=THRESHOLD)
    fill(store, chunks(range(CLUSTERS)))
    assert built(store) == dense.DenseInfo("hnsw", CLUSTERS * PER_CLUSTER, 1, None)
    assert dense_ids(store, probes()[7], 5)[0].startswith("c7_")
    store.close()


@pytest.mark.parametrize("bad", [0, -1, True, 2.5, "many"])
def test_a_threshold_that_is_not_a_positive_count_is_refused(bad: object) -> None:
    with pytest.raises(InvalidArgument, match="ann_threshold"):
        LocalStore(":memory:", ann_threshold=bad)  # type: ignore[arg-type]


def test_an_index_behind_a_newer_saved_one_reads_it_again(tmp_path: Path) -> None:
    """Another store on the same file saves its index and trims the log this one would
    replay: this one reads the newer file instead, and sees every change."""
    path = tmp_path / "s.db"
    first = LocalStore(path, ann_threshold=THRESHOLD)
    fill(first, chunks(range(CLUSTERS - 5)))
    built(first)
    second = LocalStore(path, ann_threshold=THRESHOLD)
    assert built(second).builds == 0
    fill(second, chunks(range(CLUSTERS - 5, CLUSTERS)))
    second.delete([f"d0_{i}" for i in range(PER_CLUSTER)])
    second.close()  # saves its index, recorded past every change: the log is emptied
    assert len(files(tmp_path)) == 1
    assert_ranks_as_exact(first, path)
    assert not any(i.startswith("c0_") for i in dense_ids(first, probes()[0], 50))
    info = first.dense_info(EMBEDDER)
    assert info is not None and info.builds == 1 and info.vectors == (CLUSTERS - 1) * PER_CLUSTER
    first.close()
