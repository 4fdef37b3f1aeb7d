"""The embedded default chunk store: chunks in SQLite, BM25 and vectors in memory, fused."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from citesift.errors import invalid
from citesift.index.filters import matches
from citesift.index.fusion import reciprocal_rank_fusion, weighted_fusion, zscore_fusion
from citesift.index.lexical.passages import PassageIndex, document_text
from citesift.index.query import Query
from citesift.index.vectors import VectorIndex
from citesift.model import Match
from citesift.store.chunks import ChunkTable, IndexedDocument, IndexStats, StoredChunk
from citesift.store.sqlite import SQLiteStore

HYBRID_DEPTH = 300
"""How many candidates each side of a hybrid search brings to the fusion (at least): deep
enough that the documents behind them, cut into several passages each, are many."""
FUSIONS = ("zscore", "weighted", "rrf")
DEFAULT_FUSION = "zscore"
Ranker = Callable[[Query, int], list[Match]]
"""One side of a search: the best ``k`` hits of a query."""


class LocalStore:
    """Chunks of record in a ``SQLiteStore``; a BM25 index and one vector index per embedder
    rebuilt from them when first needed (counting and listing never need them) and kept in
    step with every change."""

    def __init__(
        self, store: SQLiteStore | str | Path | None = None, *, fusion: str = DEFAULT_FUSION
    ) -> None:
        if fusion not in FUSIONS:
            raise invalid("fusion", fusion, f"one of {', '.join(FUSIONS)}")
        self._owned = not isinstance(store, SQLiteStore)
        self.sqlite = store if isinstance(store, SQLiteStore) else SQLiteStore(store)
        self.table = ChunkTable(self.sqlite)
        self.fusion = fusion
        self.bm25 = PassageIndex()
        self.chunks: dict[str, StoredChunk] = {}
        self._by_document: dict[str, list[str]] = {}
        self._vectors: dict[str, VectorIndex] = {}
        self._allowed_ids: dict[str, frozenset[str]] = {}
        self._masks: dict[str, np.ndarray] = {}
        self._lock = threading.RLock()
        self._loaded = False

    def close(self) -> None:
        """Close the store opened here from a path; a store handed in stays open."""
        if self._owned:
            self.sqlite.close()

    def upsert(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None:
        """Replace the chunks of ``document_ids`` with ``chunks`` (one transaction)."""
        with self._lock:
            self._load()
            self.table.replace(document_ids, chunks)
            self._forget(document_ids)
            self._remember(chunks)

    def delete(self, document_ids: Sequence[str]) -> int:
        """Drop every chunk of these documents; how many went."""
        with self._lock:
            self._load()
            gone = self.table.delete(document_ids)
            self._forget(document_ids)
            return gone

    def missing_vectors(self, embedder: str) -> list[StoredChunk]:
        """Chunks with no vector from ``embedder`` (to embed before a dense search)."""
        with self._lock:
            self._load()
            return [c for c in self.chunks.values() if c.embedder != embedder]

    def set_vectors(
        self, chunks: Sequence[StoredChunk], embedder: str, vectors: np.ndarray
    ) -> None:
        """Store and index vectors of ``embedder`` for these chunks."""
        with self._lock:
            self._load()
            self.table.set_vectors([c.id for c in chunks], embedder, vectors)
            for chunk, vector in zip(chunks, vectors, strict=True):
                self.chunks[chunk.id] = _with_vector(chunk, embedder, vector)
            self._index_vectors(embedder, [c.id for c in chunks], vectors)

    def search(self, query: Query) -> list[Match]:
        """The best chunks for ``query`` by its mode, restricted by its filter (one search at
        a time: the indexes and the stemmer are not safe to share between threads)."""
        with self._lock:
            self._load()
            return self._search(query)

    def _load(self) -> None:
        """Build the in-memory indexes from the table, once (the lock is held)."""
        if not self._loaded:
            self._remember(list(self.table.all()))
            self._loaded = True

    def _search(self, query: Query) -> list[Match]:
        return search_by_mode(query, self._lexical, self._dense, self.fusion)

    def stats(self) -> IndexStats:
        """What the store holds (documents, chunks, embedded chunks by embedder)."""
        return self.table.stats()

    def documents(self) -> list[IndexedDocument]:
        """Every document with its title, address and number of chunks, by id."""
        return self.table.documents()

    def _lexical(self, query: Query, k: int) -> list[Match]:
        allowed = self._allowed(query.filter)
        mask = None if allowed is None else self._bm25_mask(query.filter, allowed)
        ids, scores = self.bm25.search(query.text, k, mask)
        return self._hits(zip(ids, scores.tolist(), strict=True))

    def _dense(self, query: Query, k: int) -> list[Match]:
        index = self._vectors.get(query.embedder or "")
        if index is None or len(index) == 0 or query.vector is None:
            return []
        return self._hits(index.search(query.vector, k, self._allowed(query.filter)))

    def _hits(self, ranked: Iterable[tuple[str, float]]) -> list[Match]:
        return [self.chunks[i].match(float(s)) for i, s in ranked]

    def _allowed(self, filter: dict[str, Any] | None) -> frozenset[str] | None:
        """The ids of chunks whose metadata pass ``filter``; cached until the chunks change,
        so a repeated filter (a partition's) costs one dictionary look-up."""
        if not filter:
            return None
        key = json.dumps(filter, sort_keys=True, default=str)
        if key not in self._allowed_ids:
            passing = (c.id for c in self.chunks.values() if matches(c.fields(), filter))
            self._allowed_ids[key] = frozenset(passing)
        return self._allowed_ids[key]

    def _bm25_mask(self, filter: dict[str, Any] | None, allowed: frozenset[str]) -> np.ndarray:
        """``allowed`` as a boolean mask over the BM25 rows (cached with it)."""
        key = json.dumps(filter, sort_keys=True, default=str)
        if key not in self._masks:
            self._masks[key] = np.fromiter((i in allowed for i in self.bm25.ids), dtype=bool)
        return self._masks[key]

    def _remember(self, chunks: Sequence[StoredChunk]) -> None:
        self._allowed_ids.clear()
        self._masks.clear()
        for chunk in chunks:
            self.chunks[chunk.id] = chunk
            self._by_document.setdefault(chunk.document_id, []).append(chunk.id)
        self.bm25.add(
            [c.id for c in chunks], [c.scored_text for c in chunks], [c.document_id for c in chunks]
        )
        documents = list(dict.fromkeys(c.document_id for c in chunks))
        self.bm25.set_documents(documents, [self._document_text(d) for d in documents])
        embedded: dict[str, list[tuple[str, np.ndarray]]] = {}
        for c in chunks:
            if c.embedder is not None and c.vector is not None:
                embedded.setdefault(c.embedder, []).append((c.id, c.vector))
        for embedder, pairs in embedded.items():
            self._index_vectors(embedder, [i for i, _ in pairs], np.stack([v for _, v in pairs]))

    def _forget(self, document_ids: Sequence[str]) -> None:
        self._allowed_ids.clear()
        self._masks.clear()
        gone = [i for d in document_ids for i in self._by_document.pop(d, [])]
        for chunk_id in gone:
            self.chunks.pop(chunk_id, None)
        self.bm25.remove(gone)
        self.bm25.remove_documents(document_ids)
        for index in self._vectors.values():
            index.remove(gone)

    def _document_text(self, document_id: str) -> str:
        """The whole text of a document, put back together from its chunks."""
        parts = sorted((self.chunks[i] for i in self._by_document[document_id]), key=_place)
        return document_text(
            [c.context for c in parts], [(c.start, c.end, c.content) for c in parts]
        )

    def _index_vectors(self, embedder: str, ids: list[str], vectors: np.ndarray) -> None:
        if embedder not in self._vectors:
            self._vectors[embedder] = VectorIndex(int(vectors.shape[1]))
        self._vectors[embedder].add(ids, vectors)


def search_by_mode(
    query: Query, lexical: Ranker, dense: Ranker, fusion: str = DEFAULT_FUSION
) -> list[Match]:
    """The hits of ``query`` by its mode: BM25 alone (always when it has no vector), dense
    alone, or both ``HYBRID_DEPTH`` deep, fused by ``fusion`` (``zscore``, ``weighted``
    or ``rrf``)."""
    if query.mode == "bm25" or query.vector is None:
        return lexical(query, query.top_k)
    if query.mode == "dense":
        return dense(query, query.top_k)
    depth = max(query.top_k, HYBRID_DEPTH)
    lexical_hits, dense_hits = lexical(query, depth), dense(query, depth)
    if fusion == "rrf":
        return reciprocal_rank_fusion([lexical_hits, dense_hits], top_k=query.top_k)
    if fusion == "weighted":
        return weighted_fusion(dense_hits, lexical_hits, top_k=query.top_k)
    return zscore_fusion(dense_hits, lexical_hits, top_k=query.top_k)


def _place(chunk: StoredChunk) -> tuple[int, int]:
    return chunk.start, chunk.seq


def _with_vector(chunk: StoredChunk, embedder: str, vector: np.ndarray) -> StoredChunk:
    return replace(chunk, embedder=embedder, vector=vector)
