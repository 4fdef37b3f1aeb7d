"""The embedded default chunk store: chunks and their BM25 index in SQLite, searched in
memory with vectors, fused."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from citesift.errors import invalid
from citesift.index.dense import ANN_THRESHOLD, AnnVectors, DenseInfo
from citesift.index.filters import matches
from citesift.index.fusion import reciprocal_rank_fusion, weighted_fusion, zscore_fusion
from citesift.index.lexical.bm25 import BM25Index, Segment
from citesift.index.lexical.passages import PassageIndex, document_text
from citesift.index.lexical.tokens import TOKENIZER_VERSION
from citesift.index.query import Query
from citesift.index.vectors import VectorIndex
from citesift.model import Match
from citesift.numbers import number_in
from citesift.store import lexicon, vector_log
from citesift.store.chunks import (
    COLUMNS,
    ChunkTable,
    IndexedDocument,
    IndexStats,
    StoredChunk,
    chunk_of,
    delete_chunks,
    replace_chunks,
    select,
)
from citesift.store.lexicon import migrate_lexicon
from citesift.store.location import store_path
from citesift.store.sqlite import SQLiteStore

BUILD_WAIT = 3600.0
"""The longest ``wait_for_dense`` waits for an ANN index's build, in seconds (a million
vectors take minutes)."""
HYBRID_DEPTH = 300
"""How many candidates each side of a hybrid search brings to the fusion (at least): deep
enough that the documents behind them, cut into several passages each, are many."""
FUSIONS = ("zscore", "weighted", "rrf")
DEFAULT_FUSION = "zscore"
PASSAGES, DOCUMENTS = "passages", "documents"
KINDS = (PASSAGES, DOCUMENTS)
SEAL_ROWS = 4096
"""Pending rows of an index past which a change seals them into a segment (fewer are kept
as term counts, one row each, and read back as such)."""
Ranker = Callable[[Query, int], list[Match]]
"""One side of a search: the best ``k`` hits of a query."""


class LocalStore:
    """Chunks of record in a ``SQLiteStore``, with their BM25 index kept beside them (read
    back when first needed: counting and listing never need it) and one vector index per
    embedder, read from the chunks on the first dense search; all kept in step with every
    change. A change another process made is seen at the next search. An embedder with
    ``ann_threshold`` vectors or more (None: never) is searched through an HNSW index saved
    beside the store (see ``citesift.index.dense``) instead of the exact product; while
    that index is built in the background, its searches are exact, read from the store."""

    def __init__(
        self,
        store: SQLiteStore | str | Path | None = None,
        *,
        fusion: str = DEFAULT_FUSION,
        ann_threshold: int | None = ANN_THRESHOLD,
    ) -> None:
        if fusion not in FUSIONS:
            raise invalid("fusion", fusion, f"one of {', '.join(FUSIONS)}")
        if ann_threshold is not None and (
            isinstance(ann_threshold, bool)
            or not isinstance(ann_threshold, int)
            or ann_threshold < 1
        ):
            raise invalid("ann_threshold", ann_threshold, "a positive number of vectors, or None")
        self.ann_threshold = ann_threshold
        self._owned = not isinstance(store, SQLiteStore)
        self.sqlite = store if isinstance(store, SQLiteStore) else SQLiteStore(store_path(store))
        self.table = ChunkTable(self.sqlite)
        migrate_lexicon(self.sqlite)
        lexicon.match_tokenizer(self.sqlite, TOKENIZER_VERSION)
        self.fusion = fusion
        self.bm25 = PassageIndex()
        self._vectors: dict[str, VectorIndex] = {}
        self._ann: dict[str, AnnVectors] = {}
        self._allowed_ids: dict[str, frozenset[str]] = {}
        self._masks: dict[str, np.ndarray] = {}
        self._lock = threading.RLock()
        self._generation: int | None = None
        """The kept index's generation the one in memory matches (None: not read yet)."""
        self._saved_terms = 0
        self._kept = True
        """Whether the index in memory is the kept one (a search that built it did not)."""

    def close(self) -> None:
        """Save the ANN indexes' unsaved changes (a build under way is stopped, its thread
        ended, nothing of it recorded); close the store opened here from a path (a store
        handed in stays open). Each is closed even when one before it fails (its error is
        raised once all are)."""
        try:
            with self._lock, ExitStack() as closing:
                for ann in self._ann.values():
                    closing.callback(ann.close)
        finally:
            if self._owned:  # outside our lock: a thread holding the store may wait for it
                self.sqlite.close()

    def upsert(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None:
        """Replace the chunks of ``document_ids`` with ``chunks`` (one transaction)."""
        self._change(document_ids, chunks)

    def delete(self, document_ids: Sequence[str]) -> int:
        """Drop every chunk of these documents; how many went."""
        return self._change(document_ids, None)

    def missing_vectors(self, embedder: str) -> list[StoredChunk]:
        """Chunks with no vector from ``embedder`` (to embed before a dense search)."""
        return self.table.missing(embedder)

    def set_vectors(
        self, chunks: Sequence[StoredChunk], embedder: str, vectors: np.ndarray
    ) -> None:
        """Store and index vectors of ``embedder`` for these chunks."""
        with self._lock:
            self.table.set_vectors([c.id for c in chunks], embedder, vectors)
            if embedder in self._vectors:
                self._vectors[embedder].add([c.id for c in chunks], vectors)

    def search(self, query: Query) -> list[Match]:
        """The best chunks for ``query`` by its mode, restricted by its filter (one search at
        a time: the indexes and the stemmer are not safe to share between threads)."""
        with self._lock:
            with self.sqlite.reading() as conn:
                if self._generation != lexicon.generation(conn):
                    conn.execute("BEGIN")  # one snapshot of the kept index, taking no lock
                    try:
                        self._read(conn, keep=False)
                    finally:
                        conn.execute("COMMIT")
            return search_by_mode(query, self._lexical, self._dense, self.fusion)

    def dense_info(self, embedder: str) -> DenseInfo | None:
        """Which dense search the vectors of ``embedder`` go through (reading its index, or
        starting its build, as a search would); None when the store holds none."""
        with self._lock:
            searcher = self._dense_index(embedder)
            if isinstance(searcher, AnnVectors):
                return searcher.info()
        return None if searcher is None else DenseInfo("exact", len(searcher))

    def wait_for_dense(self, embedder: str, timeout: float = BUILD_WAIT) -> DenseInfo | None:
        """``dense_info`` once the build of the ANN index of ``embedder`` under way (if
        any) is done, or ``timeout`` seconds have passed (``building`` then still true)."""
        seconds = number_in("timeout", timeout, 0, BUILD_WAIT)
        self.dense_info(embedder)
        with self._lock:
            ann = self._ann.get(embedder)
        if ann is not None:
            ann.wait(seconds)  # outside the lock: searches go on meanwhile
        return self.dense_info(embedder)

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

    def _change(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk] | None) -> int:
        """Replace (or, with None, delete) the chunks of ``document_ids``, and the index with
        them, in one transaction; how many chunks went."""
        with self._lock:
            try:
                with self.sqlite.transaction() as conn:
                    if self._generation != lexicon.generation(conn) or not self._kept:
                        self._read(conn, keep=True)
                    gone = select(conn, "document_id", document_ids)
                    if chunks is None:
                        delete_chunks(conn, document_ids)
                    else:
                        replace_chunks(conn, document_ids, chunks)
                    self._index(conn, document_ids, gone, chunks or [])
            except BaseException:
                self._generation = None  # memory may be ahead of the file: read it again
                raise
            return len(gone)

    def _read(self, conn: Any, *, keep: bool) -> None:
        """Read the kept index; when the store has none yet, build it from the chunks and
        (``keep``: in a write transaction) keep it."""
        self.bm25 = PassageIndex()
        self._vectors.clear()
        self._forget_filters()
        kept = lexicon.load(conn, KINDS)
        if not kept.built:
            self._build(conn, keep)
            return
        self.bm25.vocabulary.terms.extend(kept.terms)
        self.bm25.vocabulary.ids.update((t, i) for i, t in enumerate(kept.terms))
        self._saved_terms = len(kept.terms)
        for kind, index in self._indexes().items():
            rows = kept.rows[kind]
            index.restore_rows(rows.rows, rows.ids, rows.lengths, kept.used[kind])
            for row, terms, counts in rows.pending:
                index.restore_pending(row, (terms, counts))
            for s in kept.segments[kind]:
                index.restore_segment(Segment(s.key, s.terms, s.starts, s.rows, s.tf, s.members))
        passages = kept.rows[PASSAGES]
        self.bm25.restore_owners(passages.rows, [owner or "" for owner in passages.owners])
        documents = kept.rows[DOCUMENTS]
        self.bm25.place_documents(documents.ids, documents.rows)
        self._generation, self._kept = kept.generation, True

    def _build(self, conn: Any, keep: bool) -> None:
        """Index every chunk the table holds (a store kept before the index was), and keep
        the index when ``keep`` (a search only reads: the next change keeps it)."""
        chunks = [
            chunk_of(r)
            for r in conn.execute(f"SELECT {COLUMNS} FROM chunks ORDER BY document_id, seq")
        ]
        self._generation = lexicon.generation(conn)
        self._kept = keep
        self._index(conn, list(dict.fromkeys(c.document_id for c in chunks)), [], chunks)
        if keep:
            lexicon.set_state(conn, built=1)

    def _index(
        self,
        conn: Any,
        document_ids: Sequence[str],
        gone: Sequence[StoredChunk],
        chunks: Sequence[StoredChunk],
    ) -> None:
        """Bring the index, in memory and kept, in step with a change: ``gone`` chunks were
        dropped with ``document_ids``, ``chunks`` stored."""
        self._forget_filters()
        passages = self.bm25.passages
        dropped = self.bm25.remove([c.id for c in gone] + [c.id for c in chunks])
        rows = self.bm25.add(
            [c.id for c in chunks], [c.scored_text for c in chunks], [c.document_id for c in chunks]
        )
        if self._kept:
            lexicon.drop_rows(conn, PASSAGES, dropped)
            lexicon.save_rows(conn, PASSAGES, self._kept_rows(passages, rows, chunks))
        touched = list(dict.fromkeys([*document_ids, *(c.document_id for c in chunks)]))
        given = set(document_ids)
        parts: dict[str, list[StoredChunk]] = {d: [] for d in touched}
        for chunk in chunks:
            parts[chunk.document_id].append(chunk)
        elsewhere = [d for d in touched if d not in given]
        for chunk in select(conn, "document_id", elsewhere) if elsewhere else []:
            if chunk.id not in {c.id for c in parts[chunk.document_id]}:
                parts[chunk.document_id].append(chunk)
        dropped = self.bm25.remove_documents(touched)
        held = [d for d in touched if parts[d]]
        rows = self.bm25.set_documents(held, [_document_text(parts[d]) for d in held])
        if self._kept:
            lexicon.drop_rows(conn, DOCUMENTS, dropped)
            lexicon.save_rows(conn, DOCUMENTS, self._kept_rows(self.bm25.documents, rows, None))
            self._keep(conn)
        self._update_vectors([c.id for c in gone], chunks)

    def _kept_rows(
        self, index: BM25Index, rows: Sequence[int], chunks: Sequence[StoredChunk] | None
    ) -> Iterable[lexicon.KeptRow]:
        """The rows just added to ``index`` as they are kept (their pending term counts)."""
        pending = index.pending[len(index.pending) - len(rows) :]
        for i, (row, (_, terms, counts)) in enumerate(zip(rows, pending, strict=True)):
            owner = chunks[i].document_id if chunks is not None else None
            length = float(counts.sum())
            yield lexicon.KeptRow(row, str(index.row_ids[row]), owner, length, terms, counts)

    def _keep(self, conn: Any) -> None:
        """Keep new terms, seal an index whose pending rows are many, and step the
        generation."""
        vocabulary = self.bm25.vocabulary
        lexicon.save_terms(conn, self._saved_terms, vocabulary.terms[self._saved_terms :])
        self._saved_terms = len(vocabulary.terms)
        for kind, index in self._indexes().items():
            if len(index.pending) >= SEAL_ROWS:
                made, dropped = index.seal()
                kept = [self._kept_segment(index, s) for s in made]
                lexicon.seal(conn, kind, kept, [s.key for s in dropped])
        assert self._generation is not None
        self._generation += 1
        lexicon.set_state(
            conn,
            generation=self._generation,
            rows_passages=len(self.bm25.passages.row_ids),
            rows_documents=len(self.bm25.documents.row_ids),
        )

    def _kept_segment(self, index: BM25Index, s: Segment) -> lexicon.KeptSegment:
        """A sealed segment as it is kept, with its rows' ids, owners and lengths."""
        members = s.members.tolist()
        ids = [str(index.row_ids[r]) for r in members]
        owners: list[str | None] = [None] * len(ids)
        if index is self.bm25.passages:
            owners = self.bm25.owners(s.members)
        lengths = index.lengths[s.members]
        return lexicon.KeptSegment(
            s.key, s.terms, s.starts, s.rows, s.tf, s.members, ids, owners, lengths
        )

    def _indexes(self) -> dict[str, BM25Index]:
        return {PASSAGES: self.bm25.passages, DOCUMENTS: self.bm25.documents}

    def _update_vectors(self, gone: Sequence[str], chunks: Sequence[StoredChunk]) -> None:
        """Keep the vector indexes read so far in step (the others are read when needed)."""
        for embedder, index in self._vectors.items():
            index.remove(gone)
            index.remove([c.id for c in chunks])
            embedded = [(c.id, c.vector) for c in chunks if c.embedder == embedder]
            pairs = [(i, v) for i, v in embedded if v is not None]
            if pairs:
                index.add([i for i, _ in pairs], np.stack([v for _, v in pairs]))

    def _lexical(self, query: Query, k: int) -> list[Match]:
        allowed = self._allowed(query.filter)
        mask = None if allowed is None else self._bm25_mask(query.filter, allowed)
        ids, scores = self.bm25.search(query.text, k, mask)
        return self._hits(zip(ids, scores.tolist(), strict=True))

    def _dense(self, query: Query, k: int) -> list[Match]:
        if query.vector is None or not query.embedder:
            return []
        index = self._dense_index(query.embedder)
        if index is None or (isinstance(index, VectorIndex) and len(index) == 0):
            return []
        return self._hits(index.search(query.vector, k, self._allowed(query.filter)))

    def _dense_index(self, embedder: str) -> VectorIndex | AnnVectors | None:
        """The index searching the vectors of ``embedder``: its ANN index (brought up to
        date) once they reach ``ann_threshold`` or one was saved, else the exact one."""
        if embedder in self._ann:
            self._ann[embedder].refresh()
            return self._ann[embedder]
        if embedder not in self._vectors and self.ann_threshold is not None:
            with self.sqlite.reading() as conn:
                held = vector_log.count(conn, embedder)
                saved = vector_log.recorded(conn, embedder)
            if held and (saved is not None or self._past_threshold(held)):
                return self._open_ann(embedder)
        index = self._vector_index(embedder)
        if index is not None and self._past_threshold(len(index)):
            del self._vectors[embedder], index  # its matrix goes before the ANN index is built
            return self._open_ann(embedder)
        return index

    def _past_threshold(self, vectors: int) -> bool:
        return self.ann_threshold is not None and vectors >= self.ann_threshold

    def _open_ann(self, embedder: str) -> AnnVectors:
        with self.sqlite.reading() as conn:
            dim = vector_log.dim(conn, embedder)
        self._ann[embedder] = AnnVectors(self.sqlite, embedder, dim)
        return self._ann[embedder]

    def _vector_index(self, embedder: str) -> VectorIndex | None:
        """The vectors of ``embedder``, read from the chunks the first time."""
        if embedder not in self._vectors:
            ids, vectors = self.table.vectors(embedder)
            if not ids:
                return None
            self._vectors[embedder] = VectorIndex(len(vectors[0]))
            self._vectors[embedder].add(ids, np.stack(vectors))
        return self._vectors[embedder]

    def _hits(self, ranked: Iterable[tuple[str, float]]) -> list[Match]:
        return self.table.matches([(i, float(s)) for i, s in ranked])

    def _allowed(self, filter: dict[str, Any] | None) -> frozenset[str] | None:
        """The ids of chunks whose metadata pass ``filter``; cached until the chunks change,
        so a repeated filter (a partition's) costs one dictionary look-up."""
        if not filter:
            return None
        key = json.dumps(filter, sort_keys=True, default=str)
        if key not in self._allowed_ids:
            passing = (c.id for c in self.table.all() if matches(c.fields(), filter))
            self._allowed_ids[key] = frozenset(passing)
        return self._allowed_ids[key]

    def _bm25_mask(self, filter: dict[str, Any] | None, allowed: frozenset[str]) -> np.ndarray:
        """``allowed`` as a boolean mask over the BM25 rows (cached with it)."""
        key = json.dumps(filter, sort_keys=True, default=str)
        if key not in self._masks:
            self._masks[key] = np.fromiter((i in allowed for i in self.bm25.ids), dtype=bool)
        return self._masks[key]

    def _forget_filters(self) -> None:
        self._allowed_ids.clear()
        self._masks.clear()


