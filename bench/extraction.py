"""Extraction benchmark: article-mode quality and speed against the anchors, in one run.

Scores citesift's article mode and the anchor extractors (trafilatura, readability-lxml,
resiliparse) on a folder of pages with gold text, using the ScrapingHub benchmark metric
(F1 over 4-word shingles) from the shared scorer, and times each in-process on one core.

    python bench/extraction.py [--data DIR ...] [--scorer FILE] [--only NAME ...] [--rounds N]
                               [--instructions PAGES]

Each set gets its own table, a count of the pages where article mode collapses (it returns
under a tenth of the gold's words while page mode holds at least half of them), and a count
of the blocks whose source span does not hold their text (``source_text``). Wall time moves
with the machine's load; ``--instructions`` also counts, under valgrind's callgrind, the
instructions citesift and trafilatura run on the first PAGES pages of each set, once each
has read ten pages from the other end of the set (start-up and those subtracted): a ratio
that does not move with the load.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from citesift import html_to_blocks
from citesift.extract import source_text
from tools import load_tool, require_data

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = [
    ROOT.parent / "shared" / "bench" / "extraction" / name for name in ("dev", "webis-dev")
]
DEFAULT_SCORER = ROOT.parent / "shared" / "tools" / "extraction_eval.py"
ANCHORS = ("trafilatura", "readability-lxml", "resiliparse")
BASELINE = "trafilatura"
PAGE_TIMEOUT_S = 60.0
ROUNDS = 3  # speed is the best of this many rounds (the machine may be busy)
COLLAPSED_SHARE = 0.1  # article mode under this share of the gold's words has collapsed
HELD_RECALL = 0.5  # when page mode holds at least this share of the gold's shingles


def citesift_text(html: str) -> str:
    """The text we score: article-mode blocks joined by newlines."""
    return "\n".join(block.text for block in html_to_blocks(html))


def page_text(html: str) -> str:
    """Everything the page shows: page-mode blocks joined by newlines."""
    return "\n".join(block.text for block in html_to_blocks(html, mode="page"))


def collapsed(
    scorer: ModuleType, data: Path, gold: dict[str, str], article: dict[str, str]
) -> list[str]:
    """The pages where article mode keeps under ``COLLAPSED_SHARE`` of the gold's words
    while page mode holds at least ``HELD_RECALL`` of its shingles."""
    found = []
    for page, text in gold.items():
        words = len(scorer.tokenize(text))
        if len(scorer.tokenize(article.get(page, ""))) >= words * COLLAPSED_SHARE:
            continue
        html = scorer.decode_html((data / f"{page}.html").read_bytes())
        held, _, missed = scorer.page_counts(text, page_text(html))
        if held >= (held + missed) * HELD_RECALL:
            found.append(page)
    return found


def unheld_spans(scorer: ModuleType, data: Path, ids: list[str]) -> int:
    """How many article-mode blocks' source spans do not show their text."""
    unheld = 0
    for page in ids:
        html = scorer.decode_html((data / f"{page}.html").read_bytes())
        for block in html_to_blocks(html):
            shown = source_text(html, block.source_start, block.source_end)
            unheld += block.text not in shown
    return unheld


_COUNT = """
import sys
sys.path[:0] = {paths!r}
from tools import load_tool
scorer = load_tool(__import__("pathlib").Path({scorer!r}), "extraction_eval", "--scorer")
import extraction
extract = extraction.extractor(scorer, {name!r})
warm = [scorer.decode_html(open(path, "rb").read()) for path in {warm!r}]
pages = [scorer.decode_html(open(path, "rb").read()) for path in {pages!r}]
for html in warm:
    extract(html)
for html in pages:
    extract(html)
"""
WARM_PAGES = 10  # read before the counted pages, from the other end of the set
CALLGRIND = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")
_COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(scorer_path: Path, data: Path, ids: list[str], name: str, pages: int) -> int:
    """Instructions extractor ``name`` runs on the first ``pages`` pages of ``data``
    (callgrind) once it has read the last ``WARM_PAGES`` (its caches warm, as in a process
    that has read pages before): the count with them less the count without."""
    warm = [str(data / f"{page}.html") for page in ids[-WARM_PAGES:]]
    counts = []
    for chosen in ([], ids[:pages]):
        script = _COUNT.format(
            paths=[str(Path(__file__).parent), *sys.path],
            scorer=str(scorer_path),
            name=name,
            warm=warm,
            pages=[str(data / f"{page}.html") for page in chosen],
        )
        done = subprocess.run(
            [*CALLGRIND, sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
        )
        found = _COLLECTED.search(done.stderr)
        if found is None:
            raise SystemExit(f"callgrind counted nothing for {name}: {done.stderr[-500:]}")
        counts.append(int(found.group(1)))
    return counts[1] - counts[0]


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
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """F1, precision, recall and pages/s (best of ``rounds``) of each extractor, and the
    pages where citesift's article mode collapsed."""
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
    failed = collapsed(scorer, data, gold, preds["citesift"]) if "citesift" in preds else []
    return results, failed


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
    parser.add_argument(
        "--data", type=Path, nargs="+", default=DEFAULT_DATA, help="page sets, one table each"
    )
    parser.add_argument("--scorer", type=Path, default=DEFAULT_SCORER, help="the shared scorer")
    parser.add_argument(
        "--only", nargs="*", default=["citesift", *ANCHORS], help="extractors to run"
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="timed rounds (best kept)")
    parser.add_argument(
        "--instructions",
        type=int,
        default=0,
        metavar="PAGES",
        help="also count citesift's and trafilatura's instructions on this many pages a set",
    )
    args = parser.parse_args(argv)
    for data in args.data:
        require_data(data, "extraction benchmark pages", ["ground-truth.json"])
    scorer = load_tool(args.scorer, "extraction_eval", "--scorer")
    for data in args.data:
        results, failed = measure(scorer, data, args.only, max(1, args.rounds))
        print(f"\n## {data.name}\n\n{table(results)}")
        if "citesift" in args.only:
            print(
                f"\narticle mode collapsed (under a tenth of the gold's words, page mode holds"
                f" them): {len(failed)} pages {' '.join(failed)}".rstrip()
            )
            ids = sorted(json.loads((data / "ground-truth.json").read_text(encoding="utf-8")))
            print(f"blocks whose span does not show their text: {unheld_spans(scorer, data, ids)}")
        if args.instructions > 0:
            print(counted(args.scorer, data, args.only, args.instructions))


def counted(scorer_path: Path, data: Path, names: list[str], pages: int) -> str:
    """A line for citesift and the baseline: instructions a page, and their ratio."""
    ids = sorted(json.loads((data / "ground-truth.json").read_text(encoding="utf-8")))
    pages = min(pages, len(ids) - WARM_PAGES)
    counted_names = [name for name in names if name in ("citesift", BASELINE)]
    counts = {name: instructions(scorer_path, data, ids, name, pages) for name in counted_names}
    base = counts.get(BASELINE, 0)
    lines = [f"\ninstructions on {pages} pages (callgrind, after {WARM_PAGES} warm-up pages):"]
    for name, count in counts.items():
        shown = base and count and name != BASELINE
        ratio = f", {base / count:.1f}x fewer than {BASELINE}" if shown else ""
        lines.append(f"- {name}: {count / pages / 1e6:.1f} M a page{ratio}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
