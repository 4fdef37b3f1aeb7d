"""Chunks in PostgreSQL: the SQLite table's columns, vectors in pgvector (one HNSW index per
dimension), and the statistics BM25 needs (each chunk's and each document's term counts and
lengths), so that lexical search ranks exactly as the embedded store does, in the server.

The caller tokenizes (the store knows no language): ``replace`` takes each chunk's terms,
and a function giving a document's terms from its chunks, called inside the transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from citesift.store.chunks import (
    IndexedDocument,
    IndexStats,
    StoredChunk,
    partition_of,
    provenance_from,
    provenance_json,
)
from citesift.store.postgres import MIGRATION_LOCK, PostgresStore

COMPONENT = "chunks"
MIGRATIONS = [
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE chunks (
        id TEXT PRIMARY KEY,
        row_number BIGINT GENERATED ALWAYS AS IDENTITY,
        document_id TEXT NOT NULL,
        partition TEXT NOT NULL DEFAULT '',
        seq INTEGER NOT NULL,
        start INTEGER NOT NULL,
        stop INTEGER NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        provenance TEXT NOT NULL DEFAULT '{}',
        snapshot_id TEXT,
        context TEXT NOT NULL DEFAULT '',
        length INTEGER NOT NULL,
        embedder TEXT,
        dim INTEGER,
        vector vector
    );
    CREATE INDEX chunks_document ON chunks (document_id);
    CREATE INDEX chunks_partition ON chunks (partition);
    CREATE INDEX chunks_snapshot ON chunks (snapshot_id);
    CREATE TABLE chunk_terms (
        term TEXT NOT NULL,
        chunk_id TEXT NOT NULL REFERENCES chunks (id) ON DELETE CASCADE,
        tf REAL NOT NULL,
        length INTEGER NOT NULL,
        PRIMARY KEY (term, chunk_id) INCLUDE (tf, length)
    );
    CREATE INDEX chunk_terms_chunk ON chunk_terms (chunk_id);
    CREATE TABLE document_texts (document_id TEXT PRIMARY KEY, length INTEGER NOT NULL);
    CREATE TABLE document_terms (
        term TEXT NOT NULL,
        document_id TEXT NOT NULL REFERENCES document_texts (document_id) ON DELETE CASCADE,
        tf REAL NOT NULL,
        length INTEGER NOT NULL,
        PRIMARY KEY (term, document_id) INCLUDE (tf, length)
    );
    CREATE INDEX document_terms_document ON document_terms (document_id);
    """,
    # BM25's corpus sizes, as rows of changes summed at each search (no search counts the
    # chunks); each writer adds its own rows, so writers never wait on one counter.
    """
    CREATE TABLE bm25_totals (
        chunks BIGINT NOT NULL, chunk_length BIGINT NOT NULL,
        documents BIGINT NOT NULL, document_length BIGINT NOT NULL
    );
    INSERT INTO bm25_totals SELECT
        (SELECT count(*) FROM chunks), (SELECT coalesce(sum(length), 0) FROM chunks),
        (SELECT count(*) FROM document_texts),
        (SELECT coalesce(sum(length), 0) FROM document_texts);
    """,
    # A posting names its chunk's document, so a search reads both scores without a join.
    """
    ALTER TABLE chunk_terms ADD COLUMN document_id TEXT;
    UPDATE chunk_terms t SET document_id = c.document_id FROM chunks c WHERE c.id = t.chunk_id;
    ALTER TABLE chunk_terms ALTER COLUMN document_id SET NOT NULL;
    ALTER TABLE chunk_terms DROP CONSTRAINT chunk_terms_pkey,
        ADD PRIMARY KEY (term, chunk_id) INCLUDE (tf, length, document_id);
    """,
    # Term rows go with their chunk or document in the statement that drops it, not by a
    # foreign key, whose trigger checked every term row written (two fifths of the server's
    # time ingesting).
    """
    ALTER TABLE chunk_terms DROP CONSTRAINT IF EXISTS chunk_terms_chunk_id_fkey;
    ALTER TABLE document_terms DROP CONSTRAINT IF EXISTS document_terms_document_id_fkey;
    """,
]
_COLUMNS = (
    "id, document_id, seq, start, stop, content, metadata, embedder,"
    " vector::real[], provenance, context"
)
NUL_STANDIN = "\ufffd"
MAX_EF_SEARCH = 1000
"""pgvector's bound on ``hnsw.ef_search``, the candidates an HNSW search keeps."""
EF_SEARCH = 200
"""Candidates kept per HNSW search (pgvector's default is 40). Measured on 5,000 random
384-dimension unit vectors, the hardest case, recall@10 against the exact search: 0.51 at
40, 0.78 at 100, 0.98 at 200, 0.99 at 400; a query costs about a third more at 200 than at
40. Queries near stored vectors, as real ones are, do better at each setting."""
DocumentTerms = Callable[[Sequence[StoredChunk]], Mapping[str, int]]
"""A document's terms and their counts, from its chunks (in place order)."""


