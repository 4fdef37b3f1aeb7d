"""One exchange with a configured API: a request (a JSON POST, a GET with query parameters,
a listing or a download) within the call's deadline, its answer read up to a cap, tried
again by the endpoint's retry policy; every failure a ``ClientError`` naming the API.

``post_json`` is the async core; ``post_json_sync`` runs it from plain code, also from
inside a running event loop (a notebook), where it runs on a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from citesift.clients.endpoint import RETRY_STATUSES, Endpoint
from citesift.errors import ClientError, masked
from citesift.net import retry_after_ms, run_sync
from citesift.net.headers import header_fault

BODY_EXCERPT_CHARS = 200
"""How much of an error answer is quoted in the error."""
SECRET_CHARS = 8
"""The shortest header value an error's excerpt hides as a secret (a version, a flag is
shorter than any key)."""
KEY_CHARS = 4
"""The shortest API key an error's excerpt hides: any key at all, but one so short that
writing each of its places ``***`` would hide the words around it ("k", "ab")."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What one call got: the status, the headers (names in lower case) and the body (all
    of it for a 2xx answer, within the cap; an excerpt of any other)."""

    status: int
    headers: dict[str, str]
    body: bytes = field(repr=False)

    @property
    def ok(self) -> bool:
        """Whether the status is 2xx."""
        return 200 <= self.status < 300

    def json(self, label: str) -> Any:
        """The body as JSON; ``ClientError`` naming ``label`` when it is not."""
        return _parsed(self.body, label)


async def request(
    endpoint: Endpoint,
    method: str,
    target: str,
    *,
    payload: Any = None,
    headers: dict[str, str] | None = None,
    params: dict[str, str] | None = None,
    content: bytes | None = None,
) -> Answer:
    """One call to ``target`` (a path under the endpoint, or a whole http(s) address such
    as a download link; ``params`` its query, ``payload`` its JSON body, or ``content`` a
    body already encoded, with its type in ``headers``) within the
    endpoint's deadline, tried again by its retry policy
    after a 429 or 5xx answer or a lost connection; the last answer, whatever its status.
    A timeout, a body past the cap or a connection that never answered is a ``ClientError``;
    redirects are not followed."""
    deadline = time.monotonic() + endpoint.timeout
    url = target if _absolute(target) else endpoint.url(target)
    answer: Answer | None = None
    # httpx's own per-read timeout (5 s unless told) would cut a call before its deadline,
    # and the message says the deadline: the deadline alone bounds each try.
    client = httpx.AsyncClient(follow_redirects=False, trust_env=False, timeout=endpoint.timeout)
    async with client:
        for attempt in range(1, endpoint.retry.attempts + 1):
            try:
                call = _Call(method, url, payload, headers, params, content)
                answer = await _try(client, endpoint, call, deadline)
            except _Retryable as lost:
                failure = f"network error: {masked(str(lost.__cause__))}"
                retry_after, answer = None, None
            else:
                if answer.status not in RETRY_STATUSES:
                    return answer
                failure, retry_after = "", _retry_after(answer.headers)
            wait = endpoint.retry.wait(attempt, retry_after)
            if attempt == endpoint.retry.attempts or time.monotonic() + wait >= deadline:
                break
            await asyncio.sleep(wait)
    if answer is not None:
        return answer
    raise ClientError(f"{endpoint.label}: {failure}")


async def post_json(endpoint: Endpoint, path: str, payload: Any) -> Any:
    """POST ``payload`` as JSON to ``path`` of ``endpoint`` and return the JSON answer."""
    return _json_answer(endpoint, await request(endpoint, "POST", path, payload=payload,
                                                headers=_JSON))  # fmt: skip


async def get_json(endpoint: Endpoint, path: str, params: dict[str, str]) -> Any:
    """GET ``path`` of ``endpoint`` with query ``params`` and return the JSON answer (a search
    API that answers only GET requests)."""
    return _json_answer(endpoint, await request(endpoint, "GET", path, headers=_JSON,
                                                params=params))  # fmt: skip


_JSON = {"Accept": "application/json"}


def _json_answer(endpoint: Endpoint, answer: Answer) -> Any:
    """The JSON of a 2xx answer; a ``ClientError`` quoting any other."""
    if not answer.ok:
        raise ClientError(f"{endpoint.label}: {answer.status} {excerpt(answer.body, endpoint)}")
    return answer.json(endpoint.label)


def post_json_sync(endpoint: Endpoint, path: str, payload: Any) -> Any:
    """``post_json`` from synchronous code (on a worker thread when a loop is running)."""
    return run_sync(post_json(endpoint, path, payload))


class _Retryable(Exception):
    """The connection was refused or lost before an answer: worth another try."""


@dataclass(frozen=True, slots=True)
class _Call:
    """A request to send: method, address, JSON payload (None: no body), extra headers,
    query parameters and a body already encoded."""

    method: str
    url: str
    payload: Any = None
    headers: dict[str, str] | None = None
    params: dict[str, str] | None = None
    content: bytes | None = None


def _absolute(target: str) -> bool:
    return target.startswith(("https://", "http://"))


async def _try(
    client: httpx.AsyncClient, endpoint: Endpoint, call: _Call, deadline: float
) -> Answer:
    """One request within what is left of the deadline: status, headers, capped body."""
    left = deadline - time.monotonic()
    label = endpoint.label
    try:
        return await asyncio.wait_for(_send(client, endpoint, call), max(left, 0.0))
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise ClientError(f"{label}: timed out after {endpoint.timeout:g}s") from exc
    except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
        raise _Retryable() from exc
    except httpx.HTTPError as exc:
        raise ClientError(f"{label}: network error: {masked(str(exc))}") from exc


async def _send(client: httpx.AsyncClient, endpoint: Endpoint, call: _Call) -> Answer:
    headers = dict(endpoint.headers)
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    headers.update(call.headers or {})
    for name, value in headers.items():
        fault = header_fault(name, value)
        if fault:  # a token asked for now (a function's) that no header can carry
            raise ClientError(f"{endpoint.label}: a header cannot be sent, {fault} (not shown)")
    built = client.build_request(
        call.method,
        call.url,
        json=call.payload,
        content=call.content,
        headers=headers,
        params=call.params,
    )
    response = await client.send(built, stream=True)
    try:
        body = await _capped(response, endpoint)
        return Answer(
            response.status_code, {k.lower(): v for k, v in response.headers.items()}, body
        )
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
    except (ValueError, RecursionError) as exc:  # RecursionError: nested past the stack
        raise ClientError(f"{label}: invalid JSON in the response") from exc


def excerpt(body: bytes, endpoint: Endpoint) -> str:
    """The start of an error answer with what a server echoed back of the endpoint's
    secrets written ``***``: its API key of ``KEY_CHARS`` or more characters, its headers'
    values of ``SECRET_CHARS`` or more, and the secrets of any URL in it (``masked``)."""
    text = body.decode("utf-8", "replace")[: BODY_EXCERPT_CHARS * 2]
    key = [endpoint.api_key] if endpoint.api_key and len(endpoint.api_key) >= KEY_CHARS else []
    values = [value for _, value in endpoint.headers if len(value) >= SECRET_CHARS]
    for secret in sorted({*key, *values}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return masked(text)[:BODY_EXCERPT_CHARS]


def _retry_after(headers: dict[str, str]) -> float | None:
    """The seconds a ``Retry-After`` header asks for (clamped by ``net``), else None."""
    value = headers.get("retry-after")
    return None if value is None else retry_after_ms(value, time.time() * 1000) / 1000


def request_sync(
    endpoint: Endpoint,
    method: str,
    target: str,
    *,
    payload: Any = None,
    headers: dict[str, str] | None = None,
    params: dict[str, str] | None = None,
) -> Answer:
    """``request`` from synchronous code (on a worker thread when a loop is running)."""
    return run_sync(
        request(endpoint, method, target, payload=payload, headers=headers, params=params)
    )
