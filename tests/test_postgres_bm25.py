"""BM25 in the PostgreSQL store, held against a brute-force BM25 written out here over the
same passages: after many writes (blocks merged), replacements and deletes (postings hidden,
then dropped), and on a store made by the schema before packed postings, migrated."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import psycopg
import pytest

from citesift.index.lexical.passages import document_text
from citesift.index.lexical.tokens import Tokenizer
from citesift.index.partition import create_partitioned_rag
from citesift.index.postgres import PostgresIndex
from citesift.index.query import Query
from citesift.store.chunks import StoredChunk
from citesift.store.postgres import PostgresStore
from citesift.store.postgres.chunks import COMPONENT, MIGRATIONS
from citesift.store.postgres.postings import PURGE_AFTER, RECORD, compact

pytestmark = pytest.mark.timeout(300)

K1, B = 1.5, 0.75
WORDS = [
    *("tide", "moon", "ocean", "bee", "queen", "colony", "flower", "nectar", "crater"),
    *("rock", "star", "comet", "orbit", "planet", "river", "delta", "glacier", "valley"),
    *("forest", "fern", "moss", "lichen"),
]
QUERIES = ("moon tide", "queen colony bee", "rock crater comet star", "fern", "river zebra")
TOKENIZE = Tokenizer()


def made_chunks(rng: random.Random, document: str, count: int) -> list[StoredChunk]:
    """``count`` chunks of ``document``: a few random words each, now and then the same
    text twice (equal scores, ordered by row)."""
    chunks, start = [], 0
    text = ""
    for seq in range(count):
        if not text or rng.random() > 0.2:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))
        chunks.append(
            StoredChunk(f"{document}#{seq}", document, seq, start, start + len(text), text)
        )
        start += len(text) + 1
    return chunks


def brute_force(chunks: Sequence[StoredChunk], query: str, k: int) -> list[tuple[str, float]]:
    """The ``k`` best chunks holding a query term, by their own BM25 over the chunks and
    their document's over the documents, each scaled by its best, summed; ties by own score
    then by ``chunks`` order (the order they were stored in). Written out, one term and one
    passage at a time."""
    documents: dict[str, list[StoredChunk]] = {}
    for chunk in chunks:
        documents.setdefault(chunk.document_id, []).append(chunk)
    whole_texts = {
        d: document_text(
            [c.context for c in parts],
            [(c.start, c.end, c.content) for c in sorted(parts, key=lambda c: (c.start, c.seq))],
        )
        for d, parts in documents.items()
    }
    terms = list(dict.fromkeys(TOKENIZE(query)))
    own = _bm25({c.id: Counter(TOKENIZE(c.scored_text)) for c in chunks}, terms)
    whole = _bm25({d: Counter(TOKENIZE(t)) for d, t in whole_texts.items()}, terms)
    best_own, best_whole = max(own.values(), default=0.0), max(whole.values(), default=0.0)
    ranked = []
    for place, chunk in enumerate(chunks):
        mine, theirs = own.get(chunk.id, 0.0), whole.get(chunk.document_id, 0.0)
        if mine > 0:
            fused = (mine / best_own if best_own else mine) + (
                theirs / best_whole if best_whole else theirs
            )
            ranked.append((-fused, -mine, place, chunk.id))
    return [(i, -f) for f, _, _, i in sorted(ranked)[:k]]


def _bm25(counts: dict[str, Counter[str]], terms: list[str]) -> dict[str, float]:
    n = len(counts)
    mean = sum(sum(c.values()) for c in counts.values()) / n if n else 0.0
    scores = {}
    for name, held in counts.items():
        length, score = sum(held.values()), 0.0
        for term in terms:
            if held[term]:
                df = sum(1 for c in counts.values() if c[term])
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                norm = 1 - B + B * length / (mean if mean > 0 else 1.0)
                score += idf * held[term] * (K1 + 1) / (held[term] + K1 * norm)
        if score > 0:
            scores[name] = score
    return scores


def stored_in_order(url: str, chunks: dict[str, StoredChunk]) -> list[StoredChunk]:
    """The chunks held, in the order the store numbered them for their postings."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.id FROM chunks c JOIN chunk_owners o ON o.chunk = c.row_number"
            " ORDER BY o.number"
        ).fetchall()
    return [chunks[i] for (i,) in rows]


def assert_ranks_as_brute_force(
    index: PostgresIndex, url: str, held: dict[str, StoredChunk]
) -> None:
    ordered = stored_in_order(url, held)
    for query in QUERIES:
        for k in (1, 3, 10, len(ordered) + 1):
            got = [(m.id, m.score) for m in index.search(Query(query, k, "bm25"))]
            want = brute_force(ordered, query, k)
            assert [i for i, _ in got] == [i for i, _ in want], (query, k)
            assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)


