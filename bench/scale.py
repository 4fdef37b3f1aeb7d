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
sections give the ingest rate with the embedding cache warm and dense search latency (exact
product, and an HNSW index past the size where the product exceeds 50 ms, with its
recall@10 against the exact result) over synthetic vectors, so no hour of CPU is spent on
embeddings: the output says so. ``--crawl`` ends with a crawl of a local 2,000-page site by
1, 2 and 4 workers sharing the store's frontier (``bench/crawl_workers.py``).
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
EXACT_BUDGET_MS = 50.0
"""Past this p50, dense search goes through an ANN index (HNSW) instead of the product."""
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


def open_rag(store: str, embedder: Any = None, mode: str = "bm25") -> Any:
    from citesift.index.rag import create_rag

    return create_rag(embedder, store, mode)


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
    passages, spent, cpu, served = 0, 0.0, 0.0, 0.0
    for size in args.sizes:
        started, used, before = time.perf_counter(), time.process_time(), server_cpu_s(store)
        while passages < size:
            passages += rag.ingest([next(docs) for _ in range(DOCS_PER_STEP)])
            print(f"  {passages:,} passages", file=sys.stderr, end="\r")
        spent += time.perf_counter() - started
        cpu += time.process_time() - used
        served += _since(before, store)
        rag.search(queries[0], 10)  # the first search after a change may finish the index
        before = server_cpu_s(store, sessions_only=True)
        p50, p99, p50_cpu = latencies_ms(lambda q: rag.search(q, 10), queries)
        query_server = _since(before, store, sessions_only=True) / len(queries) * 1000
        per_cpu = f"{passages / served:,.0f}" if served else "n/a"
        on_server = f" | {per_cpu} | {query_server:.1f}" if server else ""
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


def _since(before: float | None, store: str, sessions_only: bool = False) -> float:
    """The server's CPU seconds since ``before`` (0 when not known)."""
    now = server_cpu_s(store, sessions_only)
    return now - before if now is not None and before is not None else 0.0


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


def dense_rows(sizes: Sequence[int], seed: int) -> list[str]:
    """Dense latency over synthetic clustered unit vectors (no model): the exact product
    while its p50 stays under the budget, HNSW past it with recall@10 against exact."""
    from citesift.index.vectors import VectorIndex

    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((1000, DIM)).astype(np.float32)
    lines = [
        "| vectors | exact p50 ms (CPU) | search used | its p50 ms | recall@10 vs exact"
        " | build s |",
        "|---|---|---|---|---|---|",
    ]
    index = VectorIndex(DIM)
    made = 0
    for size in sizes:
        while made < size:
            step = min(100_000, size - made)
            picked = centres[rng.integers(0, len(centres), step)]
            index.add(
                [f"v{made + i}" for i in range(step)],
                picked + rng.standard_normal((step, DIM), dtype=np.float32),
            )
            made += step
        probes = index._matrix[rng.integers(0, made, 50)] + 0.3 * rng.standard_normal(
            (50, DIM), dtype=np.float32
        )
        exact = [index.search(q, 10) for q in probes]
        p50, _, cpu = latencies_ms(lambda q: index.search(q, 10), list(probes))
        exact_ms = f"{p50:.1f} ({cpu:.1f})"
        if cpu <= EXACT_BUDGET_MS:
            lines.append(f"| {made:,} | {exact_ms} | exact | {p50:.1f} | 1.000 | 0 |")
            continue
        ann_p50, recall, built = _hnsw(index._matrix[:made], probes, exact)
        lines.append(
            f"| {made:,} | {exact_ms} | HNSW | {ann_p50:.1f} | {recall:.3f} | {built:.0f} |"
        )
    return lines


def _hnsw(
    matrix: np.ndarray, probes: np.ndarray, exact: list[list[tuple[str, float]]]
) -> tuple[float, float, float]:
    """An HNSW index over ``matrix`` (cosine): its p50, recall@10 against ``exact``, build s."""
    import hnswlib

    started = time.perf_counter()
    ann = hnswlib.Index(space="ip", dim=matrix.shape[1])
    ann.init_index(max_elements=len(matrix), ef_construction=100, M=16)
    ann.add_items(matrix, np.arange(len(matrix)), num_threads=2)
    ann.set_ef(200)
    built = time.perf_counter() - started
    took, hits = [], 0
    for probe, truth in zip(probes, exact, strict=True):
        query = probe / np.linalg.norm(probe)
        start = time.perf_counter()
        labels, _ = ann.knn_query(query, k=10)
        took.append((time.perf_counter() - start) * 1000)
        hits += len({f"v{i}" for i in labels[0]} & {i for i, _ in truth})
    return statistics.median(took), hits / (10 * len(probes)), built


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
    parser.add_argument("--wikipedia", type=Path, default=DEFAULT_WIKIPEDIA)
    parser.add_argument("--seed", type=int, default=SEED)
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
    args.sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip())
    require_data(args.data, "BEIR SciFact", ["corpus.jsonl", "queries.jsonl"])
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
        print("\n## Dense search (synthetic clustered vectors, 384 dims; no model run)\n")
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            print("\n".join(pool.submit(dense_rows, args.sizes, args.seed).result()))
        child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"\nDense section peak RSS (its own process): {child:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
