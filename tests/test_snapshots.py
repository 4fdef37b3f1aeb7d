"""The snapshot store: compressed, content-addressed bodies, and offline replay of fetches."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import zstandard

from citesift.errors import InvalidArgument
from citesift.model import MAX_BODY_BYTES, FetchOutcome, Skipped, Snapshot
from citesift.net import Fetcher, Fetches, FetchPolicy, run_sync
from citesift.sources.snapshots import ReplayingFetcher, SavingFetcher
from citesift.store import SQLiteStore
from citesift.store.snapshots import SnapshotCorrupted, SnapshotStore
from servers import TEST_IDENTITY, loopback_policy, serve


def fetched(fetcher: Fetches, url: str) -> FetchOutcome:
    return run_sync(fetcher.fetch(url, loopback_policy()))


def saving(store: SQLiteStore) -> SavingFetcher:
    return SavingFetcher(Fetcher(), store)


pytestmark = pytest.mark.timeout(30)
BODY = ("<html><body>" + "<p>A repeated paragraph of text.</p>" * 500 + "</body></html>").encode()


def snapshot(body: bytes = BODY, url: str = "https://example.org/a", at: int = 1_000) -> Snapshot:
    return Snapshot(
        id=hashlib.sha256(body).hexdigest(),
        url=url,
        final_url=url + "?final",
        status=200,
        headers=(("content-type", "text/html; charset=utf-8"), ("etag", '"x"')),
        content_type="text/html; charset=utf-8",
        charset="utf-8",
        fetched_at=at,
        body=body,
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    with SQLiteStore(tmp_path / "store.db") as opened:
        yield opened


def test_a_saved_snapshot_comes_back_whole_by_id_and_by_url(store: SQLiteStore) -> None:
    snapshots = SnapshotStore(store)
    kept = snapshot()
    assert snapshots.save(kept) == kept.id
    assert snapshots.get(kept.id) == kept
    assert snapshots.get(kept.id).body == BODY  # type: ignore[union-attr]
    assert snapshots.latest(kept.url) == kept
    assert snapshots.latest(kept.final_url) == kept
    assert snapshots.get("0" * 64) is None
    assert snapshots.latest("https://example.org/never") is None


def test_bodies_are_stored_compressed_and_once_per_content(store: SQLiteStore) -> None:
    snapshots = SnapshotStore(store)
    snapshots.save(snapshot(url="https://example.org/a"))
    snapshots.save(snapshot(url="https://example.org/b"))
    snapshots.save(snapshot(url="https://example.org/b"))
    with store.reading() as conn:
        bodies = conn.execute("SELECT size, length(data) FROM snapshot_bodies").fetchall()
        rows = conn.execute("SELECT count(*) FROM snapshots").fetchone()[0]
    assert len(bodies) == 1 and rows == 2
    size, stored = bodies[0]
    assert size == len(BODY) and stored < size / 10


def test_latest_answers_the_newest_fetch_of_a_url(store: SQLiteStore) -> None:
    snapshots = SnapshotStore(store)
    snapshots.save(snapshot(b"old", at=1_000))
    snapshots.save(snapshot(b"new", at=2_000))
    snapshots.save(snapshot(b"older", at=500))
    assert snapshots.latest("https://example.org/a").body == b"new"  # type: ignore[union-attr]


def test_a_body_that_no_longer_matches_its_hash_is_refused(store: SQLiteStore) -> None:
    snapshots = SnapshotStore(store)
    kept = snapshot()
    with pytest.raises(SnapshotCorrupted):
        snapshots.save(replace(kept, body=b"other bytes"))
    snapshots.save(kept)
    with store.transaction() as conn:
        tampered = zstandard.ZstdCompressor().compress(b"tampered")
        conn.execute("UPDATE snapshot_bodies SET data = ?", (tampered,))
    with pytest.raises(SnapshotCorrupted):
        snapshots.get(kept.id)


def frame_declaring(size: int) -> bytes:
    """The header of a zstd frame that says it holds ``size`` bytes (and none of them)."""
    return b"\x28\xb5\x2f\xfd\xe0" + size.to_bytes(8, "little")


def test_a_stored_body_declaring_more_than_a_fetch_may_keep_is_refused_unread(
    store: SQLiteStore,
) -> None:
    snapshots = SnapshotStore(store)
    kept = snapshot()
    snapshots.save(kept)
    for size, why in [(MAX_BODY_BYTES + 1, "declares a body of"), (MAX_BODY_BYTES, "readable")]:
        with store.transaction() as conn:
            conn.execute("UPDATE snapshot_bodies SET data = ?", (frame_declaring(size),))
        with pytest.raises(SnapshotCorrupted, match=why):
            snapshots.get(kept.id)
    FetchPolicy(TEST_IDENTITY, max_body_bytes=MAX_BODY_BYTES)  # the bound a fetch may keep to
    with pytest.raises(InvalidArgument, match="max_body_bytes"):
        FetchPolicy(TEST_IDENTITY, max_body_bytes=MAX_BODY_BYTES + 1)


def test_snapshots_survive_reopening_the_store(tmp_path: Path) -> None:
    kept = snapshot()
    with SQLiteStore(tmp_path / "s.db") as first:
        SnapshotStore(first).save(kept)
    with SQLiteStore(tmp_path / "s.db") as again:
        assert SnapshotStore(again).get(kept.id) == kept


def test_a_fetch_saved_once_is_replayed_offline_without_the_network(store: SQLiteStore) -> None:
    with serve() as server:
        url = server.url("/ok")
        first = fetched(saving(store), url)
        assert isinstance(first, Snapshot)
    replayed = fetched(ReplayingFetcher(store), url)
    assert replayed == first
    assert len(server.seen) == 1


def test_offline_answers_skipped_for_a_miss_or_without_a_store(store: SQLiteStore) -> None:
    url = "http://127.0.0.1:9/never-fetched"
    assert fetched(ReplayingFetcher(store), url) == Skipped(None, "not in the store")
    assert fetched(ReplayingFetcher(None), url) == Skipped(
        None, "offline, and no store to answer from"
    )


def test_a_store_that_cannot_answer_or_keep_gives_skipped_not_an_exception(
    store: SQLiteStore,
) -> None:
    SnapshotStore(store)
    with store.transaction() as conn:
        conn.execute("DROP TABLE snapshots")
    offline = fetched(ReplayingFetcher(store), "http://127.0.0.1:9/x")
    assert isinstance(offline, Skipped) and "cannot answer" in offline.reason
    with serve() as server:
        kept = fetched(saving(store), server.url("/ok"))
    assert isinstance(kept, Skipped)
    assert kept.status == 200 and "not kept" in kept.reason
