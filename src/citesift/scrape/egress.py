"""The browser's way out: an HTTP proxy on loopback that connects only to the address it checked.

Chromium let go on a request resolves the host name again itself: a name answering the
address check with a public address and Chromium's lookup with a private one (DNS
rebinding) would reach what the check refused, and so would a redirect, which no route
handler sees. So Chromium sends every request through this proxy, each page's context
through a door of its own (a port on 127.0.0.1) that holds that page's ``FetchPolicy``. For
``CONNECT host:port`` (https and WebSockets: a TCP tunnel) and for an absolute-URI request
(http: forwarded as it streams, one exchange per connection) the door resolves the host
once with the policy's resolver, applies its address rules, and connects to the address it
checked; a refused one is answered 403 and noted for the page. The door Chromium is
launched with holds no policy and refuses everything. A request body of unknown length
(``Transfer-Encoding: chunked``, as a page's streaming fetch sends) is read whole once its
address is allowed, its chunks decoded, and passed on with its length; ``Content-Length``
and ``Transfer-Encoding`` are passed on even when ``Connection`` names them. Bounded: a
connect timeout, an idle timeout, connections at once (all doors together, and each door
its share), the size of a request's or an answer's head, and a chunked body's size, chunk
lines and time to arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from citesift.errors import CitesiftError
from citesift.net import AddressRefused, FetchPolicy, Target
from citesift.net.address import parse_url
from citesift.numbers import is_decimal

LOG = logging.getLogger("citesift.scrape.egress")
LOOPBACK = "127.0.0.1"
BYPASS = "<-loopback>"
"""Chromium's proxy bypass rule that sends loopback through the proxy too (by default
Chromium reaches localhost and 127.0.0.1 directly)."""
CONNECT_TIMEOUT = 10.0
IDLE_TIMEOUT = 30.0
"""Seconds a connection may pass nothing either way (or wait for an answer's head)."""
MAX_CONNECTIONS = 256
"""Connections the proxy serves at once, all doors together."""
DOORS = 4
"""Pages' doors open at once the connections are shared among (a browser's pages at once).
Each door may hold ``max_connections // doors`` (64 by default): so many pages at once each
have their share whatever the others hold, and 64 is twice the 32 Chromium opens to one
proxy for a context's http(s) requests, so what a page is refused is only what comes on top
of those, such as WebSockets, which Chromium pools apart."""
MAX_HEAD_BYTES = 64 * 1024
"""Bytes of a request's or an answer's head, request line or status line included."""
CHUNK = 64 * 1024
MAX_CHUNKED_BODY = 1 << 20
"""Bytes of a chunked request body, which is held whole before it is passed on (a page's
fetch and XHR bodies are small; one of known length is streamed and has no such cap)."""
MAX_CHUNK_LINE = 4096
"""Bytes of a chunk's size line (its size and extensions) or of a trailer line."""
MAX_CHUNK_DIGITS = 16
_HEX = re.compile(rb"[0-9A-Fa-f]+")
HOP_HEADERS = frozenset(
    {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer"}
    | {"proxy-authenticate", "upgrade", "host"}
)
"""Headers of one hop, not passed on (``Host`` is written again from the URL checked)."""
FRAMING_HEADERS = frozenset({"content-length", "transfer-encoding"})
"""Headers that say where a message ends: passed on even when ``Connection`` names them
(a request sent without the length it is read by would have its body read by the server
as a request of its own)."""
AUTHORITY = re.compile(r"^[A-Za-z0-9._~%!$&'()*+,;=:\[\]-]+:[0-9]{1,5}$")
"""``host:port`` as a ``CONNECT`` names it: no path, no user, a port always."""
REASONS = {
    400: "Bad Request",
    403: "Forbidden",
    408: "Request Timeout",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    501: "Not Implemented",
    502: "Bad Gateway",
    503: "Service Unavailable",
}

T = TypeVar("T")
Noted = Callable[[str], None]
"""Told each URL (``https://host:port`` for a tunnel) the address rules refused."""


class _Refusal(CitesiftError):
    """An answer the proxy gives instead of passing a request on (nothing was sent yet)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass
class _Client:
    """One connection from the browser, and whether its answer has begun (after that, a
    failure can only end the connection, not answer it)."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    answered: bool = False

    def answer(self, head: bytes) -> None:
        """Begin the answer with ``head``."""
        self.answered = True
        self.writer.write(head)


@dataclass(eq=False)
class _Door:
    """One listening port and the policy its connections are held to (None: refuse all)."""

    policy: FetchPolicy | None
    noted: Noted
    server: asyncio.Server | None = None
    closed: bool = False
    serving: set[asyncio.Task[None]] = field(default_factory=set)
    active: int = 0
    """Connections being served through this door now."""

    @property
    def url(self) -> str:
        """The proxy address Chromium is given for this door."""
        assert self.server is not None
        return f"http://{LOOPBACK}:{self.server.sockets[0].getsockname()[1]}"


class EgressProxy:
    """The proxy one browser sends its requests through: ``server`` after ``start`` is the
    door to launch Chromium with; ``door(policy, noted)`` opens one for a page's context.
    ``doors`` is how many pages' doors share ``max_connections`` (see ``DOORS``)."""

    def __init__(
        self,
        max_connections: int = MAX_CONNECTIONS,
        doors: int = DOORS,
        connect_timeout: float = CONNECT_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self.max_connections = max_connections
        self.door_connections = max(1, max_connections // doors)
        """Connections one door may hold at once."""
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self.active = 0
        """Connections being served now."""
        self.server: str | None = None
        self._doors: set[_Door] = set()

    async def start(self) -> str:
        """Open the door that refuses everything (for Chromium's launch) and name it."""
        self.server = (await self._open(None, _unnoted)).url
        return self.server

    @contextlib.asynccontextmanager
    async def door(self, policy: FetchPolicy, noted: Noted) -> AsyncIterator[str]:
        """A door held to ``policy`` while the block runs (its proxy address); leaving it
        ends every connection through it."""
        door = await self._open(policy, noted)
        try:
            yield door.url
        finally:
            await self._shut(door)

    async def close(self) -> None:
        """Shut every door and end every connection."""
        for door in list(self._doors):
            await self._shut(door)
        self.server = None

    async def _open(self, policy: FetchPolicy | None, noted: Noted) -> _Door:
        door = _Door(policy, noted)

        def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.ensure_future(self._serve(door, _Client(reader, writer)))
            door.serving.add(task)
            task.add_done_callback(lambda done: _finished(door, done, writer))

        door.server = await asyncio.start_server(accept, LOOPBACK, 0, limit=MAX_HEAD_BYTES)
        self._doors.add(door)
        return door

    async def _shut(self, door: _Door) -> None:
        self._doors.discard(door)
        door.closed = True
        if door.server is not None:
            door.server.close()
        for task in list(door.serving):
            task.cancel()
        await asyncio.gather(*door.serving, return_exceptions=True)
        if door.server is not None:
            await door.server.wait_closed()

    async def _serve(self, door: _Door, client: _Client) -> None:
        """Serve one connection: one tunnel or one exchange, then close it."""
        if door.closed:
            return
        if self.active >= self.max_connections or door.active >= self.door_connections:
            await _say(client.writer, 503, "too many connections through the proxy")
            return
        self.active += 1
        door.active += 1
        try:
            await self._exchange(door, client)
        except _Refusal as refusal:
            await _say(client.writer, refusal.status, str(refusal))
        except (OSError, asyncio.IncompleteReadError):
            pass  # either side went away: the connection ends
        except Exception:
            LOG.exception("a connection through the egress proxy failed")
            if not client.answered:
                await _say(client.writer, 502, "the proxy failed to pass this request on")
        finally:
            self.active -= 1
            door.active -= 1

    async def _exchange(self, door: _Door, client: _Client) -> None:
        try:
            async with asyncio.timeout(self.idle_timeout):
                head = await client.reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            raise _Refusal(431, "the request's head is too large") from None
        method, target, headers = _request(head)
        if method == "CONNECT":
            await self._tunnel(door, target, client)
        else:
            await self._forward(door, method, target, headers, client)

    async def _tunnel(self, door: _Door, authority: str, client: _Client) -> None:
        """A TCP tunnel to the checked address of ``authority``'s host, ended when the client
        hangs up (a TLS or WebSocket client never half-closes: its end is the tunnel's)."""
        if not AUTHORITY.match(authority):
            raise _Refusal(400, "CONNECT names host:port")
        checked = await self._check(door, f"https://{authority}/", f"https://{authority}")
        upstream, sink = await self._connect(checked)
        try:
            client.answer(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await client.writer.drain()
            activity = _Activity()
            async with _running(_copy(client.reader, sink, None, activity)) as sending:
                flow = (upstream, client.writer, None)
                await _relay(self.idle_timeout, flow, activity=activity, until=sending)
        finally:
            sink.close()

    async def _forward(
        self,
        door: _Door,
        method: str,
        target: str,
        headers: list[tuple[str, str]],
        client: _Client,
    ) -> None:
        """One http exchange passed on to the checked address, the request's body (a chunked
        one read whole once the address is allowed, then sent with its length) and the answer
        streamed; the answer says ``Connection: close``. The client hanging up ends it, while
        the answer's head is awaited too."""
        url = _absolute(target)
        body = b""
        chunked = _chunked(headers)
        length = 0 if chunked else _length(headers)  # a chunked body is sent with the head
        checked = await self._check(door, str(url), target)
        if chunked:
            body = await _chunked_body(client.reader, self.idle_timeout)
            headers = [(k, v) for k, v in headers if k.lower() != "transfer-encoding"]
            headers.append(("Content-Length", str(len(body))))
        upstream, sink = await self._connect(checked)
        try:
            sink.write(_request_head(method, url, headers) + body)
            activity = _Activity()
            async with _running(_send_body(client.reader, sink, length, activity)) as sending:
                answer = await _answer(upstream, sending, self.idle_timeout)
                if answer is None:
                    return  # the client hung up: nobody waits for the answer
                client.answer(_answer_head(answer))
                flow = (upstream, client.writer, None)
                await _relay(self.idle_timeout, flow, activity=activity, until=sending)
        finally:
            sink.close()

    async def _check(self, door: _Door, url: str, note: str) -> Target:
        """``url`` checked by the door's policy (before anything more is read from the
        client); a 403 refusal, ``note`` noted, when its address is refused."""
        if door.policy is None:
            raise _Refusal(403, "no page is served through this door")
        try:
            return await door.policy.check(url)
        except AddressRefused:
            door.noted(note)
            raise _Refusal(403, "the address rules refuse this address") from None

    async def _connect(self, checked: Target) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to the address ``checked``'s host was checked to have, the first of
        its addresses that answers."""
        port = checked.url.port or (443 if checked.url.scheme == "https" else 80)
        for address in checked.addresses:
            try:
                async with asyncio.timeout(self.connect_timeout):
                    return await asyncio.open_connection(address, port, limit=MAX_HEAD_BYTES)
            except OSError:  # refused, unreachable or past the timeout: try the next one
                continue
        raise _Refusal(502, f"cannot connect to {checked.host}")


@contextlib.asynccontextmanager
async def _running(work: Coroutine[Any, Any, T]) -> AsyncIterator[asyncio.Future[T]]:
    """``work`` running as a task of its own while the block runs, cancelled after it."""
    task = asyncio.ensure_future(work)
    try:
        yield task
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def _answer(
    upstream: asyncio.StreamReader, client_done: asyncio.Future[None], idle: float
) -> bytes | None:
    """The answer's head as the server sends it, or None when ``client_done`` (the client
    hung up) comes first; a 502 refusal when the server sends none within ``idle`` s."""
    async with _running(_head(upstream)) as reading:
        either: set[asyncio.Future[Any]] = {reading, client_done}
        await asyncio.wait(either, timeout=idle, return_when=asyncio.FIRST_COMPLETED)
        if client_done.done():
            return None
        if not reading.done():
            raise _Refusal(502, "no answer's head from the server")
        return await reading


async def _head(upstream: asyncio.StreamReader) -> bytes:
    """The answer's head, a 502 refusal when the server ends or overruns it."""
    try:
        return await upstream.readuntil(b"\r\n\r\n")
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        raise _Refusal(502, "no answer's head from the server") from None


@dataclass
class _Activity:
    """When bytes last passed either way on one connection."""

    last: float = field(default_factory=lambda: asyncio.get_running_loop().time())

    def touch(self) -> None:
        self.last = asyncio.get_running_loop().time()

    async def idle(self, seconds: float) -> None:
        """Return once nothing has passed for ``seconds``."""
        loop = asyncio.get_running_loop()
        while (left := self.last + seconds - loop.time()) > 0:
            await asyncio.sleep(left)


Flow = tuple[asyncio.StreamReader, asyncio.StreamWriter, int | None]


async def _relay(
    idle: float,
    *flows: Flow,
    activity: _Activity | None = None,
    until: asyncio.Future[None] | None = None,
) -> None:
    """Copy each flow (to its end, or its byte count) until all are done, nothing has
    passed for ``idle`` seconds, or ``until`` is done."""
    activity = activity or _Activity()
    copies = [asyncio.ensure_future(_copy(*flow, activity)) for flow in flows]
    watch = asyncio.ensure_future(activity.idle(idle))
    ends = {watch} if until is None else {watch, until}
    pending = set(copies)
    try:
        while pending:
            done, _ = await asyncio.wait(pending | ends, return_when=asyncio.FIRST_COMPLETED)
            if done & ends:
                break
            pending -= done
    finally:
        for task in (*copies, watch):
            task.cancel()
        await asyncio.gather(*copies, watch, return_exceptions=True)


async def _send_body(
    client: asyncio.StreamReader, sink: asyncio.StreamWriter, length: int, activity: _Activity
) -> None:
    """Pass the request's body on, then return when the client hangs up: told the connection
    closes after the answer, it sends nothing more (a server keeping its end open past
    ``Connection: close`` holds nothing then)."""
    await _copy(client, sink, length, activity)
    with contextlib.suppress(OSError):
        await client.read(1)


async def _copy(
    source: asyncio.StreamReader,
    sink: asyncio.StreamWriter,
    length: int | None,
    activity: _Activity,
) -> None:
    """Pass bytes on: ``length`` of them, or to the end, which is passed on as a half close
    (a failure either side closes ``sink``, so the other way ends too)."""
    left = length
    try:
        while left is None or left > 0:
            data = await source.read(CHUNK if left is None else min(CHUNK, left))
            if not data:
                break
            activity.touch()
            sink.write(data)
            await sink.drain()
            left = None if left is None else left - len(data)
        if length is None and sink.can_write_eof():
            sink.write_eof()
    except OSError:
        sink.close()


def _request(head: bytes) -> tuple[str, str, list[tuple[str, str]]]:
    """The method, target and headers of a request's head."""
    line, *lines = head.decode("latin-1").split("\r\n")
    parts = line.split(" ")
    if len(parts) != 3 or not parts[0].isalpha() or not parts[2].startswith("HTTP/1."):
        raise _Refusal(400, "a malformed request line")
    return parts[0], parts[1], _fields(lines)


def _fields(lines: list[str]) -> list[tuple[str, str]]:
    """The (name, value) pairs of a head's header lines (the blank end left out)."""
    pairs = []
    for text in lines:
        if not text:
            continue
        name, colon, value = text.partition(":")
        if not colon or not name or name != name.strip() or text[0] in " \t":
            raise _Refusal(400, "a malformed header line")
        pairs.append((name, value.strip()))
    return pairs


def _values(headers: list[tuple[str, str]], name: str) -> list[str]:
    return [value for key, value in headers if key.lower() == name]


def _length(headers: list[tuple[str, str]]) -> int:
    """The request body's length in bytes (0 when none is declared)."""
    values = set(_values(headers, "content-length"))
    if not values:
        return 0
    if len(values) > 1 or not is_decimal(next(iter(values))):
        raise _Refusal(400, "a malformed Content-Length")
    return int(next(iter(values)))


def _chunked(headers: list[tuple[str, str]]) -> bool:
    """Whether the request's body is chunked: ``chunked`` its only coding (another coding is
    501), with no ``Content-Length`` beside it (a request two ways long is 400: the server
    could read it otherwise than the proxy)."""
    codings = [
        c.strip().lower() for v in _values(headers, "transfer-encoding") for c in v.split(",")
    ]
    if not codings:
        return False
    if codings != ["chunked"]:
        raise _Refusal(501, f"a request body coded {', '.join(codings)}")
    if _values(headers, "content-length"):
        raise _Refusal(400, "a request with both a Content-Length and a Transfer-Encoding")
    return True


async def _chunked_body(client: asyncio.StreamReader, seconds: float) -> bytes:
    """A chunked request body decoded (extensions and trailers dropped): 413 past
    ``MAX_CHUNKED_BODY`` (a chunk declared larger is refused before it is read), 400 for a
    malformed or overlong chunk line, 408 unless the whole body comes within ``seconds``."""
    parts: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                line = await _chunk_line(client)
                digits = line.split(b";", 1)[0].strip(b" \t")
                if len(digits) > MAX_CHUNK_DIGITS or not _HEX.fullmatch(digits):
                    raise _Refusal(400, "a malformed chunk size")
                chunk = int(digits, 16)
                if chunk == 0:
                    break
                size += chunk
                if size > MAX_CHUNKED_BODY:
                    raise _Refusal(413, f"a chunked body over {MAX_CHUNKED_BODY} bytes")
                parts.append(await client.readexactly(chunk))
                if await client.readexactly(2) != b"\r\n":
                    raise _Refusal(400, "a chunk not ended by CRLF")
            trailers = 0
            while line := await _chunk_line(client):
                trailers += len(line)
                if trailers > MAX_HEAD_BYTES:
                    raise _Refusal(400, "the chunked body's trailers are too large")
    except TimeoutError:
        raise _Refusal(408, f"the chunked body took over {seconds:g} s") from None
    return b"".join(parts)


async def _chunk_line(client: asyncio.StreamReader) -> bytes:
    """A chunk's size line or a trailer line, without its CRLF; 400 past ``MAX_CHUNK_LINE``."""
    try:
        line = await client.readuntil(b"\r\n")
    except asyncio.LimitOverrunError:
        raise _Refusal(400, "a chunk line too long") from None
    if len(line) > MAX_CHUNK_LINE + 2:
        raise _Refusal(400, "a chunk line too long")
    return line[:-2]


def _absolute(target: str) -> httpx.URL:
    """The http URL an absolute-form request names (parsed as every fetched URL is)."""
    try:
        url = parse_url(target)
    except AddressRefused as refusal:
        raise _Refusal(400, str(refusal)) from None
    if url.scheme != "http":
        raise _Refusal(400, "only http URLs are forwarded (https goes by CONNECT)")
    return url


def _hop_names(headers: list[tuple[str, str]]) -> frozenset[str]:
    """The headers not passed on: the hop's own and those its ``Connection`` names, save
    those saying where the message ends (``Connection: content-length`` cannot unframe it)."""
    named = (
        name.strip().lower()
        for value in _values(headers, "connection")
        for name in value.split(",")
    )
    return HOP_HEADERS | (set(named) - FRAMING_HEADERS)


def _request_head(method: str, url: httpx.URL, headers: list[tuple[str, str]]) -> bytes:
    """The request as the server is sent it: origin form, ``Host`` from the URL checked."""
    dropped = _hop_names(headers)
    lines = [f"{method} {url.raw_path.decode('ascii')} HTTP/1.1", f"Host: {url.netloc.decode()}"]
    lines += [f"{name}: {value}" for name, value in headers if name.lower() not in dropped]
    return ("\r\n".join([*lines, "Connection: close", "", ""])).encode("latin-1")


def _answer_head(head: bytes) -> bytes:
    """The answer's head as Chromium is given it: its hop's headers dropped, and
    ``Connection: close`` (the next request comes on a connection of its own)."""
    status, *lines = head.decode("latin-1").split("\r\n")
    if not status.startswith("HTTP/1."):
        raise _Refusal(502, "a malformed answer")
    try:
        headers = _fields(lines)
    except _Refusal:
        raise _Refusal(502, "a malformed answer") from None
    dropped = _hop_names(headers)
    kept = [f"{name}: {value}" for name, value in headers if name.lower() not in dropped]
    return "\r\n".join([status, *kept, "Connection: close", "", ""]).encode("latin-1")


async def _say(writer: asyncio.StreamWriter, status: int, reason: str) -> None:
    """Answer ``status`` with ``reason`` as text and close."""
    body = (reason + "\n").encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {REASONS[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    with contextlib.suppress(OSError):
        writer.write(head.encode("ascii") + body)
        await writer.drain()


def _finished(door: _Door, task: asyncio.Task[None], writer: asyncio.StreamWriter) -> None:
    """A connection served (or cancelled before it began): its socket is closed, and a
    failure that escaped it is logged (so it is never left unretrieved)."""
    door.serving.discard(task)
    writer.close()
    if not task.cancelled() and (error := task.exception()) is not None:
        LOG.error("a connection through the egress proxy failed", exc_info=error)


def _unnoted(url: str) -> None:
    """Notes nothing: a refusal at the launch door belongs to no page."""
