"""The ``Embedder`` protocol, the default embedder, and checks encoders and rerankers share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from citesift.numbers import is_finite_number

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while a long embedding run advances."""


class EmbeddingError(RuntimeError):
    """An embedder's model or endpoint failed or answered with unusable vectors."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension.

    ``name`` is a stable identity (model and dimension) under which vectors may be cached:
    two embedders with the same name must give the same vectors.
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An ``(len(texts), dim)`` float32 array of unit rows (``(0, dim)`` for no texts)."""
        ...


def default_embedder() -> Embedder:
    """The embedded default: all-MiniLM-L6-v2 (int8 ONNX) on the CPU, offline."""
    from citesift.index.onnx_minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length as float32; zero or non-finite rows become zeros."""
    out = np.nan_to_num(np.asarray(vectors, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    peaks = np.abs(out).max(axis=1, keepdims=True, initial=0.0)
    out = np.divide(out, peaks, out=np.zeros_like(out), where=peaks > 0)  # no overflow below
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


def check_vectors(vectors: np.ndarray, count: int, dim: int, who: str) -> np.ndarray:
    """``vectors`` as a float32 ``(count, dim)`` array, or ``ValueError`` naming ``who``."""
    out = np.asarray(vectors, dtype=np.float32)
    if out.shape != (count, dim):
        raise ValueError(f"{who}: expected vectors of shape {(count, dim)}, got {out.shape}")
    return out


def clean_text(text: object) -> str:
    """``text`` with lone surrogates replaced one for one (offsets are unchanged), so
    tokenizers and JSON accept it; ``TypeError`` when it is not a string."""
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    return text.encode("utf-8", "replace").decode("utf-8")


CHARS_PER_TOKEN_BOUND = 32
"""Characters kept per token of a model's input limit: far more than text needs (English
runs about 4-5 per WordPiece token), so the cut only spares the tokenizer megabytes it
would throw away."""


def head_for_tokens(text: str, max_tokens: int) -> str:
    """The start of ``text`` that can hold ``max_tokens`` tokens: bounded tokenizer work."""
    return text[: max_tokens * CHARS_PER_TOKEN_BOUND]


def bounded_int(value: object, low: int, high: int, default: int) -> int:
    """``value`` as an int in ``[low, high]``; ``default`` when it is not a finite number."""
    if not is_finite_number(value):
        return default
    return max(low, min(int(value), high))  # type: ignore[call-overload]
