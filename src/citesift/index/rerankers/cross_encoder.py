"""An optional local cross-encoder reranker: an ONNX export, or a sentence-transformers model.

No cross-encoder ships its weights in a package, so citesift bundles none: point
``CrossEncoderReranker`` at a directory you have. A directory holding ``model.onnx`` (or
``onnx/model.onnx``) and ``tokenizer.json`` runs on onnxruntime with no torch; any other
model goes through sentence-transformers (``pip install 'citesift[cross-encoder]'``).
Nothing is downloaded unless a model is named that is not a local path *and*
``allow_download=True`` is passed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

import numpy as np

from citesift.errors import ModelError
from citesift.index.arguments import count, count_or
from citesift.index.onnx import cpu_session, padded_tokenizer
from citesift.index.rerankers.base import RerankError
from citesift.index.texts import clean_text, head_for_tokens
from citesift.model import Match

INSTALL_HINT = "pip install 'citesift[cross-encoder]'"
DEFAULT_BATCH_SIZE = 16
DEFAULT_MAX_TOKENS = 512
ONNX_FILES = ("model.onnx", "onnx/model.onnx")
ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class CrossEncoderError(ModelError, RuntimeError):
    """No usable cross-encoder model: missing, not allowed to download, of the wrong shape, or
    needing sentence-transformers when it is not installed."""


class PairScorer(Protocol):
    """Scores (query, document) pairs: one relevance logit per pair."""

    def score(self, query: str, documents: list[str]) -> np.ndarray: ...


class CrossEncoderReranker:
    """Rescores hits by reading the query and each hit together through a cross-encoder."""

    def __init__(
        self,
        model: str | Path,
        *,
        allow_download: bool = False,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        threads: int | None = None,
    ) -> None:
        self.batch_size = count("batch_size", batch_size, 1, 1024)
        self.max_tokens = count("max_tokens", max_tokens, 8, 8192)
        threads = count_or("threads", threads, os.cpu_count() or 1, 1, 256)
        self.scorer = load_scorer(model, allow_download, self.max_tokens, threads)

    def rerank(self, query: str, hits: Sequence[Match], top_k: int) -> list[Match]:
        """The ``top_k`` hits with the highest cross-encoder scores, best first (new objects)."""
        k = count("top_k", top_k)
        if not hits:
            return []
        scores = self._scores(self._fit(query), [self._fit(h.content) for h in hits])
        order = np.argsort(-scores, kind="stable")[:k]
        return [
            replace(hits[i], score=float(scores[i]), metadata=dict(hits[i].metadata)) for i in order
        ]

    def _fit(self, text: str) -> str:
        """``text`` made valid and short enough that tokenizing it stays cheap."""
        return head_for_tokens(clean_text(text), self.max_tokens)

    def _scores(self, query: str, documents: list[str]) -> np.ndarray:
        """One finite score per document, computed ``batch_size`` pairs at a time."""
        parts = [
            np.asarray(
                self.scorer.score(query, documents[i : i + self.batch_size]), dtype=np.float64
            )
            for i in range(0, len(documents), self.batch_size)
        ]
        scores = np.concatenate(parts).ravel()
        if scores.shape != (len(documents),) or not np.isfinite(scores).all():
            raise RerankError(
                f"cross-encoder gave unusable scores (shape {scores.shape} or non-finite)"
            )
        return scores


def load_scorer(
    model: str | Path, allow_download: bool, max_tokens: int, threads: int
) -> PairScorer:
    """ONNX for an exported directory, else sentence-transformers (local-only unless allowed)."""
    path = Path(model).expanduser()
    onnx_file = next((path / f for f in ONNX_FILES if (path / f).is_file()), None)
    if onnx_file is not None:
        return OnnxPairScorer(onnx_file, path / "tokenizer.json", max_tokens, threads)
    if not path.exists() and not allow_download:
        raise CrossEncoderError(
            f"no cross-encoder model at {str(model)!r}: pass a local directory (an ONNX export with"
            " tokenizer.json, or a sentence-transformers model), or allow_download=True to fetch"
            " it by name"
        )
    return SentenceTransformersScorer(
        str(model), local_only=not allow_download, max_tokens=max_tokens
    )


class OnnxPairScorer:
    """A cross-encoder exported to ONNX, run on onnxruntime with its ``tokenizer.json``."""

    def __init__(
        self, model_file: Path, tokenizer_file: Path, max_tokens: int, threads: int
    ) -> None:
        if not tokenizer_file.is_file():
            raise CrossEncoderError(f"no tokenizer.json beside {model_file}")
        self.tokenizer = padded_tokenizer(tokenizer_file, max_tokens)
        self.session = cpu_session(model_file, threads)
        self.inputs = [i.name for i in self.session.get_inputs() if i.name in ONNX_INPUTS]

    def score(self, query: str, documents: list[str]) -> np.ndarray:
        """The first output's logit for each (query, document) pair."""
        encodings = self.tokenizer.encode_batch([(query, d) for d in documents])
        columns = {
            "input_ids": [e.ids for e in encodings],
            "attention_mask": [e.attention_mask for e in encodings],
            "token_type_ids": [e.type_ids for e in encodings],
        }
        feed = {name: np.array(columns[name], dtype=np.int64) for name in self.inputs}
        logits = np.asarray(self.session.run(None, feed)[0])
        if logits.ndim > 2 or (logits.ndim == 2 and logits.shape[1] != 1):
            raise CrossEncoderError(
                f"expected one relevance logit per pair, got shape {logits.shape}"
            )
        return logits.reshape(-1)


class SentenceTransformersScorer:
    """A ``sentence_transformers.CrossEncoder`` on the CPU (the optional extra)."""

    def __init__(self, model: str, *, local_only: bool, max_tokens: int) -> None:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise CrossEncoderError(
                f"this cross-encoder (no ONNX export at {model!r}) needs sentence-transformers:"
                f" {INSTALL_HINT}"
            ) from None
        self.model = CrossEncoder(
            model, device="cpu", max_length=max_tokens, local_files_only=local_only
        )

    def score(self, query: str, documents: list[str]) -> np.ndarray:
        pairs = [(query, d) for d in documents]
        return np.asarray(self.model.predict(pairs, convert_to_numpy=True, show_progress_bar=False))
