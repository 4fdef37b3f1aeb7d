"""Configured outbound APIs (rerankers, embeddings; next the LLM and search backends): one
capped, deadline-bound JSON exchange, one retry policy, one error type (``ClientError``)."""

from citesift.clients.endpoint import NO_RETRY, Endpoint, RetryPolicy
from citesift.clients.exchange import Answer, post_json, post_json_sync, request, request_sync
from citesift.errors import ClientError

__all__ = [
    "NO_RETRY",
    "Answer",
    "ClientError",
    "Endpoint",
    "RetryPolicy",
    "post_json",
    "post_json_sync",
    "request",
    "request_sync",
]
