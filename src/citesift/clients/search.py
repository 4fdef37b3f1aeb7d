"""Web search APIs behind one interface: SearXNG's JSON API, Brave Search and Tavily, each a
configured endpoint answering ``WebResult``s (a failure is a ``ClientError``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Protocol

from citesift.clients.endpoint import Endpoint
from citesift.clients.exchange import get_json, post_json
from citesift.errors import ClientError, invalid, written_number

MAX_RESULTS = 20
MAX_QUERY_CHARS = 400
SEARCH_TIMEOUT = 20.0
BRAVE_URL = "https://api.search.brave.com/res/v1"
TAVILY_URL = "https://api.tavily.com"


@dataclass(frozen=True, slots=True)
class WebResult:
    """One search result: the page's address, its title and the engine's snippet."""

    url: str
    title: str
    snippet: str = ""


class WebSearch(Protocol):
    """A search engine: at most ``limit`` results for ``query``, best first."""

    name: str

    async def search(self, query: str, limit: int) -> list[WebResult]: ...


def _query(query: object, limit: object) -> tuple[str, int]:
    if not isinstance(query, str) or not query.strip() or len(query) > MAX_QUERY_CHARS:
        raise invalid("query", query, f"text of 1 to {written_number(MAX_QUERY_CHARS)} characters")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RESULTS:
        raise invalid("limit", limit, f"an integer from 1 to {written_number(MAX_RESULTS)}")
    return query.strip(), limit


def _results(items: object, url: str, title: str, snippet: str, limit: int) -> list[WebResult]:
    """``WebResult``s of a list of answer objects, by the names of their fields; entries
    without an http(s) address are skipped."""
    found: list[WebResult] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        address = item.get(url)
        if not isinstance(address, str) or not address.startswith(("http://", "https://")):
            continue
        found.append(WebResult(address, _text(item.get(title)), _text(item.get(snippet))))
        if len(found) == limit:
            break
    return found


def _text(value: object) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _field(answer: Any, name: str, label: str) -> Any:
    if not isinstance(answer, dict):
        raise ClientError(f"{label} sent a malformed answer: not a JSON object")
    return answer.get(name)


class SearxngSearch:
    """A SearXNG instance's JSON API (``/search?format=json``; the instance must enable the
    json format)."""

    name = "searxng"

    def __init__(self, base_url: str, *, timeout: float = SEARCH_TIMEOUT) -> None:
        self.endpoint = Endpoint(base_url, "SearXNG", timeout=timeout)

    async def search(self, query: str, limit: int) -> list[WebResult]:
        """At most ``limit`` results for ``query``."""
        query, limit = _query(query, limit)
        answer = await get_json(self.endpoint, "search", {"q": query, "format": "json"})
        items = _field(answer, "results", self.endpoint.label)
        return _results(items, "url", "title", "content", limit)


class BraveSearch:
    """Brave Search's web search API; ``api_key`` defaults to ``$BRAVE_API_KEY``."""

    name = "brave"

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str = BRAVE_URL,
        timeout: float = SEARCH_TIMEOUT,
    ) -> None:
        key = api_key or os.environ.get("BRAVE_API_KEY") or ""
        if not key:
            raise invalid("api_key", key, "a Brave Search key (or set BRAVE_API_KEY)")
        headers = (("X-Subscription-Token", key),)
        self.endpoint = Endpoint(base_url, "Brave Search", timeout=timeout, headers=headers)

    async def search(self, query: str, limit: int) -> list[WebResult]:
        """At most ``limit`` results for ``query``."""
        query, limit = _query(query, limit)
        params = {"q": query, "count": str(limit)}
        answer = await get_json(self.endpoint, "web/search", params)
        web = _field(answer, "web", self.endpoint.label)
        items = web.get("results") if isinstance(web, dict) else None
        return _results(items, "url", "title", "description", limit)


class TavilySearch:
    """Tavily's search API; ``api_key`` defaults to ``$TAVILY_API_KEY``."""

    name = "tavily"

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str = TAVILY_URL,
        timeout: float = SEARCH_TIMEOUT,
    ) -> None:
        key = api_key or os.environ.get("TAVILY_API_KEY") or ""
        if not key:
            raise invalid("api_key", key, "a Tavily key (or set TAVILY_API_KEY)")
        self.endpoint = Endpoint(base_url, "Tavily", key, timeout)

    async def search(self, query: str, limit: int) -> list[WebResult]:
        """At most ``limit`` results for ``query``."""
        query, limit = _query(query, limit)
        answer = await post_json(self.endpoint, "search", {"query": query, "max_results": limit})
        items = _field(answer, "results", self.endpoint.label)
        return _results(items, "url", "title", "content", limit)
