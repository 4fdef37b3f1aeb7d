"""Scale benchmark: an index of up to a million passages, built from real text cut and
recombined with a fixed seed, measured in one run.

    python bench/scale.py [--store FILE|postgresql://...] [--sizes 10000,100000,1000000]
                          [--sections bm25,warm,dense] [--crawl] [--data DIR] [--wikipedia DIR]

Passages come from the SciFact corpus and the recorded Wikipedia pages: each made-up document
is a few runs of consecutive sentences from random sources under a SciFact title, indexed
with ``create_rag``'s defaults (sentence-bounded passages of up to 512 characters). One index
grows through ``--sizes``; at each size it prints the ingest rate (no embeddings), the BM25
latency (p50/p99 of SciFact claims, top 10, one at a time), the peak memory and the store's
size, and finally the time to reopen the largest index and answer a first query. Separate
sections give the ingest rate with the embedding cache warm (a stand-in hash embedder: no
hour of CPU spent on a model) and dense search through the embedded store at each size:
the exact product's latency, the search the store used (its HNSW index past
``--ann-threshold``), its latency and recall@10 against the exact result, over vectors of
real passages embedded by the default model and mixed with a fixed seed, then the time to
reopen the largest store and answer a first dense query. ``--crawl`` ends with a crawl of
a local 2,000-page site by 1, 2 and 4 workers sharing the store's frontier
(``bench/crawl_workers.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from tools import require_data

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SCIFACT = ROOT.parent / "shared" / "bench" / "retrieval" / "scifact"
DEFAULT_WIKIPEDIA = ROOT.parent / "shared" / "fixtures" / "wikipedia" / "pages"
SECTIONS = ("bm25", "warm", "dense")
SEED = 16
QUERIES = 200
DOCS_PER_STEP = 500
DIM = 384
DENSE_PASSAGES = 2000
DENSE_QUERIES = 200
DENSE_STEP = 10_000
MIX_BLOCK = 10_000
MIX_NOISE = 0.01
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")


def sentences(scifact: Path, wikipedia: Path) -> tuple[list[list[str]], list[str]]:
    """Real text as sources (each a list of sentences in order) and SciFact's titles."""
    from selectolax.lexbor import LexborHTMLParser

    sources, titles = [], []
    for line in (scifact / "corpus.jsonl").open(encoding="utf-8"):
        doc = json.loads(line)
        titles.append(doc["title"])
        sources.append(_SENTENCE.split(doc["text"]))
    for page in sorted(wikipedia.glob("*.html")):
        tree = LexborHTMLParser(page.read_text(encoding="utf-8", errors="replace"))
        for paragraph in tree.css("p"):
            text = " ".join(paragraph.text().split())
            if len(text) > 80:
                sources.append(_SENTENCE.split(text))
    return [s for s in sources if s], titles


def documents(sources: list[list[str]], titles: list[str], seed: int) -> Iterator[dict[str, Any]]:
    """Made-up documents, endlessly: two to four runs of two to eight consecutive sentences,
    each from a random source, under a random title (the same seed gives the same ones)."""
    rng = random.Random(seed)
    number = 0
    while True:
        runs = []
        for _ in range(rng.randint(2, 4)):
            source = rng.choice(sources)
            start = rng.randrange(len(source))
            runs.append(" ".join(source[start : start + rng.randint(2, 8)]))
        number += 1
        yield {
            "id": f"d{number}",
            "content": "\n\n".join(runs),
            "metadata": {"title": rng.choice(titles)},
        }


def claims(scifact: Path, count: int, seed: int) -> list[str]:
    texts = [
        json.loads(line)["text"] for line in (scifact / "queries.jsonl").open(encoding="utf-8")
    ]
    random.Random(seed).shuffle(texts)
    return texts[:count]


def latencies_ms(search: Any, queries: Sequence[Any]) -> tuple[float, float, float]:
    """p50 and p99 in milliseconds of ``search(query)`` over ``queries``, one at a time, and
    the p50 of the CPU time this process spent on each (on a shared machine, what a query
    costs whatever the other processes do)."""
    took, cpu = [], []
    for query in queries:
        started, spent = time.perf_counter(), time.process_time()
        search(query)
        took.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - spent) * 1000)
    return statistics.median(took), float(np.percentile(took, 99)), statistics.median(cpu)


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def store_mb(store: str) -> float:
    """The store's size: the SQLite file and its journal, or the PostgreSQL database."""
    if store.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store) as conn:
            row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        return float(row[0]) / 1e6 if row else 0.0
    return sum(p.stat().st_size for p in Path(store).parent.glob(Path(store).name + "*")) / 1e6


