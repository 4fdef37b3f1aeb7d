"""The retrieval benchmark's ``--help`` says which rows it runs: every name ``--systems``
takes, the whole-document rows and the defaults rows alike."""

import os
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "retrieval.py"
ROWS = (
    *("bm25", "dense", "hybrid", "hybrid+rerank", "defaults-bm25", "defaults"),
    *("bm25s", "tantivy", "tantivy-flat"),
)


def test_the_help_names_every_row_the_benchmark_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "COLUMNS": "1000"},  # one line per option: no name cut at a hyphen
    )
    assert done.returncode == 0 and done.stderr == ""
    lines = [line.lstrip() for line in done.stdout.splitlines()]
    systems = next(line for line in lines if line.startswith("--systems"))
    for row in ROWS:
        assert re.search(rf"(?<![\w+-]){re.escape(row)}(?![\w+-])", systems), row
    description = done.stdout.split("options:")[0]
    assert "whole documents" in description and "create_rag's defaults" in description
