"""Real, small components the RAG tests share: a hashing embedder and a list chunk store."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from citesift.index.filters import matches
from citesift.index.query import Query
from citesift.model import Match
from citesift.store.chunks import StoredChunk


class HashEmbedder:
    """Bag-of-words vectors hashed into 64 dimensions: deterministic, instant, offline."""

    name = "test-hash/64"
    dim = 64

    def __init__(self, fail_after: int | None = None) -> None:
        self.calls = 0
        self.fail_after = fail_after

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise RuntimeError("embedder broke")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


class ListStore:
    """A chunk store kept in a list that records its calls; it may ignore filters and top_k
    or answer with chosen scores, to hold the facade to its contract."""

    def __init__(
        self,
        *,
        honour_filter: bool = True,
        honour_top_k: bool = True,
        scores: list[Any] | None = None,
    ) -> None:
        self.chunks: list[StoredChunk] = []
        self.searches: list[Query] = []
        self.upserts: list[list[str]] = []
        self.honour_filter, self.honour_top_k, self.scores = honour_filter, honour_top_k, scores

    def upsert(self, document_ids: Sequence[str], chunks: Sequence[StoredChunk]) -> None:
        self.upserts.append(list(document_ids))
        self.delete(document_ids)
        self.chunks.extend(chunks)

    def delete(self, document_ids: Sequence[str]) -> int:
        kept = [c for c in self.chunks if c.document_id not in set(document_ids)]
        gone, self.chunks = len(self.chunks) - len(kept), kept
        return gone

    def search(self, query: Query) -> list[Match]:
        self.searches.append(query)
        found = [
            c
            for c in self.chunks
            if not (self.honour_filter and query.filter) or matches(c.fields(), query.filter)
        ]
        if self.honour_top_k:
            found = found[: query.top_k]
        scores = self.scores if self.scores is not None else [None] * len(found)
        return [c.match(s) for c, s in zip(found, scores, strict=False)]
