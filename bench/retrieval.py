"""Retrieval benchmark: citesift's BM25, dense, hybrid and hybrid+rerank over whole documents
and create_rag's defaults over passages (BM25 and hybrid), against bm25s and tantivy on a
BEIR data set (SciFact by default), quality and speed measured in one run.

    python bench/retrieval.py [--data DIR] [--store FILE|postgresql://...] [--systems LIST]

Quality and speed come from the shared evaluation tool (``--eval-tool``), so every system is
measured the same way: nDCG@10 and Recall@100 over all queries, index docs/s, and queries/s
answered one at a time (top 10); citesift's rows also give those queries per CPU second of
this process, which other work on a shared machine moves less. The first rows index
documents whole (title + text, one chunk each); the "defaults" rows call ``create_rag`` as a
user does, with its defaults
(sentence-bounded passages of up to 512 characters, each scored with its document), the title
given as metadata, and rank a document by its best passage. Corpus embeddings are cached in
``--store`` (default: ``$CITESIFT_BENCH_STORE``, else a file under the project's ``.citesift/``;
point it outside the checkout to keep the vectors across fresh checkouts): the first run
embeds the corpus (minutes on a small CPU), later runs read the vectors back, and the table
says which it was. A ``postgresql://`` URL as ``--store`` runs
citesift's rows on the PostgreSQL store instead (each row on an emptied index there, corpus
embeddings cached there), to set them beside the embedded store's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tools import load_tool, require_data

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "retrieval" / "scifact"
DEFAULT_TOOL = ROOT.parent / "shared" / "tools" / "retrieval_eval.py"
DEFAULT_STORE = os.environ.get("CITESIFT_BENCH_STORE") or str(
    ROOT / ".citesift" / "bench-retrieval.db"
)
OURS = ("bm25", "dense", "hybrid", "hybrid+rerank", "defaults-bm25", "defaults")
DEFAULTS = {"defaults-bm25": "bm25", "defaults": "hybrid"}
"""Rows that call ``create_rag`` with its defaults (their retrieval aside) over passages."""
THEIRS = ("bm25s", "tantivy", "tantivy-flat")
SPEED_K = 10
"""The depth the evaluation tool times queries at."""
ROWS = (
    "bm25, dense, hybrid, hybrid+rerank (whole documents, one chunk each; the rerank row"
    " fuses a BM25 reranker's scores with hybrid's), defaults-bm25, defaults (create_rag's"
    " defaults over passages, BM25 and hybrid), bm25s, tantivy (title and body fields),"
    " tantivy-flat (title + text in one field)"
)
"""What each row of ``--systems`` measures, for ``--help``."""


class CountingEmbedder:
    """Passes texts to an embedder and counts them (to tell a cached index from a fresh one).

    With a ``cache_store``, texts go through a cache there while ``building``: the corpus is
    read back from it (the texts it has not seen come back here to be embedded and counted),
    a query is always embedded."""

    def __init__(self, inner: Any, cache_store: Any = None) -> None:
        from citesift.index.embedders.cache import CachedEmbedder

        self.inner, self.name, self.dim, self.texts = inner, inner.name, inner.dim, 0
        self.building = False
        self.cache = None if cache_store is None else CachedEmbedder(_Model(self), cache_store)

    def embed(self, texts: Sequence[str]) -> Any:
        if self.cache is not None and self.building:
            return self.cache.embed(texts)
        return self.counted(texts)

    def counted(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)


class _Model:
    """What the cache of a ``CountingEmbedder`` embeds its misses with: the counted model."""

    def __init__(self, counter: CountingEmbedder) -> None:
        self.counter, self.name, self.dim = counter, counter.name, counter.dim

    def embed(self, texts: Sequence[str]) -> Any:
        return self.counter.counted(texts)


class RagSystem:
    """One citesift configuration behind the evaluation tool's ``build``/``search`` interface."""

    def __init__(self, name: str, store: Any, embedder: Any, progress: Any) -> None:
        from citesift.index.rag import create_rag

        retrieval = "bm25" if name == "bm25" else ("dense" if name == "dense" else "hybrid")
        self.name = f"citesift {name}"
        self.embedder = embedder
        self.passages = name in DEFAULTS
        if self.passages:  # as a user calls it: every argument but the retrieval left to default
            self.rag = create_rag(embedder, store, DEFAULTS[name])
        else:  # chunk_size None: one chunk per document (BEIR "flat")
            self.rag = create_rag(
                embedder, store, retrieval, chunk_size=None, rerank=name.endswith("rerank")
            )
        self.rag.progress = progress
        self.cached = False
        self.timed = (0, 0.0)
        """Searches of the speed loop's depth (top 10) and the CPU seconds they took."""

    def build(self, corpus: list[dict[str, str]]) -> None:
        before = self.embedder.texts if self.embedder else 0
        if self.embedder:
            self.embedder.building = True
        self.rag.ingest(self._document(d) for d in corpus)
        if self.embedder:
            self.embedder.building = False
        self.rag.search("warm up the index")
        self.cached = self.embedder is not None and self.embedder.texts == before + 1

    def _document(self, doc: dict[str, str]) -> dict[str, Any]:
        if self.passages:
            return {"id": doc["_id"], "content": doc["text"], "metadata": {"title": doc["title"]}}
        return {"id": doc["_id"], "content": doc_text(doc)}

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best hits, one call as a user makes it, as (document id, score): a
        document ranks by its best passage (so ``k`` passages may name fewer documents)."""
        found: dict[str, float] = {}
        used = time.process_time()
        hits = self.rag.search(query, k)
        if k == SPEED_K:
            self.timed = (self.timed[0] + 1, self.timed[1] + time.process_time() - used)
        for h in hits:
            found.setdefault(h.provenance.document_id, float(h.score))
        return list(found.items())


def doc_text(doc: dict[str, str]) -> str:
    return (doc["title"] + " " + doc["text"]).strip()


def our_system(name: str, args: argparse.Namespace, progress: Any) -> RagSystem:
    """A fresh in-memory store for BM25; the persistent, embedding-caching one otherwise (the
    passage rows keep their chunks in memory and read their vectors from its cache). On
    PostgreSQL, every row gets the index emptied, its vectors from the cache there."""
    from citesift.index.embedders.minilm import MiniLMEmbedder
    from citesift.store import is_postgres_url, open_store

    postgres = is_postgres_url(args.store)
    if name in ("bm25", "defaults-bm25"):
        return RagSystem(name, _fresh(args.store) if postgres else ":memory:", None, progress)
    model = MiniLMEmbedder(threads=args.embed_threads)
    if name in DEFAULTS or postgres:
        fresh = _fresh(args.store) if postgres else ":memory:"
        return RagSystem(name, fresh, CountingEmbedder(model, open_store(args.store)), progress)
    return RagSystem(name, args.store, CountingEmbedder(model), progress)


def _fresh(url: str) -> Any:
    """The PostgreSQL index at ``url``, emptied of every document."""
    from citesift.index.postgres import PostgresIndex

    index = PostgresIndex(url)
    index.delete([d.id for d in index.documents()])
    return index


def table(results: list[dict[str, Any]]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| system | nDCG@10 | R@100 | index docs/s | queries/s (top 10) | per CPU s |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        docs = f"{r['index_docs_per_s']:,}" + (" (cached vectors)" if r["index_from_cache"] else "")
        lines.append(
            f"| {r['system']} | {r['ndcg@10']:.4f} | {r['recall@100']:.4f} | {docs} "
            f"| {r['qps_top10']:,} | {r.get('cpu_qps_top10', '')} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR-format folder")
    parser.add_argument(
        "--eval-tool",
        type=Path,
        default=DEFAULT_TOOL,
        help="the shared evaluation script that loads the data and measures every row",
    )
    parser.add_argument(
        "--store",
        default=DEFAULT_STORE,
        help="embedding cache (a file; default $CITESIFT_BENCH_STORE), or a postgresql:// URL"
        " to run citesift's rows on",
    )
    parser.add_argument(
        "--systems",
        default=",".join(OURS + THEIRS),
        help="the rows to run, comma-separated (default: all, in this order): " + ROWS,
    )
    parser.add_argument("--embed-threads", type=int, default=2, help="threads to embed with")
    args = parser.parse_args(argv)
    require_data(args.data, "BEIR data set", ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"])
    tool = load_tool(args.eval_tool, "retrieval_eval", "--eval-tool")
    tool.pin_threads(1)
    corpus, queries, qrels = tool.load_beir(args.data, "test")
    print(f"# {args.data.name}: {len(corpus)} docs, {len(queries)} queries", file=sys.stderr)
    results = [run_one(name, tool, args, corpus, queries, qrels) for name in _names(args.systems)]
    print(table(results))
    return 0


def run_one(name: str, tool: ModuleType, args: argparse.Namespace, *data: Any) -> dict[str, Any]:
    """Build and measure one system with the tool's own loop (index time, quality, QPS)."""
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(f"indexing for {name}", total=len(data[0]))
        progress = lambda done, total: bar.update(task, completed=done)  # noqa: E731
        system = our_system(name, args, progress) if name in OURS else tool.make_system(name, 1, "")
        started = time.perf_counter()
        result = tool.run_builtin(system, *data, 100)
    took = time.perf_counter() - started
    searches, cpu = getattr(system, "timed", (0, 0.0))
    if searches and cpu > 0:
        result["cpu_qps_top10"] = f"{searches / cpu:,.0f}"
    print(f"{result['system']}: {took:.1f} s, nDCG@10 {result['ndcg@10']:.4f}", file=sys.stderr)
    return result


def _names(spec: str) -> list[str]:
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in OURS + THEIRS]
    if unknown:
        raise SystemExit(f"unknown system(s) {unknown}; choose from {OURS + THEIRS}")
    return names


if __name__ == "__main__":
    sys.exit(main())