@pytest.fixture
def index(postgres_url: str) -> Iterator[PostgresIndex]:
    opened = PostgresIndex(postgres_url)
    yield opened
    opened.close()


def test_many_writes_replacements_and_deletes_rank_as_brute_force(
    index: PostgresIndex, postgres_url: str
) -> None:
    rng = random.Random(7)
    held: dict[str, StoredChunk] = {}
    for write in range(40):
        documents = [f"d{write}-{n}" for n in range(rng.randint(1, 3))]
        chunks = [c for d in documents for c in made_chunks(rng, d, rng.randint(1, 5))]
        index.upsert(documents, chunks)
        held.update((c.id, c) for c in chunks)
    replaced = made_chunks(rng, "d3-0", 4)
    index.upsert(["d3-0"], replaced)
    held = {i: c for i, c in held.items() if c.document_id != "d3-0"} | {c.id: c for c in replaced}
    gone = ["d5-0", "d9-0", "d20-0"]
    assert index.delete(gone) > 0
    held = {i: c for i, c in held.items() if c.document_id not in gone}
    with psycopg.connect(postgres_url) as conn:
        [(blocks,)] = conn.execute("SELECT count(*) FROM posting_blocks").fetchall()
    assert blocks < 40  # blocks of like size were merged
    assert_ranks_as_brute_force(index, postgres_url, held)
    only = {"topic": "none"}
    assert index.search(Query("moon", 5, "bm25", filter=only)) == []


def test_deleted_chunks_postings_are_dropped_once_tombstones_are_many(
    index: PostgresIndex, postgres_url: str
) -> None:
    rng = random.Random(11)
    many = [
        StoredChunk(f"m#{n}", f"m{n // 50}", n % 50, 0, 4, f"w{n} {rng.choice(WORDS)}")
        for n in range(PURGE_AFTER + 200)
    ]
    kept = made_chunks(rng, "kept", 6)
    index.upsert([], many + kept)
    index.delete(sorted({c.document_id for c in many}))
    with psycopg.connect(postgres_url) as conn:
        dead = conn.execute("SELECT count(*) FROM dead_postings WHERE list = 'chunks'").fetchone()
        live = {n for (n,) in conn.execute("SELECT number FROM chunk_owners").fetchall()}
        data = conn.execute("SELECT data FROM chunks_postings").fetchall()
    owners = np.frombuffer(b"".join(d for (d,) in data), dtype=RECORD)["owner"]
    assert dead == (0,) and set(owners.tolist()) == live
    assert_ranks_as_brute_force(index, postgres_url, {c.id: c for c in kept})


def test_a_purge_in_slices_of_terms_keeps_every_live_posting(
    index: PostgresIndex, postgres_url: str
) -> None:
    """Blocks rewritten without their tombstones a term at a time (the smallest slice) hold
    the live postings only, and rank as before."""
    rng = random.Random(13)
    held: dict[str, StoredChunk] = {}
    for write in range(12):
        chunks = made_chunks(rng, f"s{write}", rng.randint(2, 6))
        index.upsert([], chunks)
        held.update((c.id, c) for c in chunks)
    gone = ["s1", "s4", "s7"]
    index.delete(gone)
    held = {i: c for i, c in held.items() if c.document_id not in gone}
    with psycopg.connect(postgres_url) as conn, conn.cursor() as cursor:
        for name in ("chunks", "documents"):
            compact(cursor, name, purge_after=0, slice_bytes=1)
    with psycopg.connect(postgres_url) as conn:
        dead = conn.execute("SELECT count(*) FROM dead_postings").fetchone()
        live = {n for (n,) in conn.execute("SELECT number FROM chunk_owners").fetchall()}
        data = conn.execute("SELECT data FROM chunks_postings").fetchall()
        blocks = conn.execute(
            "SELECT b.postings, sum(octet_length(p.data)) FROM posting_blocks b"
            " JOIN chunks_postings p USING (block) GROUP BY b.block"
        ).fetchall()
    owners = np.frombuffer(b"".join(d for (d,) in data), dtype=RECORD)["owner"]
    assert dead == (0,) and set(owners.tolist()) == live
    assert all(postings * RECORD.itemsize == size for postings, size in blocks)
    assert_ranks_as_brute_force(index, postgres_url, held)