def server_cpu_s(store: str, sessions_only: bool = False) -> float | None:
    """CPU seconds the PostgreSQL server has spent so far, its ended sessions included, when
    it runs on this machine and its processes can be read (else None): with the server on
    the same shared cores, what ingest costs it whatever the other work does. With
    ``sessions_only``, only the sessions open on the database now (a query's cost, without
    the vacuuming that follows ingest)."""
    if not store.startswith("postgresql://"):
        return None
    try:
        import psutil
        import psycopg

        with psycopg.connect(store) as conn:
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            sessions = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
            ).fetchall()
        server = psutil.Process(row[0] if row else 0).parent()
        if server is None or not server.name().startswith("postgres"):
            return None
        if sessions_only:
            processes = [psutil.Process(pid) for (pid,) in sessions if psutil.pid_exists(pid)]
            spent = 0.0
        else:
            processes = server.children()
            own = server.cpu_times()  # its children's: the sessions and workers it reaped
            spent = own.user + own.system + own.children_user + own.children_system
        for child in processes:
            with contextlib.suppress(psutil.Error):  # one that ended meanwhile
                times = child.cpu_times()
                spent += times.user + times.system
        return spent
    except Exception:  # not local, not readable, or psutil missing: no figure
        return None


def open_rag(store: str, embedder: Any = None, retrieval: str = "bm25") -> Any:
    from citesift.index.rag import create_rag

    return create_rag(embedder, store, retrieval)


def emptied(store: str) -> None:
    """A PostgreSQL index emptied of every document (a SQLite file starts empty)."""
    if store.startswith("postgresql://"):
        from citesift.index.postgres import PostgresIndex

        index = PostgresIndex(store)
        index.delete([d.id for d in index.documents()])
        index.close()


def close(rag: Any) -> None:
    chunks = rag.store
    target = getattr(chunks, "sqlite", None) or chunks
    target.close()


class HashEmbedder:
    """Deterministic pseudo-random unit vectors from a text's hash: a stand-in model, so the
    warm-cache ingest measures the cache and the store, not a model."""

    name, dim = "bench-hash-384", DIM

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = [
            np.random.default_rng(
                int(hashlib.sha256(t.encode()).hexdigest()[:16], 16)
            ).standard_normal(DIM)
            for t in texts
        ]
        out = np.array(rows, dtype=np.float32).reshape(len(texts), DIM)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def bm25_rows(args: argparse.Namespace, store: str) -> list[str]:
    """Grow one index through the sizes, measuring each; then reopen it and query once."""
    sources, titles = sentences(args.data, args.wikipedia)
    queries = claims(args.data, QUERIES, args.seed)
    emptied(store)
    rag = open_rag(store)
    docs = documents(sources, titles, args.seed)
    server = server_cpu_s(store) is not None
    lines = [
        "| passages | ingest passages/s (CPU s) | BM25 p50 ms | p99 ms | p50 CPU ms"
        + (" | ingest passages per server CPU s | BM25 server CPU ms" if server else "")
        + " | peak RSS MB | store MB |",
        "|---|---|---|---|---|---|---|" + ("---|---|" if server else ""),
    ]
    passages, spent, cpu = 0, 0.0, 0.0
    served: float | None = 0.0  # None once a reading of the server failed: no figure
    for size in args.sizes:
        started, used, before = time.perf_counter(), time.process_time(), server_cpu_s(store)
        while passages < size:
            passages += rag.ingest([next(docs) for _ in range(DOCS_PER_STEP)])
            print(f"  {passages:,} passages", file=sys.stderr, end="\r")
        spent += time.perf_counter() - started
        cpu += time.process_time() - used
        grew = _since(before, store)
        served = None if served is None or grew is None else served + grew
        rag.search(queries[0], 10)  # the first search after a change may finish the index
        before = server_cpu_s(store, sessions_only=True)
        p50, p99, p50_cpu = latencies_ms(lambda q: rag.search(q, 10), queries)
        asked = _since(before, store, sessions_only=True)
        per_cpu = f"{passages / served:,.0f}" if served else "n/a"
        per_query = "n/a" if asked is None else f"{asked / len(queries) * 1000:.1f}"
        on_server = f" | {per_cpu} | {per_query}" if server else ""
        lines.append(
            f"| {passages:,} | {passages / spent:,.0f} ({passages / cpu:,.0f}) | {p50:.1f}"
            f" | {p99:.1f} | {p50_cpu:.1f}{on_server} | {peak_mb():,.0f}"
            f" | {store_mb(store):,.0f} |"
        )
        print(lines[-1], file=sys.stderr)
    close(rag)
    started, used = time.perf_counter(), time.process_time()
    rag = open_rag(store)
    rag.search(queries[1], 10)
    reopened, reopened_cpu = time.perf_counter() - started, time.process_time() - used
    close(rag)
    lines.append(
        f"\nReopen the {passages:,}-passage index and answer a first query: {reopened:.2f} s"
        f" ({reopened_cpu:.2f} s of CPU)"
    )
    return lines


