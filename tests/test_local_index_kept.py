"""The embedded store keeps its BM25 index beside the chunks: a reopened store reads it back
(no passage is tokenized again) and ranks exactly as the store that wrote it; a change made
by another process is seen at the next search; a store kept before the index builds it, and
so does one whose index older tokenizer rules made."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from citesift.index.lexical import bm25
from citesift.index.lexical.tokens import TOKENIZER_VERSION
from citesift.index.local import SEAL_ROWS, LocalStore
from citesift.index.query import Query
from citesift.store import SQLiteStore
from citesift.store.chunks import ChunkTable, StoredChunk

TOPICS = ["tides", "volcano", "glacier", "comet", "coral", "desert", "monsoon", "aurora"]


def chunks_of(doc: int, count: int = 3) -> list[StoredChunk]:
    """``count`` passages of document ``doc``, each about two of the topics."""
    out = []
    for seq in range(count):
        words = f"{TOPICS[(doc + seq) % 8]} {TOPICS[(doc * 3 + seq) % 8]} note tag{doc}x part {seq}"
        out.append(StoredChunk(f"d{doc}_{seq}", f"d{doc}", seq, seq * 50, seq * 50 + 40, words))
    return out


def ranked(store: LocalStore, text: str) -> list[tuple[str, float]]:
    return [(m.id, m.score or 0.0) for m in store.search(Query(text, 10, "bm25"))]


def fill(store: LocalStore, documents: range) -> None:
    for doc in documents:
        store.upsert([f"d{doc}"], chunks_of(doc))


def test_a_reopened_store_ranks_as_the_one_that_wrote_it_without_tokenizing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.db"
    written = LocalStore(path)
    fill(written, range(40))
    written.delete(["d3", "d7"])
    written.upsert(["d5"], chunks_of(105))  # d5 now holds other passages
    expected = {q: ranked(written, q) for q in ("tides glacier", "comet note", "aurora part")}
    written.sqlite.close()

    calls = []
    original = bm25.BM25Index.terms
    monkeypatch.setattr(bm25.BM25Index, "terms", lambda s, t: calls.append(t) or original(s, t))
    reopened = LocalStore(path)
    assert {q: ranked(reopened, q) for q in expected} == expected
    assert calls == []  # only the queries were tokenized, by the tokenizer itself
    assert "d3_0" not in {i for hits in expected.values() for i, _ in hits}


def test_sealed_segments_are_kept_and_merged(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = LocalStore(path)
    documents = SEAL_ROWS // 3 * 2 + 50  # passages past two seals
    store.upsert(
        [f"d{d}" for d in range(documents)], [c for d in range(documents) for c in chunks_of(d)]
    )
    store.upsert(["d1"], chunks_of(1, 1))
    expected = ranked(store, "monsoon coral")
    assert store.bm25.passages.segments  # sealed
    store.sqlite.close()
    assert ranked(LocalStore(path), "monsoon coral") == expected


def test_another_process_change_is_seen_at_the_next_search(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    reader, writer = LocalStore(path), LocalStore(path)
    fill(writer, range(5))
    assert [i for i, _ in ranked(reader, "tag4x")][:1] == ["d4_0"]
    writer.upsert(["d9"], [StoredChunk("x", "d9", 0, 0, 9, "quasar pulses")])
    assert [i for i, _ in ranked(reader, "quasar")] == ["x"]
    fill(reader, range(5, 8))  # the reader writes after it, on top of its change
    writer.delete(["d9"])
    assert ranked(reader, "quasar") == []
    assert ranked(LocalStore(path), "tag6x") == ranked(reader, "tag6x")


def test_a_store_kept_before_the_index_builds_it_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as sqlite:
        ChunkTable(sqlite).replace(["d1", "d2"], chunks_of(1) + chunks_of(2))
    first = LocalStore(path)
    found = ranked(first, "volcano")
    assert found and all(i.startswith(("d1", "d2")) for i, _ in found)
    first.upsert(["d3"], chunks_of(3))  # a change keeps the index built by the search
    first.sqlite.close()
    assert ranked(LocalStore(path), "volcano") == ranked(fresh_of(range(1, 4)), "volcano")


def fresh_of(documents: range) -> LocalStore:
    """A store holding the chunks of ``documents``, indexed from scratch in memory."""
    fresh = LocalStore(":memory:")
    fill(fresh, documents)
    return fresh


def test_deletes_and_merges_rank_as_a_fresh_reopen_and_a_fresh_index(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = LocalStore(path)
    first, second = range(SEAL_ROWS // 3 + 10), range(5000, 5000 + SEAL_ROWS // 3 + 10)
    store.upsert([f"d{d}" for d in first], [c for d in first for c in chunks_of(d)])
    gone = [f"d{d}" for d in first if d % 3 == 0]
    queries = ("tides glacier", "comet note", f"tag{first[-1]}x volcano", "aurora part 2")

    def same_everywhere(kept: list[int]) -> None:
        """The store as changed ranks as the file reopened and as a new index of the
        passages it holds (added in the order of their rows)."""
        fresh = LocalStore(":memory:")
        fresh.upsert([f"d{d}" for d in kept], [c for d in kept for c in chunks_of(d)])
        expected = {q: ranked(fresh, q) for q in queries}
        assert {q: ranked(store, q) for q in queries} == expected
        assert {q: ranked(LocalStore(path), q) for q in queries} == expected

    store.delete(gone)  # rows removed from a sealed segment keep their postings there
    kept = [d for d in first if d % 3]
    same_everywhere(kept)
    before = sum(len(s.rows) for s in store.bm25.passages.segments)
    store.upsert([f"d{d}" for d in second], [c for d in second for c in chunks_of(d)])
    assert len(store.bm25.passages.segments) == 1  # sealed and merged: the removed dropped
    assert sum(len(s.rows) for s in store.bm25.passages.segments) < before * 2
    same_everywhere(kept + list(second))


def kept_by(path: Path, version: int) -> None:
    """Mark the index kept in ``path`` as made by the tokenizer rules of ``version``, and
    change its terms as other rules would have made them."""
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE bm25_terms SET term = term || 'x'")
        conn.execute("UPDATE bm25_state SET value = ? WHERE name = 'tokenizer'", (version,))
    conn.close()


def test_an_index_kept_by_older_tokenizer_rules_is_built_again_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    fill(LocalStore(path), range(6))
    expected = ranked(fresh_of(range(6)), "volcano tides")
    assert expected
    kept_by(path, TOKENIZER_VERSION - 1)
    reopened = LocalStore(path)
    assert ranked(reopened, "volcano tides") == expected
    reopened.upsert(["d9"], chunks_of(9))  # the change keeps the index built again
    with sqlite3.connect(path) as conn:
        state = dict(conn.execute("SELECT name, value FROM bm25_state").fetchall())
    conn.close()
    assert state["tokenizer"] == TOKENIZER_VERSION and state["built"] == 1
    assert ranked(LocalStore(path), "tag9x") == ranked(reopened, "tag9x") != []


def test_an_index_kept_by_newer_tokenizer_rules_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    fill(LocalStore(path), range(6))
    kept_by(path, TOKENIZER_VERSION + 1)  # a newer program's index: not ours to rebuild
    assert ranked(LocalStore(path), "volcano tides") == []
