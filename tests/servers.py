"""Local HTTP servers that misbehave on purpose, each misbehaviour a route of its own.

    with serve() as server:                       # a threaded server on 127.0.0.1
        server.url("/slowloris?every=0.2")        # a URL of a route below
        server.robots = (200, "User-agent: *\\nDisallow: /private")
        server.route("/mine", handler)            # add a route: handler(request, query)
        server.seen                               # every request received, in order

``serve(bind="::1")`` listens on IPv6 loopback instead.
``serve(tls_host="citesift.test")`` serves HTTPS with a fresh self-signed certificate for
that name; ``server.client_tls`` is a client context trusting it, ``server.sni`` the server
names clients asked for, and ``server.url`` names the host (resolve it to 127.0.0.1).

``loopback_policy(**changes)`` is a ``FetchPolicy`` for these servers: 127.0.0.1 allowed (and
nothing else private), robots.txt off; ``loopback_fetcher()`` a ``Fetcher`` with fresh,
unspaced limiters and its own robots.txt cache.
``seconds_to_cancel(call)`` cancels a call in flight and times how soon it gave up.

Routes (query parameters in brackets):
  /ok [body, type]                   200 with a small HTML body (or ``body`` as ``type``)
  /slow [delay]                      waits ``delay`` s (default 2) before answering
  /slowloris [every]                 headers, then a one-byte chunk every ``every`` s, forever
  /endless                           a chunked body that never ends
  /gzip-bomb [size]                  ``size`` zero bytes (default 1 GiB), gzip, made streaming
  /bomb [encoding, size]             the same in gzip, deflate, br or zstd
  /compressed [encoding, keep,       ``ARTICLE`` in gzip, deflate, br or zstd, cut to its first
               members]              ``keep`` (a fraction, default 1) with a matching
                                     Content-Length; gzip in ``members`` members (default 1)
  /lying-length [declared, sent]     Content-Length ``declared``, ``sent`` bytes, then close
  /status [code, retry-after]        an empty answer with that status (and Retry-After)
  /loop                              a 302 to itself
  /redirect [to, code]               a redirect to ``to`` (default code 302)
  /charset [declared, actual, meta]  "café, naïve, ½" encoded in ``actual`` (default cp1252),
                                     Content-Type charset ``declared`` and an optional
                                     ``<meta charset>``
  /close-mid-body                    Content-Length 100000, 1000 bytes, then the socket closes
  /set-cookie [to]                   sets a cookie and redirects to ``to``
  /robots.txt                        ``server.robots`` (status, body); 404 when None
"""

from __future__ import annotations

import asyncio
import datetime
import socket
import ssl
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import brotli
import pytest
import zstandard
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from citesift.net import ClientIdentity, Fetcher, FetchPolicy, LimiterRegistry, SourceLimiter

Query = dict[str, str]
Route = Callable[["Request", Query], None]
MIB = 1 << 20
GIB = 1 << 30
SAMPLE_TEXT = "café, naïve, ½"
TEST_IDENTITY = ClientIdentity("citesift-test", "1.0", "https://example.org/contact")


def loopback_policy(**changes: Any) -> FetchPolicy:
    """A policy for the local servers: only 127.0.0.1 allowed, robots.txt off."""
    base: dict[str, Any] = {"allow_networks": ("127.0.0.1/32",), "robots": False}
    return FetchPolicy(TEST_IDENTITY, **{**base, **changes})


def loopback_fetcher() -> Fetcher:
    """A fetcher with fresh, unspaced limiters and a robots.txt cache of its own."""
    return Fetcher(LimiterRegistry(lambda: SourceLimiter(spacing=0)))


def seconds_to_cancel(call: Callable[[], Coroutine[Any, Any, object]], after: float = 0.2) -> float:
    """Seconds from starting ``call()`` until the ``CancelledError`` of its cancellation
    ``after`` seconds in; the test fails when it ends any other way."""

    async def scenario() -> None:
        task = asyncio.create_task(call())
        await asyncio.sleep(after)
        task.cancel()
        await task

    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(scenario())
    return time.monotonic() - started


def policy_with_bounds(value: object) -> FetchPolicy:
    """A policy given ``value`` for every bound, to see how it is checked."""
    bounds = ("deadline", "max_declared_bytes", "max_body_bytes", "max_redirects")
    return FetchPolicy(TEST_IDENTITY, **dict.fromkeys(bounds, value))


@dataclass(frozen=True)
class Seen:
    """One request the server received: method, path with query, headers, arrival time,
    the client's port (one port per connection) and the body of a POST."""

    method: str
    path: str
    headers: dict[str, str]
    at: float
    port: int = 0
    body: bytes = b""


