"""Exact vector search: right order, finite scores, filters, removal and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from citesift.errors import InvalidArgument
from citesift.index.vectors import INITIAL_CAPACITY, VectorIndex, top_k_indices


def _index(vectors: dict[str, list[float]]) -> VectorIndex:
    index = VectorIndex(len(next(iter(vectors.values()))))
    index.add(list(vectors), np.array(list(vectors.values())))
    return index


def test_search_ranks_by_cosine_similarity() -> None:
    index = _index({"x": [1, 0, 0], "y": [0, 1, 0], "xy": [1, 1, 0]})
    hits = index.search(np.array([2.0, 1.0, 0.0]), 3)
    assert [h[0] for h in hits] == ["xy", "x", "y"]
    assert hits[0][1] == pytest.approx(3 / np.sqrt(10))
    assert hits[-1][1] == pytest.approx(1 / np.sqrt(5))


def test_search_agrees_with_a_brute_force_ranking() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(3000, 16)).astype(np.float32)
    index = VectorIndex(16)
    index.add([f"c{i}" for i in range(3000)], vectors)
    query = rng.normal(size=16)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    expected = np.argsort(-(unit @ (query / np.linalg.norm(query))))[:25]
    assert [h[0] for h in index.search(query, 25)] == [f"c{i}" for i in expected]
    assert len(index) == 3000 > INITIAL_CAPACITY


def test_allowed_restricts_the_candidates() -> None:
    index = _index({"a": [1, 0], "b": [0.9, 0.1], "c": [0, 1]})
    hits = index.search(np.array([1.0, 0.0]), 5, allowed={"c", "b", "unknown"})
    assert [h[0] for h in hits] == ["b", "c"]
    assert index.search(np.array([1.0, 0.0]), 5, allowed=set()) == []


def test_remove_forgets_ids_and_keeps_the_rest_searchable() -> None:
    index = _index({"a": [1, 0], "b": [0, 1], "c": [1, 1]})
    index.remove(["a", "never-added"])
    assert "a" not in index and len(index) == 2
    assert [h[0] for h in index.search(np.array([1.0, 0.0]), 5)] == ["c", "b"]
    index.add(["a"], np.array([[1.0, 0.0]]))
    assert index.search(np.array([1.0, 0.0]), 1)[0][0] == "a"


def test_adding_an_existing_id_replaces_its_vector() -> None:
    index = _index({"a": [1, 0], "b": [0, 1]})
    index.add(["a"], np.array([[0.0, -1.0]]))
    assert len(index) == 2
    assert index.search(np.array([0.0, -1.0]), 1) == [("a", pytest.approx(1.0))]


def test_scores_stay_finite_for_zero_nan_and_huge_vectors() -> None:
    index = _index({"zero": [0, 0], "nan": [np.nan, 1], "huge": [3e38, 3e38]})
    hits = index.search(np.array([1e30, np.inf]), 3)
    assert len(hits) == 3 and all(np.isfinite(score) for _, score in hits)
    assert hits[0] == ("huge", pytest.approx(np.sqrt(0.5)))  # inf is zeroed, not kept
    assert index.search(np.array([np.nan, np.nan]), 3)[0][1] == 0.0


def test_k_zero_returns_nothing_and_k_beyond_the_index_everything() -> None:
    index = _index({"a": [1, 0], "b": [0, 1]})
    assert index.search(np.array([1.0, 0.0]), 0) == []
    assert len(index.search(np.array([1.0, 0.0]), 1000)) == 2


@pytest.mark.parametrize("k", [-1, 1.5, float("nan"), float("inf"), float("-inf"), 10**12])
def test_an_absurd_k_is_refused(k: float) -> None:
    with pytest.raises(InvalidArgument, match="k must be"):
        _index({"a": [1, 0]}).search(np.array([1.0, 0.0]), k)


def test_an_empty_index_answers_empty() -> None:
    assert VectorIndex(4).search(np.ones(4), 10) == []


def test_wrong_shapes_and_ids_are_refused_before_any_change() -> None:
    index = _index({"a": [1, 0]})
    with pytest.raises(ValueError, match="shape"):
        index.add(["b", "c"], np.ones((1, 2)))
    with pytest.raises(ValueError, match="shape"):
        index.search(np.ones(3), 1)
    with pytest.raises(TypeError, match="one string"):
        index.add("bc", np.ones((2, 2)))
    with pytest.raises(TypeError, match="strings"):
        index.add(["ok", 7], np.ones((2, 2)))  # type: ignore[list-item]
    assert len(index) == 1
    with pytest.raises(ValueError, match="dim"):
        VectorIndex(0)


def test_top_k_indices_breaks_ties_by_position() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.9, 0.1])
    assert top_k_indices(scores, 4).tolist() == [1, 3, 0, 2]
    assert top_k_indices(scores, 99).tolist() == [1, 3, 0, 2, 4]
