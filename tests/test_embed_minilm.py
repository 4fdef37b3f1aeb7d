"""The embedded MiniLM embedder: offline, checksummed, normalised and faithful to the model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from citesift.errors import InvalidArgument
from citesift.index.embedders.base import Embedder, normalise_rows
from citesift.index.embedders.minilm import (
    DIM,
    MAX_TOKENS,
    TOKENIZER_SHA256,
    MiniLMEmbedder,
    default_embedder,
    tokenizer_path,
)
from citesift.index.onnx import ModelFileError, verified


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


def test_minilm_follows_the_embedder_protocol(minilm: MiniLMEmbedder) -> None:
    assert isinstance(minilm, Embedder)
    assert minilm.dim == DIM
    assert "MiniLM" in minilm.name and str(DIM) in minilm.name


def test_a_shorter_token_limit_is_part_of_the_name(minilm: MiniLMEmbedder) -> None:
    assert MiniLMEmbedder(threads=1, max_tokens=128).name == minilm.name + "/max128"


def test_default_embedder_is_minilm() -> None:
    assert isinstance(default_embedder(), MiniLMEmbedder)


def test_vectors_are_float32_unit_rows(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(["Aspirin lowers fever.", "x", ""])
    assert vectors.dtype == np.float32 and vectors.shape == (3, DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_no_texts_give_an_empty_matrix(minilm: MiniLMEmbedder) -> None:
    assert minilm.embed([]).shape == (0, DIM)


def test_paraphrases_score_above_unrelated_pairs(minilm: MiniLMEmbedder) -> None:
    a, b, c, d = minilm.embed(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The girl is carrying a baby.",
            "Vitamin D deficiency is linked to bone fractures in older adults.",
        ]
    )
    e = minilm.embed(["Low vitamin D levels raise the risk of broken bones in the elderly."])[0]
    assert a @ b > 0.6 > a @ c
    assert d @ e > 0.6 > d @ a


def test_batching_by_length_keeps_input_order(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "a much longer sentence about protein folding " * 5, "medium length text"]
    together = minilm.embed(texts)
    alone = np.vstack([minilm.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=2e-3)


def test_inputs_are_cut_at_the_model_token_limit(minilm: MiniLMEmbedder) -> None:
    head = "cells divide and grow in tissue culture " * 60  # far past 256 tokens
    same_prefix = minilm.embed([head, head + "completely different tail about astronomy"])
    assert np.allclose(same_prefix[0], same_prefix[1], atol=1e-6)
    assert MAX_TOKENS == 256


def test_lone_surrogates_are_replaced_not_fatal(minilm: MiniLMEmbedder) -> None:
    vector = minilm.embed(["broken \ud800 text"])
    assert np.isfinite(vector).all()


def test_non_strings_are_refused(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError, match="expected a string"):
        minilm.embed([b"bytes"])  # type: ignore[list-item]


def test_progress_reports_every_batch_up_to_the_total() -> None:
    seen: list[tuple[int, int]] = []
    embedder = MiniLMEmbedder(threads=1, batch_size=2, progress=lambda d, t: seen.append((d, t)))
    embedder.embed(["one", "two", "three", "four", "five"])
    assert seen == [(2, 5), (4, 5), (5, 5)]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -3, 0, 2.5, 10**9])
@pytest.mark.parametrize("option", ["threads", "batch_size", "max_tokens"])
def test_absurd_options_are_refused_by_name(option: str, bad: float) -> None:
    with pytest.raises(InvalidArgument, match=f"{option} must be"):
        MiniLMEmbedder(**{option: bad})


def test_bundled_tokenizer_matches_its_checksum() -> None:
    assert verified(tokenizer_path(), TOKENIZER_SHA256) == tokenizer_path()


def test_a_tampered_file_is_refused(tmp_path) -> None:
    fake = tmp_path / "tokenizer.json"
    fake.write_bytes(tokenizer_path().read_bytes() + b" ")
    with pytest.raises(ModelFileError, match="checksum"):
        verified(fake, TOKENIZER_SHA256)
    with pytest.raises(ModelFileError, match="missing"):
        verified(tmp_path / "absent.onnx", "0" * 64)


def test_normalise_rows_zeroes_empty_and_non_finite_rows() -> None:
    out = normalise_rows(np.array([[3.0, 4.0], [0.0, 0.0], [np.nan, 1.0]]))
    assert np.allclose(out, [[0.6, 0.8], [0.0, 0.0], [0.0, 1.0]])


@pytest.mark.timeout(20)
def test_megabyte_texts_embed_quickly_and_like_their_head(minilm: MiniLMEmbedder) -> None:
    head = "Protein folding depends on temperature and solvent. " * 200
    huge, short = minilm.embed([head + "noise " * 2_000_000, head])
    assert np.allclose(huge, short, atol=1e-6)


def test_embedding_where_home_cannot_be_written_prints_nothing_of_onnxruntime_s_own(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env |= {"HOME": str(tmp_path / "a-file" / "home"), "XDG_CACHE_HOME": ""}
    (tmp_path / "a-file").write_text("not a folder")  # no folder can be made under it
    code = "from citesift.index.embedders.minilm import MiniLMEmbedder as M; M(threads=1)"
    code += ".embed(['one tide'])"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stderr == ""