def _document_text(chunks: Sequence[StoredChunk]) -> str:
    """The whole text of a document, put back together from its chunks."""
    parts = sorted(chunks, key=_place)
    return document_text([c.context for c in parts], [(c.start, c.end, c.content) for c in parts])


def search_by_mode(
    query: Query, lexical: Ranker, dense: Ranker, fusion: str = DEFAULT_FUSION
) -> list[Match]:
    """The hits of ``query`` by its mode: BM25 alone (always when it has no vector), dense
    alone, or both ``HYBRID_DEPTH`` deep, fused by ``fusion`` (``zscore``, ``weighted``
    or ``rrf``), less the unrelated ones when the query sets ``min_similarity`` (see
    ``related``)."""
    if query.retrieval == "bm25" or query.vector is None:
        return lexical(query, query.top_k)
    if query.retrieval == "dense":
        return dense(query, query.top_k)
    depth = max(query.top_k, HYBRID_DEPTH)
    lexical_hits, dense_hits = lexical(query, depth), dense(query, depth)
    if fusion == "rrf":
        fused = reciprocal_rank_fusion([lexical_hits, dense_hits])
    elif fusion == "weighted":
        fused = weighted_fusion(dense_hits, lexical_hits, bm25_depth=depth)
    else:
        fused = zscore_fusion(dense_hits, lexical_hits, bm25_depth=depth)
    if query.min_similarity is None:
        return fused[: query.top_k]
    kept = related(lexical_hits, dense_hits, query.min_similarity)
    return [hit for hit in fused if hit.id in kept][: query.top_k]


def related(
    lexical_hits: Sequence[Match], dense_hits: Sequence[Match], min_similarity: float
) -> set[str]:
    """The ids a hybrid search lists: each the lexical side found (it shares a word with the
    query), and each whose dense similarity reaches ``min_similarity``. A chunk with neither
    is unrelated, however the fusion scores it against the others (with two chunks, the one
    that is no match is still the second). What similarity parts related from unrelated
    depends on the embedder (and a true paraphrase can score low), so none is assumed."""
    kept = {hit.id for hit in lexical_hits}
    kept.update(hit.id for hit in dense_hits if (hit.score or 0.0) >= min_similarity)
    return kept


def _place(chunk: StoredChunk) -> tuple[int, int]:
    return chunk.start, chunk.seq
