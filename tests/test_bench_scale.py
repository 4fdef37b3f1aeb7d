"""The scale benchmark builds an index of made-up documents from the real SciFact and
Wikipedia text, and prints one row per size, the time to reopen it, and the warm-cache
ingest rate."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCIFACT = ROOT.parent / "shared" / "bench" / "retrieval" / "scifact"


@pytest.mark.slow
@pytest.mark.skipif(not (SCIFACT / "corpus.jsonl").is_file(), reason="no SciFact data beside")
def test_the_scale_benchmark_prints_a_row_per_size_and_the_reopening(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *(sys.executable, str(ROOT / "bench" / "scale.py"), "--sizes", "300,600"),
            *("--sections", "bm25,warm", "--store", str(tmp_path / "s.db")),
        ],
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
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
