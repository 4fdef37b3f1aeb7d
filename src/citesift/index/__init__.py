"""Retrieval: chunking, BM25, dense vectors, hybrid fusion, reranking and partitions."""

from citesift.index.bm25_score import bm25_score
from citesift.index.rerank import BM25Reranker, RerankedRetriever, Reranker, rerank_checked
from citesift.index.retriever import Retriever, query_of
from citesift.index.scoring import RerankError, check_scores

__all__ = [
    "BM25Reranker",
    "RerankError",
    "RerankedRetriever",
    "Reranker",
    "Retriever",
    "bm25_score",
    "check_scores",
    "query_of",
    "rerank_checked",
]
