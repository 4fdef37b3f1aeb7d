"""Embedders: the protocol, the local MiniLM default, OpenAI-compatible endpoints, a cache."""

from citesift.index.embedders.base import Embedder, EmbeddingError
from citesift.index.embedders.cache import CachedEmbedder
from citesift.index.embedders.minilm import MiniLMEmbedder, default_embedder, shared_embedder
from citesift.index.embedders.openai_compat import OpenAIEmbedder

__all__ = [
    "CachedEmbedder",
    "Embedder",
    "EmbeddingError",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "default_embedder",
    "shared_embedder",
]
