"""Retrieval: ``lexical`` (tokenizer, BM25), ``embedders``, vectors, fusion, ``rerankers``,
partitions and the RAG facade."""

from citesift.index.dense import ANN_THRESHOLD, DenseInfo
from citesift.index.embedders import (
    CachedEmbedder,
    Embedder,
    EmbeddingError,
    MiniLMEmbedder,
    OpenAIEmbedder,
    default_embedder,
)
from citesift.index.fusion import (
    fusion_weights,
    reciprocal_rank_fusion,
    weighted_fusion,
    zscore_fusion,
)
from citesift.index.lexical import BM25Index, Tokenizer, bm25_score
from citesift.index.local import LocalStore
from citesift.index.onnx import ModelFileError
from citesift.index.partition import (
    PartitionDiagnostics,
    PartitionedRag,
    create_partitioned_rag,
)
from citesift.index.query import Query
from citesift.index.rag import ChunkStore, Rag, create_rag
from citesift.index.rerankers import (
    RERANKERS,
    BM25Reranker,
    CohereReranker,
    CrossEncoderError,
    CrossEncoderReranker,
    HTTPReranker,
    JinaReranker,
    Reranker,
    RerankError,
    VoyageReranker,
    rerank_checked,
    rerank_fused,
    reranker_by_name,
)
from citesift.index.retriever import Retriever, check_scores, query_of
from citesift.index.vectors import VectorIndex
from citesift.store.chunks import IndexedDocument, IndexStats

__all__ = [
    "ANN_THRESHOLD",
    "BM25Index",
    "BM25Reranker",
    "CachedEmbedder",
    "ChunkStore",
    "CohereReranker",
    "DenseInfo",
    "CrossEncoderError",
    "CrossEncoderReranker",
    "Embedder",
    "EmbeddingError",
    "HTTPReranker",
    "IndexStats",
    "IndexedDocument",
    "JinaReranker",
    "LocalStore",
    "MiniLMEmbedder",
    "ModelFileError",
    "OpenAIEmbedder",
    "PartitionDiagnostics",
    "PartitionedRag",
    "Query",
    "RERANKERS",
    "Rag",
    "RerankError",
    "Reranker",
    "Retriever",
    "Tokenizer",
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
    "zscore_fusion",
]
