"""Extraction benchmark: article-mode quality and speed against the anchors, in one run.

Scores citesift's article mode and the anchor extractors (trafilatura, readability-lxml,
resiliparse) on a folder of pages with gold text, using the ScrapingHub benchmark metric
(F1 over 4-word shingles) from the shared scorer, and times each in-process on one core.

    python bench/extraction.py [--data DIR] [--scorer FILE] [--only NAME ...] [--rounds N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from citesift import html_to_blocks

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "extraction" / "dev"
DEFAULT_SCORER = ROOT.parent / "shared" / "tools" / "extraction_eval.py"
ANCHORS = ("trafilatura", "readability-lxml", "resiliparse")
BASELINE = "trafilatura"
PAGE_TIMEOUT_S = 60.0
ROUNDS = 3  # speed is the best of this many rounds (the machine may be busy)


def citesift_text(html: str) -> str:
    """The text we score: article-mode blocks joined by newlines."""
    return "\n".join(block.text for block in html_to_blocks(html))


def load_scorer(path: Path) -> ModuleType:
    """Import the shared scorer from its file, so its metric is the one we report."""
    spec = importlib.util.spec_from_file_location("extraction_eval", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the scorer at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def measure(scorer: ModuleType, data: Path, name: str, rounds: int) -> dict[str, float]:
    """F1, precision, recall and pages/s (best of ``rounds``) of one extractor."""
    truth = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    ids = sorted(truth)
    func = citesift_text if name == "citesift" else scorer.EXTRACTORS[name][0]
    func(scorer.decode_html((data / f"{ids[0]}.html").read_bytes()))  # warm imports
    preds, errors, busy = scorer.run_extractor(str(data), ids, func, PAGE_TIMEOUT_S)
    for _ in range(rounds - 1):
        busy = min(busy, scorer.run_extractor(str(data), ids, func, PAGE_TIMEOUT_S)[2])
    gold = {i: truth[i]["articleBody"] for i in ids}
    scores = scorer.score_text(gold, preds)
    return {
        "f1": scores["f1"],
        "f1_std": scores["f1_std"],
        "precision": scores["precision"],
        "recall": scores["recall"],
        "pages_per_s": len(ids) / busy if busy else 0.0,
        "errors": len(errors),
    }


def table(results: dict[str, dict[str, float]]) -> str:
    """A Markdown table of the results, speed relative to the baseline."""
    base = results.get(BASELINE, {}).get("pages_per_s") or 0.0
    lines = [
        "| extractor | F1 | precision | recall | pages/s | × trafilatura |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        ratio = f"{r['pages_per_s'] / base:.1f}" if base else "-"
        lines.append(
            f"| {name} | {r['f1']:.3f} ± {r['f1_std']:.3f} | {r['precision']:.3f} "
            f"| {r['recall']:.3f} | {r['pages_per_s']:.0f} | {ratio} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run every extractor in this process and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--scorer", type=Path, default=DEFAULT_SCORER)
    parser.add_argument("--only", nargs="*", default=["citesift", *ANCHORS])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    scorer = load_scorer(args.scorer)
    results = {}
    for name in args.only:
        results[name] = measure(scorer, args.data, name, max(1, args.rounds))
        print(f"{name}: done", file=sys.stderr)
    print(table(results))


if __name__ == "__main__":
    main()
