"""Rerankers behind HTTP APIs: Voyage, Jina and Cohere, through the one client exchange.

Every failure is a ``ClientError`` naming the provider, never a silently shortened list:
what the exchange refuses (a network error or timeout, a non-OK status quoting at most 200
characters of the body, a body over the size cap, invalid JSON) and an answer of the wrong
shape (results that are not an array, an index that is not an in-range integer or repeats,
a score that is not a finite number). No hits, no request.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from citesift.clients import ClientError, Endpoint, RetryPolicy, post_json_sync
from citesift.clients.endpoint import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RETRY, DEFAULT_TIMEOUT
from citesift.index.arguments import count
from citesift.index.texts import clean_text
from citesift.model import Match
from citesift.numbers import is_finite_number


@dataclass(frozen=True, slots=True)
class RerankAPI:
    """What differs between providers: name, endpoint, key variable and answer shape."""

    label: str
    path: str
    key_env: str
    results_key: str
    top_field: str
    extra: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, kw_only=True)
class HTTPReranker:
    """Sends the query and the hits' contents to ``base_url`` and reorders by its scores.

    ``api_key`` defaults to the provider's environment variable. ``timeout`` bounds the
    whole call (retries included), ``max_response_bytes`` the answer, ``retry`` says how a
    429 or 5xx answer is tried again. A provider is a subclass that sets ``api`` (a
    ``RerankAPI``) and defaults for ``model`` and ``base_url``.
    """

    api: ClassVar[RerankAPI]
    model: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    retry: RetryPolicy = DEFAULT_RETRY

    def __post_init__(self) -> None:
        self._endpoint(None)  # a base URL, timeout or cap that makes no sense is refused now

    def rerank(self, query: str, hits: Sequence[Match], top_k: int) -> list[Match]:
        """``hits`` rescored by the provider, best first, at most ``top_k`` (new objects)."""
        k = count("top_k", top_k)
        if not hits:
            return []
        endpoint = self._endpoint(self._key())
        answer = post_json_sync(endpoint, self.api.path, self._payload(query, hits, k))
        scores = _scores(answer, self.api, len(hits))
        ranked = sorted(scores.items(), key=lambda pair: -pair[1])[:k]
        return [
            replace(hits[i], score=score, metadata=dict(hits[i].metadata)) for i, score in ranked
        ]

    def _payload(self, query: str, hits: Sequence[Match], k: int) -> dict[str, Any]:
        """The request body: model, query, the documents' texts and how many to return."""
        documents = [clean_text(h.content) for h in hits]
        body = {"model": self.model, "query": clean_text(query), "documents": documents}
        return {**body, self.api.top_field: min(k, len(hits)), **dict(self.api.extra)}

    def _endpoint(self, key: str | None) -> Endpoint:
        label = f"{self.api.label} rerank"
        return Endpoint(
            self.base_url, label, key, self.timeout, self.max_response_bytes, self.retry
        )

    def _key(self) -> str:
        key = self.api_key or os.environ.get(self.api.key_env)
        if not key:
            raise ClientError(
                f"{self.api.label} rerank: no api_key given and {self.api.key_env} unset"
            )
        return key


@dataclass(frozen=True, kw_only=True)
class VoyageReranker(HTTPReranker):
    """Voyage AI's ``/v1/rerank``; answers under ``data``."""

    api: ClassVar[RerankAPI] = RerankAPI("voyage", "/v1/rerank", "VOYAGE_API_KEY", "data", "top_k")
    model: str = "rerank-2"
    base_url: str = "https://api.voyageai.com"


@dataclass(frozen=True, kw_only=True)
class JinaReranker(HTTPReranker):
    """Jina AI's ``/v1/rerank``; answers under ``results``."""

    api: ClassVar[RerankAPI] = RerankAPI(
        "jina", "/v1/rerank", "JINA_API_KEY", "results", "top_n", (("return_documents", False),)
    )
    model: str = "jina-reranker-v2-base-multilingual"
    base_url: str = "https://api.jina.ai"


@dataclass(frozen=True, kw_only=True)
class CohereReranker(HTTPReranker):
    """Cohere's rerank v2 (``/v2/rerank``); answers under ``results``."""

    api: ClassVar[RerankAPI] = RerankAPI("cohere", "/v2/rerank", "CO_API_KEY", "results", "top_n")
    model: str = "rerank-v3.5"
    base_url: str = "https://api.cohere.com"


def _scores(answer: Any, api: RerankAPI, count: int) -> dict[int, float]:
    """Match index → score from the answer's results array, else ``ClientError``."""
    results = answer.get(api.results_key) if isinstance(answer, dict) else None
    if not isinstance(results, list):
        raise ClientError(f"{api.label} rerank: expected an array under {api.results_key!r}")
    scores = dict(_index_and_score(item, count, api.label) for item in results)
    if len(scores) != len(results):
        raise ClientError(f"{api.label} rerank: the same document index came back twice")
    return scores


def _index_and_score(item: Any, count: int, label: str) -> tuple[int, float]:
    """The hit index and finite score of one result, else ``ClientError``."""
    index = item.get("index") if isinstance(item, dict) else None
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
        raise ClientError(f"{label} rerank: result index {index!r} is not in 0..{count - 1}")
    score = item.get("relevance_score")
    if not is_finite_number(score):
        raise ClientError(f"{label} rerank: result {index} has a non-finite score {score!r}")
    return index, float(score)
