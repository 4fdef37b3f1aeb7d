"""Configured outbound APIs (LLM chat, rerankers, embeddings, search backends, the services
loaders read): one capped, deadline-bound exchange, one retry policy, one error type
(``ClientError``)."""

from citesift.clients.chat import ChatClient, ChatReply
from citesift.clients.endpoint import NO_RETRY, Endpoint, RetryPolicy
from citesift.clients.exchange import (
    Answer,
    get_json,
    post_json,
    post_json_sync,
    request,
    request_sync,
)
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
    "Answer",
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
    "request",
    "request_sync",
]