@dataclass(frozen=True, slots=True)
class LexicalHit:
    """A chunk that matched a query: its BM25 score, its whole document's, and the two
    fused (each scaled by its best over the candidates; 0 when every candidate is asked),
    and the chunk itself when the search read it (the best ``limit`` are read with it)."""

    id: str
    own: float
    whole: float
    fused: float
    chunk: StoredChunk | None = None


_SCORES = """
WITH totals AS (
    SELECT sum(chunks)::float8 AS n,
        coalesce(sum(chunk_length)::float8 / nullif(sum(chunks), 0), 0) AS mean,
        sum(documents)::float8 AS dn,
        coalesce(sum(document_length)::float8 / nullif(sum(documents), 0), 0) AS dmean
    FROM bm25_totals),
cp AS (SELECT chunk_id, document_id, tf, length, f.df
       FROM chunk_terms JOIN (SELECT term, count(*)::float8 AS df FROM chunk_terms
            WHERE term = ANY(%(terms)s::text[]) GROUP BY term) AS f USING (term)
       WHERE term = ANY(%(terms)s::text[])),
own AS (
    SELECT cp.chunk_id AS id, cp.document_id, sum(ln(1 + (t.n - cp.df + 0.5) / (cp.df + 0.5))
        * cp.tf * (%(k1)s + 1) / (cp.tf + %(k1)s * (1 - %(b)s + %(b)s * cp.length
        / CASE WHEN t.mean > 0 THEN t.mean ELSE 1 END))) AS score
    FROM cp CROSS JOIN totals t GROUP BY cp.chunk_id, cp.document_id),
dp AS (SELECT document_id, tf, length, f.df
       FROM document_terms JOIN (SELECT term, count(*)::float8 AS df FROM document_terms
            WHERE term = ANY(%(terms)s::text[]) GROUP BY term) AS f USING (term)
       WHERE term = ANY(%(terms)s::text[])),
whole AS (
    SELECT dp.document_id, sum(ln(1 + (t.dn - dp.df + 0.5) / (dp.df + 0.5))
        * dp.tf * (%(k1)s + 1) / (dp.tf + %(k1)s * (1 - %(b)s + %(b)s * dp.length
        / CASE WHEN t.dmean > 0 THEN t.dmean ELSE 1 END))) AS score
    FROM dp CROSS JOIN totals t GROUP BY dp.document_id),
"""
_CANDIDATES = """
cand AS (
    SELECT id, document_id, score AS own FROM own
    UNION ALL
    SELECT c.id, c.document_id, 0 FROM {documents} d,
        LATERAL (SELECT id, document_id FROM chunks WHERE document_id = d.document_id
                 OFFSET 0) c
    WHERE NOT EXISTS (SELECT 1 FROM own WHERE own.id = c.id)),
scored AS (
    SELECT cand.id, cand.own, coalesce(whole.score, 0) AS whole
    FROM cand LEFT JOIN whole USING (document_id)),
fused AS (
    SELECT s.id, s.own, s.whole, coalesce(s.own / nullif(m.own, 0), s.own)
        + coalesce(s.whole / nullif(m.whole, 0), s.whole) AS fused
    FROM scored s, (SELECT (SELECT max(score) FROM own) AS own,
                           (SELECT max(score) FROM whole) AS whole) AS m)
"""
# A term's count of postings (its df) is an aggregate beside its postings, not a window
# over them, and each score's best over the candidates is the best of all its scores (every
# matching chunk is a candidate, and so is a chunk of the best document): a tenth less of
# the server's time a query at 100,000 passages than with windows (same hits and scores).
# The OFFSET 0 keeps each look-up of a few chunks by its index: flattened into a join, the
# planner would read the whole table for them.
_TOP = (
    _SCORES
    # Only the chunks of the documents at or above the k-th best whole score can rank by
    # their document alone: any other is beaten by a chunk of each of k better documents.
    + """
best AS (SELECT document_id FROM whole WHERE score >= (
    SELECT coalesce(min(score), 0) FROM (
        SELECT score FROM whole ORDER BY score DESC LIMIT %(limit)s) AS top)),
"""
    + _CANDIDATES.format(documents="best")
    # Ties at the k-th fused score are kept until the chunks' rows break them; the chunks
    # that rank are read here, not by another round trip.
    + f"""
SELECT f.own, f.whole, f.fused, c.* FROM fused f,
    LATERAL (SELECT row_number, {_COLUMNS} FROM chunks WHERE id = f.id OFFSET 0) c
WHERE f.fused >= (SELECT coalesce(min(fused), 0) FROM (
    SELECT fused FROM fused ORDER BY fused DESC LIMIT %(limit)s) AS top)
ORDER BY f.fused DESC, f.own DESC, c.row_number LIMIT %(limit)s
"""
)
_ALL = (
    _SCORES
    + _CANDIDATES.format(documents="whole")
    + "SELECT f.id, f.own, f.whole, 0 FROM fused f JOIN chunks c USING (id) ORDER BY c.row_number"
)
_TOTALS = "INSERT INTO bm25_totals (chunks, chunk_length, documents, document_length)"
_DROP_CHUNKS = (
    "WITH gone AS (DELETE FROM chunks WHERE document_id = ANY(%(documents)s)"
    " OR id = ANY(%(ids)s) RETURNING id, length),"
    " terms AS (DELETE FROM chunk_terms WHERE chunk_id IN (SELECT id FROM gone)) "
    + _TOTALS
    + " SELECT -count(*), -coalesce(sum(length), 0), 0, 0 FROM gone RETURNING chunks"
)
_DROP_DOCUMENTS = (
    "WITH gone AS (DELETE FROM document_texts WHERE document_id = ANY(%s)"
    " RETURNING document_id, length),"
    " terms AS (DELETE FROM document_terms WHERE document_id IN (SELECT document_id FROM gone)) "
    + _TOTALS
    + " SELECT 0, 0, -count(*), -coalesce(sum(length), 0) FROM gone"
)
_LOCK_DOCUMENTS = (
    "SELECT count(pg_advisory_xact_lock(key)) FROM ("
    " SELECT hashtextextended(document, 1) AS key FROM unnest(%s::text[]) AS document"
    " ORDER BY key) AS keys"
)
"""Every writer locks its documents in the same order, in one statement: two writers never
wait on each other for ever."""
TOTALS_LOCK = 0x62326D74
"""The advisory lock of the writer that folds the totals' rows into one (one at a time)."""
FOLD_AFTER = 256
"""Rows of totals past which a writer folds them into one."""


