"""The RAG facade: ingest documents as chunks, search them, hand context to an agent."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from citesift.index.arguments import finite_or_none, positive_int, sane_size
from citesift.index.documents import IngestDoc, as_ingest_doc, chunk_provenance
from citesift.index.embedders.base import Embedder, Progress
from citesift.index.embedders.cache import CachedEmbedder
from citesift.index.filters import check_filter
from citesift.index.local import IndexedDocument, LocalStore
from citesift.index.query import MODES, Mode, Query
from citesift.index.rerankers.base import DEFAULT_RERANK_WEIGHT, Reranker, rerank_fused
from citesift.index.rerankers.by_name import reranker_by_name
from citesift.index.retriever import check_scores, query_of
from citesift.model import Match
from citesift.store.chunks import StoredChunk
from citesift.store.sqlite import SQLiteStore
from citesift.text.chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, Split, chunk_text

MAX_CHUNK_SIZE = 10_000_000
DEFAULT_TOP_K = 5
DEFAULT_CANDIDATE_POOL = 20
"""How many first-stage candidates a reranker sees (at least ``top_k``)."""
INGEST_BATCH = 64
"""Documents per ingest transaction: a crash loses at most the batch in flight."""


class ChunkStore(Protocol):
    """Where chunks live and are searched; ``LocalStore`` is the embedded default."""

    def upsert(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None: ...

    def delete(self, document_ids: Sequence[str]) -> None: ...

    def search(self, query: Query) -> list[Match]: ...


class Rag:
    """Chunks documents, embeds the chunks, stores them, and searches them by ``mode``."""

    def __init__(
        self,
        store: ChunkStore,
        embedder: Callable[[], Embedder] | None,
        *,
        mode: Mode,
        chunk_size: int,
        chunk_overlap: int,
        split: Split | None,
        top_k: int,
        reranker: Reranker | None,
        threshold: float | None = None,
        rerank_weight: float = DEFAULT_RERANK_WEIGHT,
    ) -> None:
        self.store, self.mode, self.top_k, self.reranker = store, mode, top_k, reranker
        self.threshold, self.rerank_weight = threshold, rerank_weight
        self.chunk_size, self.chunk_overlap, self.split = chunk_size, chunk_overlap, split
        self._make_embedder = embedder
        self._embedder: Embedder | None = None
        self.progress: Progress | None = None
        self._backfilled = False

    @property
    def embedder(self) -> Embedder | None:
        """The embedder (made on first use, so BM25-only work never loads a model)."""
        if self._embedder is None and self._make_embedder is not None and self.mode != "bm25":
            self._embedder = self._make_embedder()
        return self._embedder

    def ingest(self, docs: Iterable[Any]) -> int:
        """Store the chunks of ``docs``, replacing earlier chunks of the same ids; a document
        with empty content removes them. Documents stream through in batches, one transaction
        each (a crash keeps every finished batch); how many chunks were stored."""
        total = len(docs) if isinstance(docs, Sized) else None
        stored = done = 0
        for batch in batched(map(as_ingest_doc, docs), INGEST_BATCH):
            stored += self._ingest_batch(list({d.id: d for d in batch}.values()))
            done += len(batch)
            if self.progress is not None:
                self.progress(done, total if total is not None else done)
        return stored

    def search(
        self, query: str, top_k: int | None = None, filter: dict[str, Any] | None = None
    ) -> list[Match]:
        """The ``top_k`` best chunks for ``query`` (restricted by a metadata ``filter``)."""
        k = positive_int(top_k, self.top_k)
        depth = max(k, DEFAULT_CANDIDATE_POOL) if self.reranker else k
        return self.finish(str(query), self.candidates(str(query), depth, filter), k)

    def candidates(self, query: str, limit: int, filter: dict[str, Any] | None) -> list[Match]:
        """One store search for at most ``limit`` chunks, held to the scoring contract."""
        hits = check_scores(self.store.search(self._query(query, limit, filter)))[:limit]
        if self.threshold is None:
            return hits
        return [h for h in hits if h.score is None or h.score >= self.threshold]

    def finish(self, query: str, hits: list[Match], top_k: int) -> list[Match]:
        """The final ``top_k``: reranked and fused with ``hits`` when a reranker is set."""
        if self.reranker is None:
            return hits[:top_k]
        return rerank_fused(self.reranker, query, hits, top_k, self.rerank_weight)

    def documents(self) -> list[IndexedDocument]:
        """Each document the local store holds: id, title and number of chunks, by id."""
        if not isinstance(self.store, LocalStore):
            raise TypeError("only a local store lists its documents")
        return self.store.documents()

    def delete(self, ids: Sequence[str]) -> None:
        """Remove these documents (by document id) and all their chunks."""
        self.store.delete([str(i) for i in ([ids] if isinstance(ids, str) else ids)])

    def retrieve(
        self, query: str | None = None, messages: Sequence[Any] | None = None
    ) -> list[Match]:
        """The retriever contract of an agent runtime: search the query (or the last message)."""
        return self.search(query_of(query, messages))

    def _ingest_batch(self, docs: list[IngestDoc]) -> int:
        chunks = [c for d in docs for c in self._chunks(d)]
        embedder = self.embedder
        if embedder is not None and chunks:
            vectors = embedder.embed([c.content for c in chunks])
            chunks = [_vectored(c, embedder.name, v) for c, v in zip(chunks, vectors, strict=True)]
        self.store.upsert([d.id for d in docs], chunks)
        return len(chunks)

    def _chunks(self, doc: IngestDoc) -> list[StoredChunk]:
        pieces = chunk_text(doc.content, self.chunk_size, self.chunk_overlap, self.split)
        return [
            StoredChunk(
                f"{doc.id}_chunk_{i}",
                doc.id,
                i,
                c.start,
                c.end,
                c.text,
                dict(doc.metadata),
                provenance=chunk_provenance(doc, c, i),
            )
            for i, c in enumerate(pieces)
        ]

    def _query(self, text: str, top_k: int, filter: object) -> Query:
        embedder = self.embedder
        if embedder is None:
            return Query(text, top_k, "bm25", filter=check_filter(filter))
        self._backfill(embedder)
        vector = _uncached(embedder).embed([text])[0]
        return Query(text, top_k, self.mode, vector, embedder.name, check_filter(filter))

    def _backfill(self, embedder: Embedder) -> None:
        """Embed chunks the local store holds without a vector of this embedder."""
        if self._backfilled or not isinstance(self.store, LocalStore):
            return
        missing = self.store.missing_vectors(embedder.name)
        for start in range(0, len(missing), INGEST_BATCH * 8):
            part = missing[start : start + INGEST_BATCH * 8]
            self.store.set_vectors(part, embedder.name, embedder.embed([c.content for c in part]))
        self._backfilled = True


def create_rag(
    embed: Embedder | None = None,
    store: ChunkStore | SQLiteStore | str | Path | None = None,
    mode: str = "hybrid",
    chunk_size: float = DEFAULT_CHUNK_SIZE,
    chunk_overlap: float = DEFAULT_CHUNK_OVERLAP,
    split: Split | None = None,
    top_k: float = DEFAULT_TOP_K,
    threshold: float | None = None,
    rerank: Reranker | bool | str | None = None,
    fusion: str = "weighted",
    rerank_weight: float = DEFAULT_RERANK_WEIGHT,
) -> Rag:
    """A RAG over ``store`` (a ``ChunkStore``, or a SQLite store or path for the embedded
    default; none: the default path). ``embed`` defaults to the local MiniLM model, cached in
    the store. Invalid sizes fall back: size to 512, overlap to 50 (kept below the size),
    ``top_k`` to 5 (else floored, at least 1). ``rerank`` is a ``Reranker``, a name for
    ``reranker_by_name`` (``True`` means ``"bm25"``); its scores are fused with the first
    stage's, the reranker weighing ``rerank_weight`` (see ``rerank_fused``).
    ``threshold`` drops hits scoring below it (scores are on each mode's own scale); a
    value that is not a finite number means no threshold.
    Hybrid search fuses min-max normalised scores with equal weights (``fusion="weighted"``)
    or by reciprocal rank (``fusion="rrf"``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    chunks = _chunk_store(store, fusion)
    size = sane_size(chunk_size, 1, DEFAULT_CHUNK_SIZE, MAX_CHUNK_SIZE)
    return Rag(
        chunks,
        _embedder_factory(embed, chunks),
        mode=mode,  # type: ignore[arg-type]
        chunk_size=size,
        chunk_overlap=min(
            sane_size(chunk_overlap, 0, DEFAULT_CHUNK_OVERLAP, MAX_CHUNK_SIZE), size - 1
        ),
        split=split,
        top_k=positive_int(top_k, DEFAULT_TOP_K),
        reranker=_reranker(rerank),
        threshold=finite_or_none(threshold),
        rerank_weight=rerank_weight,
    )


def _reranker(rerank: Reranker | bool | str | None) -> Reranker | None:
    """The reranker ``rerank`` names (``True``: the default), or None for no reranking."""
    if rerank is True:
        return reranker_by_name()
    if isinstance(rerank, str):
        return reranker_by_name(rerank)
    return rerank or None


def _chunk_store(store: object, fusion: str) -> ChunkStore:
    """``store`` itself when it is a chunk store, else the embedded default over it."""
    if all(callable(getattr(store, m, None)) for m in ("upsert", "delete", "search")):
        return store  # type: ignore[return-value]
    return LocalStore(store, fusion=fusion)  # type: ignore[arg-type]


def _embedder_factory(embed: Embedder | None, store: ChunkStore) -> Callable[[], Embedder]:
    """Makes the embedder on first use: ``embed`` or the local default, cached in the SQLite
    store when there is one (so unchanged text is never embedded twice)."""

    def make() -> Embedder:
        from citesift.index.embedders.minilm import default_embedder

        inner = embed if embed is not None else default_embedder()
        if isinstance(store, LocalStore):
            return CachedEmbedder(inner, store.sqlite)
        return inner

    return make


def batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """``items`` in lists of ``size`` (the last may be shorter), read lazily."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


def _uncached(embedder: Embedder) -> Embedder:
    """The model behind a cache: a query is embedded once, not stored."""
    return embedder.inner if isinstance(embedder, CachedEmbedder) else embedder


def _vectored(chunk: StoredChunk, embedder: str, vector: np.ndarray) -> StoredChunk:
    return replace(chunk, embedder=embedder, vector=vector)