def keys_held(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {d for (d,) in conn.execute("SELECT document_id FROM document_keys").fetchall()}


def test_document_keys_are_kept_only_for_documents_held(
    index: PostgresIndex, postgres_url: str
) -> None:
    """Deleting or emptying a document drops its key; ids named for deletion or replacement
    that were never stored get none; a document stored again ranks as new."""
    rng = random.Random(17)
    held = {c.id: c for d in ("a", "b", "c") for c in made_chunks(rng, d, 3)}
    index.upsert([], list(held.values()))
    assert keys_held(postgres_url) == {"a", "b", "c"}
    assert index.delete(["b", "never"]) == 3
    index.upsert(["c", "unknown"], [])
    held = {i: c for i, c in held.items() if c.document_id == "a"}
    assert keys_held(postgres_url) == {"a"}
    again = made_chunks(rng, "b", 4)
    index.upsert(["b"], again)
    assert keys_held(postgres_url) == {"a", "b"}
    assert_ranks_as_brute_force(index, postgres_url, held | {c.id: c for c in again})


def test_more_documents_than_the_lock_table_holds_are_written_and_deleted_at_once(
    index: PostgresIndex, postgres_url: str
) -> None:
    """A write or delete of thousands of documents in one call (past PostgreSQL's bounded
    lock table, were each document locked) goes through, and leaves no key behind."""
    with psycopg.connect(postgres_url) as conn:
        [(locks,)] = conn.execute("SHOW max_locks_per_transaction").fetchall()
        [(sessions,)] = conn.execute("SHOW max_connections").fetchall()
    count = 3 * int(locks) * int(sessions)  # the lock table is about the product
    many = [StoredChunk(f"n{n}#0", f"n{n}", 0, 0, 8, f"moon w{n}") for n in range(count)]
    kept = made_chunks(random.Random(19), "kept", 5)
    index.upsert([], many + kept)
    assert index.delete([c.document_id for c in many]) == len(many)
    assert keys_held(postgres_url) == {"kept"}
    assert_ranks_as_brute_force(index, postgres_url, {c.id: c for c in kept})


def test_keys_of_documents_no_longer_held_go_when_the_store_is_opened(
    postgres_url: str,
) -> None:
    with PostgresStore(postgres_url) as store:
        store.migrate(COMPONENT, MIGRATIONS[:5])  # before keys were pruned
    with psycopg.connect(postgres_url) as conn:
        conn.execute("INSERT INTO document_keys (document_id) VALUES ('gone'), ('never')")
    PostgresIndex(postgres_url).close()
    assert keys_held(postgres_url) == set()


def _old_rows(conn: psycopg.Connection[Any], chunks: Sequence[StoredChunk]) -> None:
    """Write ``chunks`` as the schema before packed postings held them: a row a posting."""
    lengths = {}
    for chunk in chunks:
        counts = Counter(TOKENIZE(chunk.scored_text))
        lengths[chunk.id] = sum(counts.values())
        conn.execute(
            "INSERT INTO chunks (id, document_id, seq, start, stop, content, content_hash,"
            " length) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (
                chunk.id,
                chunk.document_id,
                chunk.seq,
                chunk.start,
                chunk.end,
                chunk.content,
                chunk.content_hash,
                lengths[chunk.id],
            ),
        )
        for term, count in counts.items():
            conn.execute(
                "INSERT INTO chunk_terms (term, chunk_id, tf, length, document_id)"
                " VALUES (%s, %s, %s, %s, %s)",
                (term, chunk.id, count, lengths[chunk.id], chunk.document_id),
            )
    documents: dict[str, list[StoredChunk]] = {}
    for chunk in chunks:
        documents.setdefault(chunk.document_id, []).append(chunk)
    total = 0
    for document, parts in documents.items():
        text = document_text(
            [c.context for c in parts], [(c.start, c.end, c.content) for c in parts]
        )
        counts = Counter(TOKENIZE(text))
        total += sum(counts.values())
        conn.execute(
            "INSERT INTO document_texts (document_id, length) VALUES (%s, %s)",
            (document, sum(counts.values())),
        )
        for term, count in counts.items():
            conn.execute(
                "INSERT INTO document_terms (term, document_id, tf, length)"
                " VALUES (%s, %s, %s, %s)",
                (term, document, count, sum(counts.values())),
            )
    conn.execute(
        "INSERT INTO bm25_totals VALUES (%s, %s, %s, %s)",
        (len(chunks), sum(lengths.values()), len(documents), total),
    )


def test_a_store_of_the_row_per_posting_schema_is_migrated_and_ranks_alike(
    postgres_url: str,
) -> None:
    rng = random.Random(5)
    chunks = [c for n in range(12) for c in made_chunks(rng, f"old{n}", rng.randint(1, 4))]
    with PostgresStore(postgres_url) as store:
        store.migrate(COMPONENT, MIGRATIONS[:4])  # the schema before packed postings
    with psycopg.connect(postgres_url) as conn:
        _old_rows(conn, chunks)
    held = {c.id: c for c in chunks}
    index = PostgresIndex(postgres_url)
    try:
        with psycopg.connect(postgres_url) as conn:
            tables = {t for (t,) in conn.execute("SELECT tablename FROM pg_tables").fetchall()}
        assert "chunk_terms" not in tables and "chunks_postings" in tables
        assert_ranks_as_brute_force(index, postgres_url, held)
        index.delete(["old2"])
        fresh = made_chunks(rng, "old4", 3)
        index.upsert(["old4"], fresh)
        held = {i: c for i, c in held.items() if c.document_id not in {"old2", "old4"}}
        assert_ranks_as_brute_force(index, postgres_url, held | {c.id: c for c in fresh})
    finally:
        index.close()


