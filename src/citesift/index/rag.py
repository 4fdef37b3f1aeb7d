"""The RAG facade: ingest documents as chunks, search them, hand context to an agent."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from citesift.errors import invalid
from citesift.index.arguments import MAX_TOP_K, count, count_or
from citesift.index.documents import (
    IngestDoc,
    as_ingest_doc,
    chunk_context,
    chunk_provenance,
    place_breaks,
)
from citesift.index.embedders.base import Embedder, Progress
from citesift.index.embedders.cache import CachedEmbedder
from citesift.index.filters import check_filter
from citesift.index.fusion import HYBRID_TOP_SCORE, RRF_K
from citesift.index.local import DEFAULT_FUSION, LocalStore
from citesift.index.query import RETRIEVALS, Query, Retrieval, query_text
from citesift.index.rerankers.base import (
    DEFAULT_RERANK_WEIGHT,
    Reranker,
    rerank_fused,
)
from citesift.index.rerankers.base import rerank_weight as checked_weight
from citesift.index.rerankers.by_name import reranker_by_name
from citesift.index.retriever import check_scores, query_of
from citesift.index.texts import whole_text
from citesift.model import Match
from citesift.numbers import number_in
from citesift.store import AnyStore, is_postgres_url
from citesift.store.chunks import IndexedDocument, IndexStats, StoredChunk
from citesift.text.chunking import (
    DEFAULT_CHUNK_SIZE,
    MIN_CHUNK_SIZE,
    Split,
    chunk_sizes,
    chunk_text,
)

DEFAULT_TOP_K = 5
DEFAULT_CANDIDATE_POOL = 20
"""How many first-stage candidates a reranker sees (at least ``top_k``)."""
INGEST_BATCH = 64
"""Documents per ingest transaction: a crash loses at most the batch in flight."""
MAX_DOCUMENT_CHUNKS = 20_000
"""Chunks one document may be cut into; a document past it is refused whole (nothing of it
stored, and an earlier version of its id kept as it was: a refusal loses nothing), so that no
one document can fill the index and its embedding time."""


class ChunkStore(Protocol):
    """Where chunks live and are searched; ``LocalStore`` is the embedded default. A store
    may also answer ``has_documents()`` (and ``has_documents_in(partition)``) by reading one
    row; without them, emptiness is read from ``stats`` (and ``documents``)."""

    def upsert(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None: ...

    def delete(self, document_ids: Sequence[str]) -> int: ...

    def search(self, query: Query) -> list[Match]: ...

    def stats(self) -> IndexStats: ...

    def documents(self) -> list[IndexedDocument]: ...


class Rag:
    """Chunks documents, embeds the chunks, stores them, and searches them by ``retrieval``."""

    def __init__(
        self,
        store: ChunkStore,
        embedder: Callable[[], Embedder] | None,
        *,
        retrieval: Retrieval,
        chunk_size: int | None,
        chunk_overlap: int,
        split: Split | None,
        top_k: int,
        reranker: Reranker | None,
        threshold: float | None = None,
        rerank_weight: float = DEFAULT_RERANK_WEIGHT,
        owns_store: bool = False,
        min_similarity: float | None = None,
    ) -> None:
        self.store, self.retrieval, self.top_k, self.reranker = store, retrieval, top_k, reranker
        self.threshold, self.rerank_weight = threshold, rerank_weight
        self.min_similarity = min_similarity
        self.chunk_size, self.chunk_overlap, self.split = chunk_size, chunk_overlap, split
        self._make_embedder = embedder
        self._embedder: Embedder | None = None
        self.progress: Progress | None = None
        """Hears ``(documents done, total)`` while ``ingest`` runs."""
        self.kept: Callable[[str], object] | None = None
        """Hears the id of each document ``ingest`` stored chunks of (one with no text has
        none, and its earlier version is kept as it was)."""
        self.refused: Callable[[str, str], object] | None = None
        """Hears ``(document id, why)`` for each document ``ingest`` refused (past
        ``MAX_DOCUMENT_CHUNKS``); with no listener, ``ingest`` raises ``InvalidArgument``
        naming them once the other documents are stored."""
        self.backfill: Progress | None = None
        """Hears ``(chunks embedded, total)`` when a search first embeds chunks stored
        without vectors (indexed in BM25 mode); with no listener that is a warning."""
        self._backfilled = False
        self._owns_store = owns_store

    def close(self) -> None:
        """Close the chunk store ``create_rag`` made (a PostgreSQL pool opened from a URL ends
        its threads here, not whenever the collector finds it); stores handed in stay open."""
        close = getattr(self.store, "close", None)
        if self._owns_store and callable(close):
            close()

    def __enter__(self) -> Rag:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def embedder(self) -> Embedder | None:
        """The embedder (made on first use, so BM25-only work never loads a model)."""
        if self._embedder is None and self._make_embedder is not None and self.retrieval != "bm25":
            self._embedder = self._make_embedder()
        return self._embedder

    def ingest(self, docs: Iterable[Any]) -> int:
        """Store the chunks of ``docs``, replacing earlier chunks of the same ids; a document
        with no text is not stored, an earlier version of its id kept as it was (``delete``
        removes one: a version read empty, as of a page left with only scripts, loses
        nothing). Documents stream through in batches, one transaction
        each (a crash keeps every finished batch); how many chunks were stored. A document
        cut into more than ``MAX_DOCUMENT_CHUNKS`` chunks is refused whole (see ``refused``),
        an earlier version of its id left as it was; the others are stored."""
        total = len(docs) if isinstance(docs, Sized) else None
        stored = done = 0
        refused: list[str] = []
        for batch in batched(map(as_ingest_doc, docs), INGEST_BATCH):
            stored += self._ingest_batch(list({d.id: d for d in batch}.values()), refused)
            done += len(batch)
            if self.progress is not None:
                self.progress(done, total if total is not None else done)
        if refused and self.refused is None:
            raise invalid(
                "documents", refused, f"cut into at most {MAX_DOCUMENT_CHUNKS:,} chunks each "
                "(a larger chunk_size makes fewer; the other documents were indexed)"
            )  # fmt: skip
        return stored

    def search(
        self, query: str, top_k: int | None = None, filter: dict[str, Any] | None = None
    ) -> list[Match]:
        """The ``top_k`` best chunks for ``query`` (restricted by a ``filter`` on metadata
        and provenance fields); ``top_k`` None takes the Rag's. A query with nothing to look
        for (see ``query_text``) or a ``top_k`` out of 1 to ``MAX_TOP_K`` is an
        ``InvalidArgument``."""
        k = count_or("top_k", top_k, self.top_k, 1, MAX_TOP_K)
        depth = max(k, DEFAULT_CANDIDATE_POOL) if self.reranker else k
        text = query_text(query)
        return self.finish(text, self.candidates(text, depth, filter), k)

    def candidates(self, query: str, limit: int, filter: dict[str, Any] | None) -> list[Match]:
        """One store search for at most ``limit`` chunks, held to the scoring contract."""
        query = query_text(query)
        hits = check_scores(self.store.search(self._query(query, limit, filter)))[:limit]
        if self.threshold is None:
            return hits
        return [h for h in hits if h.score is None or h.score >= self.threshold]

    def finish(self, query: str, hits: list[Match], top_k: int) -> list[Match]:
        """The final ``top_k``: reranked and fused with ``hits`` when a reranker is set."""
        if self.reranker is None:
            return hits[:top_k]
        return rerank_fused(self.reranker, query, hits, top_k, self.rerank_weight)

    def delete(self, ids: str | Sequence[str]) -> int:
        """Remove these documents (by document id) and all their chunks; how many chunks
        went (0: no such document). An id holding a lone surrogate is an ``InvalidArgument``
        (no document has one)."""
        named = [ids] if isinstance(ids, str) else ids
        return self.store.delete([whole_text("id", str(i)) for i in named])

    def stats(self) -> IndexStats:
        """How many documents and chunks are indexed, and how many chunks each embedder has
        embedded."""
        return self.store.stats()

    def has_documents(self) -> bool:
        """Whether any document is indexed: one row read where the store can say so
        (``has_documents``, which a caller's store may lack), else ``stats``' count."""
        check: Callable[[], bool] | None = getattr(self.store, "has_documents", None)
        return check() if check is not None else self.stats().documents > 0

    def documents(self) -> list[IndexedDocument]:
        """Every indexed document: its id, title and address (when read from a source) and
        how many chunks it has, by id."""
        return self.store.documents()

    def retrieve(
        self, query: str | None = None, messages: Sequence[Any] | None = None
    ) -> list[Match]:
        """The retriever contract of an agent runtime: search the query (or the last message)."""
        return self.search(query_of(query, messages))

    def _ingest_batch(self, docs: list[IngestDoc], refused: list[str]) -> int:
        cut = {d.id: self._chunks(d) for d in docs}
        for document_id in [i for i, pieces in cut.items() if len(pieces) > MAX_DOCUMENT_CHUNKS]:
            why = (
                f"cut into {len(cut.pop(document_id)):,} chunks, over the "
                f"{MAX_DOCUMENT_CHUNKS:,} one document may have (a larger chunk_size makes fewer)"
            )
            refused.append(document_id)
            if self.refused is not None:
                self.refused(document_id, why)
        chunks = [c for pieces in cut.values() for c in pieces]
        embedder = self.embedder
        if embedder is not None and chunks:
            vectors = embedder.embed([c.scored_text for c in chunks])
            chunks = [_vectored(c, embedder.name, v) for c, v in zip(chunks, vectors, strict=True)]
        self.store.upsert([d.id for d in docs if cut.get(d.id)], chunks)
        if self.kept is not None:
            for document_id in dict.fromkeys(c.document_id for c in chunks):
                self.kept(document_id)
        return len(chunks)

    def _chunks(self, doc: IngestDoc) -> list[StoredChunk]:
        pieces = chunk_text(
            doc.content, self.chunk_size, self.chunk_overlap, self.split, breaks=place_breaks(doc)
        )
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
                context=chunk_context(doc, c),
            )
            for i, c in enumerate(pieces)
        ]

    def _query(self, text: str, top_k: int, filter: object) -> Query:
        embedder = self.embedder
        if embedder is None:
            return Query(text, top_k, "bm25", filter=check_filter(filter))
        self._backfill(embedder)
        vector = _uncached(embedder).embed([text])[0]
        return Query(
            text,
            top_k,
            self.retrieval,
            vector,
            embedder.name,
            check_filter(filter),
            self.min_similarity,
        )

    def _backfill(self, embedder: Embedder) -> None:
        """Embed chunks the store holds without a vector of this embedder (a store that
        keeps vectors has ``missing_vectors`` and ``set_vectors``)."""
        store: Any = self.store
        if self._backfilled or not callable(getattr(store, "missing_vectors", None)):
            return
        missing = store.missing_vectors(embedder.name)
        report = self.backfill or _warn_backfill(embedder.name)
        if missing:
            report(0, len(missing))
        for start in range(0, len(missing), INGEST_BATCH * 8):
            part = missing[start : start + INGEST_BATCH * 8]
            store.set_vectors(part, embedder.name, embedder.embed([c.scored_text for c in part]))
            report(start + len(part), len(missing))
        self._backfilled = True


def create_rag(
    embed: Embedder | None = None,
    store: ChunkStore | AnyStore | str | Path | None = None,
    retrieval: str = "hybrid",
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int | None = None,
    split: Split | None = None,
    top_k: int = DEFAULT_TOP_K,
    threshold: float | None = None,
    rerank: Reranker | bool | str | None = None,
    fusion: str = DEFAULT_FUSION,
    rerank_weight: float = DEFAULT_RERANK_WEIGHT,
    min_similarity: float | None = None,
) -> Rag:
    """A RAG over ``store`` (a ``ChunkStore``, or a SQLite store or path for the embedded
    default; none: the default path), searched by ``retrieval``: ``bm25`` (words, no embedding),
    ``dense`` (meaning) or ``hybrid`` (both fused). ``embed`` defaults to the local MiniLM
    model, cached in the store. Chunks are whole sentences packed up to ``chunk_size``
    characters (at least ``MIN_CHUNK_SIZE``; None: whole documents; a longer sentence is cut
    between words; a document of more than ``MAX_DOCUMENT_CHUNKS`` is refused; no chunk of a
    PDF or Office file runs across a page, slide or sheet), repeating the previous chunk's
    last sentences that fit in ``chunk_overlap`` (None: 50, kept below the size); searches
    answer ``top_k`` chunks, each scored with its document's title (a source's, or a
    mapping's ``metadata["title"]``) and section path, and in BM25 with its whole document's
    match (a chunk holding no word of the query is no BM25 hit). ``rerank`` is a
    ``Reranker``, a name for ``reranker_by_name`` (``True``
    means ``"bm25"``); its scores are fused with the first stage's, the reranker weighing
    ``rerank_weight`` (0 to 1, see ``rerank_fused``). ``threshold`` drops hits scoring below it,
    on each retrieval's own scale: in hybrid mode the reciprocal-rank scale, above 0 and at most
    ``HYBRID_TOP_SCORE`` (2/61, a hit both sides rank first), or with ``fusion="weighted"`` the
    weighted sum of min-max scores (0 to 1); a higher one is refused. Hybrid search fuses the
    two sides' standard scores (z-scores) with equal weights (``fusion="zscore"``: ordered by
    them, scored on the reciprocal-rank scale), their min-max normalised scores
    (``fusion="weighted"``) or their reciprocal ranks (``fusion="rrf"``); ``min_similarity`` (-1
    to 1; None: keep all) leaves out chunks that share no word with the query and whose dense
    similarity is below it (what parts related from unrelated depends on the embedder). A value
    that makes no sense is an ``InvalidArgument`` naming it."""
    if retrieval not in RETRIEVALS:
        raise invalid("retrieval", retrieval, f"one of {', '.join(RETRIEVALS)}")
    size, overlap = chunk_sizes(chunk_size, chunk_overlap, MIN_CHUNK_SIZE)
    limit = checked_threshold(threshold, retrieval, fusion)
    similar = None if min_similarity is None else number_in("min_similarity", min_similarity, -1, 1)
    weight, k = checked_weight(rerank_weight), count("top_k", top_k, 1, MAX_TOP_K)
    chunks = chunk_store(store, fusion)
    return Rag(
        chunks,
        _embedder_factory(embed, chunks),
        retrieval=retrieval,  # checked against RETRIEVALS above
        chunk_size=size,
        chunk_overlap=overlap,
        split=split,
        top_k=k,
        reranker=_reranker(rerank),
        threshold=limit,
        rerank_weight=weight,
        owns_store=chunks is not store,
        min_similarity=similar,
    )


def checked_threshold(
    threshold: float | None, retrieval: str, fusion: str = DEFAULT_FUSION
) -> float | None:
    """``threshold`` as a float, refused (``InvalidArgument`` naming the range) when it is
    not a number, or in hybrid mode when it is above every score ``fusion`` gives: 1 for
    min-max weighted sums, ``HYBRID_TOP_SCORE`` for the fusions on the reciprocal-rank
    scale."""
    if threshold is None:
        return None
    limit = number_in("threshold", threshold, -math.inf, math.inf)
    if retrieval != "hybrid":
        return limit
    if fusion == "weighted":
        if limit > 1:
            raise invalid("threshold", threshold, "at most 1 in hybrid mode with weighted fusion")
    elif limit > HYBRID_TOP_SCORE:
        scale = f"at most 2/{RRF_K + 1} ({HYBRID_TOP_SCORE:.4f})"
        raise invalid("threshold", threshold, f"{scale} in hybrid mode (reciprocal-rank scale)")
    return limit


def _reranker(rerank: Reranker | bool | str | None) -> Reranker | None:
    """The reranker ``rerank`` names (``True``: the default), or None for no reranking."""
    if rerank is True:
        return reranker_by_name()
    if isinstance(rerank, str):
        return reranker_by_name(rerank)
    return rerank or None


def chunk_store(store: object, fusion: str = DEFAULT_FUSION) -> ChunkStore:
    """``store`` itself when it is a chunk store; the PostgreSQL index when it is a
    PostgreSQL store or URL; else the embedded default over it."""
    if all(callable(getattr(store, m, None)) for m in ("upsert", "delete", "search")):
        return store  # type: ignore[return-value]
    if is_postgres_url(store) or is_postgres_url(getattr(store, "url", None)):
        from citesift.index.postgres import PostgresIndex  # needs the postgres extra

        return PostgresIndex(store, fusion=fusion)  # type: ignore[arg-type]
    return LocalStore(store, fusion=fusion)  # type: ignore[arg-type]


def _embedder_factory(embed: Embedder | None, store: ChunkStore) -> Callable[[], Embedder]:
    """Makes the embedder on first use: ``embed`` or the local default, cached in the SQLite
    store when there is one (so unchanged text is never embedded twice)."""

    def make() -> Embedder:
        from citesift.index.embedders.minilm import default_embedder

        inner = embed if embed is not None else default_embedder()
        if isinstance(store, LocalStore):
            return CachedEmbedder(inner, store.sqlite)
        cache = getattr(store, "postgres", None)  # a PostgresIndex's store
        if cache is not None:
            return CachedEmbedder(inner, cache)
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


def _warn_backfill(embedder: str) -> Progress:
    """The default backfill report: one warning before the embedding starts."""

    def warn(done: int, total: int) -> None:
        if done == 0:
            warnings.warn(
                f"embedding {total} chunk(s) indexed without {embedder} vectors before this"
                " search (once; index with an embedder to avoid the wait)",
                stacklevel=4,
            )

    return warn


def _vectored(chunk: StoredChunk, embedder: str, vector: np.ndarray) -> StoredChunk:
    return replace(chunk, embedder=embedder, vector=vector)