def _since(before: float | None, store: str, sessions_only: bool = False) -> float | None:
    """The server's CPU seconds since ``before``; None when either reading failed, so a
    missed reading shows as no figure rather than as a server that spent nothing."""
    now = server_cpu_s(store, sessions_only)
    return now - before if now is not None and before is not None else None


def warm_cache_row(args: argparse.Namespace, store: str) -> str:
    """Ingest with every passage's vector already in the embedding cache (a stand-in
    embedder fills it first), over the first size's worth of documents."""
    sources, titles = sentences(args.data, args.wikipedia)
    docs = documents(sources, titles, args.seed + 1)
    batch = [next(docs) for _ in range(max(args.sizes[0] // 4, DOCS_PER_STEP))]
    emptied(store)
    rag = open_rag(store, HashEmbedder(), "hybrid")
    rag.ingest(batch)  # fills the cache
    rag.delete([d["id"] for d in batch])
    started = time.perf_counter()
    used = time.process_time()
    passages = rag.ingest(batch)
    rate = passages / (time.perf_counter() - started)
    rate_cpu = passages / (time.process_time() - used)
    close(rag)
    return (
        f"Ingest with the embedding cache warm ({passages:,} passages, stand-in hash"
        f" embedder, {DIM} dims): {rate:,.0f} passages/s ({rate_cpu:,.0f} per CPU second)"
    )


def dense_rows(args: argparse.Namespace) -> list[str]:
    """Dense search through the embedded store at each size, over realistic vectors: real
    passages and claims embedded by the default MiniLM model, mixed into as many vectors as
    needed. Per size: the exact product's p50 (CPU, its own process), the search the store
    used and its p50, recall@10 against the exact result, the time the growth to that size
    and its first dense search took, with the ANN build it starts when the threshold is
    crossed (waited for: the searches measured go through the index); then the time to
    reopen the largest store and answer a first query, and the peak memory."""
    from citesift.index.local import LocalStore
    from citesift.index.query import Query

    name, base, probes = embedded(args)
    with tempfile.TemporaryDirectory(prefix="citesift-dense-") as folder:
        path = Path(folder) / "dense.db"
        store = LocalStore(path, ann_threshold=args.ann_threshold)
        lines = [
            f"Vectors: {len(base):,} real passages embedded by {name}, mixed into N"
            f" (fixed seed); queries: {len(probes)} SciFact claims, top 10; ANN past"
            f" {args.ann_threshold:,} vectors\n",
            "| vectors | exact p50 ms (CPU) | search used | its p50 ms (CPU) | recall@10 vs exact"
            " | grow + first search s |",
            "|---|---|---|---|---|---|",
        ]
        made = 0
        for size in args.sizes:
            grown = time.perf_counter()
            while made < size:
                step = min(DENSE_STEP, size - made)
                store.upsert(*mixed_chunks(base, made, step, name, args.seed))
                made += step
                print(f"  {made:,} vectors", file=sys.stderr, end="\r")
            ask = Query("", 10, "dense", probes[0], name)
            store.search(ask)
            store.wait_for_dense(name)
            grew = time.perf_counter() - grown
            with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
                exact_ms, truth = pool.submit(exact_truth, base, made, probes, args.seed).result()
            queries = [Query("", 10, "dense", p, name) for p in probes]
            p50, _, cpu = latencies_ms(store.search, queries)
            found = sum(
                len({m.id for m in store.search(q)} & set(t))
                for q, t in zip(queries, truth, strict=True)
            )
            info = store.dense_info(name)
            used = info.kind if info else "none"
            lines.append(
                f"| {made:,} | {exact_ms} | {used} | {p50:.1f} ({cpu:.1f})"
                f" | {found / (10 * len(queries)):.3f} | {grew:.0f} |"
            )
            print(lines[-1], file=sys.stderr)
        store.close()
        reopened, used = time.perf_counter(), time.process_time()
        store = LocalStore(path, ann_threshold=args.ann_threshold)
        store.search(Query("", 10, "dense", probes[1], name))
        took, took_cpu = time.perf_counter() - reopened, time.process_time() - used
        info = store.wait_for_dense(name)  # the index is read (or built) in the background
        ready = time.perf_counter() - reopened
        store.close()
        rebuilt = "rebuilt" if info and info.builds else "read from its file, not rebuilt"
        size_mb = sum(p.stat().st_size for p in Path(folder).iterdir()) / 1e6
        lines.append(
            f"\nReopen the {made:,}-vector store and answer a first dense query: {took:.2f} s"
            f" ({took_cpu:.2f} s of CPU; exact until the index is read); index"
            f" ready after {ready:.2f} s ({rebuilt}); store and index on disk: {size_mb:,.0f} MB"
        )
    return lines


def dense_section(args: argparse.Namespace) -> tuple[list[str], float]:
    """``dense_rows`` and the peak memory of the process that ran them."""
    return dense_rows(args), peak_mb()


def embedded(args: argparse.Namespace) -> tuple[str, np.ndarray, np.ndarray]:
    """The embedder's name, the real passages' vectors and the claims', embedded by the
    default model (read from ``--vectors`` when it holds them, else saved there)."""
    from citesift.index.embedders.minilm import default_embedder

    embedder = default_embedder()
    if args.vectors and args.vectors.exists():
        kept = np.load(args.vectors)
        if str(kept["name"]) == embedder.name and len(kept["base"]) == args.passages:
            return embedder.name, kept["base"], kept["probes"]
    started = time.perf_counter()
    passages = real_passages(args.data, args.wikipedia, args.passages, args.seed)
    base = embedder.embed(passages)
    probes = embedder.embed(claims(args.data, DENSE_QUERIES, args.seed))
    print(
        f"  embedded {len(passages):,} passages and {len(probes)} claims"
        f" in {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    if args.vectors:
        np.savez(args.vectors, name=embedder.name, base=base, probes=probes)
    return embedder.name, base, probes


def real_passages(scifact: Path, wikipedia: Path, count: int, seed: int) -> list[str]:
    """``count`` real passages: SciFact abstracts and paragraphs of the recorded Wikipedia
    pages, cut to about 512 characters at sentence ends, picked with ``seed``."""
    out = []
    for sentences_of in sentences(scifact, wikipedia)[0]:
        passage = ""
        for sentence in sentences_of:
            if passage and len(passage) + len(sentence) > 512:
                out.append(passage)
                passage = ""
            passage = f"{passage} {sentence}".strip()
        if passage:
            out.append(passage)
    random.Random(seed).shuffle(out)
    return out[:count]


def mixed_vectors(base: np.ndarray, first: int, count: int, seed: int) -> np.ndarray:
    """Vectors ``first`` to ``first + count`` of an endless, seeded sequence: the first ones
    are the real vectors, the others ``a v_i + (1 - a) v_j`` plus a little noise, normalised
    (a from 0.5 to 1): sentence embeddings' own neighbourhoods, many times over."""
    out = np.empty((count, base.shape[1]), dtype=np.float32)
    for block in range(first // MIX_BLOCK, (first + count - 1) // MIX_BLOCK + 1):
        rng = np.random.default_rng([seed, block])
        i = rng.integers(0, len(base), MIX_BLOCK)
        j = rng.integers(0, len(base), MIX_BLOCK)
        a = rng.uniform(0.5, 1.0, (MIX_BLOCK, 1)).astype(np.float32)
        noise = rng.standard_normal((MIX_BLOCK, base.shape[1]), dtype=np.float32)
        rows = a * base[i] + (1 - a) * base[j] + MIX_NOISE * noise
        if block == 0:
            rows[: len(base)] = base[:MIX_BLOCK]
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        lo, hi = max(first, block * MIX_BLOCK), min(first + count, (block + 1) * MIX_BLOCK)
        out[lo - first : hi - first] = rows[lo - block * MIX_BLOCK : hi - block * MIX_BLOCK]
    return out


def mixed_chunks(
    base: np.ndarray, first: int, count: int, embedder: str, seed: int
) -> tuple[list[str], list[Any]]:
    """Documents of ten chunks each carrying mixed vectors ``first`` onwards, to upsert."""
    from citesift.store.chunks import StoredChunk

    vectors = mixed_vectors(base, first, count, seed)
    chunks = [
        StoredChunk(f"v{n}", f"doc{n // 10}", n % 10, 0, 1, f"p{n}", {}, embedder, vector)
        for n, vector in zip(range(first, first + count), vectors, strict=True)
    ]
    return list(dict.fromkeys(c.document_id for c in chunks)), chunks


def exact_truth(
    base: np.ndarray, size: int, probes: np.ndarray, seed: int
) -> tuple[str, list[list[str]]]:
    """The exact product over the first ``size`` mixed vectors (in its own process, so its
    matrix is not counted in the store's memory): its p50 (CPU) and each probe's top 10."""
    from citesift.index.vectors import VectorIndex

    index = VectorIndex(base.shape[1])
    for first in range(0, size, DENSE_STEP):
        count = min(DENSE_STEP, size - first)
        index.add(
            [f"v{n}" for n in range(first, first + count)], mixed_vectors(base, first, count, seed)
        )
    p50, _, cpu = latencies_ms(lambda q: index.search(q, 10), list(probes))
    return f"{p50:.1f} ({cpu:.1f})", [[i for i, _ in index.search(q, 10)] for q in probes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--store",
        default=None,
        help="a SQLite file (default: a new one in a temp folder) or a postgresql:// URL",
    )
    parser.add_argument(
        "--sizes", default="10000,100000,1000000", help="passage counts, comma-separated"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_SCIFACT, help="BEIR SciFact folder")
    parser.add_argument(
        "--wikipedia",
        type=Path,
        default=DEFAULT_WIKIPEDIA,
        help="a folder of recorded Wikipedia pages (.html) mixed into the passages",
    )
    parser.add_argument(
        "--seed", type=int, default=SEED, help="picks and mixes the text (same seed, same index)"
    )
    parser.add_argument(
        "--passages",
        type=int,
        default=DENSE_PASSAGES,
        help="real passages the dense section embeds and mixes",
    )
    parser.add_argument(
        "--vectors",
        type=Path,
        default=None,
        help="an .npz file keeping the dense section's embedded passages between runs",
    )
    parser.add_argument(
        "--ann-threshold",
        type=int,
        default=None,
        help="vectors past which the store searches by HNSW (default: the library's)",
    )
    parser.add_argument(
        "--crawl",
        action="store_true",
        help="last, crawl a 2,000-page loopback site with 1, 2 and 4 workers in the store",
    )
    parser.add_argument(
        "--sections", default=",".join(SECTIONS), help=f"which of {', '.join(SECTIONS)} to run"
    )
    args = parser.parse_args(argv)
    sections = {s.strip() for s in args.sections.split(",") if s.strip()}
    if not sections <= set(SECTIONS):
        parser.error(f"--sections: choose from {', '.join(SECTIONS)}")
    if args.ann_threshold is None:
        from citesift.index.dense import ANN_THRESHOLD

        args.ann_threshold = ANN_THRESHOLD
    args.sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip())
    require_data(args.data, "BEIR SciFact", ["corpus.jsonl", "queries.jsonl"])
    require_data(args.wikipedia, "recorded Wikipedia pages", ["*.html"], "--wikipedia")
    with tempfile.TemporaryDirectory(prefix="citesift-scale-") as folder:
        store = args.store or str(Path(folder) / "scale.db")
        warm = args.store or str(Path(folder) / "warm.db")
        kind = "PostgreSQL" if store.startswith("postgresql://") else "SQLite (embedded)"
        print(f"# store: {kind}; seed {args.seed}")
        if "bm25" in sections:
            print("\n## BM25, no embeddings\n")
            print("\n".join(bm25_rows(args, store)))
        if "warm" in sections:
            print("\n## Embedding cache warm\n")
            print(warm_cache_row(args, warm))
        if args.crawl:
            from crawl_workers import crawl_scaling

            print("\n## Crawl with 1, 2, 4 workers (limiter relaxed)\n", flush=True)
            crawl_scaling(args.store or str(Path(folder) / "crawl.db"))
    if "dense" in sections:
        print("\n## Dense search (real embeddings mixed; the embedded store)\n", flush=True)
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            lines, peak = pool.submit(dense_section, args).result()
        print("\n".join(lines))
        print(f"\nDense section peak RSS (the store's own process): {peak:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