def test_a_store_numbering_postings_by_row_is_migrated_and_numbers_past_its_tombstones(
    postgres_url: str,
) -> None:
    """A store from before chunks were numbered beside their rows keeps its postings' numbers
    (its row numbers), and numbers new chunks past every row number it gave, so no new chunk
    takes a number a tombstone still hides."""
    rng = random.Random(9)
    chunks = [c for n in range(6) for c in made_chunks(rng, f"old{n}", 3)]
    with PostgresStore(postgres_url) as store:
        store.migrate(COMPONENT, MIGRATIONS[:4])
        with psycopg.connect(postgres_url) as conn:
            _old_rows(conn, chunks)
        store.migrate(COMPONENT, MIGRATIONS[:-1])  # packed postings, numbered by row
    with psycopg.connect(postgres_url) as conn:  # the last document dropped as that store did
        for table, number, name in (
            ("chunks", "row_number", "chunks"),
            ("document_texts", "version", "documents"),
        ):
            [(count, length)] = conn.execute(
                f"WITH gone AS (DELETE FROM {table} WHERE document_id = 'old5'"
                f" RETURNING {number} AS number, length), dead AS (INSERT INTO dead_postings"
                f" SELECT '{name}', number FROM gone) SELECT count(*), sum(length)"
                " FROM gone".encode()
            ).fetchall()
            totals = (-count, -length, 0, 0) if name == "chunks" else (0, 0, -count, -length)
            conn.execute("INSERT INTO bm25_totals VALUES (%s, %s, %s, %s)", totals)
    held = {c.id: c for c in chunks if c.document_id != "old5"}
    index = PostgresIndex(postgres_url)
    try:
        with psycopg.connect(postgres_url) as conn:
            kept = conn.execute(
                "SELECT count(*) FROM chunks c JOIN chunk_owners o ON o.chunk = c.row_number"
                " WHERE o.number = c.row_number"
            ).fetchone()
        assert kept == (len(held),)
        fresh = made_chunks(rng, "new", 3)
        index.upsert([], fresh)
        with psycopg.connect(postgres_url) as conn:
            [(low,)] = conn.execute(
                "SELECT min(o.number) FROM chunks c JOIN chunk_owners o"
                " ON o.chunk = c.row_number WHERE c.document_id = 'new'"
            ).fetchall()
        assert low > len(chunks)  # past the last row number, whose tombstone is held
        assert_ranks_as_brute_force(index, postgres_url, held | {c.id: c for c in fresh})
    finally:
        index.close()


def test_partitions_on_postgresql_rank_as_on_the_embedded_store(
    postgres_url: str, tmp_path: Any
) -> None:
    """Two partitions sharing one store: each search sees its own documents only, ranked and
    scored as the embedded store ranks them, before and after one is replaced and deleted."""
    rng = random.Random(3)
    texts = {
        part: [
            {"id": f"{part}{n}", "content": " ".join(rng.choice(WORDS) for _ in range(40))}
            for n in range(6)
        ]
        for part in ("north", "south")
    }
    stores = {"postgres": postgres_url, "embedded": str(tmp_path / "embedded.db")}
    opened = {
        (kind, part): create_partitioned_rag(part, store=where, retrieval="bm25", chunk_size=80)
        for kind, where in stores.items()
        for part in texts
    }

    def hits(kind: str, part: str, query: str) -> list[tuple[str, float]]:
        found = opened[kind, part].search(query, 5)
        assert {h.provenance.document_id for h in found} <= {d["id"] for d in texts[part]}
        return [(h.id, h.score) for h in found]

    def same_everywhere() -> None:
        found = 0
        for part in texts:
            for query in QUERIES:
                got, want = hits("postgres", part, query), hits("embedded", part, query)
                found += len(got)
                assert [i for i, _ in got] == [i for i, _ in want], (part, query)
                assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)
        assert found >= 30

    for (_, part), rag in opened.items():
        rag.ingest(texts[part])
    same_everywhere()
    for (_, part), rag in opened.items():
        if part == "north":
            rag.ingest([{"id": "north1", "content": "moon tide moon tide fern"}])
            rag.delete(["north2"])
    same_everywhere()
    for rag in opened.values():
        rag.close()
