"""Retrieval benchmark: citesift's BM25, dense, hybrid and hybrid+rerank against bm25s and
tantivy on a BEIR data set (SciFact by default), quality and speed measured in one run.

    python bench/retrieval.py [--data DIR] [--store FILE] [--systems LIST]

Quality and speed come from the shared evaluation tool (``--eval-tool``), so every system is
measured the same way: nDCG@10 and Recall@100 over all queries, index docs/s, and queries/s
answered one at a time (top 10). Documents are indexed whole (title + text, one chunk each).
Corpus embeddings are cached in ``--store``: the first run embeds the corpus (minutes on a
small CPU), later runs read the vectors back, and the table says which it was.
"""

from __future__ import annotations

import argparse
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
DEFAULT_STORE = ROOT / ".citesift" / "bench-retrieval.db"
OURS = ("bm25", "dense", "hybrid", "hybrid+rerank")
THEIRS = ("bm25s", "tantivy", "tantivy-flat")


class CountingEmbedder:
    """Passes texts to an embedder and counts them (to tell a cached index from a fresh one)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim, self.texts = inner, inner.name, inner.dim, 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)


class RagSystem:
    """One citesift configuration behind the evaluation tool's ``build``/``search`` interface."""

    def __init__(self, name: str, store: Any, embedder: Any, progress: Any) -> None:
        from citesift.index.rag import create_rag

        mode = "bm25" if name == "bm25" else ("dense" if name == "dense" else "hybrid")
        self.name = f"citesift {name}"
        self.embedder = embedder
        self.rag = create_rag(  # chunk_size None: one chunk per document (BEIR "flat")
            embedder, store, mode, chunk_size=None, rerank=name.endswith("rerank")
        )
        self.rag.progress = progress
        self.cached = False

    def build(self, corpus: list[dict[str, str]]) -> None:
        before = self.embedder.texts if self.embedder else 0
        self.rag.ingest({"id": d["_id"], "content": doc_text(d)} for d in corpus)
        self.rag.search("warm up the index")
        self.cached = self.embedder is not None and self.embedder.texts == before + 1

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        return [(h.provenance.document_id, float(h.score)) for h in self.rag.search(query, k)]


def doc_text(doc: dict[str, str]) -> str:
    return (doc["title"] + " " + doc["text"]).strip()


def our_system(name: str, args: argparse.Namespace, progress: Any) -> RagSystem:
    """A fresh in-memory store for BM25; the persistent, embedding-caching one otherwise."""
    from citesift.index.embedders.minilm import MiniLMEmbedder
    from citesift.store.sqlite import SQLiteStore

    if name == "bm25":
        return RagSystem(name, SQLiteStore(":memory:"), None, progress)
    embedder = CountingEmbedder(MiniLMEmbedder(threads=args.embed_threads))
    return RagSystem(name, args.store, embedder, progress)


def table(results: list[dict[str, Any]]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| system | nDCG@10 | R@100 | index docs/s | queries/s (top 10) |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        docs = f"{r['index_docs_per_s']:,}" + (" (cached vectors)" if r["index_from_cache"] else "")
        lines.append(
            f"| {r['system']} | {r['ndcg@10']:.4f} | {r['recall@100']:.4f} | {docs} "
            f"| {r['qps_top10']:,} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR-format folder")
    parser.add_argument("--eval-tool", type=Path, default=DEFAULT_TOOL)
    parser.add_argument("--store", type=Path, default=DEFAULT_STORE, help="embedding cache")
    parser.add_argument("--systems", default=",".join(OURS + THEIRS))
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
    print(f"{result['system']}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return result


def _names(spec: str) -> list[str]:
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in OURS + THEIRS]
    if unknown:
        raise SystemExit(f"unknown system(s) {unknown}; choose from {OURS + THEIRS}")
    return names


if __name__ == "__main__":
    sys.exit(main())
