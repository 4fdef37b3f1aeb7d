"""Retrieval: BM25, dense vectors, hybrid fusion, reranking, partitions and the RAG facade."""

from citesift.index.bm25 import BM25Index
from citesift.index.bm25_score import bm25_score
from citesift.index.cross_encoder import CrossEncoderError, CrossEncoderReranker
from citesift.index.embed import Embedder, EmbeddingError, default_embedder
from citesift.index.embed_cache import CachedEmbedder
from citesift.index.fusion import fusion_weights, reciprocal_rank_fusion, weighted_fusion
from citesift.index.hybrid import HybridRetriever
from citesift.index.local import LocalStore
from citesift.index.onnx_minilm import MiniLMEmbedder
from citesift.index.openai_embed import OpenAIEmbedder
from citesift.index.partition import (
    PartitionDiagnostics,
    PartitionedRag,
    create_partitioned_rag,
)
from citesift.index.query import Query
from citesift.index.rag import ChunkStore, Rag, create_rag
from citesift.index.rerank import (
    BM25Reranker,
    RerankedRetriever,
    Reranker,
    rerank_checked,
    rerank_fused,
)
from citesift.index.rerank_http import CohereReranker, HTTPReranker, JinaReranker, VoyageReranker
from citesift.index.rerankers import RERANKERS, reranker_by_name
from citesift.index.retriever import Retriever, query_of
from citesift.index.scoring import RerankError, check_scores
from citesift.index.vectors import VectorIndex

__all__ = [
    "BM25Index",
    "BM25Reranker",
    "CachedEmbedder",
    "ChunkStore",
    "CohereReranker",
    "CrossEncoderError",
    "CrossEncoderReranker",
    "Embedder",
    "EmbeddingError",
    "HTTPReranker",
    "HybridRetriever",
    "JinaReranker",
    "LocalStore",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "PartitionDiagnostics",
    "PartitionedRag",
    "Query",
    "RERANKERS",
    "Rag",
    "RerankError",
    "RerankedRetriever",
    "Reranker",
    "Retriever",
    "VectorIndex",
    "VoyageReranker",
    "bm25_score",
    "check_scores",
    "create_partitioned_rag",
    "create_rag",
    "default_embedder",
    "fusion_weights",
    "query_of",
    "reciprocal_rank_fusion",
    "rerank_checked",
    "rerank_fused",
    "reranker_by_name",
    "weighted_fusion",
]