class Request(BaseHTTPRequestHandler):
    """The handler: records the request, then runs the route named by its path."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as written: with Nagle, a kept-alive
    # connection waits for the client's delayed ACK (40 ms) before sending the body
    server: _Server

    def do_GET(self) -> None:
        self._dispatch("GET", b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._dispatch("POST", self.rfile.read(min(length, MIB)))

    def _dispatch(self, method: str, body: bytes) -> None:
        split = urlsplit(self.path)
        owner = self.server.owner
        headers, port = dict(self.headers.items()), int(self.client_address[1])
        owner.seen.append(Seen(method, self.path, headers, time.monotonic(), port, body))
        query = {key: values[-1] for key, values in parse_qs(split.query).items()}
        route = owner.routes.get(split.path, _not_found)
        try:
            route(self, query)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read ``server.seen`` instead."""

    def answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        """A complete answer with a Content-Length."""
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def start_chunked(self, headers: dict[str, str]) -> None:
        self.send_response(200)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    @property
    def stopping(self) -> bool:
        return self.server.owner.stopped.is_set()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: MisbehavingServer


class _Server6(_Server):
    address_family = socket.AF_INET6


class MisbehavingServer:
    """A running local server: its routes, what it has seen, and its robots.txt."""

    def __init__(self, httpd: _Server, tls_host: str | None = None) -> None:
        self.httpd = httpd
        self.address = str(httpd.server_address[0])
        self.port = httpd.server_address[1]
        self.tls_host = tls_host
        self.client_tls: ssl.SSLContext | None = None
        self.sni: list[str | None] = []
        self.seen: list[Seen] = []
        self.robots: tuple[int, str] | None = None
        self.stopped = threading.Event()
        self.routes: dict[str, Route] = dict(ROUTES)

    def url(self, path: str = "/") -> str:
        """An address on this server."""
        if self.tls_host:
            return f"https://{self.tls_host}:{self.port}{path}"
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"http://{host}:{self.port}{path}"

    def route(self, path: str, handler: Route) -> None:
        """Serve ``path`` with ``handler(request, query)``."""
        self.routes[path] = handler

    def hits(self, path: str) -> int:
        """How many requests asked for ``path`` (query ignored)."""
        return sum(1 for seen in self.seen if urlsplit(seen.path).path == path)


@contextmanager
def serve(tls_host: str | None = None, bind: str = "127.0.0.1") -> Iterator[MisbehavingServer]:
    """Run a misbehaving server on ``bind`` (127.0.0.1 or ::1; HTTPS for ``tls_host``)."""
    httpd = (_Server6 if ":" in bind else _Server)((bind, 0), Request)
    server = MisbehavingServer(httpd, tls_host)
    httpd.owner = server
    if tls_host:
        _serve_tls(server, tls_host)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield server
    finally:
        server.stopped.set()
        httpd.shutdown()
        httpd.server_close()


def _serve_tls(server: MisbehavingServer, host: str) -> None:
    cert, key = self_signed(host)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    with tempfile.TemporaryDirectory() as folder:  # the files are read once, here
        (Path(folder) / "cert.pem").write_bytes(cert)
        (Path(folder) / "key.pem").write_bytes(key)
        context.load_cert_chain(Path(folder) / "cert.pem", Path(folder) / "key.pem")
    context.sni_callback = lambda sock, name, ctx: server.sni.append(name)  # type: ignore[assignment]
    server.httpd.socket = context.wrap_socket(server.httpd.socket, server_side=True)
    server.client_tls = ssl.create_default_context(cadata=cert.decode("ascii"))


