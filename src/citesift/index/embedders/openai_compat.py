"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (the ``openai`` extra)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from citesift.index.arguments import bounded_int
from citesift.index.embedders.base import EmbeddingError, normalise_rows
from citesift.index.texts import clean_text

DEFAULT_BATCH_SIZE = 128
MAX_BATCH_SIZE = 2048
"""The OpenAI API's limit on inputs per request."""
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0
DEFAULT_RETRIES = 2
MAX_RETRIES = 10
MAX_DIM = 65_536
PLACEHOLDER_KEY = "unused"
"""Sent when no key is given or set: local servers ignore it, and the client needs one."""
INSTALL_HINT = "pip install 'citesift[openai]'"


class OpenAIEmbedder:
    """Vectors from ``model`` at ``base_url``, requested as floats in batches, L2-normalised.

    Without ``dim`` the dimension is learnt from one probe request at construction. ``name``
    carries the endpoint, the model and the dimension, so cached vectors never mix models.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dim: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
    ) -> None:
        self.model = model
        self.batch_size = bounded_int(batch_size, 1, MAX_BATCH_SIZE, DEFAULT_BATCH_SIZE)
        self._client = _client(base_url, api_key, timeout, max_retries)
        self.dim = self._probe_dim() if dim is None else _checked_dim(dim)
        self.name = f"openai:{base_url.rstrip('/')}#{model}/{self.dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts``, ``batch_size`` inputs per request, in input order."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            batch = [clean_text(t) or " " for t in texts[start : start + self.batch_size]]
            out[start : start + len(batch)] = self._checked(self._request(batch), len(batch))
        return out

    def _probe_dim(self) -> int:
        """The endpoint's vector size, from embedding one short text."""
        rows = self._request(["dimension probe"])
        if len(rows) != 1 or not isinstance(rows[0], list) or not 1 <= len(rows[0]) <= MAX_DIM:
            raise EmbeddingError("embeddings endpoint sent no usable vector for the probe")
        return len(rows[0])

    def _request(self, batch: list[str]) -> list[Any]:
        """The raw vectors the endpoint answers for ``batch``, in input order."""
        import openai

        try:
            answer = self._client.embeddings.create(
                model=self.model, input=batch, encoding_format="float"
            )
        except (openai.OpenAIError, ValueError) as exc:  # ValueError: a body that is not JSON
            raise EmbeddingError(f"embeddings endpoint failed: {exc}") from exc
        try:
            return [item.embedding for item in sorted(answer.data, key=lambda i: i.index)]
        except (AttributeError, TypeError) as exc:
            raise EmbeddingError(f"embeddings endpoint sent a malformed answer: {exc}") from exc

    def _checked(self, rows: list[Any], count: int) -> np.ndarray:
        """``rows`` as unit float32 rows; ``EmbeddingError`` when count, size or values are off."""
        try:
            vectors = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbeddingError(f"embeddings endpoint sent malformed vectors: {exc}") from exc
        if vectors.shape != (count, self.dim):
            raise EmbeddingError(
                f"embeddings endpoint sent shape {vectors.shape}, expected {(count, self.dim)}"
            )
        if not np.isfinite(vectors).all():
            raise EmbeddingError("embeddings endpoint sent non-finite values")
        return normalise_rows(vectors)


def _checked_dim(dim: object) -> int:
    """``dim`` if it is an integer in ``[1, MAX_DIM]``, else ``ValueError``."""
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        raise ValueError(f"dim must be an integer from 1 to {MAX_DIM}, got {dim!r}")
    return dim


def _client(base_url: str, api_key: str | None, timeout: float, retries: int) -> Any:
    """An ``openai.OpenAI`` client, or ImportError naming the extra to install."""
    try:
        import openai
    except ImportError as exc:
        raise ImportError(f"OpenAIEmbedder needs the openai package: {INSTALL_HINT}") from exc
    key = api_key or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_KEY
    seconds = (
        timeout
        if isinstance(timeout, int | float) and 0 < timeout <= MAX_TIMEOUT
        else DEFAULT_TIMEOUT
    )
    tries = bounded_int(retries, 0, MAX_RETRIES, DEFAULT_RETRIES)
    return openai.OpenAI(base_url=base_url, api_key=key, timeout=seconds, max_retries=tries)
