"""Chunks in PostgreSQL: the SQLite table's columns, vectors in pgvector (one HNSW index per
dimension), and the statistics BM25 needs (each chunk's and each document's postings, as
packed arrays, and the corpus totals), read in one snapshot by the searcher, so that
lexical search ranks exactly as the embedded store does.

The caller tokenizes (the store knows no language): ``replace`` takes each chunk's terms,
and a function giving a document's terms from its chunks, called inside the transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg

from citesift.errors import StoreError
from citesift.store.chunks import (
    IndexedDocument,
    IndexStats,
    StoredChunk,
    partition_of,
    provenance_from,
    provenance_json,
)
from citesift.store.postgres import MIGRATION_LOCK, PostgresStore
from citesift.store.postgres.postings import (
    LISTS,
    Read,
    compact,
    read,
    records_of,
    write_block,
)

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
    # Postings as packed arrays, a row per term and block (``postings.py``): a search reads
    # a few rows a term, not one a posting. A chunk is numbered by its row number, a
    # document's text by a version (new at each recount), and both name the document by a
    # key that never changes. The old term rows become one block of each list.
    """
    CREATE TABLE document_keys (
        document_id TEXT PRIMARY KEY, key BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE);
    INSERT INTO document_keys (document_id)
        SELECT document_id FROM chunks UNION SELECT document_id FROM document_texts ORDER BY 1;
    ALTER TABLE document_texts ADD COLUMN version BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE;
    CREATE UNIQUE INDEX chunks_row_number ON chunks (row_number);
    CREATE TABLE posting_blocks (
        block BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, list TEXT NOT NULL,
        level INTEGER NOT NULL, postings BIGINT NOT NULL, low BIGINT NOT NULL,
        high BIGINT NOT NULL);
    CREATE INDEX posting_blocks_list ON posting_blocks (list, level);
    CREATE TABLE dead_postings (
        list TEXT NOT NULL, number BIGINT NOT NULL, PRIMARY KEY (list, number));
    CREATE TABLE chunks_postings (
        term TEXT NOT NULL, block BIGINT NOT NULL, data BYTEA NOT NULL,
        PRIMARY KEY (term, block));
    CREATE INDEX chunks_postings_block ON chunks_postings (block);
    ALTER TABLE chunks_postings ALTER COLUMN data SET STORAGE EXTERNAL;
    CREATE TABLE documents_postings (LIKE chunks_postings INCLUDING ALL);
    CREATE TEMPORARY TABLE old_postings ON COMMIT DROP AS
        SELECT 'chunks' AS list, t.term, c.row_number AS owner, t.tf, t.length, k.key
        FROM chunk_terms t JOIN chunks c ON c.id = t.chunk_id
        JOIN document_keys k ON k.document_id = c.document_id
        UNION ALL
        SELECT 'documents', t.term, d.version, t.tf, t.length, k.key
        FROM document_terms t JOIN document_texts d USING (document_id)
        JOIN document_keys k USING (document_id);
    INSERT INTO posting_blocks (list, level, postings, low, high)
        SELECT list, floor(ln(count(*)) / ln(8))::int, count(*), min(owner), max(owner)
        FROM old_postings GROUP BY list;
    """
    + "".join(
        f"""
    INSERT INTO {name}_postings SELECT o.term, b.block, string_agg(int8send(o.owner)
            || float4send(o.tf) || int4send(o.length) || int8send(o.key), ''::bytea)
        FROM old_postings o JOIN posting_blocks b USING (list)
        WHERE o.list = '{name}' GROUP BY o.term, b.block;"""
        for name in LISTS
    )
    + """
    DROP TABLE chunk_terms, document_terms;
    """,
    # A document's key is kept while it holds chunks or a text: the keys of documents gone,
    # or only ever named for deletion, go.
    """
    DELETE FROM document_keys k WHERE NOT EXISTS (
        SELECT 1 FROM chunks c WHERE c.document_id = k.document_id) AND NOT EXISTS (
        SELECT 1 FROM document_texts d WHERE d.document_id = k.document_id);
    """,
    # The version of the tokenizer rules the postings were made by (1: every store made
    # before it was kept), and the progress of a pass making them by newer rules: the rules
    # it makes them by, the last row number it has done, and the last it will do.
    """
    CREATE TABLE bm25_tokenizer (
        version INTEGER NOT NULL, target INTEGER, done BIGINT NOT NULL DEFAULT 0,
        last BIGINT NOT NULL DEFAULT 0);
    INSERT INTO bm25_tokenizer (version) VALUES (1);
    """,
    # A chunk's postings name it by a number of its own, kept with its length in terms in a
    # table beside the chunks: making its postings again gives it a new number there and
    # rewrites no chunk row (whose vector would go into the HNSW index again). The numbers
    # go on after every row number given so far (a tombstone may name any of them). The
    # step first waits for every writer of the chunks and holds them off: a writer of the
    # schema before takes no migration lock, and a chunk it committed after the copy below
    # would have no number. (Not SHARE mode: the drop's lock, taken after it, would wait on
    # an older program's batch that has read the chunks and waits on this to write them.)
    """
    LOCK TABLE chunks IN ACCESS EXCLUSIVE MODE;
    CREATE TABLE chunk_owners (
        chunk BIGINT PRIMARY KEY, number BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE,
        length INTEGER NOT NULL);
    INSERT INTO chunk_owners (chunk, number, length)
        SELECT row_number, row_number, length FROM chunks;
    SELECT setval(pg_get_serial_sequence('chunk_owners', 'number'), coalesce(given, 1),
        given IS NOT NULL) FROM (SELECT pg_sequence_last_value(
            pg_get_serial_sequence('chunks', 'row_number')::regclass) AS given) AS s;
    ALTER TABLE chunks DROP COLUMN length;
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
ChunkTerms = Callable[[StoredChunk], Mapping[str, int]]
"""A chunk's terms and their counts."""
RETOKENIZE_LOCK = 0x72746B6E
"""The advisory lock of a batch of the pass making postings by newer tokenizer rules: one
batch at a time in the whole store, whichever process runs it."""
RETOKENIZE_BATCH = 500
"""Chunks a batch of that pass makes the postings of again, with those of their documents
(read whole, as a write recounting them reads them): fewer documents than a writer locks
one by one."""
RETOKENIZE_ATTEMPTS = 3
"""Times a batch of that pass is tried when PostgreSQL ends it for another transaction's
sake (a deadlock or a serialization failure). No writer of ours makes that happen: each
one that writes the numbers of chunks (a write, a delete, a batch) first takes the locks of
its documents, all in one statement and one order (``_lock``), and a writer setting vectors
takes no number.
The tries guard against a transaction from elsewhere taking numbers in another order (SQL
run by hand on the store); the third failure in a row is said as the error."""
_ROLLED_BACK = (
    psycopg.errors.DeadlockDetected,
    psycopg.errors.SerializationFailure,
    psycopg.errors.TransactionRollback,
)
"""The failures of a transaction the server ended for another's sake, worth trying again
(SQLSTATE class 40: psycopg makes a deadlock and a serialization failure no subclasses of
``TransactionRollback``, so each is named)."""
_NOT_ASCII = r"(content ~ '[^\x01-\x7f]' OR context ~ '[^\x01-\x7f]')"
"""A chunk holding a character past ASCII (read in any server encoding: a character past
ASCII is past 0x7F in each, and no text holds NUL)."""