def self_signed(host: str) -> tuple[bytes, bytes]:
    """A certificate for ``host`` signed by its own key, and that key (both PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def _not_found(request: Request, query: Query) -> None:
    request.answer(404, b"not found", {"Content-Type": "text/plain"})


def _ok(request: Request, query: Query) -> None:
    body = query.get("body", "<html><body><p>Hello from the test server.</p></body></html>")
    content_type = query.get("type", "text/html; charset=utf-8")
    request.answer(200, body.encode("utf-8"), {"Content-Type": content_type})


def _slow(request: Request, query: Query) -> None:
    time.sleep(float(query.get("delay", "2")))
    _ok(request, query)


def _slowloris(request: Request, query: Query) -> None:
    every = float(query.get("every", "0.1"))
    request.start_chunked({"Content-Type": "text/html"})
    while not request.stopping:
        request.chunk(b"x")
        request.wfile.flush()
        time.sleep(every)


def _endless(request: Request, query: Query) -> None:
    request.start_chunked({"Content-Type": "text/html"})
    block = b"<p>more</p>" * 6000
    while not request.stopping:
        request.chunk(block)


def _gzip_bomb(request: Request, query: Query) -> None:
    _bomb(request, {"encoding": "gzip", **query})


def _bomb(request: Request, query: Query) -> None:
    encoding = query.get("encoding", "gzip")
    request.start_chunked({"Content-Type": "text/html", "Content-Encoding": encoding})
    for piece in compressed_zeros(encoding, int(query.get("size", str(GIB)))):
        if request.stopping:
            return
        request.chunk(piece)
    request.end_chunked()


def compressed_zeros(encoding: str, size: int) -> Iterator[bytes]:
    """``size`` zero bytes in ``encoding``, made one MiB at a time (never held whole)."""
    packer = _packer(encoding)
    zeros = bytes(MIB)
    for start in range(0, size, MIB):
        yield packer.compress(zeros[: min(size - start, MIB)])
    yield packer.flush()


class _Packer(Protocol):
    def compress(self, data: bytes) -> bytes: ...

    def flush(self) -> bytes: ...


class _Brotli:
    def __init__(self) -> None:
        self._packer = brotli.Compressor(quality=1)

    def compress(self, data: bytes) -> bytes:
        return self._packer.process(data)

    def flush(self) -> bytes:
        return self._packer.finish()


def _packer(encoding: str) -> _Packer:
    if encoding == "gzip":
        return zlib.compressobj(9, zlib.DEFLATED, 31)
    if encoding == "deflate":
        return zlib.compressobj(9, zlib.DEFLATED, 15)
    if encoding == "zstd":
        return zstandard.ZstdCompressor(level=1).compressobj()
    return _Brotli()


ARTICLE = (
    "<html><head><title>Whole article</title></head><body><h1>Whole article</h1>"
    + "".join(f"<p>Paragraph {n} states fact number {n * 7919 % 10007}.</p>" for n in range(400))
    + "<p>The last paragraph ends the article.</p></body></html>"
)
"""A page whose end (its last paragraph) shows whether it was read whole."""


def compressed(body: bytes, encoding: str, members: int = 1) -> bytes:
    """``body`` whole in ``encoding`` (gzip in ``members`` members, one after another)."""
    step = -(-len(body) // members)
    parts = [body[start : start + step] for start in range(0, len(body), step)]
    out = b""
    for part in parts if encoding == "gzip" else [body]:
        packer = _packer(encoding)
        out += packer.compress(part) + packer.flush()
    return out


def _compressed(request: Request, query: Query) -> None:
    encoding = query.get("encoding", "gzip")
    whole = compressed(ARTICLE.encode("ascii"), encoding, int(query.get("members", "1")))
    sent = whole[: int(len(whole) * float(query.get("keep", "1")))]
    headers = {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": encoding}
    request.answer(200, sent, headers)


def _lying_length(request: Request, query: Query) -> None:
    request.send_response(200)
    request.send_header("Content-Type", "text/html")
    request.send_header("Content-Length", query.get("declared", "100000"))
    request.end_headers()
    request.wfile.write(b"x" * int(query.get("sent", "10")))
    request.wfile.flush()
    _hang_up(request)


def _close_mid_body(request: Request, query: Query) -> None:
    _lying_length(request, {"declared": "100000", "sent": "1000"})


def _hang_up(request: Request) -> None:
    request.close_connection = True
    request.connection.shutdown(socket.SHUT_RDWR)


def _status(request: Request, query: Query) -> None:
    headers = {"Content-Type": "text/plain"}
    if "retry-after" in query:
        headers["Retry-After"] = query["retry-after"]
    request.answer(int(query.get("code", "500")), b"status", headers)


def _loop(request: Request, query: Query) -> None:
    request.answer(302, b"", {"Location": "/loop"})


def _redirect(request: Request, query: Query) -> None:
    request.answer(int(query.get("code", "302")), b"", {"Location": query.get("to", "/ok")})


def _set_cookie(request: Request, query: Query) -> None:
    headers = {"Location": query.get("to", "/ok"), "Set-Cookie": "session=secret; Path=/"}
    request.answer(302, b"", headers)


def _charset(request: Request, query: Query) -> None:
    actual = query.get("actual", "cp1252")
    meta = f'<meta charset="{query["meta"]}">' if "meta" in query else ""
    page = f"<html><head>{meta}</head><body><p>{SAMPLE_TEXT}</p></body></html>"
    declared = query.get("declared")
    content_type = f"text/html; charset={declared}" if declared else "text/html"
    request.answer(200, page.encode(actual), {"Content-Type": content_type})


def _robots(request: Request, query: Query) -> None:
    robots = request.server.owner.robots
    if robots is None:
        _not_found(request, query)
        return
    status, body = robots
    request.answer(status, body.encode("utf-8"), {"Content-Type": "text/plain"})


ROUTES: dict[str, Route] = {
    "/ok": _ok,
    "/slow": _slow,
    "/slowloris": _slowloris,
    "/endless": _endless,
    "/gzip-bomb": _gzip_bomb,
    "/bomb": _bomb,
    "/compressed": _compressed,
    "/lying-length": _lying_length,
    "/close-mid-body": _close_mid_body,
    "/status": _status,
    "/loop": _loop,
    "/redirect": _redirect,
    "/set-cookie": _set_cookie,
    "/charset": _charset,
    "/robots.txt": _robots,
}
