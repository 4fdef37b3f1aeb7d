"""How well ``verify_claim`` grades claims against the sentences of the pages they cite.

Scores each offline judge on WiCE with the shared scorer — the hand-set default and the
trained one (``--judge-model`` scores a model of your own in its place) — beside the
scorer's token-overlap baseline measured in the same run: 3-label accuracy and macro-F1,
binary supported-vs-rest F1 and AUROC, and supporting-sentence F1. With ``--llm-url`` and
``--llm-model`` the LLM judge is scored too, on its own line.

    python bench/citations.py [--data DIR] [--limit N] [--store FILE] [--judge-model FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from citesift import Embedder, LLMJudge, SQLiteStore, TrainedJudge, verify_claim
from citesift.index.embedders import CachedEmbedder, default_embedder
from citesift.verify import Judge
from tools import load_tool, require_data

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "citations" / "wice"
DEFAULT_TOOL = ROOT.parent / "shared" / "tools" / "citation_eval.py"
DEFAULT_STORE = ROOT / ".citesift" / "bench-citations.db"
System = Callable[[str, list[str]], dict[str, Any]]


def system(embedder: Embedder, judge: Judge | None = None) -> System:
    """``verify_claim`` as the scorer calls a system."""

    def run(claim: str, evidence: list[str]) -> dict[str, Any]:
        check = verify_claim(claim, evidence, judge, embedder=embedder)
        return {
            "label": check.label,
            "supporting_sentences": check.supporting,
            "score": check.score,
        }

    return run


def score(
    tool: ModuleType, records: list[dict[str, Any]], name: str, run: System
) -> dict[str, Any]:
    """Evaluate ``run``, print the scorer's report and the rate, return the metrics."""
    started = time.perf_counter()
    metrics: dict[str, Any] = tool.evaluate(records, run)
    took = time.perf_counter() - started
    print(tool.report(name, [], metrics))
    print(f"  {len(records) / took:.1f} claims/s\n")
    return metrics


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="WiCE folder")
    parser.add_argument(
        "--eval-tool", type=Path, default=DEFAULT_TOOL, help="the shared scorer (citation_eval.py)"
    )
    parser.add_argument("--store", type=Path, default=DEFAULT_STORE, help="embedding cache")
    parser.add_argument("--limit", type=int, default=0, help="only the first N claims")
    parser.add_argument("--judge-model", type=Path, help="the trained judge's model file")
    parser.add_argument("--llm-url", help="an OpenAI-compatible API's base URL")
    parser.add_argument("--llm-model", help="the chat model the LLM judge asks")
    args = parser.parse_args()
    require_data(args.data, "WiCE claims", ["claim/dev.jsonl"])
    tool = load_tool(args.eval_tool, "citation_eval", "--eval-tool")
    records = tool.load_records(tool.find_files(args.data))[: args.limit or None]
    args.store.parent.mkdir(parents=True, exist_ok=True)
    embedder = CachedEmbedder(default_embedder(), SQLiteStore(args.store))

    anchor = score(tool, records, "overlap (anchor)", tool.BUILTINS["overlap"])
    trained = TrainedJudge(args.judge_model)
    rows = {
        "offline": score(tool, records, "verify_claim, offline judge", system(embedder)),
        "trained": score(tool, records, "verify_claim, trained judge", system(embedder, trained)),
    }
    if args.llm_url and args.llm_model:
        judge = LLMJudge(args.llm_url, args.llm_model)
        rows["llm"] = score(tool, records, "verify_claim, LLM judge", system(embedder, judge))

    heads = ("macro-F1", "accuracy", "binary F1", "AUROC", "sent F1")
    print(f"{'system':10} " + " ".join(f"{h:>9}" for h in heads))
    for name, m in {"anchor": anchor, **rows}.items():
        auroc = m["binary_supported_vs_rest"]["auroc"]
        print(
            f"{name:10} {m['macro_f1']:9.4f} {m['accuracy']:9.4f} "
            f"{m['binary_supported_vs_rest']['f1']:9.4f} "
            f"{'n/a' if auroc is None else f'{auroc:.4f}':>9} {m['retrieval']['f1']:9.4f}"
        )
    for name, m in rows.items():
        macro = ratio(m["macro_f1"], anchor["macro_f1"])
        sentences = ratio(m["retrieval"]["f1"], anchor["retrieval"]["f1"])
        print(f"{name}: macro-F1 {macro}, sentence F1 {sentences}")
    return 0


def ratio(ours: float, anchor: float) -> str:
    """``ours`` as a multiple of ``anchor``, or why there is none (the anchor may score 0 on
    the few claims of a small ``--limit``)."""
    return f"{ours / anchor:.2f}x anchor" if anchor else "n/a (the anchor scored 0)"


if __name__ == "__main__":
    sys.exit(main())
