"""The embedding cache: only unseen text reaches the model, and what was stored survives."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from citesift.errors import InvalidArgument
from citesift.index.embedders.base import normalise_rows
from citesift.index.embedders.cache import CachedEmbedder
from citesift.index.embedders.minilm import MiniLMEmbedder
from citesift.store.embeddings import count_vectors, forget_vectors
from citesift.store.sqlite import SQLiteStore


class CountingEmbedder:
    """A small deterministic embedder (hash-seeded vectors) that records every call."""

    dim = 8

    def __init__(self, name: str = "counting/8", fail_on_call: int | None = None) -> None:
        self.name = name
        self.calls: list[list[str]] = []
        self.fail_on_call = fail_on_call

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if self.fail_on_call == len(self.calls):
            raise RuntimeError("model crashed")
        rows = [_seeded(t, self.dim) for t in texts]
        return normalise_rows(np.array(rows).reshape(len(texts), self.dim))


def _seeded(text: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=dim)


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    with SQLiteStore(tmp_path / "cache.db") as s:
        yield s


def test_a_second_pass_never_calls_the_model(store: SQLiteStore) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, store)
    texts = ["alpha", "beta", "gamma"]
    first = cached.embed(texts)
    second = cached.embed(texts)
    assert len(inner.calls) == 1
    assert np.array_equal(first, second)
    assert np.allclose(first, inner.embed(texts))


def test_a_reindex_embeds_only_changed_text(store: SQLiteStore) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, store)
    cached.embed(["one", "two", "three"])
    cached.embed(["one", "two (edited)", "three"])
    assert inner.calls == [["one", "two", "three"], ["two (edited)"]]


def test_duplicates_are_embedded_once_and_returned_in_place(store: SQLiteStore) -> None:
    inner = CountingEmbedder()
    out = CachedEmbedder(inner, store).embed(["same", "other", "same"])
    assert inner.calls == [["same", "other"]]
    assert np.array_equal(out[0], out[2]) and not np.array_equal(out[0], out[1])


def test_misses_go_in_batches_with_progress(store: SQLiteStore) -> None:
    inner = CountingEmbedder()
    seen: list[tuple[int, int]] = []
    cached = CachedEmbedder(inner, store, batch_size=4, progress=lambda d, t: seen.append((d, t)))
    cached.embed([f"text {i}" for i in range(10)])
    assert [len(c) for c in inner.calls] == [4, 4, 2]
    assert seen == [(4, 10), (8, 10), (10, 10)]


def test_the_cache_survives_reopening_the_store(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "c.db") as first:
        before = CachedEmbedder(CountingEmbedder(), first).embed(["kept"])
    inner = CountingEmbedder()
    with SQLiteStore(tmp_path / "c.db") as again:
        after = CachedEmbedder(inner, again).embed(["kept"])
    assert inner.calls == [] and np.array_equal(before, after)


def test_embedders_do_not_share_vectors(store: SQLiteStore) -> None:
    CachedEmbedder(CountingEmbedder("model-a/8"), store).embed(["text"])
    other = CountingEmbedder("model-b/8")
    CachedEmbedder(other, store).embed(["text"])
    assert len(other.calls) == 1
    assert count_vectors(store) == 2 and count_vectors(store, "model-a/8") == 1
    assert forget_vectors(store, "model-a/8") == 1 and count_vectors(store) == 1


def test_a_crash_mid_run_keeps_the_batches_already_done(store: SQLiteStore) -> None:
    texts = [f"doc {i}" for i in range(6)]
    with pytest.raises(RuntimeError, match="crashed"):
        CachedEmbedder(CountingEmbedder(fail_on_call=2), store, batch_size=2).embed(texts)
    assert count_vectors(store) == 2
    resumed = CountingEmbedder()
    CachedEmbedder(resumed, store, batch_size=2).embed(texts)
    assert resumed.calls == [texts[2:4], texts[4:6]]


def test_a_wrong_shaped_answer_is_refused_and_not_stored(store: SQLiteStore) -> None:
    class Short(CountingEmbedder):
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            return super().embed(texts)[:, :4]

    with pytest.raises(ValueError, match="shape"):
        CachedEmbedder(Short(), store).embed(["x"])
    assert count_vectors(store) == 0


def test_no_texts_means_no_call(store: SQLiteStore) -> None:
    inner = CountingEmbedder()
    assert CachedEmbedder(inner, store).embed([]).shape == (0, 8)
    assert inner.calls == []


def test_non_text_is_refused(store: SQLiteStore) -> None:
    with pytest.raises(TypeError, match="text"):
        CachedEmbedder(CountingEmbedder(), store).embed([42])  # type: ignore[list-item]


@pytest.mark.parametrize("bad", [0, -5, 2.5, float("nan"), float("inf"), 10**12])
def test_absurd_batch_sizes_are_refused(store: SQLiteStore, bad: float) -> None:
    with pytest.raises(InvalidArgument, match="batch_size must be"):
        CachedEmbedder(CountingEmbedder(), store, batch_size=bad)


def test_cached_minilm_vectors_equal_fresh_ones(store: SQLiteStore) -> None:
    model = MiniLMEmbedder(threads=1)
    texts = ["Statins reduce cardiovascular events.", "The cat sat on the mat."]
    cached = CachedEmbedder(model, store)
    cached.embed(texts)
    assert cached.name == model.name
    assert np.array_equal(cached.embed(texts), model.embed(texts))


def test_lookups_beyond_one_query_chunk_are_all_found(store: SQLiteStore) -> None:
    texts = [f"passage {i}" for i in range(1234)]
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, store, batch_size=500)
    first = cached.embed(texts)
    second = cached.embed(texts)
    assert [len(c) for c in inner.calls] == [500, 500, 234]
    assert np.array_equal(first, second) and count_vectors(store) == 1234


def test_a_damaged_row_is_embedded_again(store: SQLiteStore) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, store)
    cached.embed(["whole"])
    with store.transaction() as conn:
        conn.execute("UPDATE embeddings SET vector = ?", (b"\x00" * 5,))
    again = cached.embed(["whole"])
    assert len(inner.calls) == 2 and np.allclose(np.linalg.norm(again), 1.0)
