"""Re-tokenizing benchmark: how long opening a PostgreSQL store takes when its BM25 postings
were made by earlier tokenizer rules, and once they are not.

    python bench/retokenize.py --store postgresql://... [--chunks 100000] [--share 0.1]
        [--dim 384]

Fills the (empty) database with ``--chunks`` generated passages, ten a document, of which a
share ``--share``, drawn passage by passage with a fixed seed, holds text that is not ASCII
(vocalised Arabic, Thai, Hindi, decomposed accents, among made-up words), each with a random
unit vector of ``--dim`` numbers (0: none), as an embedded store's passages have: a passage
made again gets a new number for its postings, beside its row, which (with its vector in the
HNSW index) is left as it is. Marks the store as made by the rules of version 1, then times
the open that makes the postings again, and a second open, which finds nothing to do.
``bench/pgserver.py`` starts a server.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from citesift.index.postgres import PostgresIndex
from citesift.store.chunks import StoredChunk

SEED = 11
PER_DOCUMENT = 10
DOCUMENTS_PER_WRITE = 100
EMBEDDER = "bench-random"
VOCABULARY = 20_000
"""Made-up English-like words, drawn by Zipf's law (the n-th as often as 1/n)."""
FOREIGN = (
    "كَتَبَ الطَّالِبُ الدَّرْسَ فِي المَدْرَسَةِ الكَبِيرَةِ وَقَرَأَ الكِتَابَ",
    "ภาษาไทยเป็นภาษาราชการของประเทศไทย กรุงเทพมหานครเป็นเมืองหลวง",
    "हिन्दी भारत की राजभाषा है और दिल्ली भारत की राजधानी है",
    "le cafe\u0301 de la gare et une cre\u0300me bru\u0302le\u0301e",
)


def passages(count: int, share: float, dim: int) -> list[list[StoredChunk]]:
    """``count`` passages of about 40 words, ten a document, a ``share`` of them holding
    one of ``FOREIGN`` among their words, each with a random unit vector of ``dim`` numbers
    (none when 0)."""
    rng = random.Random(SEED)
    vectors = np.random.default_rng(SEED).standard_normal((count, dim), dtype=np.float32)
    if dim:
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    letters = "bcdfghklmnprstvw"
    vowels = "aeiou"
    words = [
        "".join(rng.choice(letters) + rng.choice(vowels) for _ in range(rng.randint(2, 4)))
        for _ in range(VOCABULARY)
    ]
    weights = [1 / rank for rank in range(1, VOCABULARY + 1)]
    documents = []
    for d in range(0, count, PER_DOCUMENT):
        chunks, start = [], 0
        for seq in range(min(PER_DOCUMENT, count - d)):
            drawn = rng.choices(words, weights, k=rng.randint(30, 50))
            if rng.random() < share:
                drawn.insert(rng.randrange(len(drawn)), rng.choice(FOREIGN))
            text = " ".join(drawn)
            vector = vectors[d + seq] if dim else None
            chunks.append(
                StoredChunk(
                    f"d{d}#{seq}",
                    f"d{d}",
                    seq,
                    start,
                    start + len(text),
                    text,
                    embedder=EMBEDDER if dim else None,
                    vector=vector,
                )
            )
            start += len(text) + 1
        documents.append(chunks)
    return documents


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True, help="an empty database's postgresql:// URL")
    parser.add_argument("--chunks", type=int, default=100_000, help="passages to store")
    parser.add_argument("--share", type=float, default=0.1, help="passages not ASCII only")
    parser.add_argument("--dim", type=int, default=384, help="each passage's vector size (0: none)")
    args = parser.parse_args(argv)
    import psycopg

    documents = passages(args.chunks, args.share, args.dim)
    affected = sum(1 for d in documents for c in d if not c.content.isascii())
    started = time.perf_counter()
    index = PostgresIndex(args.store)
    try:
        for n in range(0, len(documents), DOCUMENTS_PER_WRITE):
            some = documents[n : n + DOCUMENTS_PER_WRITE]
            index.upsert([d[0].document_id for d in some], [c for d in some for c in d])
    finally:
        index.close()
    print(
        f"stored {args.chunks:,} passages ({affected:,} not ASCII only;"
        f" {f'vectors of {args.dim}' if args.dim else 'no vectors'}) in "
        f"{time.perf_counter() - started:.1f} s",
        flush=True,
    )
    with psycopg.connect(args.store) as conn:
        conn.execute("UPDATE bm25_tokenizer SET version = 1")
        [(before,)] = conn.execute("SELECT max(number) FROM chunk_owners").fetchall()
    for label in ("open making the postings again", "open with nothing to do"):
        started = time.perf_counter()
        PostgresIndex(args.store).close()
        print(f"{label}: {time.perf_counter() - started:.2f} s", flush=True)
    with psycopg.connect(args.store) as conn:
        [(after,)] = conn.execute("SELECT max(number) FROM chunk_owners").fetchall()
        [(version,)] = conn.execute("SELECT version FROM bm25_tokenizer").fetchall()
    print(f"passages made again: {after - before:,}; the store's rules now: version {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
