"""Chunks in the SQLite store: text, offsets, metadata and vectors, replaced per document."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from citesift.model import Licence, Match, Provenance, place_json, stored_place
from citesift.store.sqlite import SQLiteStore

PARTITION_KEY = "_partition"
"""The metadata key naming a chunk's partition (also kept in its own column)."""

MIGRATIONS = [
    """
    CREATE TABLE chunks (
        id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL,
        partition TEXT NOT NULL DEFAULT '',
        seq INTEGER NOT NULL,
        start INTEGER NOT NULL,
        stop INTEGER NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        embedder TEXT,
        vector BLOB
    );
    CREATE INDEX chunks_document ON chunks (document_id);
    CREATE INDEX chunks_partition ON chunks (partition);
    """,
    # Provenance moves out of the metadata into its own columns; metadata keeps the caller's.
    """
    ALTER TABLE chunks ADD COLUMN provenance TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE chunks ADD COLUMN snapshot_id TEXT;
    CREATE INDEX chunks_snapshot ON chunks (snapshot_id);
    UPDATE chunks SET provenance = json_object(
        'title', json_extract(metadata, '$.title'),
        'url', json_extract(metadata, '$.url'),
        'site', json_extract(metadata, '$.site'),
        'key', json_extract(metadata, '$.key'),
        'revision', json_extract(metadata, '$.revision'),
        'read_at', json_extract(metadata, '$.read_at'),
        'licence', CASE WHEN json_extract(metadata, '$.licence') IS NULL THEN NULL ELSE
            json_object('name', json_extract(metadata, '$.licence'),
                        'url', json_extract(metadata, '$.licence_url')) END,
        'block', json_extract(metadata, '$.block'),
        'source_start', json_extract(metadata, '$.source_start'),
        'source_end', json_extract(metadata, '$.source_end'),
        'fragment_url', json_extract(metadata, '$.fragment_url')
    ), metadata = json_remove(metadata, '$.title', '$.url', '$.site', '$.key', '$.revision',
        '$.read_at', '$.licence', '$.licence_url', '$.block', '$.block_start', '$.block_end',
        '$.source_start', '$.source_end', '$.fragment_url', '$.history_url',
        '$.revision_url', '$.document_id', '$.chunk_index', '$.start', '$.end')
    WHERE json_valid(metadata);
    """,
    # The passage's heading (document title, section path), scored with it, kept apart.
    "ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT '';",
    # An embedder's rows counted and listed from an index (an ANN index checks them on open).
    "CREATE INDEX chunks_embedder ON chunks (embedder);",
]

