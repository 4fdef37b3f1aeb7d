"""The scale-out chunk store: chunks, their BM25 statistics and their vectors in PostgreSQL,
searched in the server, so many workers on many machines share one index.

Lexical search is the embedded store's BM25 (the same tokenizer, formula and passage plus
document scaling), scored here from the posting lists held in Postgres rather than by
``ts_rank``, so both stores rank alike; dense search is pgvector's HNSW index (cosine). A metadata
filter is applied here to the candidates the server returns.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from citesift.errors import invalid
from citesift.index.filters import matches
from citesift.index.lexical.bm25 import DEFAULT_B, DEFAULT_K1, top_rows
from citesift.index.lexical.passages import by_best, document_text
from citesift.index.lexical.tokens import ASCII_SAME_SINCE, TOKENIZER_VERSION, Tokenizer
from citesift.index.local import DEFAULT_FUSION, FUSIONS, search_by_mode
from citesift.index.postgres_bm25 import lexical_candidates, lexical_top
from citesift.index.query import Query
from citesift.model import Match
from citesift.store.chunks import IndexedDocument, IndexStats, StoredChunk
from citesift.store.postgres import PostgresStore
from citesift.store.postgres.chunks import PostgresChunkTable

FILTER_DEPTH = 8
"""How many times ``top_k`` a filtered dense search asks the server for, before widening."""
LOG = logging.getLogger("citesift.store")


class PostgresIndex:
    """A ``ChunkStore`` in a ``PostgresStore``: nothing is held in memory between calls, so
    every worker sees every other's writes at once."""

    def __init__(self, store: PostgresStore | str, *, fusion: str = DEFAULT_FUSION) -> None:
        if fusion not in FUSIONS:
            raise invalid("fusion", fusion, f"one of {', '.join(FUSIONS)}")
        self._owned = not isinstance(store, PostgresStore)
        self.postgres = PostgresStore(store) if isinstance(store, str) else store
        self.table = PostgresChunkTable(self.postgres)
        self.fusion = fusion
        self.tokenize = Tokenizer()
        try:
            self._retokenize()
        except BaseException:
            self.close()
            raise

    def _retokenize(self) -> None:
        """Make again, by the tokenizer's rules, the postings the store keeps from earlier
        rules, a batch a transaction (a pass stopped is resumed by the next to open it; two
        opening it at once share its batches)."""
        if self.table.tokenized_by() >= TOKENIZER_VERSION:
            return
        said = False
        while (
            taken := self.table.retokenize(
                TOKENIZER_VERSION, ASCII_SAME_SINCE, self._chunk_terms, self._document_terms
            )
        ) is not None:
            if taken and not said:
                LOG.warning(
                    "making the BM25 terms of the store %s again by the tokenizer's current"
                    " rules (once; a pass stopped goes on at the next open)",
                    self.postgres.name,
                )
                said = True

    def upsert(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None:
        """Replace the chunks of ``document_ids`` with ``chunks`` (one transaction)."""
        terms = [self._chunk_terms(c) for c in chunks]
        self.table.replace(document_ids, chunks, terms, self._document_terms)

    def _chunk_terms(self, chunk: StoredChunk) -> Counter[str]:
        """A chunk's terms: those of its context and content."""
        return Counter(self.tokenize(chunk.scored_text))

    def _document_terms(self, chunks: Sequence[StoredChunk]) -> Counter[str]:
        """A document's terms: those of its whole text as its chunks give it."""
        contents = [(c.start, c.end, c.content) for c in chunks]
        return Counter(self.tokenize(document_text([c.context for c in chunks], contents)))

    def delete(self, document_ids: Sequence[str]) -> int:
        """Drop every chunk of these documents; how many went."""
        return self.table.delete(document_ids)

    def missing_vectors(self, embedder: str) -> list[StoredChunk]:
        """Chunks with no vector from ``embedder`` (to embed before a dense search)."""
        return self.table.missing(embedder)

    def set_vectors(
        self, chunks: Sequence[StoredChunk], embedder: str, vectors: np.ndarray
    ) -> None:
        """Store and index vectors of ``embedder`` for these chunks."""
        self.table.set_vectors([c.id for c in chunks], embedder, vectors)

    def search(self, query: Query) -> list[Match]:
        """The best chunks for ``query`` by its mode, restricted by its filter."""
        return search_by_mode(query, self._lexical, self._dense, self.fusion)

    def stats(self) -> IndexStats:
        """What the store holds (documents, chunks, embedded chunks by embedder)."""
        return self.table.stats()

    def has_documents(self) -> bool:
        """Whether any chunk is stored (one row read)."""
        return self.table.has_documents()

    def has_documents_in(self, partition: str) -> bool:
        """Whether any chunk of ``partition`` is stored (one row read)."""
        return self.table.has_documents(partition)

    def documents(self) -> list[IndexedDocument]:
        """Every document with its title, address and number of chunks, by id."""
        return self.table.documents()

    def close(self) -> None:
        """Close the store opened here from a URL (its pool's threads end); a store handed
        in stays open for its owner."""
        if self._owned:
            self.postgres.close()

    def _lexical(self, query: Query, k: int) -> list[Match]:
        terms = list(dict.fromkeys(self.tokenize(query.text)))
        if not terms:
            return []
        with self.table.lexical() as view:
            if not query.filter:
                hits = lexical_top(view, terms, k, DEFAULT_K1, DEFAULT_B)
                return [chunk.match(score) for chunk, score in hits]
            every = lexical_candidates(view, terms, DEFAULT_K1, DEFAULT_B)
            chunks = view.chunks(every.numbers.tolist())
        kept = np.flatnonzero([_passes(c, query.filter) for c in chunks])
        own = every.own[kept]
        fused = by_best(own) + by_best(every.documents[every.places[kept]])
        return [chunks[kept[r]].match(float(fused[r])) for r in top_rows(fused, k, own)]

    def _dense(self, query: Query, k: int) -> list[Match]:
        if query.vector is None or not query.embedder or k == 0:
            return []
        vector = np.asarray(query.vector, dtype=np.float32).reshape(-1)
        if not query.filter:
            return self._matches(self.table.dense(query.embedder, vector, k))
        depth = k * FILTER_DEPTH
        while True:
            near = self.table.dense(query.embedder, vector, depth)
            chunks = self.table.get([i for i, _ in near])
            kept = [(i, s) for i, s in near if i in chunks and _passes(chunks[i], query.filter)]
            if len(kept) >= k or len(near) < depth:
                return [chunks[i].match(s) for i, s in kept[:k]]
            depth *= FILTER_DEPTH

    def _matches(self, ranked: Sequence[tuple[str, float]]) -> list[Match]:
        chunks = self.table.get([i for i, _ in ranked])
        return [chunks[i].match(s) for i, s in ranked if i in chunks]


def _passes(chunk: StoredChunk, filter: dict[str, Any] | None) -> bool:
    return not filter or matches(chunk.fields(), filter)
