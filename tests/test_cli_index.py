"""``citesift index add/stats/rm`` and ``citesift search`` against a store in a temp folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app

runner = CliRunner()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tower.txt").write_text("The Eiffel Tower opened in 1889 in Paris.")
    (folder / "notes.md").write_text("# Tides\n\nThe Moon raises two tides a day.")
    (folder / "leaf.html").write_bytes(
        b"<html><head><title>Leaves</title></head>"
        b"<body><p>Photosynthesis turns light into sugar.</p></body></html>"
    )
    (folder / "image.png").write_bytes(b"\x89PNG")
    return folder


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_add_search_stats_and_rm(corpus: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    code, out, _ = run("index", "add", str(corpus), "--store", store, "--mode", "bm25")
    assert code == 0 and "indexed 3 document(s)" in out

    code, out, _ = run("search", "when did the tower open", "--store", store, "--mode", "bm25")
    assert code == 0 and out.startswith("1. [") and "Eiffel Tower" in out

    code, out, _ = run("search", "photosynthesis", "--store", store, "--mode", "bm25", "--json")
    hit = json.loads(out.splitlines()[0])
    assert hit["metadata"]["title"] == "Leaves" and hit["metadata"]["source_start"] > 0

    code, out, _ = run("index", "stats", "--store", store)
    assert json.loads(out)["documents"] == 3

    tower = str(corpus / "tower.txt")
    assert run("index", "rm", tower, "--store", store)[0] == 0
    code, out, err = run("search", "Eiffel tower", "--store", store, "--mode", "bm25")
    assert "Eiffel" not in out and "no results" in err


def test_dense_search_works_offline_with_the_default_embedder(corpus: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    assert run("index", "add", str(corpus / "notes.md"), str(corpus / "tower.txt"),
               "--store", store)[0] == 0  # fmt: skip
    code, out, _ = run("search", "lunar pull on the ocean", "--store", store, "--mode", "dense",
                       "--top-k", "1", "--rerank")  # fmt: skip
    assert code == 0 and "Moon" in out and out.count("\n1. ") == 0


def test_clear_errors(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITESIFT_CONTACT", raising=False)
    store = str(tmp_path / "index.db")
    code, _, err = run("index", "add", str(corpus / "image.png"), "--store", store)
    assert code == 2 and "only .txt" in err
    code, _, err = run("index", "add", str(tmp_path / "missing.txt"), "--store", store)
    assert code == 2 and "no such file" in err
    code, _, err = run("index", "add", "https://example.org/", "--store", store)
    assert code == 2 and "--contact" in err
    code, _, err = run("index", "rm", "nothing", "--store", store)
    assert code == 1 and "no document" in err