_TOTALS = "INSERT INTO bm25_totals (chunks, chunk_length, documents, document_length)"
_DROP_CHUNKS = (
    "WITH gone AS (DELETE FROM chunks WHERE document_id = ANY(%(documents)s)"
    " OR id = ANY(%(ids)s) RETURNING row_number),"
    " owners AS (DELETE FROM chunk_owners WHERE chunk IN (SELECT row_number FROM gone)"
    " RETURNING number, length),"
    " dead AS (INSERT INTO dead_postings (list, number)"
    " SELECT 'chunks', number FROM owners WHERE length > 0) "
    + _TOTALS
    + " SELECT -count(*), -coalesce(sum(length), 0), 0, 0 FROM owners RETURNING chunks"
)
_DROP_DOCUMENTS = (
    "WITH gone AS (DELETE FROM document_texts WHERE document_id = ANY(%s)"
    " RETURNING document_id, length, version),"
    " dead AS (INSERT INTO dead_postings (list, number)"
    " SELECT 'documents', version FROM gone WHERE length > 0) "
    + _TOTALS
    + " SELECT 0, 0, -count(*), -coalesce(sum(length), 0) FROM gone"
)
_NUMBER_CHUNKS = (
    "WITH n AS (INSERT INTO chunk_owners (chunk, length) SELECT c.row_number, v.length"
    " FROM unnest(%s::text[], %s::int[]) AS v (id, length) JOIN chunks c USING (id)"
    " ORDER BY c.row_number RETURNING chunk, number)"
    " SELECT c.id, n.number FROM n JOIN chunks c ON c.row_number = n.chunk"
)
"""Number chunks just stored (by id, each with its length) for their postings, in the
chunks' order; each one's id and number."""
_RENUMBER_CHUNKS = (
    "UPDATE chunk_owners o SET number = v.number, length = v.length"
    " FROM unnest(%s::bigint[], %s::bigint[], %s::int[]) AS v (old, number, length)"
    " WHERE o.number = v.old"
)
"""Give chunks (by their numbers) new numbers and lengths."""
_LOCK_DOCUMENTS = (
    "SELECT count(pg_advisory_xact_lock(key)) FROM ("
    " SELECT hashtextextended(document, 1) AS key FROM unnest(%s::text[]) AS document"
    " ORDER BY key) AS keys"
)
"""Every writer locks its documents in the same order, in one statement: two writers never
wait on each other for ever."""
DOCUMENTS_LOCK = 0x646F6373
"""The lock of every document: held shared by a writer locking its documents one by one,
alone by a writer of more than ``LOCK_EACH_UP_TO``."""
LOCK_EACH_UP_TO = 1000
"""Documents a writer locks one by one; past this (a store emptied at once), it waits for the
other writers and holds them off instead, as PostgreSQL's lock table is bounded (64 locks a
session by default)."""
_PRUNE_KEYS = (
    "DELETE FROM document_keys k WHERE k.document_id = ANY(%s)"
    " AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = k.document_id)"
    " AND NOT EXISTS (SELECT 1 FROM document_texts d WHERE d.document_id = k.document_id)"
)
"""Drop the keys of these documents (locked) when they hold no chunk and no text: no live
posting names them (a removed owner's postings, hidden by its tombstone, are never scored),
and a document stored again is given a new key."""
TOTALS_LOCK = 0x62326D74
"""The advisory lock of the writer that folds the totals' rows into one (one at a time)."""
FOLD_AFTER = 256
"""Rows of totals past which a writer folds them into one."""