class PostgresChunkTable:
    """The ``chunks`` component of a ``PostgresStore``."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        store.migrate(COMPONENT, MIGRATIONS)

    def replace(
        self,
        document_ids: Sequence[str],
        chunks: Sequence[StoredChunk],
        terms: Sequence[Mapping[str, int]],
        document_terms: DocumentTerms,
    ) -> None:
        """In one transaction, drop every chunk of ``document_ids``, store ``chunks`` (each
        with its ``terms``), and recount the terms of every document they touch."""
        touched = sorted(set(document_ids) | {c.document_id for c in chunks})
        lengths = [sum(t.values()) for t in terms]
        with self.store.transaction() as conn, conn.cursor() as cursor:
            cursor.execute(_LOCK_DOCUMENTS, (touched,))
            cursor.execute(
                _DROP_CHUNKS, {"documents": list(document_ids), "ids": [c.id for c in chunks]}
            )
            _copy(
                cursor,
                "chunks (id, document_id, partition, seq, start, stop, content, content_hash,"
                " metadata, embedder, dim, vector, provenance, snapshot_id, context, length)",
                [_row(c, n) for c, n in zip(chunks, lengths, strict=True)],
            )
            _copy_terms(
                cursor,
                "chunk_terms (term, chunk_id, tf, length, document_id)",
                [
                    (c.id, t, f"{length}\t{_field(c.document_id)}")
                    for c, t, length in zip(chunks, terms, lengths, strict=True)
                ],
            )
            replaced = set(document_ids)
            given: dict[str, list[StoredChunk]] = {d: [] for d in replaced}
            given.update(_by_document(c for c in chunks if c.document_id in replaced))
            documents = self._recount(cursor, touched, given, document_terms)
            cursor.execute(
                _TOTALS + " VALUES (%s, %s, %s, %s)",
                (len(chunks), sum(lengths), len(documents), sum(documents.values())),
            )
            _fold_totals(cursor)
        self._ensure_vector_index({len(c.vector) for c in chunks if c.vector is not None})

    def _recount(
        self,
        cursor: Any,
        documents: Sequence[str],
        given: Mapping[str, list[StoredChunk]],
        document_terms: DocumentTerms,
    ) -> dict[str, int]:
        """Rewrite the term counts of ``documents`` from the chunks they hold now: those
        ``given`` (all a replaced document holds), the others' read back; the lengths of
        those holding any."""
        cursor.execute(_DROP_DOCUMENTS, (documents,))
        held = dict(given)
        others = [d for d in documents if d not in given]
        if others:
            cursor.execute(f"SELECT {_COLUMNS} FROM chunks WHERE document_id = ANY(%s)", (others,))
            held.update(_by_document(_chunk(row) for row in cursor.fetchall()))
        counts = {document: document_terms(parts) for document, parts in held.items() if parts}
        lengths = {d: sum(t.values()) for d, t in counts.items()}
        _copy(cursor, "document_texts (document_id, length)", list(lengths.items()))
        _copy_terms(
            cursor,
            "document_terms (term, document_id, tf, length)",
            [(d, t, str(lengths[d])) for d, t in counts.items()],
        )
        return lengths

    def delete(self, document_ids: Sequence[str]) -> int:
        """Drop every chunk of these documents; how many chunks went."""
        with self.store.transaction() as conn, conn.cursor() as cursor:
            cursor.execute(_DROP_DOCUMENTS, (list(document_ids),))
            cursor.execute(_DROP_CHUNKS, {"documents": list(document_ids), "ids": []})
            row = cursor.fetchone()
            return 0 if row is None else -int(row[0])

    def set_vectors(self, ids: Sequence[str], embedder: str, vectors: np.ndarray) -> None:
        """Store vectors of ``embedder`` for existing chunks (one transaction)."""
        rows = np.asarray(vectors, dtype=np.float32)
        with self.store.transaction() as conn, conn.cursor() as cursor:
            cursor.executemany(
                "UPDATE chunks SET embedder = %s, dim = %s, vector = %s::vector WHERE id = %s",
                [(embedder, len(v), _text(v), i) for i, v in zip(ids, rows, strict=True)],
            )
        if len(rows):
            self._ensure_vector_index({rows.shape[1]})

    def _ensure_vector_index(self, dims: set[int]) -> None:
        """An HNSW index (cosine) over the vectors of each size in ``dims``."""
        for dim in sorted(dims):
            with self.store.transaction() as conn:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                conn.execute(
                    f"CREATE INDEX IF NOT EXISTS chunks_hnsw_{int(dim)} ON chunks USING hnsw"
                    f" ((vector::vector({int(dim)})) vector_cosine_ops)"
                    f" WHERE dim = {int(dim)}".encode()
                )

    def missing(self, embedder: str) -> list[StoredChunk]:
        """Chunks with no vector from ``embedder``, in document then sequence order."""
        return self._select("WHERE embedder IS DISTINCT FROM %s", (embedder,))

    def get(self, ids: Sequence[str]) -> dict[str, StoredChunk]:
        """The chunks of ``ids`` that exist, by id."""
        return {c.id: c for c in self._select("WHERE id = ANY(%s)", (list(ids),))}

    def all(self) -> Iterator[StoredChunk]:
        """Every chunk, in document then sequence order."""
        yield from self._select("", ())

    def _select(self, where: str, args: tuple[Any, ...]) -> list[StoredChunk]:
        sql = f"SELECT {_COLUMNS} FROM chunks {where} ORDER BY document_id, seq"
        with self.store.reading() as conn:
            return [_chunk(r) for r in conn.execute(sql.encode(), args).fetchall()]

    def lexical(
        self, terms: Sequence[str], k1: float, b: float, limit: int | None
    ) -> list[LexicalHit]:
        """Chunks scored by BM25 of ``terms`` (own and whole document), computed from the
        statistics held here: the ``limit`` best by the two scores each scaled by its best,
        or (None) every chunk either score reaches."""
        if not terms:
            return []
        sql, args = (_ALL, {}) if limit is None else (_TOP, {"limit": limit})
        with self.store.reading() as conn:
            rows = conn.execute(
                sql.encode(), {"terms": list(terms), "k1": k1, "b": b, **args}
            ).fetchall()
        if limit is None:
            return [LexicalHit(str(i), float(o), float(w), float(f)) for i, o, w, f in rows]
        return [
            LexicalHit(r[4], float(r[0]), float(r[1]), float(r[2]), _chunk(r[4:])) for r in rows
        ]

    def dense(self, embedder: str, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """The ``limit`` chunks of ``embedder`` nearest to ``vector`` by cosine (HNSW), with
        their cosine similarity, best first."""
        dim = len(vector)
        query = _text(np.asarray(vector, dtype=np.float32))
        distance = f"vector::vector({dim}) <=> %(q)s::vector({dim})"
        with self.store.transaction() as conn:
            conn.execute(
                f"SET LOCAL hnsw.ef_search = {min(max(limit, EF_SEARCH), MAX_EF_SEARCH)}".encode()
            )
            conn.execute(b"SET LOCAL hnsw.iterative_scan = strict_order")
            rows = conn.execute(
                f"SELECT id, 1 - ({distance}) FROM chunks WHERE dim = {dim}"
                f" AND embedder = %(e)s ORDER BY {distance} LIMIT %(k)s".encode(),
                {"q": query, "e": embedder, "k": limit},
            ).fetchall()
        return [(str(i), float(s)) for i, s in rows]

    def stats(self) -> IndexStats:
        """Counts of documents, chunks and embedded chunks (by embedder), and partitions."""
        with self.store.reading() as conn:
            row = conn.execute(
                "SELECT count(DISTINCT document_id), count(*), count(DISTINCT partition)"
                " FROM chunks"
            ).fetchone()
            by = conn.execute(
                "SELECT embedder, count(*) FROM chunks WHERE embedder IS NOT NULL GROUP BY embedder"
            ).fetchall()
        docs, chunks, parts = row if row is not None else (0, 0, 0)
        return IndexStats(int(docs), int(chunks), {str(e): int(n) for e, n in by}, int(parts))

    def documents(self) -> list[IndexedDocument]:
        """Every document with its title and address (from its provenance, else from the
        caller's metadata), its number of chunks and the revision it was read at, by id."""
        with self.store.reading() as conn:
            rows = conn.execute(
                "SELECT document_id,"
                " min(coalesce(provenance::jsonb->>'title', metadata::jsonb->>'title')),"
                " min(coalesce(provenance::jsonb->>'url', metadata::jsonb->>'url')),"
                " count(*),"
                " min(coalesce(provenance::jsonb->>'revision', metadata::jsonb->>'revision'))"
                " FROM chunks GROUP BY document_id ORDER BY document_id"
            ).fetchall()
        return [IndexedDocument(*row) for row in rows]


def _copy(cursor: Any, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """Write ``rows`` into ``table (columns)`` with one COPY: far fewer round trips than
    one INSERT a row, for the thousands of term rows a batch of documents brings."""
    with cursor.copy(f"COPY {table} FROM STDIN".encode()) as copy:
        for row in rows:
            copy.write_row(row)


def _copy_terms(
    cursor: Any, table: str, owners: Sequence[tuple[str, Mapping[str, int], str]]
) -> None:
    """Write term rows ``(term, owner, count, rest...)`` into ``table`` with one COPY of
    text made here: for each owner (a chunk or a document), its terms and their counts, and
    the columns after them in COPY's text form. Each of the many term rows is one string
    format, where a row handed to psycopg costs several times as much."""
    escaped: dict[str, str] = {}
    lines = []
    for owner, counts, rest in owners:
        key = _field(owner)
        for term, count in counts.items():
            field = escaped.get(term)
            if field is None:
                field = escaped[term] = _field(term)
            lines.append(f"{field}\t{key}\t{count}\t{rest}\n")
    with cursor.copy(f"COPY {table} FROM STDIN".encode()) as copy:
        copy.write("".join(lines))


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _field(text: str) -> str:
    """``text`` as a field of COPY's text form: its separators and backslashes escaped."""
    return text.translate(_COPY_ESCAPES)


def _row(c: StoredChunk, length: int) -> tuple[Any, ...]:
    vector = None if c.vector is None else np.asarray(c.vector, dtype=np.float32)
    return (
        c.id,
        c.document_id,
        partition_of(c),
        c.seq,
        c.start,
        c.end,
        _storable(c.content),
        c.content_hash,
        json.dumps(c.metadata, default=str),
        c.embedder if vector is not None else None,
        len(vector) if vector is not None else None,
        _text(vector) if vector is not None else None,
        provenance_json(c.provenance),
        c.provenance.snapshot_id if c.provenance is not None else None,
        _storable(c.context),
        length,
    )


def _fold_totals(cursor: Any) -> None:
    """Fold the totals' rows into one when they are many (by one writer at a time; the
    others go on adding rows meanwhile)."""
    cursor.execute("SELECT count(*) FROM bm25_totals")
    row = cursor.fetchone()
    if row is None or row[0] < FOLD_AFTER:
        return
    cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", (TOTALS_LOCK,))
    locked = cursor.fetchone()
    if locked and locked[0]:
        cursor.execute(
            "WITH gone AS (DELETE FROM bm25_totals RETURNING *) "
            + _TOTALS
            + " SELECT sum(chunks), sum(chunk_length), sum(documents), sum(document_length)"
            " FROM gone"
        )


def _by_document(chunks: Iterable[StoredChunk]) -> dict[str, list[StoredChunk]]:
    """Chunks by document, each document's in place order (as its text runs)."""
    held: dict[str, list[StoredChunk]] = {}
    for chunk in sorted(chunks, key=lambda c: (c.document_id, c.start, c.seq)):
        held.setdefault(chunk.document_id, []).append(chunk)
    return held


def _chunk(r: Sequence[Any]) -> StoredChunk:
    vector = np.asarray(r[8], dtype=np.float32) if r[8] is not None else None
    provenance = provenance_from(r[1], r[2], r[3], r[4], json.loads(r[9]))
    return StoredChunk(
        r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], vector, provenance, r[10]
    )


def _storable(text: str) -> str:
    """``text`` as PostgreSQL keeps text: a NUL character, which it cannot hold, becomes
    U+FFFD (one for one, so offsets hold; the content hash stays the original's)."""
    return text.replace("\x00", NUL_STANDIN)


def _text(vector: np.ndarray) -> str:
    """A vector in pgvector's text form; each float32 written so it reads back exactly."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"
