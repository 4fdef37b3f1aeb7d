"""The ``Embedder`` protocol, its error, and the checks every embedder's vectors pass."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from citesift.errors import ClientError, InvalidArgument

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while a long embedding run advances."""


class EmbeddingError(ClientError, RuntimeError):
    """An embeddings endpoint answered with something that is not the vectors asked for."""


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


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length as float32; zero or non-finite rows become zeros."""
    out = np.nan_to_num(np.asarray(vectors, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    peaks = np.abs(out).max(axis=1, keepdims=True, initial=0.0)
    out = np.divide(out, peaks, out=np.zeros_like(out), where=peaks > 0)  # no overflow below
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
    return unit


def check_vectors(vectors: np.ndarray, count: int, dim: int, who: str) -> np.ndarray:
    """``vectors`` as a float32 ``(count, dim)`` array, or ``ValueError`` naming ``who``."""
    out = np.asarray(vectors, dtype=np.float32)
    if out.shape != (count, dim):
        raise InvalidArgument(f"{who}: expected vectors of shape {(count, dim)}, got {out.shape}")
    return out