class LexicalView:
    """What lexical search reads, through one cursor in a repeatable-read transaction: the
    totals, the postings of a query's terms, and chunks by their postings' number."""

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    def read(self, terms: Sequence[str]) -> Read:
        """The corpus totals and the live postings of ``terms`` in each list."""
        return read(self.cursor, terms)

    def chunks(self, numbers: Sequence[int]) -> list[StoredChunk]:
        """The chunks of these numbers, in their order."""
        self.cursor.execute(
            f"SELECT o.number, {_COLUMNS} FROM chunk_owners o JOIN chunks c"
            " ON c.row_number = o.chunk WHERE o.number = ANY(%s)".encode(),
            (list(numbers),),
        )
        found = {row[0]: _chunk(row[1:]) for row in self.cursor.fetchall()}
        return [found[n] for n in numbers]


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
            _lock(cursor, touched)
            cursor.execute(
                _DROP_CHUNKS, {"documents": list(document_ids), "ids": [c.id for c in chunks]}
            )
            _copy(
                cursor,
                "chunks (id, document_id, partition, seq, start, stop, content, content_hash,"
                " metadata, embedder, dim, vector, provenance, snapshot_id, context)",
                [_row(c) for c in chunks],
            )
            cursor.execute(_NUMBER_CHUNKS, ([c.id for c in chunks], lengths))
            numbers = {str(i): int(n) for i, n in cursor.fetchall()}
            replaced = set(document_ids)
            given: dict[str, list[StoredChunk]] = {d: [] for d in replaced}
            given.update(_by_document(c for c in chunks if c.document_id in replaced))
            owned = [numbers[c.id] for c in chunks]
            counted = (len(chunks), sum(lengths))
            self._write_postings(
                cursor, chunks, owned, terms, touched, given, document_terms, counted
            )
            cursor.execute(_PRUNE_KEYS, (touched,))
        self._ensure_vector_index({len(c.vector) for c in chunks if c.vector is not None})

    def _write_postings(
        self,
        cursor: Any,
        chunks: Sequence[StoredChunk],
        numbers: Sequence[int],
        terms: Sequence[Mapping[str, int]],
        documents: Sequence[str],
        given: Mapping[str, list[StoredChunk]],
        document_terms: DocumentTerms,
        counted: tuple[int, int],
    ) -> None:
        """The postings of ``chunks`` just numbered (each with its number in ``numbers`` and
        its ``terms``), recounted those of ``documents`` (see ``_recount``), ``counted``
        (chunks, their length) added to the totals with the recounted documents', then the
        totals folded and the lists compacted, as every write of postings ends."""
        keys = _document_keys(cursor, sorted({c.document_id for c in chunks}))
        owned = [
            (n, keys[c.document_id], t) for c, n, t in zip(chunks, numbers, terms, strict=True)
        ]
        write_block(cursor, "chunks", *records_of(owned))
        recounted = self._recount(cursor, documents, given, document_terms, keys)
        cursor.execute(
            _TOTALS + " VALUES (%s, %s, %s, %s)",
            (*counted, len(recounted), sum(recounted.values())),
        )
        _fold_totals(cursor)
        for name in LISTS:
            compact(cursor, name)

    def _recount(
        self,
        cursor: Any,
        documents: Sequence[str],
        given: Mapping[str, list[StoredChunk]],
        document_terms: DocumentTerms,
        keys: Mapping[str, int],
    ) -> dict[str, int]:
        """Rewrite the term counts of ``documents`` (of these ``keys``) from the chunks they
        hold now: those ``given`` (all a replaced document holds), the others' read back;
        the lengths of those holding any."""
        cursor.execute(_DROP_DOCUMENTS, (documents,))
        held = dict(given)
        others = [d for d in documents if d not in given]
        if others:
            cursor.execute(f"SELECT {_COLUMNS} FROM chunks WHERE document_id = ANY(%s)", (others,))
            held.update(_by_document(_chunk(row) for row in cursor.fetchall()))
        counts = {document: document_terms(parts) for document, parts in held.items() if parts}
        lengths = {d: sum(t.values()) for d, t in counts.items()}
        _copy(cursor, "document_texts (document_id, length)", list(lengths.items()))
        versions = _numbers(
            cursor,
            "SELECT document_id, version FROM document_texts WHERE document_id = ANY(%s)",
            list(counts),
        )
        owned = [(versions[d], keys[d], t) for d, t in counts.items()]
        write_block(cursor, "documents", *records_of(owned))
        return lengths

    def tokenized_by(self) -> int:
        """The version of the tokenizer rules every posting held was made by."""
        with self.store.reading() as conn:
            row = conn.execute("SELECT version FROM bm25_tokenizer").fetchone()
        return 0 if row is None else int(row[0])

    def retokenize(
        self,
        version: int,
        ascii_since: int,
        chunk_terms: ChunkTerms,
        document_terms: DocumentTerms,
        *,
        batch: int = RETOKENIZE_BATCH,
    ) -> int | None:
        """One batch of the pass making postings by tokenizer rules ``version``: the next
        ``batch`` chunks by row number (of the store's chunks when the pass began) whose terms
        may differ (their text is not ASCII only, unless the store's rules are older than
        ``ascii_since``), their documents' and the totals made again, in one transaction
        with the pass's progress. How many chunks it took; None once the store's postings
        are all of ``version`` or newer rules (the pass then over), or while a pass by newer
        rules runs (which an older program, restarting it for its own, would undo). A batch
        the server ends for another transaction's sake is tried again (none of ours can;
        ``RETOKENIZE_ATTEMPTS``)."""
        attempt = 1
        while True:
            try:
                return self._retokenize_batch(
                    version, ascii_since, chunk_terms, document_terms, batch
                )
            except StoreError as error:
                if attempt >= RETOKENIZE_ATTEMPTS or not isinstance(error.__cause__, _ROLLED_BACK):
                    raise
                attempt += 1

    def _retokenize_batch(
        self,
        version: int,
        ascii_since: int,
        chunk_terms: ChunkTerms,
        document_terms: DocumentTerms,
        batch: int,
    ) -> int | None:
        """One try of a batch of ``retokenize``, in one transaction."""
        with self.store.transaction() as conn, conn.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (RETOKENIZE_LOCK,))
            cursor.execute("SELECT version, target, done, last FROM bm25_tokenizer")
            held, target, done, last = cursor.fetchone() or (version, None, 0, 0)
            if held >= version or (target is not None and target > version):
                return None  # made, or being made, by rules newer than ours: left as it is
            if target != version:  # a new pass: to the chunks held now
                cursor.execute("SELECT coalesce(max(row_number), 0) FROM chunks")
                done, last = 0, int((cursor.fetchone() or (0,))[0])
                cursor.execute(
                    "UPDATE bm25_tokenizer SET target = %s, done = 0, last = %s", (version, last)
                )
            which = "" if held < ascii_since else f" AND {_NOT_ASCII}"
            cursor.execute(
                "SELECT row_number, document_id FROM chunks WHERE row_number > %s"
                f" AND row_number <= %s{which} ORDER BY row_number LIMIT %s".encode(),
                (done, last, batch),
            )
            rows = cursor.fetchall()
            if not rows:
                cursor.execute(
                    "UPDATE bm25_tokenizer SET version = %s, target = NULL, done = 0, last = 0",
                    (version,),
                )
                return None
            documents = sorted({document for _, document in rows})
            taken = [n for n, _ in rows]
            self._retokenize(cursor, taken, documents, chunk_terms, document_terms)
            cursor.execute("UPDATE bm25_tokenizer SET done = %s", (rows[-1][0],))
            return len(rows)

    def _retokenize(
        self,
        cursor: Any,
        row_numbers: Sequence[int],
        documents: Sequence[str],
        chunk_terms: ChunkTerms,
        document_terms: DocumentTerms,
    ) -> None:
        """Make again the postings of the chunks of ``row_numbers`` still held (of
        ``documents``, locked here as a writer locks them), their documents' and the
        totals. Each chunk is given a new number for its postings, its old one a tombstone,
        as a replaced chunk is; its row (and its vector) is left as it is."""
        _lock(cursor, documents)
        cursor.execute(
            f"SELECT o.number, o.length, {_COLUMNS} FROM chunk_owners o JOIN chunks c"
            " ON c.row_number = o.chunk WHERE o.chunk = ANY(%s) ORDER BY o.chunk"
            " FOR UPDATE OF o".encode(),
            (list(row_numbers),),
        )
        rows = cursor.fetchall()
        chunks = [_chunk(row[2:]) for row in rows]
        terms = [chunk_terms(c) for c in chunks]
        lengths = [sum(t.values()) for t in terms]
        cursor.execute(  # drawn in one run, ascending, so they keep the chunks' order
            "SELECT nextval(pg_get_serial_sequence('chunk_owners', 'number'))"
            " FROM generate_series(1, %s) ORDER BY 1",
            (len(rows),),
        )
        renumbered = [int(n) for (n,) in cursor.fetchall()]
        cursor.execute(_RENUMBER_CHUNKS, ([row[0] for row in rows], renumbered, lengths))
        cursor.execute(
            "INSERT INTO dead_postings (list, number) SELECT 'chunks', number"
            " FROM unnest(%s::bigint[]) AS number",
            ([row[0] for row in rows if row[1] > 0],),
        )
        held = sorted({c.document_id for c in chunks})
        counted = (0, sum(lengths) - sum(row[1] for row in rows))
        self._write_postings(cursor, chunks, renumbered, terms, held, {}, document_terms, counted)

    def delete(self, document_ids: Sequence[str]) -> int:
        """Drop every chunk of these documents; how many chunks went."""
        with self.store.transaction() as conn, conn.cursor() as cursor:
            _lock(cursor, sorted(set(document_ids)))
            cursor.execute(_DROP_DOCUMENTS, (list(document_ids),))
            cursor.execute(_DROP_CHUNKS, {"documents": list(document_ids), "ids": []})
            row = cursor.fetchone()
            cursor.execute(_PRUNE_KEYS, (list(document_ids),))
            for name in LISTS:
                compact(cursor, name)
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

    @contextmanager
    def lexical(self) -> Iterator[LexicalView]:
        """A view of the statistics BM25 needs, all read from one snapshot (a read-only
        repeatable-read transaction, begun with the first read)."""
        with self.store.reading() as conn:
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            conn.read_only = True
            try:
                with conn.cursor() as cursor:
                    yield LexicalView(cursor)
            finally:
                conn.rollback()
                conn.isolation_level = conn.read_only = None

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

    def has_documents(self, partition: str | None = None) -> bool:
        """Whether any chunk is stored (in ``partition`` when one is named): one row read,
        not a count of all."""
        where, values = (
            (" WHERE partition = %s", (partition,)) if partition is not None else ("", ())
        )
        with self.store.reading() as conn:
            found = conn.execute(f"SELECT 1 FROM chunks{where} LIMIT 1", values).fetchone()
        return found is not None

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


