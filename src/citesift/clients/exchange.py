"""One exchange with a configured API: a JSON POST (or a GET with query parameters) within
the call's deadline, its answer read up to a cap, tried again by the endpoint's retry
policy; every failure a ``ClientError`` naming the API.

``post_json`` is the async core; ``post_json_sync`` runs it from plain code, also from
inside a running event loop (a notebook), where it runs on a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx

from citesift.clients.endpoint import RETRY_STATUSES, Endpoint
from citesift.errors import ClientError
from citesift.net import retry_after_ms, run_sync

BODY_EXCERPT_CHARS = 200
"""How much of an error answer is quoted in the error."""


async def post_json(endpoint: Endpoint, path: str, payload: Any) -> Any:
    """POST ``payload`` as JSON to ``path`` of ``endpoint`` and return the JSON answer."""
    return await _exchange(endpoint, path, _Ask("POST", payload))


async def get_json(endpoint: Endpoint, path: str, params: dict[str, str]) -> Any:
    """GET ``path`` of ``endpoint`` with query ``params`` and return the JSON answer (a search
    API that answers only GET requests)."""
    return await _exchange(endpoint, path, _Ask("GET", None, params))


@dataclass(frozen=True, slots=True)
class _Ask:
    """What one exchange sends: the method, a JSON body for POST, query parameters for GET."""

    method: str
    payload: Any = None
    params: dict[str, str] | None = None


async def _exchange(endpoint: Endpoint, path: str, payload: _Ask) -> Any:
    """The exchange itself: tries within the deadline, the answer parsed or a ``ClientError``."""
    deadline = time.monotonic() + endpoint.timeout
    async with httpx.AsyncClient(follow_redirects=False, trust_env=False) as client:
        for attempt in range(1, endpoint.retry.attempts + 1):
            try:
                status, headers, body = await _try(client, endpoint, path, payload, deadline)
            except _Retryable as lost:
                failure, retry_after = f"network error: {lost.__cause__}", None
            else:
                if 200 <= status < 300:
                    return _parsed(body, endpoint.label)
                failure = f"{status} {_excerpt(body)}"
                if status not in RETRY_STATUSES:
                    raise ClientError(f"{endpoint.label}: {failure}")
                retry_after = _retry_after(headers)
            wait = endpoint.retry.wait(attempt, retry_after)
            if attempt == endpoint.retry.attempts or time.monotonic() + wait >= deadline:
                break
            await asyncio.sleep(wait)
    raise ClientError(f"{endpoint.label}: {failure}")


def post_json_sync(endpoint: Endpoint, path: str, payload: Any) -> Any:
    """``post_json`` from synchronous code (on a worker thread when a loop is running)."""
    return run_sync(post_json(endpoint, path, payload))


class _Retryable(Exception):
    """The connection was refused or lost before an answer: worth another try."""


async def _try(
    client: httpx.AsyncClient, endpoint: Endpoint, path: str, payload: _Ask, deadline: float
) -> tuple[int, httpx.Headers, bytes]:
    """One request within what is left of the deadline: status, headers, capped body."""
    left = deadline - time.monotonic()
    label = endpoint.label
    try:
        return await asyncio.wait_for(_send(client, endpoint, path, payload), max(left, 0.0))
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise ClientError(f"{label}: timed out after {endpoint.timeout:g}s") from exc
    except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
        raise _Retryable() from exc
    except httpx.HTTPError as exc:
        raise ClientError(f"{label}: network error: {exc}") from exc


async def _send(
    client: httpx.AsyncClient, endpoint: Endpoint, path: str, ask: _Ask
) -> tuple[int, httpx.Headers, bytes]:
    headers = {"Accept": "application/json", **dict(endpoint.headers)}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    body = {"json": ask.payload} if ask.method == "POST" else {"params": ask.params}
    request = client.build_request(ask.method, endpoint.url(path), headers=headers, **body)
    response = await client.send(request, stream=True)
    try:
        return response.status_code, response.headers, await _capped(response, endpoint)
    finally:
        await response.aclose()


async def _capped(response: httpx.Response, endpoint: Endpoint) -> bytes:
    """The body, at most ``max_response_bytes`` of it (of an error answer, an excerpt)."""
    cap = endpoint.max_response_bytes
    declared = response.headers.get("content-length", "")
    too_large = ClientError(f"{endpoint.label}: response exceeds {cap} bytes")
    if response.is_success and declared.isdigit() and int(declared) > cap:
        raise too_large
    limit = cap if response.is_success else BODY_EXCERPT_CHARS * 4
    body = bytearray()
    async for piece in response.aiter_bytes():
        body += piece
        if len(body) > limit:
            if response.is_success:
                raise too_large
            break
    return bytes(body)


def _parsed(body: bytes, label: str) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ClientError(f"{label}: invalid JSON in the response") from exc


def _excerpt(body: bytes) -> str:
    return body.decode("utf-8", "replace")[:BODY_EXCERPT_CHARS]


def _retry_after(headers: httpx.Headers) -> float | None:
    """The seconds a ``Retry-After`` header asks for (clamped by ``net``), else None."""
    value = headers.get("retry-after")
    return None if value is None else retry_after_ms(value, time.time() * 1000) / 1000
