"""Embeddings from any OpenAI-compatible ``/embeddings`` endpoint, through the one client
exchange (capped, deadline-bound, retried by policy)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from citesift.clients import Endpoint, RetryPolicy, post_json_sync
from citesift.clients.endpoint import MAX_ATTEMPTS
from citesift.errors import invalid, written_number
from citesift.index.embedders.base import EmbeddingError, normalise_rows
from citesift.index.texts import clean_text

DEFAULT_BATCH_SIZE = 128
MAX_BATCH_SIZE = 2048
"""The OpenAI API's limit on inputs per request."""
DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRIES = 2
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""Room for a batch of 128 vectors of 3,072 floats written out as JSON text, twice over."""
MAX_DIM = 65_536
LABEL = "embeddings endpoint"


class OpenAIEmbedder:
    """Vectors from ``model`` at ``base_url``, requested as floats in batches, L2-normalised.

    ``api_key`` defaults to ``$OPENAI_API_KEY`` (none is sent when neither is set: a local
    server needs none). ``timeout`` bounds each request with its retries, of which there are
    at most ``max_retries`` after a 429, a 5xx or a lost connection. Without ``dim`` the
    dimension is learnt from one probe request at construction. ``name`` carries the
    endpoint, the model and the dimension, so cached vectors never mix models.
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
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        self.model = model
        self.batch_size = _count("batch_size", batch_size, 1, MAX_BATCH_SIZE)
        retry = RetryPolicy(attempts=_count("max_retries", max_retries, 0, MAX_ATTEMPTS - 1) + 1)
        key = api_key or os.environ.get("OPENAI_API_KEY") or None
        self.endpoint = Endpoint(base_url, LABEL, key, timeout, max_response_bytes, retry)
        self.dim = self._probe_dim() if dim is None else _count("dim", dim, 1, MAX_DIM)
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
            raise EmbeddingError(f"{LABEL} sent no usable vector for the probe")
        return len(rows[0])

    def _request(self, batch: list[str]) -> list[Any]:
        """The raw vectors the endpoint answers for ``batch``, in input order."""
        payload = {"model": self.model, "input": batch, "encoding_format": "float"}
        answer = post_json_sync(self.endpoint, "embeddings", payload)
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list) or not all(isinstance(i, dict) for i in data):
            raise EmbeddingError(f"{LABEL} sent a malformed answer: no list of embeddings")
        try:
            return [item.get("embedding") for item in sorted(data, key=lambda i: i["index"])]
        except (KeyError, TypeError) as exc:
            raise EmbeddingError(f"{LABEL} sent a malformed answer: {exc!r}") from exc

    def _checked(self, rows: list[Any], count: int) -> np.ndarray:
        """``rows`` as unit float32 rows; ``EmbeddingError`` when count, size or values are off."""
        try:
            vectors = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbeddingError(f"{LABEL} sent malformed vectors: {exc}") from exc
        if vectors.shape != (count, self.dim):
            raise EmbeddingError(
                f"{LABEL} sent shape {vectors.shape}, expected {(count, self.dim)}"
            )
        if not np.isfinite(vectors).all():
            raise EmbeddingError(f"{LABEL} sent non-finite values")
        return normalise_rows(vectors)


def _count(name: str, value: object, low: int, high: int) -> int:
    """``value`` if it is an integer in ``[low, high]``, else ``InvalidArgument``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise invalid(
            name, value, f"an integer from {written_number(low)} to {written_number(high)}"
        )
    return value
