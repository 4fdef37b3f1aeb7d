"""Rerankers: the contract and its fusion, BM25, HTTP APIs, a local cross-encoder, by name."""

from citesift.index.rerankers.base import Reranker, RerankError, rerank_checked, rerank_fused
from citesift.index.rerankers.bm25 import BM25Reranker
from citesift.index.rerankers.by_name import RERANKERS, reranker_by_name
from citesift.index.rerankers.cross_encoder import CrossEncoderError, CrossEncoderReranker
from citesift.index.rerankers.http import (
    CohereReranker,
    HTTPReranker,
    JinaReranker,
    VoyageReranker,
)

__all__ = [
    "BM25Reranker",
    "CohereReranker",
    "CrossEncoderError",
    "CrossEncoderReranker",
    "HTTPReranker",
    "JinaReranker",
    "RERANKERS",
    "RerankError",
    "Reranker",
    "VoyageReranker",
    "rerank_checked",
    "rerank_fused",
    "reranker_by_name",
]