def _row(c: StoredChunk) -> tuple[Any, ...]:
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
    )


def _lock(cursor: Any, documents: Sequence[str]) -> None:
    """Lock ``documents`` until the transaction ends: each one, or all when they are many."""
    if len(documents) > LOCK_EACH_UP_TO:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (DOCUMENTS_LOCK,))
        return
    cursor.execute("SELECT pg_advisory_xact_lock_shared(%s)", (DOCUMENTS_LOCK,))
    cursor.execute(_LOCK_DOCUMENTS, (list(documents),))


def _document_keys(cursor: Any, documents: Sequence[str]) -> dict[str, int]:
    """The key of each of ``documents`` (given one on first sight; kept while the document
    holds chunks)."""
    cursor.execute(
        "INSERT INTO document_keys (document_id) SELECT document_id"
        " FROM unnest(%s::text[]) AS document_id ORDER BY 1 ON CONFLICT DO NOTHING",
        (list(documents),),
    )
    return _numbers(
        cursor, "SELECT document_id, key FROM document_keys WHERE document_id = ANY(%s)", documents
    )


def _numbers(cursor: Any, sql: str, names: Sequence[str]) -> dict[str, int]:
    """The number ``sql`` (``SELECT name, number ... = ANY(%s)``) gives each of ``names``."""
    cursor.execute(sql.encode(), (list(names),))
    return {str(name): int(number) for name, number in cursor.fetchall()}


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
