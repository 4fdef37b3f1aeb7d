"""Extraction benchmark: article-mode quality and speed against the anchors, in one run.

Scores citesift's article mode and the anchor extractors (trafilatura, readability-lxml,
resiliparse) on a folder of pages with gold text, using the ScrapingHub benchmark metric
(F1 over 4-word shingles) from the shared scorer, and times each in-process on one core.

    python bench/extraction.py [--data DIR] [--scorer FILE] [--only NAME ...] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from citesift import html_to_blocks
from tools import load_tool, require_data

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


def extractor(scorer: ModuleType, name: str) -> Callable[[str], str]:
    """The text function of extractor ``name``."""
    return citesift_text if name == "citesift" else scorer.EXTRACTORS[name][0]


def timed_runs(
    scorer: ModuleType, data: Path, ids: list[str], names: list[str], rounds: int
) -> tuple[dict[str, dict[str, str]], dict[str, int], dict[str, float]]:
    """Each extractor's texts, errors and best busy time over ``rounds`` rounds.

    The rounds take the extractors in turn, so a busy spell on the machine slows them alike
    rather than one of them for all its rounds.
    """
    preds: dict[str, dict[str, str]] = {}
    errors: dict[str, int] = {}
    busy: dict[str, float] = {}
    for name in names:  # warm imports and caches before any timing
        extractor(scorer, name)(scorer.decode_html((data / f"{ids[0]}.html").read_bytes()))
    for _ in range(rounds):
        for name in names:
            texts, failed, took = scorer.run_extractor(
                str(data), ids, extractor(scorer, name), PAGE_TIMEOUT_S
            )
            preds.setdefault(name, texts)
            errors.setdefault(name, len(failed))
            busy[name] = min(busy.get(name, took), took)
    return preds, errors, busy


def measure(
    scorer: ModuleType, data: Path, names: list[str], rounds: int
) -> dict[str, dict[str, float]]:
    """F1, precision, recall and pages/s (best of ``rounds``) of each extractor."""
    truth = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    ids = sorted(truth)
    gold = {i: truth[i]["articleBody"] for i in ids}
    preds, errors, busy = timed_runs(scorer, data, ids, names, rounds)
    results = {}
    for name in names:
        scores = scorer.score_text(gold, preds[name])
        results[name] = {
            "f1": scores["f1"],
            "f1_std": scores["f1_std"],
            "precision": scores["precision"],
            "recall": scores["recall"],
            "pages_per_s": len(ids) / busy[name] if busy[name] else 0.0,
            "errors": errors[name],
        }
    return results


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
    require_data(args.data, "extraction benchmark pages", ["ground-truth.json"])
    scorer = load_tool(args.scorer, "extraction_eval", "--scorer")
    print(table(measure(scorer, args.data, args.only, max(1, args.rounds))))


if __name__ == "__main__":
    main()
