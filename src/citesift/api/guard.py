"""What every request passes before a route: its bearer key (when keys are configured), else
its Host and Origin (a keyless server answers only its own local names, so a web page in the
operator's browser cannot reach it by DNS rebinding nor read it cross-site), its client's
rate, its body (read whole up to the bound, else 413, within a time, else 408), and the
strings of a JSON body (a lone surrogate is a 400 naming its field, so no route meets one)."""

from __future__ import annotations

import asyncio
import hmac
import json
import math
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citesift.api.config import host_name
from citesift.api.replies import bad_request, failure
from citesift.checks import LONE_SURROGATE, lone_surrogate_at

OPEN_PATHS = frozenset(("/openapi.json", "/docs", "/docs/oauth2-redirect"))
"""Paths answered without a key: the schema and its documentation say nothing private."""
MAX_CLIENTS = 10_000
"""Clients whose rate is remembered at once; full buckets are forgotten first."""
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""How a lone surrogate can come in a body that is UTF-8: only as a JSON escape."""


class RateLimit:
    """A token bucket per client: ``per_minute`` requests, refilled evenly over a minute."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.refill = per_minute / 60.0
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, client: str) -> float:
        """0 when ``client`` may go on (a token is spent), else seconds until it may."""
        now = self.clock()
        tokens, then = self._buckets.get(client, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - then) * self.refill)
        if tokens < 1:
            self._buckets[client] = (tokens, now)
            return (1 - tokens) / self.refill
        if client not in self._buckets and len(self._buckets) >= MAX_CLIENTS:
            self._forget(now)
        self._buckets[client] = (tokens - 1, now)
        return 0.0

    def _forget(self, now: float) -> None:
        """Drop the clients whose buckets have refilled (they are as if never seen), else
        the one seen first, so memory stays bounded."""
        for client, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) * self.refill >= self.capacity:
                del self._buckets[client]
        if len(self._buckets) >= MAX_CLIENTS:
            del self._buckets[next(iter(self._buckets))]


class Guard:
    """ASGI middleware: 401 without a configured key; with no keys, 403 for a Host or an
    Origin not among ``hosts``; 429 with Retry-After past the rate, 413 for a body over
    ``max_body`` bytes, 408 for one not sent whole in ``body_seconds``, 400 for a JSON body
    holding a lone surrogate."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        keys: tuple[str, ...],
        rate: RateLimit,
        max_body: int,
        hosts: tuple[str, ...],
        body_seconds: float,
    ) -> None:
        self.app = app
        self.keys = tuple(key.encode() for key in keys)
        self.hosts = frozenset(hosts)
        self.rate = rate
        self.max_body = max_body
        self.body_seconds = body_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.lower(): value for name, value in scope.get("headers", ())}
        key = _bearer(headers.get(b"authorization", b""))
        if self.keys and scope.get("path") not in OPEN_PATHS and not self._known(key):
            await _answer(scope, receive, send, 401, "Unauthorized: Invalid token")
            return
        stranger = None if self.keys else self._stranger(headers)
        if stranger is not None:
            await _answer(scope, receive, send, 403, stranger, None, "FOREIGN_HOST")
            return
        client = key.decode() if self.keys and key else _client_host(scope)
        wait = self.rate.take(client)
        if wait > 0:
            retry = {"Retry-After": str(math.ceil(wait))}
            await _answer(scope, receive, send, 429, "rate limit exceeded", retry, "RATE_LIMITED")
            return
        try:
            async with asyncio.timeout(self.body_seconds):
                body = await self._body(headers, receive)
        except TimeoutError:
            why = f"the request body was not sent whole within {self.body_seconds:g} s"
            closing = {"Connection": "close"}  # the rest of the body is never read
            await _answer(scope, receive, send, 408, why, closing, "REQUEST_TIMEOUT")
            return
        if body is None:
            why = f"the request body is over {self.max_body} bytes"
            await _answer(scope, receive, send, 413, why, None, "PAYLOAD_TOO_LARGE")
            return
        where = _lone_surrogate(body)
        if where is not None:
            said = f"{'.'.join(map(str, where)) or 'the body'} {LONE_SURROGATE}"
            detail = {"path": where, "message": said, "code": "string_unicode"}
            await bad_request([detail])(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    def _stranger(self, headers: dict[bytes, bytes]) -> str | None:
        """Why a request to a keyless server is refused: a Host or Origin header naming
        another host than this server's local names; None when both are its own."""
        host = headers.get(b"host", b"").decode("latin-1")
        if host_name(host) not in self.hosts:
            return (
                f"Host {host!r} is not this server's: a server without keys answers only "
                f"{', '.join(sorted(self.hosts))} (set a key to serve other names)"
            )
        origin = headers.get(b"origin")
        if origin is None:
            return None
        parts = urlsplit(origin.decode("latin-1").strip())
        if parts.scheme in ("http", "https") and host_name(parts.netloc) in self.hosts:
            return None
        return (
            f"Origin {origin.decode('latin-1')!r} is not this server's: a server without keys "
            "answers no page of another site (set a key to serve one)"
        )

    def _known(self, key: bytes) -> bool:
        """Whether ``key`` is one configured (compared in constant time)."""
        return any(hmac.compare_digest(key, known) for known in self.keys)

    async def _body(self, headers: dict[bytes, bytes], receive: Receive) -> bytes | None:
        """The whole body, or None once it (or its declared length) passes the bound."""
        declared = headers.get(b"content-length", b"").strip()
        if declared.isdigit() and int(declared) > self.max_body:
            return None
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            parts.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(parts)


def _lone_surrogate(body: bytes) -> list[str | int] | None:
    """Where a JSON body holds a string with a lone surrogate, read as the routes read it
    (``json.loads``, which takes one from an escape, or from bytes that are not UTF-8); None
    when it holds none or is no JSON (the route answers that)."""
    if _SURROGATE_ESCAPE.search(body) is None and (body.isascii() or _is_utf8(body)):
        return None
    try:
        return lone_surrogate_at(json.loads(body))
    except (ValueError, RecursionError):
        return None


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _bearer(value: bytes) -> bytes:
    scheme, _, token = value.strip().partition(b" ")
    return token.strip() if scheme.lower() == b"bearer" else b""


def _client_host(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def _replay(body: bytes, then: Receive) -> Receive:
    """A ``receive`` that gives ``body`` once, then waits on the client as ``then`` does."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return await then()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _answer(
    scope: Scope,
    receive: Receive,
    send: Send,
    status: int,
    error: str,
    headers: dict[str, str] | None = None,
    code: str | None = None,
) -> None:
    response: Any = failure(status, error, code, headers=headers)
    await response(scope, receive, send)
