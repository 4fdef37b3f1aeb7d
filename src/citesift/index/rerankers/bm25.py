"""The default reranker: BM25 over the candidates themselves (no index, no model)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citesift.index.arguments import count
from citesift.index.lexical.bm25 import DEFAULT_B, DEFAULT_K1, bm25_parameters, bm25_score
from citesift.model import Match


@dataclass(frozen=True, slots=True)
class BM25Reranker:
    """Rescores candidates by BM25 over the candidates themselves (no index needed)."""

    k1: float = DEFAULT_K1
    b: float = DEFAULT_B

    def __post_init__(self) -> None:
        bm25_parameters(self.k1, self.b)

    def rerank(self, query: str, hits: Sequence[Match], top_k: int) -> list[Match]:
        """The ``top_k`` best candidates by BM25 against ``query``."""
        return bm25_score(query, hits, k1=self.k1, b=self.b)[: count("top_k", top_k)]