COLUMNS = (
    "id, document_id, seq, start, stop, content, metadata, embedder, vector, provenance, context"
)
MATCH_COLUMNS = "id, document_id, seq, start, stop, content, metadata, provenance"
"""What a search result shows of a chunk (not its vector, not its context)."""
_PER_QUERY = 500
"""Values per ``IN (...)`` query, well under SQLite's bound-parameter limit."""
_LOCATION = ("document_id", "chunk", "start", "end")
"""Provenance fields kept in columns of their own, not in the provenance JSON."""


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """One chunk of a document: ``content`` is ``document[start:end]``."""

    id: str
    document_id: str
    seq: int
    start: int
    end: int
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    embedder: str | None = None
    vector: np.ndarray | None = field(default=None, repr=False, compare=False)
    provenance: Provenance | None = None
    """Attribution and source span; None means only the document, place and span above."""
    context: str = ""
    """What the passage sits under: its document's title and section path, one a line.
    Searches score it with the passage (``scored_text``); hits show ``content`` alone."""

    @property
    def scored_text(self) -> str:
        """The text BM25 indexes and an embedder embeds: the context, then the content."""
        return f"{self.context}\n{self.content}" if self.context else self.content

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)

    def origin(self) -> Provenance:
        """The chunk's provenance, always with its document, sequence number and span."""
        if self.provenance is not None:
            return self.provenance
        return Provenance(self.document_id, self.seq, self.start, self.end)

    def match(self, score: float | None) -> Match:
        """This chunk as a retrieval result (metadata copied, so the result may change it)."""
        return Match(self.id, score, self.content, dict(self.metadata), self.origin())

    def fields(self) -> dict[str, Any]:
        """What a filter sees: the metadata, over which the provenance's plain fields win."""
        plain = {k: v for k, v in asdict(self.origin()).items() if k != "licence"}
        return {**self.metadata, **{k: v for k, v in plain.items() if v is not None}}


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What an index holds: documents, chunks, chunks embedded by each embedder, partitions
    (the default, unnamed one counts)."""

    documents: int
    chunks: int
    embedded: dict[str, int]
    partitions: int


@dataclass(frozen=True, slots=True)
class IndexedDocument:
    """One indexed document: its id, its title and address when it was read from a source
    (None for a plain text), how many chunks it has and the revision it was read at."""

    id: str
    title: str | None
    url: str | None
    chunks: int
    revision: str | None = None
    """The revision it was read at (a file's content hash), when its source has one."""


def content_hash(text: str) -> str:
    """The sha256 of ``text`` (UTF-8, lone surrogates escaped), in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ChunkTable:
    """The ``chunks`` component of a ``SQLiteStore``."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        store.migrate("chunks", MIGRATIONS)

    def replace(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None:
        """In one transaction, drop every chunk of ``document_ids`` and store ``chunks``."""
        with self.store.transaction() as conn:
            replace_chunks(conn, document_ids, chunks)

    def delete(self, document_ids: Sequence[str]) -> int:
        """Drop every chunk of these documents; how many chunks went."""
        with self.store.transaction() as conn:
            return delete_chunks(conn, document_ids)

    def set_vectors(self, ids: Sequence[str], embedder: str, vectors: np.ndarray) -> None:
        """Store vectors of ``embedder`` for existing chunks (one transaction)."""
        blobs = [_blob(v) for v in vectors]
        with self.store.transaction() as conn:
            conn.executemany(
                "UPDATE chunks SET embedder = ?, vector = ? WHERE id = ?",
                [(embedder, b, i) for i, b in zip(ids, blobs, strict=True)],
            )

    def get(self, ids: Sequence[str]) -> dict[str, StoredChunk]:
        """The chunks of ``ids`` that exist, by id."""
        with self.store.reading() as conn:
            return {c.id: c for c in select(conn, "id", ids)}

    def first(self, document_id: str, count: int) -> list[Match]:
        """The first ``count`` chunks of a document, in order, as search results without a
        score: read with only the columns a result shows (not the vectors)."""
        with self.store.reading() as conn:
            rows = conn.execute(
                f"SELECT {MATCH_COLUMNS} FROM chunks WHERE document_id = ? ORDER BY seq LIMIT ?",
                (document_id, count),
            )
            return [match_of(r, None) for r in rows.fetchall()]

    def matches(self, ranked: Sequence[tuple[str, float]]) -> list[Match]:
        """The chunks of ``ranked`` (id, score) that exist, as search results with those
        scores, in that order: read in one statement, with only the columns a result shows."""
        with self.store.reading() as conn:
            rows = {r[0]: r for r in _rows_where(conn, MATCH_COLUMNS, "id", [i for i, _ in ranked])}
        return [match_of(rows[i], score) for i, score in ranked if i in rows]

    def missing(self, embedder: str) -> list[StoredChunk]:
        """Chunks with no vector from ``embedder``, in document then sequence order."""
        with self.store.reading() as conn:
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM chunks WHERE embedder IS NOT ? ORDER BY document_id, seq",
                (embedder,),
            )
            return [chunk_of(r) for r in rows.fetchall()]

    def vectors(self, embedder: str) -> tuple[list[str], list[np.ndarray]]:
        """The ids and vectors of every chunk embedded by ``embedder``."""
        with self.store.reading() as conn:
            rows = conn.execute(
                "SELECT id, vector FROM chunks WHERE embedder = ? AND vector IS NOT NULL",
                (embedder,),
            ).fetchall()
        return [r[0] for r in rows], [np.frombuffer(r[1], dtype="<f4") for r in rows]

    def all(self) -> Iterator[StoredChunk]:
        """Every chunk, in document then sequence order."""
        with self.store.reading() as conn:
            rows = conn.execute(f"SELECT {COLUMNS} FROM chunks ORDER BY document_id, seq")
            yield from (chunk_of(r) for r in rows.fetchall())

    def stats(self) -> IndexStats:
        """Counts of documents, chunks and embedded chunks (by embedder), and partitions."""
        with self.store.reading() as conn:
            docs, chunks = conn.execute(
                "SELECT COUNT(DISTINCT document_id), COUNT(*) FROM chunks"
            ).fetchone()
            by = conn.execute(
                "SELECT embedder, COUNT(*) FROM chunks WHERE embedder IS NOT NULL GROUP BY embedder"
            ).fetchall()
            parts = conn.execute("SELECT COUNT(DISTINCT partition) FROM chunks").fetchone()[0]
        return IndexStats(docs, chunks, dict(by), parts)

    def has_documents(self, partition: str | None = None) -> bool:
        """Whether any chunk is stored (in ``partition`` when one is named): one row read,
        not a count of all."""
        where, values = (
            (" WHERE partition = ?", (partition,)) if partition is not None else ("", ())
        )
        with self.store.reading() as conn:
            found = conn.execute(f"SELECT 1 FROM chunks{where} LIMIT 1", values).fetchone()
        return found is not None

    def documents(self) -> list[IndexedDocument]:
        """Every document with its title and address, from its provenance or else from the
        caller's metadata (its chunks all carry the same; metadata SQLite cannot read, as
        a NaN kept before they were refused, gives none), by id."""
        meta = "CASE WHEN json_valid(metadata) THEN json_extract(metadata, '$.{}') END"
        with self.store.reading() as conn:
            rows = conn.execute(
                "SELECT document_id,"
                f" COALESCE(json_extract(provenance, '$.title'), {meta.format('title')}),"
                f" COALESCE(json_extract(provenance, '$.url'), {meta.format('url')}),"
                " COUNT(*),"
                f" COALESCE(json_extract(provenance, '$.revision'), {meta.format('revision')})"
                " FROM chunks GROUP BY document_id ORDER BY document_id"
            ).fetchall()
        return [IndexedDocument(*row) for row in rows]


def replace_chunks(conn: Any, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None:
    """Drop every chunk of ``document_ids`` and store ``chunks``, in the caller's transaction."""
    delete_chunks(conn, document_ids)
    conn.executemany(
        "INSERT OR REPLACE INTO chunks (id, document_id, partition, seq, start, stop,"
        " content, content_hash, metadata, embedder, vector, provenance, snapshot_id,"
        " context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [_row(c) for c in chunks],
    )


def select(conn: Any, column: str, values: Sequence[str]) -> list[StoredChunk]:
    """The chunks whose ``column`` (``id`` or ``document_id``) is one of ``values``, in
    document then sequence order."""
    out = [chunk_of(r) for r in _rows_where(conn, COLUMNS, column, values)]
    return sorted(out, key=lambda c: (c.document_id, c.seq)) if len(values) > _PER_QUERY else out


def _rows_where(conn: Any, columns: str, column: str, values: Sequence[str]) -> list[Any]:
    """The ``columns`` of the chunks whose ``column`` is one of ``values`` (each once), a
    statement per ``_PER_QUERY`` values, each statement's in document then sequence order."""
    out: list[Any] = []
    unique = list(dict.fromkeys(values))
    for start in range(0, len(unique), _PER_QUERY):
        part = unique[start : start + _PER_QUERY]
        rows = conn.execute(
            f"SELECT {columns} FROM chunks WHERE {column} IN ({','.join('?' * len(part))})"
            " ORDER BY document_id, seq",
            part,
        )
        out.extend(rows.fetchall())
    return out


def delete_chunks(conn: Any, document_ids: Sequence[str]) -> int:
    cursor = conn.executemany(
        "DELETE FROM chunks WHERE document_id = ?", [(d,) for d in document_ids]
    )
    return max(int(cursor.rowcount), 0)


def partition_of(c: StoredChunk) -> str:
    """The partition a chunk is kept in (its ``_partition`` metadata, as text)."""
    partition = c.metadata.get(PARTITION_KEY, "")
    return partition if isinstance(partition, str) else json.dumps(partition)


def _row(c: StoredChunk) -> tuple[Any, ...]:
    return (
        c.id,
        c.document_id,
        partition_of(c),
        c.seq,
        c.start,
        c.end,
        c.content,
        c.content_hash,
        json.dumps(c.metadata, ensure_ascii=False, default=str),
        c.embedder if c.vector is not None else None,
        _blob(c.vector) if c.vector is not None else None,
        provenance_json(c.provenance),
        c.provenance.snapshot_id if c.provenance is not None else None,
        c.context,
    )


def chunk_of(r: tuple[Any, ...]) -> StoredChunk:
    vector = np.frombuffer(r[8], dtype=np.float32) if r[8] is not None else None
    provenance = provenance_from(r[1], r[2], r[3], r[4], _json(r[9]))
    return StoredChunk(
        r[0], r[1], r[2], r[3], r[4], r[5], _json(r[6]), r[7], vector, provenance, r[10]
    )


def match_of(r: tuple[Any, ...], score: float | None) -> Match:
    """A chunk read as ``MATCH_COLUMNS`` as a search result: what ``chunk_of(...).match``
    gives, without building the chunk."""
    return Match(
        r[0], score, r[5], _json(r[6]), provenance_from(r[1], r[2], r[3], r[4], _json(r[7]))
    )


def _json(text: str) -> Any:
    """Kept JSON read back (an empty object, the most common, without the parser); a NaN or
    an infinity, which metadata kept before they were refused may hold, reads as None."""
    return {} if text == "{}" else json.loads(text, parse_constant=_null)


def _null(_: str) -> None:
    """What a number JSON has not (``NaN``, ``Infinity``) reads as."""


def provenance_json(provenance: Provenance | None) -> str:
    """The provenance fields that have no column of their own, as JSON (nulls left out)."""
    if provenance is None:
        return "{}"
    fields = {
        k: getattr(provenance, k)
        for k in Provenance.__dataclass_fields__
        if k not in _LOCATION and getattr(provenance, k) is not None
    }
    if provenance.licence is not None:
        fields["licence"] = asdict(provenance.licence)
    if provenance.place is not None:
        fields["place"] = place_json(provenance.place)
    return json.dumps(fields, ensure_ascii=False)


def provenance_from(document_id: str, seq: int, start: int, end: int, extra: Any) -> Provenance:
    """A chunk's provenance from its columns and its provenance JSON (unknown keys ignored)."""
    if not extra:  # a plain mapping's chunk: its place only
        return Provenance(document_id, seq, start, end)
    known = {k: v for k, v in extra.items() if k in Provenance.__dataclass_fields__}
    licence = known.pop("licence", None)
    if isinstance(known.get("section"), list):
        known["section"] = tuple(str(heading) for heading in known["section"])
    if isinstance(licence, dict):
        known["licence"] = Licence(str(licence.get("name")), str(licence.get("url") or ""))
    if "place" in known:
        known["place"] = stored_place(known["place"])
    return Provenance(document_id, seq, start, end, **known)


def _blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()
