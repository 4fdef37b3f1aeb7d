"""The scale benchmark builds an index of made-up documents from real text (SciFact-shaped
files and recorded Wikipedia pages), and prints one row per size, the time to reopen it, and
the warm-cache ingest rate."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WIKIPEDIA = ROOT / "tests" / "fixtures" / "wikipedia" / "pages"
CLAIMS = ("Dogs were domesticated from wolves.", "The moon causes the tides.", "Ants farm fungi.")


def scifact_shaped(folder: Path) -> Path:
    """A SciFact-shaped folder (``corpus.jsonl``, ``queries.jsonl``) of a few short records."""
    folder.mkdir()
    corpus = [{"_id": str(n), "title": f"Record {n}", "text": c} for n, c in enumerate(CLAIMS)]
    queries = [{"_id": str(n), "text": c} for n, c in enumerate(CLAIMS)]
    for name, rows in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def run_scale(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """bench/scale.py at 300 and 600 passages over a SciFact-shaped folder and the recorded
    Wikipedia pages, with ``args`` added."""
    data = scifact_shaped(tmp_path / "scifact")
    return subprocess.run(
        [
            *(sys.executable, str(ROOT / "bench" / "scale.py"), "--sizes", "300,600", *args),
            *("--data", str(data), "--wikipedia", str(WIKIPEDIA)),
        ],
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.slow
def test_the_scale_benchmark_prints_a_row_per_size_and_the_reopening(tmp_path: Path) -> None:
    done = run_scale(tmp_path, "--sections", "bm25,warm", "--store", str(tmp_path / "s.db"))
    assert done.returncode == 0, done.stderr
    rows = re.findall(r"^\| (\d[\d,]*) \| ", done.stdout, re.MULTILINE)
    assert len(rows) == 2
    assert [int(r.replace(",", "")) >= size for r, size in zip(rows, (300, 600), strict=True)] == [
        True,
        True,
    ]
    assert re.search(
        r"Reopen the [\d,]+-passage index and answer a first query: [\d.]+ s", done.stdout
    )
    assert "Ingest with the embedding cache warm" in done.stdout


@pytest.mark.slow
def test_the_dense_section_crosses_to_the_ann_index_and_reopens_it(tmp_path: Path) -> None:
    done = run_scale(tmp_path, "--sections", "dense", "--ann-threshold", "400", "--passages", "40")
    assert done.returncode == 0, done.stderr
    rows = re.findall(
        r"^\| ([\d,]+) \| [\d.]+ \([\d.]+\) \| (\w+) \| [\d.]+ \([\d.]+\) \| ([\d.]+) \|",
        done.stdout,
        re.M,
    )
    assert [(size, used) for size, used, _ in rows] == [("300", "exact"), ("600", "hnsw")]
    assert all(float(recall) >= 0.9 for _, _, recall in rows)
    assert "not rebuilt" in done.stdout
