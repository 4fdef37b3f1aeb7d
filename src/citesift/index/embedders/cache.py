"""An embedder that remembers: vectors cached in the store by (embedder, text hash)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citesift.index.arguments import count
from citesift.index.embedders.base import Embedder, Progress, check_vectors
from citesift.store.embeddings import (
    Store,
    load_vectors,
    migrate_embeddings,
    save_vectors,
    text_key,
)

DEFAULT_BATCH_SIZE = 64
MAX_BATCH_SIZE = 4096


class CachedEmbedder:
    """Wraps ``embedder`` so that only texts never embedded before reach it.

    Misses are embedded in batches of ``batch_size`` and each batch is committed on its own,
    so an interrupted run keeps what it finished and a re-index of unchanged text costs no
    model call at all. ``progress(done, total)`` counts the texts embedded in this call.
    """

    def __init__(
        self,
        embedder: Embedder,
        store: Store,
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: Progress | None = None,
    ) -> None:
        self.inner = embedder
        self.store = store
        self.batch_size = count("batch_size", batch_size, 1, MAX_BATCH_SIZE)
        self.progress = progress
        self.name = embedder.name
        self.dim = embedder.dim
        migrate_embeddings(store)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts``: cached ones read back, the rest embedded and stored."""
        keys = [text_key(t) for t in texts]
        found = load_vectors(self.store, self.name, self.dim, keys)
        missing = _first_texts(texts, keys, found)
        self._embed_missing(missing, found)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = found[key]
        return out

    def _embed_missing(self, missing: dict[str, str], found: dict[str, np.ndarray]) -> None:
        """Embed ``missing`` (key → text) batch by batch, storing and collecting each batch."""
        keys = list(missing)
        for start in range(0, len(keys), self.batch_size):
            batch = keys[start : start + self.batch_size]
            vectors = self.inner.embed([missing[k] for k in batch])
            vectors = check_vectors(vectors, len(batch), self.dim, self.name)
            save_vectors(self.store, self.name, batch, vectors)
            found.update(zip(batch, vectors, strict=True))
            if self.progress is not None:
                self.progress(start + len(batch), len(keys))


def _first_texts(
    texts: Sequence[str], keys: Sequence[str], found: dict[str, np.ndarray]
) -> dict[str, str]:
    """Each uncached key once, with its text, in first-seen order."""
    missing: dict[str, str] = {}
    for key, text in zip(keys, texts, strict=True):
        if key not in found:
            missing.setdefault(key, text)
    return missing
