"""A benchmark without its data says in one line where it looked and how to name another
place, instead of a traceback."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.parametrize(
    ("script", "needs"),
    [
        ("extraction.py", "ground-truth.json"),
        ("retrieval.py", "corpus.jsonl"),
        ("citations.py", "claim/dev.jsonl"),
        ("scale.py", "corpus.jsonl"),
    ],
)
def test_a_benchmark_without_its_data_names_where_it_looked(
    tmp_path: Path, script: str, needs: str
) -> None:
    for data in (tmp_path / "absent", tmp_path):
        done = subprocess.run(
            [sys.executable, str(BENCH / script), "--data", str(data)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("error: no ") and done.stderr.count("\n") == 1
        assert str(data) in done.stderr and "pass --data PATH" in done.stderr
        assert (needs in done.stderr) == (data == tmp_path)


def test_the_scale_benchmark_without_its_wikipedia_pages_names_where_it_looked(
    tmp_path: Path,
) -> None:
    """A folder without a recorded page is missing data too, not a run on SciFact alone."""
    scifact = tmp_path / "scifact"
    scifact.mkdir()
    for name in ("corpus.jsonl", "queries.jsonl"):
        (scifact / name).write_text("", encoding="utf-8")
    for pages in (tmp_path / "absent", tmp_path):
        done = subprocess.run(
            [
                *(sys.executable, str(BENCH / "scale.py"), "--data", str(scifact)),
                *("--wikipedia", str(pages)),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("error: no recorded Wikipedia pages in ")
        assert str(pages) in done.stderr and "pass --wikipedia PATH" in done.stderr
        assert ("*.html" in done.stderr) == (pages == tmp_path)
