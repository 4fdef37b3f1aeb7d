"""Rerankers behind HTTP APIs: Voyage, Jina and Cohere, held to one error taxonomy.

Every failure is a ``RerankError`` naming the provider, never a silently shortened list:
a network error or timeout, a non-OK status (with at most 200 characters of the body), a
body over the size cap, invalid JSON, results that are not an array, an index that is not
an in-range integer (or repeats), a score that is not a finite number. No hits, no request.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import httpx

from citesift.index.arguments import positive_int
from citesift.index.rerankers.base import RerankError
from citesift.index.texts import clean_text
from citesift.model import Match
from citesift.numbers import is_finite_number

DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
BODY_EXCERPT_CHARS = 200


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
    whole exchange, ``max_response_bytes`` the answer. A provider is a subclass that sets
    ``api`` (a ``RerankAPI``) and defaults for ``model`` and ``base_url``.
    """

    api: ClassVar[RerankAPI]
    model: str
    base_url: str
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    def rerank(self, query: str, hits: Sequence[Match], top_k: int) -> list[Match]:
        """``hits`` rescored by the provider, best first, at most ``top_k`` (new objects)."""
        if not hits:
            return []
        k = positive_int(top_k, len(hits))
        scores = _scores(self._post(self._payload(query, hits, k)), self.api, len(hits))
        ranked = sorted(scores.items(), key=lambda pair: -pair[1])[:k]
        return [
            replace(hits[i], score=score, metadata=dict(hits[i].metadata)) for i, score in ranked
        ]

    def _payload(self, query: str, hits: Sequence[Match], k: int) -> dict[str, Any]:
        """The request body: model, query, the documents' texts and how many to return."""
        documents = [clean_text(h.content) for h in hits]
        body = {"model": self.model, "query": clean_text(query), "documents": documents}
        return {**body, self.api.top_field: min(k, len(hits)), **dict(self.api.extra)}

    def _post(self, payload: dict[str, Any]) -> Any:
        """POST ``payload`` and parse the answer, turning every failure into ``RerankError``."""
        label, seconds = self.api.label, _seconds(self.timeout)
        try:
            status, body = _exchange(self._url(), payload, self._headers(), seconds, self._cap())
        except _TooLarge as exc:
            raise RerankError(f"{label} rerank: response exceeds {exc.args[0]} bytes") from exc
        except httpx.TimeoutException as exc:
            raise RerankError(f"{label} rerank: timed out after {seconds:g}s") from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise RerankError(f"{label} rerank: network error: {exc}") from exc
        if not 200 <= status < 300:
            excerpt = body[:BODY_EXCERPT_CHARS].decode("utf-8", "replace")
            raise RerankError(f"{label} rerank: {status} {excerpt}")
        return _parsed(body, label)

    def _url(self) -> str:
        return self.base_url.rstrip("/") + self.api.path

    def _headers(self) -> dict[str, str]:
        key = self.api_key or os.environ.get(self.api.key_env)
        if not key:
            raise RerankError(
                f"{self.api.label} rerank: no api_key given and {self.api.key_env} unset"
            )
        return {"Authorization": f"Bearer {key}", "Accept": "application/json"}

    def _cap(self) -> int:
        return positive_int(self.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES)


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


def _exchange(
    url: str, payload: dict[str, Any], headers: dict[str, str], seconds: float, cap: int
) -> tuple[int, bytes]:
    """One POST: the status and at most ``cap`` bytes of body, all within ``seconds``."""
    deadline = time.monotonic() + seconds
    with (
        httpx.Client(timeout=seconds, follow_redirects=False, trust_env=False) as client,
        client.stream("POST", url, json=payload, headers=headers) as response,
    ):
        return response.status_code, _read_capped(response, cap, deadline)


def _read_capped(response: httpx.Response, cap: int, deadline: float) -> bytes:
    """The body within the deadline: at most ``cap`` bytes, or an excerpt of an error body."""
    declared = response.headers.get("content-length", "")
    if response.is_success and declared.isdigit() and int(declared) > cap:
        raise _TooLarge(cap)
    limit = cap if response.is_success else BODY_EXCERPT_CHARS * 4
    body = bytearray()
    for piece in response.iter_bytes():
        body += piece
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("the deadline passed while reading the body")
        if len(body) > limit:
            if response.is_success:
                raise _TooLarge(cap)
            break
    return bytes(body)


class _TooLarge(Exception):
    """The answer passed the size cap (the cap is the argument)."""


def _parsed(body: bytes, label: str) -> Any:
    """The JSON of the body, else ``RerankError``."""
    try:
        return json.loads(body)
    except ValueError as exc:
        raise RerankError(f"{label} rerank: invalid JSON in the response") from exc


def _scores(answer: Any, api: RerankAPI, count: int) -> dict[int, float]:
    """Match index → score from the answer's results array, else ``RerankError``."""
    results = answer.get(api.results_key) if isinstance(answer, dict) else None
    if not isinstance(results, list):
        raise RerankError(f"{api.label} rerank: expected an array under {api.results_key!r}")
    scores = dict(_index_and_score(item, count, api.label) for item in results)
    if len(scores) != len(results):
        raise RerankError(f"{api.label} rerank: the same document index came back twice")
    return scores


def _index_and_score(item: Any, count: int, label: str) -> tuple[int, float]:
    """The hit index and finite score of one result, else ``RerankError``."""
    index = item.get("index") if isinstance(item, dict) else None
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
        raise RerankError(f"{label} rerank: result index {index!r} is not in 0..{count - 1}")
    score = item.get("relevance_score")
    if not is_finite_number(score):
        raise RerankError(f"{label} rerank: result {index} has a non-finite score {score!r}")
    return index, float(score)


def _seconds(value: object) -> float:
    """A timeout in ``(0, MAX_TIMEOUT]`` seconds; the default when ``value`` is unusable."""
    if not is_finite_number(value):
        return DEFAULT_TIMEOUT
    return DEFAULT_TIMEOUT if value <= 0 else min(float(value), MAX_TIMEOUT)
