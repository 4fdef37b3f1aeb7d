"""A hybrid retriever: a base retriever's candidates rescored by BM25 and fused by weight."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citesift.index.bm25_score import bm25_score
from citesift.index.fusion import DEFAULT_BM25_WEIGHT, DEFAULT_VECTOR_WEIGHT, weighted_fusion
from citesift.index.rerank import DEFAULT_CANDIDATE_POOL, DEFAULT_TOP_K
from citesift.index.retriever import Retriever, query_of
from citesift.index.scoring import positive_int
from citesift.model import Match


class HybridRetriever:
    """Fuses the scores ``base`` gives its candidates with BM25 over those candidates."""

    def __init__(
        self,
        base: Retriever,
        *,
        vector_weight: float = DEFAULT_VECTOR_WEIGHT,
        bm25_weight: float = DEFAULT_BM25_WEIGHT,
        top_k: int = DEFAULT_TOP_K,
        candidate_pool: int = DEFAULT_CANDIDATE_POOL,
    ) -> None:
        self.base = base
        self.vector_weight, self.bm25_weight = vector_weight, bm25_weight
        self.top_k = positive_int(top_k, DEFAULT_TOP_K)
        self.candidate_pool = positive_int(candidate_pool, DEFAULT_CANDIDATE_POOL)

    def search(
        self, query: str, top_k: int | None = None, filter: dict[str, Any] | None = None
    ) -> list[Match]:
        """The ``top_k`` candidates with the best fused score."""
        k = positive_int(top_k, self.top_k)
        pool = max(self.candidate_pool, k)
        candidates = list(self.base.search(query, top_k=pool, filter=filter))[:pool]
        lexical = bm25_score(query, candidates)
        return weighted_fusion(candidates, lexical, self.vector_weight, self.bm25_weight, k)

    def retrieve(
        self, query: str | None = None, messages: Sequence[Any] | None = None
    ) -> list[Match]:
        """The retriever contract of an agent runtime: search the query (or the last message)."""
        return self.search(query_of(query, messages))
