"""An approximate nearest-neighbour index (HNSW, by usearch) over unit vectors keyed by
integer labels, for the dense search of a store past the size where the exact product is
too slow. Vectors are held as float16: half the memory of the float32 ones in the store,
at a cosine error far below the gaps between neighbours (recall as bench/scale.py prints).
usearch ships wheels for every common platform, so installing needs no compiler."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import numpy as np

from citesift.index.embedders.base import check_vectors, normalise_rows

M = 16
"""Links per node: recall against memory and build time."""
EF_CONSTRUCTION = 100
EF_SEARCH = 512
"""Candidates a query explores (at least ``k``): recall against latency. Sentence embeddings
with many near neighbours (bench/scale.py's, 300,000 of them) gave recall@10 0.84 at 128,
0.93 at 256, 0.96 at 512 and 0.98 at 1,024, for 0.4, 0.7, 1.2 and 2.5 ms of CPU."""
DTYPE = "f16"
THREADS = 2


class HnswIndex:
    """Unit vectors by label, searched approximately by inner product (cosine)."""

    def __init__(self, dim: int) -> None:
        from usearch.index import Index

        self.dim = dim
        self._index = Index(
            ndim=dim,
            metric="ip",
            dtype=DTYPE,
            connectivity=M,
            expansion_add=EF_CONSTRUCTION,
            expansion_search=EF_SEARCH,
        )

    @classmethod
    def load(cls, path: Path, dim: int) -> HnswIndex:
        """The index saved at ``path`` (OSError when missing, RuntimeError when damaged or
        of other dimensions)."""
        index = cls(dim)
        index._index.load(str(path))
        if index._index.ndim != dim:
            raise RuntimeError(f"{path} holds vectors of {index._index.ndim} dimensions")
        return index

    def save(self, path: Path) -> None:
        self._index.save(str(path))

    def __len__(self) -> int:
        return len(self._index)

    def labels(self) -> np.ndarray:
        """Every label it holds."""
        return np.asarray(self._index.keys, dtype=np.int64)

    def add(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        """Add the vectors of ``labels`` it does not hold (rows normalised). usearch has no
        upsert: to replace a vector, ``remove`` its label first (once for a whole batch of
        changes; a build adds new labels only and never pays for a removal)."""
        if len(labels) == 0:
            return
        rows = normalise_rows(check_vectors(vectors, len(labels), self.dim, "HnswIndex.add"))
        self._index.add(np.asarray(labels, dtype=np.uint64), rows, threads=THREADS)

    def remove(self, labels: Collection[int]) -> None:
        """Drop ``labels`` (unknown ones are ignored)."""
        if len(labels):
            self._index.remove(np.fromiter(labels, dtype=np.uint64, count=len(labels)))

    def keep_only(self, live: np.ndarray) -> np.ndarray:
        """Drop every label not in ``live``; the labels of ``live`` it lacks."""
        held = self.labels()
        self.remove(held[~np.isin(held, live)].tolist())
        return live[~np.isin(live, held)]

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The labels of about the ``k`` nearest vectors to ``query`` and their cosines."""
        k = min(k, len(self))
        if k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        self._index.expansion_search = max(EF_SEARCH, k)  # type: ignore[misc]  # has a setter
        found = self._index.search(query, k, threads=1)
        labels = np.asarray(found.keys, dtype=np.int64)
        return labels, (1.0 - np.asarray(found.distances, dtype=np.float32))
