"""Exact cosine search over an in-memory matrix of unit vectors, keyed by chunk id.

Search is one matrix product and an ``argpartition`` for the top k: no Python loop over
vectors. It costs about 0.11 µs of CPU per vector a query (384 dims, top 10), so it stays
under 50 ms up to a few hundred thousand vectors: the embedded store uses it below
``citesift.index.dense.ANN_THRESHOLD`` vectors of one embedder, and an HNSW index saved
beside the store past it (``citesift.index.dense``), whose recall bench/scale.py prints.
It also serves the exact search of a small filtered set.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import numpy as np

from citesift.errors import invalid
from citesift.index.arguments import count
from citesift.index.embedders.base import check_vectors, normalise_rows

INITIAL_CAPACITY = 1024


class VectorIndex:
    """Chunk ids and their vectors; ``search`` ranks them by cosine similarity to a query."""

    def __init__(self, dim: int) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise invalid("dim", dim, "a positive integer")
        self.dim = dim
        self._matrix = np.zeros((INITIAL_CAPACITY, dim), dtype=np.float32)
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._rows

    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Add (or replace) one vector per id; rows are normalised, non-finite values zeroed."""
        ids = _id_list(ids)
        rows = normalise_rows(check_vectors(vectors, len(ids), self.dim, "VectorIndex.add"))
        self._reserve(len(self._ids) + len(ids))
        for chunk_id, row in zip(ids, rows, strict=True):
            self._matrix[self._row_for(chunk_id)] = row

    def remove(self, ids: Collection[str]) -> None:
        """Forget ``ids`` (unknown ids are ignored); the last row fills each hole."""
        for chunk_id in _id_list(ids):
            row = self._rows.pop(chunk_id, None)
            if row is not None:
                self._fill_hole(row)

    def search(
        self, query_vec: np.ndarray, k: int, allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` ids most similar to ``query_vec`` (only ``allowed`` ones, if given)."""
        flat = np.asarray(query_vec, dtype=np.float32).reshape(1, -1)
        query = normalise_rows(check_vectors(flat, 1, self.dim, "VectorIndex.search"))[0]
        rows = self._candidate_rows(allowed)
        scores = self._live(rows) @ query
        top = top_k_indices(scores, count("k", k, 0))
        picked = top if rows is None else rows[top]
        return [(self._ids[r], float(scores[i])) for r, i in zip(picked, top, strict=True)]

    def _reserve(self, rows: int) -> None:
        """Grow the matrix (doubling) until it has room for ``rows`` rows."""
        capacity = len(self._matrix)
        while capacity < rows:
            capacity *= 2
        if capacity > len(self._matrix):
            grown = np.zeros((capacity, self.dim), dtype=np.float32)
            grown[: len(self._ids)] = self._matrix[: len(self._ids)]
            self._matrix = grown

    def _row_for(self, chunk_id: str) -> int:
        """The row of ``chunk_id``, appending a new one if it has none (room is reserved)."""
        if chunk_id not in self._rows:
            self._rows[chunk_id] = len(self._ids)
            self._ids.append(chunk_id)
        return self._rows[chunk_id]

    def _fill_hole(self, row: int) -> None:
        """Move the last row into ``row`` so the live rows stay contiguous."""
        last = len(self._ids) - 1
        moved = self._ids.pop()
        if row != last:
            self._matrix[row] = self._matrix[last]
            self._ids[row] = moved
            self._rows[moved] = row

    def _live(self, rows: np.ndarray | None) -> np.ndarray:
        """The matrix of the given rows (a view of every live row when ``rows`` is None)."""
        return self._matrix[: len(self._ids)] if rows is None else self._matrix[rows]

    def _candidate_rows(self, allowed: Collection[str] | None) -> np.ndarray | None:
        """Row numbers to score: None for every live row, else those of the allowed ids."""
        if allowed is None:
            return None
        rows = self._rows
        return np.unique(np.fromiter((rows[i] for i in allowed if i in rows), dtype=np.int64))


def _id_list(ids: Collection[str]) -> list[str]:
    """``ids`` as a list of strings; a bare string is refused, not split into characters."""
    if isinstance(ids, str):
        raise TypeError("pass a sequence of chunk ids, not one string")
    out = list(ids)
    for chunk_id in out:
        if not isinstance(chunk_id, str):
            raise TypeError(f"chunk ids are strings, got {type(chunk_id).__name__}")
    return out


def top_k_of_batches(
    batches: Iterable[tuple[Sequence[str], np.ndarray]], query: np.ndarray, k: int
) -> list[tuple[str, float]]:
    """The ``k`` ids whose vectors (rows normalised) are most similar to the unit ``query``,
    over ``(ids, vectors)`` batches read one at a time: memory holds one batch and the best
    ``k`` so far, never every vector (the exact search of a store whose index is not built)."""
    best: list[str] = []
    scores = np.zeros(0, dtype=np.float32)
    for ids, vectors in batches:
        if len(ids):
            best = [*best, *ids]
            scores = np.concatenate([scores, normalise_rows(vectors) @ query])
            top = top_k_indices(scores, k)
            best, scores = [best[i] for i in top], scores[top]
    return list(zip(best, scores.tolist(), strict=True))


def top_k_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first (ties keep their original order)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    return part[np.lexsort((part, -scores[part]))]
