"""A scripted JSON-over-HTTP server on 127.0.0.1: an OpenAI-compatible API and other stand-ins.

    with serve_openai(dim=8) as api:               # answers /v1/embeddings, /v1/chat/completions
        api.base_url                               # "http://127.0.0.1:PORT/v1" for clients
        api.script("/v1/chat/completions", chat_reply("Hello"), Reply(status=500))
        api.requests                               # every request received: path, headers, json

A scripted reply is used once, in order; when a path has none left its default answers
(``api.defaults[path](request) -> Reply``). The OpenAI defaults: embeddings are unit vectors
seeded by each input's sha256 (so equal texts get equal vectors, in float or base64 as
asked) and a chat completion echoes the last user message. ``serve_json()`` is the same
server with no defaults (404 until scripted), for stand-ins of other providers.

A ``Reply`` can misbehave on purpose: any status, a raw body (invalid JSON, a huge body), a
delay before answering, a body trickled byte by byte (``pace``), or ``drop=True`` to close
the connection without an answer.
Streaming chat (``"stream": true``) is answered as server-sent events, one chunk per word.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Received:
    """One request received: method, path, headers (names lower-cased) and JSON body."""

    method: str
    path: str
    headers: dict[str, str]
    json: Any


@dataclass(frozen=True)
class Reply:
    """One answer: ``json`` (or ``raw`` bytes as is) and a status; misbehaving, a ``delay``
    before it, ``pace`` seconds between its body's bytes (a trickle), or a dropped socket."""

    json: Any = None
    status: int = 200
    raw: bytes | None = None
    delay: float = 0.0
    pace: float = 0.0
    drop: bool = False
    headers: dict[str, str] = field(default_factory=dict)

    def body(self) -> bytes:
        return self.raw if self.raw is not None else json.dumps(self.json).encode()


Default = Callable[[Received], Reply]


class ScriptedServer:
    """The running server: scripts per path, defaults, and what it has received."""

    def __init__(self, httpd: _HTTPServer, defaults: dict[str, Default]) -> None:
        self.httpd = httpd
        self.port = httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.defaults = defaults
        self.requests: list[Received] = []
        self._scripts: dict[str, deque[Reply]] = defaultdict(deque)
        self._lock = threading.Lock()

    def url(self, path: str) -> str:
        """An address on this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def script(self, path: str, *replies: Reply) -> None:
        """Queue ``replies`` for ``path``, each used once, in order."""
        with self._lock:
            self._scripts[path].extend(replies)

    def received(self, path: str) -> list[Received]:
        """The requests that asked for ``path``."""
        return [r for r in self.requests if r.path == path]

    def reply_to(self, request: Received) -> Reply:
        """The next scripted reply for the request's path, else its default, else 404."""
        with self._lock:
            self.requests.append(request)
            queue = self._scripts.get(request.path)
            if queue:
                return queue.popleft()
        default = self.defaults.get(request.path)
        return default(request) if default else Reply({"error": "not found"}, status=404)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = Received("POST", self.path, headers, body)
        reply = self.server.owner.reply_to(request)
        time.sleep(reply.delay)
        if reply.drop:
            self.close_connection = True
            return
        if isinstance(body, dict) and body.get("stream") and reply.status == 200:
            self._stream(reply)
        else:
            self._answer(reply.status, reply.body(), "application/json", reply.headers, reply.pace)

    def _answer(
        self, status: int, body: bytes, kind: str, headers: dict[str, str], pace: float = 0.0
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not pace:
            self.wfile.write(body)
        for i in range(len(body) if pace else 0):
            self.wfile.write(body[i : i + 1])
            self.wfile.flush()
            time.sleep(pace)

    def _stream(self, reply: Reply) -> None:
        events = b"".join(b"data: %s\n\n" % json.dumps(c).encode() for c in stream_chunks(reply))
        self._answer(200, events + b"data: [DONE]\n\n", "text/event-stream", reply.headers)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read ``server.requests`` instead."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about clients that hung up (timeouts under test); loud about the rest."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve_json(defaults: dict[str, Default] | None = None) -> Iterator[ScriptedServer]:
    """Run a scripted server on 127.0.0.1 for the duration of the block."""
    httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
    server = ScriptedServer(httpd, dict(defaults or {}))
    httpd.owner = server
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def serve_openai(dim: int = 8) -> Iterator[ScriptedServer]:
    """A scripted server with OpenAI-compatible embeddings and chat completions."""
    defaults = {
        "/v1/embeddings": lambda request: embeddings_reply(request, dim),
        "/v1/chat/completions": echo_chat,
    }
    with serve_json(defaults) as server:
        yield server


def seeded_vector(text: str, dim: int) -> np.ndarray:
    """A unit float32 vector determined by the sha256 of ``text``."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8", "replace")).digest()[:8], "little")
    vector = np.random.default_rng(seed).normal(size=dim).astype(np.float32)
    return vector / np.linalg.norm(vector)


def embeddings_reply(request: Received, dim: int) -> Reply:
    """An OpenAI embeddings answer for the request's ``input`` (float or base64)."""
    body = request.json or {}
    inputs = body.get("input")
    texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
    as_base64 = body.get("encoding_format") == "base64"
    data = [
        {"object": "embedding", "index": i, "embedding": _encoded(seeded_vector(t, dim), as_base64)}
        for i, t in enumerate(texts)
    ]
    usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
    return Reply({"object": "list", "data": data, "model": body.get("model"), "usage": usage})


def _encoded(vector: np.ndarray, as_base64: bool) -> Any:
    if as_base64:
        return base64.b64encode(vector.astype("<f4").tobytes()).decode()
    return vector.tolist()


def chat_reply(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    model: str = "scripted",
    finish_reason: str | None = None,
) -> Reply:
    """A chat completion answering ``content`` and/or ``tool_calls``
    (each ``{"name", "arguments"}``, arguments a dict or a JSON string)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [_tool_call(i, c) for i, c in enumerate(tool_calls)]
    reason = finish_reason or ("tool_calls" if tool_calls else "stop")
    return Reply(
        {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )


def _tool_call(index: int, call: dict[str, Any]) -> dict[str, Any]:
    arguments = call["arguments"]
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    function = {"name": call["name"], "arguments": arguments}
    return {"id": call.get("id", f"call_{index}"), "type": "function", "function": function}


def echo_chat(request: Received) -> Reply:
    """A chat completion saying ``echo: <last user message>``."""
    messages = (request.json or {}).get("messages") or []
    last = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), "")
    return chat_reply(f"echo: {last}", model=(request.json or {}).get("model", "scripted"))


def stream_chunks(reply: Reply) -> Iterator[dict[str, Any]]:
    """``chat.completion.chunk`` events for a completion reply: one per word, then the end."""
    choice = reply.json["choices"][0]
    message, base = choice["message"], {"id": reply.json["id"], "model": reply.json["model"]}
    for word in _words(message.get("content") or ""):
        yield _chunk(base, {"content": word}, None)
    if message.get("tool_calls"):
        calls = [dict(c, index=i) for i, c in enumerate(message["tool_calls"])]
        yield _chunk(base, {"tool_calls": calls}, None)
    yield _chunk(base, {}, choice["finish_reason"])


def _words(text: str) -> list[str]:
    """``text`` cut after each space, so the pieces join back to it exactly."""
    pieces = text.split(" ")
    return [p + " " for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def _chunk(base: dict[str, Any], delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {**base, "object": "chat.completion.chunk", "created": 0, "choices": [choice]}
