"""Configured outbound APIs (LLM chat, rerankers, embeddings, search backends): one
capped, deadline-bound JSON exchange, one retry policy, one error type (``ClientError``)."""

from citesift.clients.chat import ChatClient, ChatReply
from citesift.clients.endpoint import NO_RETRY, Endpoint, RetryPolicy
from citesift.clients.exchange import get_json, post_json, post_json_sync
from citesift.clients.search import (
    BraveSearch,
    SearxngSearch,
    TavilySearch,
    WebResult,
    WebSearch,
)
from citesift.errors import ClientError

__all__ = [
    "NO_RETRY",
    "BraveSearch",
    "SearxngSearch",
    "TavilySearch",
    "WebResult",
    "WebSearch",
    "ChatClient",
    "ChatReply",
    "ClientError",
    "Endpoint",
    "RetryPolicy",
    "get_json",
    "post_json",
    "post_json_sync",
]
