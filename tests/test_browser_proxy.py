"""The browser's egress proxy: Chromium connects only to the address the proxy resolved and
checked, so a name answering the route check with one address and the connection's lookup
with another (DNS rebinding) reaches nothing refused. Every address here is on loopback:
made-up names resolve through a stub, and 127.0.0.2 stands for the refused address (only
127.0.0.1 is allowed), watched to get no connection at all."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from websockets.asyncio.server import ServerConnection
from websockets.asyncio.server import serve as serve_websocket

from chromium import left_behind
from citesift.model import Snapshot
from citesift.scrape.browser import (
    MAX_REQUESTS,
    Browser,
    Rendered,
    RenderFailed,
    find_executable,
)
from citesift.scrape.egress import MAX_CHUNKED_BODY, MAX_HEAD_BYTES, EgressProxy
from citesift.scrape.options import ScrapeOptions
from servers import MisbehavingServer, loopback_policy, serve
from test_scrape import page_route

find_executable()  # no Chromium here fails these tests, naming what is missing: never a pass

pytestmark = pytest.mark.timeout(120)
REFUSED_HOST = "127.0.0.2"
PAGE_URL = "http://page.test/"
"""The page's own address: its document is answered from the snapshot, never fetched."""
MARK = "const p = document.createElement('p'); p.id = 'done'; p.textContent = {};" + (
    " document.body.appendChild(p);"
)
SCRIPT = MARK.format("'Loaded through the proxy.'")


class StubDNS:
    """A resolver answering from a script: the n-th lookup of a host gets its n-th answer
    (the last one repeats); any other host is unknown. ``lookups`` counts them per host."""

    def __init__(self, answers: dict[str, Sequence[str]]) -> None:
        self.answers = answers
        self.lookups: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, host: str) -> list[str]:
        if host not in self.answers:
            raise OSError(f"unknown host {host}")
        with self.lock:
            count = self.lookups[host] = self.lookups.get(host, 0) + 1
        script = self.answers[host]
        return [script[min(count, len(script)) - 1]]


@contextmanager
def watched() -> Iterator[tuple[int, socket.socket]]:
    """A port listening on the refused address: its connections wait in the backlog unaccepted,
    so ``connections`` finds any that was ever made."""
    listener = socket.socket()
    listener.bind((REFUSED_HOST, 0))
    listener.listen(16)
    listener.setblocking(False)
    try:
        yield listener.getsockname()[1], listener
    finally:
        listener.close()


def connections(listener: socket.socket) -> int:
    count = 0
    while True:
        try:
            accepted, _ = listener.accept()
        except BlockingIOError:
            return count
        accepted.close()
        count += 1


def page_with(body: str) -> Snapshot:
    html = f"<!doctype html><html><body><div id='root'></div>{body}</body></html>"
    return Snapshot(
        id="0" * 64, url=PAGE_URL, final_url=PAGE_URL, status=200, headers=(),
        content_type="text/html", charset="utf-8", fetched_at=0, body=html.encode(),
    )  # fmt: skip


def failing(src: str) -> str:
    """A script tag that marks the page done whether ``src`` loads or not."""
    return f'<script src="{src}" onerror="{MARK.format(chr(39) + "failed" + chr(39))}"></script>'


def render(snapshot: Snapshot, **policy: Any) -> Rendered:
    options = ScrapeOptions(render="always", wait_for="#done", timeout=30)

    async def show() -> Rendered:
        async with Browser() as browser:
            return await browser.render(snapshot, options, loopback_policy(**policy), False)

    return asyncio.run(show())


@pytest.mark.slow
def test_chromium_connects_to_the_address_the_stub_resolved(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/x.js", SCRIPT, content_type="text/javascript")
    dns = StubDNS({"assets.test": ["127.0.0.1"]})  # a name the system cannot resolve
    src = f"http://assets.test:{server.port}/x.js"
    shown = render(page_with(f'<script src="{src}"></script>'), resolver=dns)
    assert "Loaded through the proxy." in shown.html and shown.refused == ()
    (seen,) = [seen for seen in server.seen if seen.path == "/x.js"]
    assert seen.headers["Host"] == f"assets.test:{server.port}"
    assert dns.lookups == {"assets.test": 2}  # the route check's, then the proxy's own
    assert left_behind(own_tmp) == []


@pytest.mark.slow
def test_a_name_rebinding_after_the_route_check_reaches_nothing(own_tmp: str) -> None:
    dns = StubDNS({"rebind.test": ["127.0.0.1", REFUSED_HOST]})
    with watched() as (port, listener):
        src = f"http://rebind.test:{port}/x.js"
        shown = render(page_with(failing(src)), resolver=dns)
        assert connections(listener) == 0
    assert "failed" in shown.html and "Loaded" not in shown.html
    assert dns.lookups == {"rebind.test": 2}  # allowed by the route check, refused by the proxy
    assert shown.refused == (src,)


@pytest.mark.slow
def test_an_https_name_rebinding_is_refused_its_tunnel(own_tmp: str) -> None:
    dns = StubDNS({"secure.test": ["127.0.0.1", REFUSED_HOST]})
    with watched() as (port, listener):
        script = (
            f"<script>fetch('https://secure.test:{port}/data')"
            f".then(() => {{ {MARK.format(chr(39) + 'fetched' + chr(39))} }},"
            f" () => {{ {MARK.format(chr(39) + 'failed' + chr(39))} }});</script>"
        )
        shown = render(page_with(script), resolver=dns)
        assert connections(listener) == 0
    assert ">failed<" in shown.html and dns.lookups == {"secure.test": 2}
    assert shown.refused == (f"https://secure.test:{port}",)


@pytest.mark.slow
def test_a_websocket_reaches_its_server_through_a_tunnel_to_the_checked_address(
    own_tmp: str,
) -> None:
    dns = StubDNS({"feed.test": ["127.0.0.1"]})

    async def hello(socket: ServerConnection) -> None:
        await socket.send("the tide turns at four")

    async def show() -> Rendered:
        async with serve_websocket(hello, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            script = (
                f"<script>const feed = new WebSocket('ws://feed.test:{port}/');"
                f" feed.onmessage = (e) => {{ {MARK.format('e.data')} }};</script>"
            )
            options = ScrapeOptions(render="always", wait_for="#done", timeout=30)
            async with Browser() as browser:
                policy = loopback_policy(resolver=dns)
                return await browser.render(page_with(script), options, policy, False)

    shown = asyncio.run(show())
    assert ">the tide turns at four<" in shown.html and shown.refused == ()
    assert dns.lookups == {"feed.test": 2}  # the route check's, then the tunnel's


@pytest.mark.slow
def test_a_redirect_to_a_refused_address_is_not_followed_there(
    server: MisbehavingServer, own_tmp: str
) -> None:
    with watched() as (port, listener):
        target = f"http://{REFUSED_HOST}:{port}/x.js"
        shown = render(page_with(failing(server.url(f"/redirect?to={target}"))))
        assert connections(listener) == 0
    assert "failed" in shown.html and server.hits("/redirect") == 1
    assert shown.refused == (target,)


ICE = """<script>
const peer = new RTCPeerConnection({{iceServers: [{{urls: 'stun:{host}:{port}'}}]}});
peer.createDataChannel('probe');
const done = () => {{ {mark} }};
peer.onicegatheringstatechange = () => {{
  if (peer.iceGatheringState === 'complete') done();
}};
peer.createOffer().then((offer) => peer.setLocalDescription(offer));
setTimeout(done, 3000);
</script>"""


@pytest.mark.slow
def test_a_page_sends_no_udp_around_the_proxy(own_tmp: str) -> None:
    """WebRTC's STUN and peer traffic is UDP, which no proxy carries: a page asking a STUN
    server on an address the rules refuse gathers nothing, and nothing reaches it."""
    stun = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stun.bind((REFUSED_HOST, 0))
    stun.setblocking(False)
    try:
        mark = MARK.format("'gathered'")
        shown = render(
            page_with(ICE.format(host=REFUSED_HOST, port=stun.getsockname()[1], mark=mark))
        )
        with pytest.raises(BlockingIOError):
            stun.recvfrom(2048)
    finally:
        stun.close()
    assert "gathered" in shown.html
    assert left_behind(own_tmp) == []


def through(proxy: str, **client: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(proxy=proxy, trust_env=False, timeout=10, **client)


def test_the_proxy_forwards_http_to_the_checked_address_and_closes_after_it(
    server: MisbehavingServer,
) -> None:
    dns = StubDNS({"named.test": ["127.0.0.1"]})
    noted: list[str] = []

    async def exchange() -> httpx.Response:
        proxy = EgressProxy()
        async with (
            proxy.door(loopback_policy(resolver=dns), noted.append) as door,
            through(door) as client,
        ):
            url = f"http://named.test:{server.port}/ok"
            return await client.post(url, content=b"a tide table", headers={"X-Trace": "7"})

    answer = asyncio.run(exchange())
    assert answer.status_code == 200 and answer.headers["connection"] == "close"
    (seen,) = server.seen
    assert (seen.method, seen.path, seen.body) == ("POST", "/ok", b"a tide table")
    assert seen.headers["Host"] == f"named.test:{server.port}" and seen.headers["X-Trace"] == "7"
    assert "Proxy-Connection" not in seen.headers and seen.headers["Connection"] == "close"
    assert dns.lookups == {"named.test": 1} and noted == []


def test_a_chunked_body_is_decoded_and_passed_on_with_its_length(
    server: MisbehavingServer,
) -> None:
    parts = [b"high water ", b"at noon, ", b"low at dusk" * 500]

    async def streamed() -> AsyncIterator[bytes]:
        for part in parts:
            yield part

    async def exchange() -> httpx.Response:
        async with EgressProxy().door(loopback_policy(), [].append) as door, through(door) as c:
            return await c.post(server.url("/ok"), content=streamed())

    answer = asyncio.run(exchange())
    assert answer.status_code == 200
    (seen,) = server.seen
    assert seen.body == b"".join(parts) and "Transfer-Encoding" not in seen.headers
    assert seen.headers["Content-Length"] == str(len(seen.body))


def test_a_chunked_body_with_extensions_and_trailers_reaches_the_server_without_them(
    server: MisbehavingServer,
) -> None:
    body = b"5;name=tide\r\nhigh \r\n5 ; x\r\nwater\r\n0\r\nX-Sum: 9\r\n\r\n"

    async def answer() -> bytes:
        async with EgressProxy().door(loopback_policy(), [].append) as door:
            return await ask(door, posting(server, "Transfer-Encoding: chunked") + body)

    assert asyncio.run(answer()).startswith(b"HTTP/1.1 200 ")
    (seen,) = server.seen
    assert seen.body == b"high water" and "X-Sum" not in seen.headers


UP_TO_THE_CAP = (b"10000\r\n" + b"a" * 0x10000 + b"\r\n") * (MAX_CHUNKED_BODY // 0x10000)
"""Chunks of 64 KiB holding as many bytes as a chunked body may."""


def posting(server: MisbehavingServer, *headers: str) -> bytes:
    """The head of a POST to the server's /ok through the proxy, with ``headers``."""
    lines = [f"POST {server.url('/ok')} HTTP/1.1", *headers, "", ""]
    return "\r\n".join(lines).encode()


@pytest.mark.parametrize(
    ("headers", "body", "status"),
    [
        (("Transfer-Encoding: chunked",), b"FFFFFFFFFFFF\r\n", 413),  # declared past the cap
        (("Transfer-Encoding: chunked",), UP_TO_THE_CAP + b"1\r\n", 413),  # one byte past it
        (("Transfer-Encoding: chunked",), b"zz\r\n", 400),
        (("Transfer-Encoding: chunked",), b"1" * 17 + b"\r\n", 400),  # 17 digits
        (("Transfer-Encoding: chunked",), b"1;" + b"x" * 5000 + b"\r\n", 400),
        (("Transfer-Encoding: chunked",), b"1" + b"x" * 70_000, 400),  # a line without end
        (("Transfer-Encoding: chunked",), b"2\r\nabXY", 400),  # no CRLF after the data
        (("Transfer-Encoding: gzip, chunked",), b"0\r\n\r\n", 501),
        (("Transfer-Encoding: chunked", "Content-Length: 5"), b"0\r\n\r\n", 400),
    ],
)
def test_a_hostile_chunked_body_is_refused_at_once_and_nothing_is_sent(
    server: MisbehavingServer, headers: tuple[str, ...], body: bytes, status: int
) -> None:
    async def answer() -> tuple[bytes, float]:
        async with EgressProxy().door(loopback_policy(), [].append) as door:
            started = asyncio.get_running_loop().time()
            said = await ask(door, posting(server, *headers) + body)
            return said, asyncio.get_running_loop().time() - started

    said, seconds = asyncio.run(answer())
    assert said.startswith(f"HTTP/1.1 {status} ".encode()) and seconds < 5
    assert server.seen == []


def test_a_chunked_body_that_never_ends_is_refused_at_the_idle_timeout(
    server: MisbehavingServer,
) -> None:
    async def answer() -> tuple[bytes, float]:
        async with EgressProxy(idle_timeout=0.5).door(loopback_policy(), [].append) as door:
            port = int(door.rsplit(":", 1)[1])
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(posting(server, "Transfer-Encoding: chunked"))
            started = asyncio.get_running_loop().time()

            async def trickle() -> None:  # a chunk every 0.1 s: never idle, never done
                while True:
                    writer.write(b"1\r\na\r\n")
                    await writer.drain()
                    await asyncio.sleep(0.1)

            sending = asyncio.ensure_future(trickle())
            said = await asyncio.wait_for(reader.read(), 10)
            sending.cancel()
            await asyncio.gather(sending, return_exceptions=True)
            writer.close()
            return said, asyncio.get_running_loop().time() - started

    said, seconds = asyncio.run(answer())
    assert said.startswith(b"HTTP/1.1 408 ") and seconds < 3
    assert server.seen == []


SMUGGLED = b"GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
"""A request hidden in a body: the server would read it as a request of its own were the
body sent without its length."""


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        ((f"Content-Length: {len(SMUGGLED)}",), SMUGGLED),
        (("Transfer-Encoding: chunked",), b"%x\r\n%b\r\n0\r\n\r\n" % (len(SMUGGLED), SMUGGLED)),
    ],
    ids=["content-length", "chunked"],
)
def test_a_connection_header_naming_the_length_cannot_unframe_the_body(
    server: MisbehavingServer, headers: tuple[str, ...], body: bytes
) -> None:
    """``Connection: content-length, transfer-encoding`` leaves the body's length in place
    (the one the client sent, or the one the proxy set for a chunked body)."""
    request = posting(server, *headers, "Connection: content-length, transfer-encoding")

    async def answer() -> bytes:
        async with EgressProxy().door(loopback_policy(), [].append) as door:
            return await ask(door, request + body)

    assert asyncio.run(answer()).startswith(b"HTTP/1.1 200 ")
    (seen,) = server.seen
    assert seen.body == SMUGGLED and seen.headers["Content-Length"] == str(len(SMUGGLED))


def test_a_chunked_body_to_a_refused_address_is_refused_before_it_is_read() -> None:
    """The address is checked first: a body that is never sent does not hold the refusal
    until the idle timeout."""
    noted: list[str] = []

    async def answer(port: int) -> tuple[bytes, float]:
        async with EgressProxy(idle_timeout=5).door(loopback_policy(), noted.append) as door:
            started = asyncio.get_running_loop().time()
            head = f"POST http://{REFUSED_HOST}:{port}/ HTTP/1.1\r\n"
            said = await ask(door, f"{head}Transfer-Encoding: chunked\r\n\r\n".encode())
            return said, asyncio.get_running_loop().time() - started

    with watched() as (port, listener):
        said, seconds = asyncio.run(answer(port))
        assert connections(listener) == 0
    assert said.startswith(b"HTTP/1.1 403 ") and seconds < 2
    assert noted == [f"http://{REFUSED_HOST}:{port}/"]


def test_the_proxy_tunnels_https_to_the_checked_address() -> None:
    dns = StubDNS({"secure.test": ["127.0.0.1"]})

    async def exchange(server: MisbehavingServer) -> httpx.Response:
        proxy = EgressProxy()
        async with (
            proxy.door(loopback_policy(resolver=dns), [].append) as door,
            through(door, verify=server.client_tls) as client,
        ):
            return await client.get(server.url("/ok"))

    with serve(tls_host="secure.test") as server:
        answer = asyncio.run(exchange(server))
        assert answer.status_code == 200 and server.sni == ["secure.test"]
    assert dns.lookups == {"secure.test": 1}


def test_the_proxy_refuses_a_tunnel_to_a_refused_address_and_notes_it() -> None:
    noted: list[str] = []

    async def exchange(port: int) -> None:
        proxy = EgressProxy()
        async with proxy.door(loopback_policy(), noted.append) as door, through(door) as client:
            with pytest.raises(httpx.ProxyError, match="403"):
                await client.get(f"https://{REFUSED_HOST}:{port}/")

    with watched() as (port, listener):
        asyncio.run(exchange(port))
        assert connections(listener) == 0
    assert noted == [f"https://{REFUSED_HOST}:{port}"]


async def ask(door: str, request: bytes) -> bytes:
    """What the proxy answers ``request`` with, to the end."""
    port = int(door.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
        await writer.wait_closed()


def test_the_launch_door_and_an_oversized_head_are_refused(server: MisbehavingServer) -> None:
    connect = f"CONNECT 127.0.0.1:{server.port} HTTP/1.1\r\n\r\n".encode()
    huge = b"GET http://127.0.0.1/ HTTP/1.1\r\nX-Big: " + b"a" * MAX_HEAD_BYTES + b"\r\n\r\n"

    async def answers() -> tuple[bytes, bytes]:
        proxy = EgressProxy()
        launch_door = await proxy.start()
        try:
            async with proxy.door(loopback_policy(), [].append) as door:
                return await ask(launch_door, connect), await ask(door, huge)
        finally:
            await proxy.close()

    refused, oversized = asyncio.run(answers())
    assert refused.startswith(b"HTTP/1.1 403 ") and oversized.startswith(b"HTTP/1.1 431 ")
    assert server.seen == []


def test_connections_at_once_and_idle_tunnels_are_bounded(server: MisbehavingServer) -> None:
    connect = f"CONNECT 127.0.0.1:{server.port} HTTP/1.1\r\n\r\n".encode()

    async def scenario() -> tuple[bytes, bytes, float]:
        proxy = EgressProxy(max_connections=1, idle_timeout=0.5)
        async with proxy.door(loopback_policy(), [].append) as door:
            port = int(door.rsplit(":", 1)[1])
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(connect)
            opened = await reader.readuntil(b"\r\n\r\n")
            busy = await ask(door, b"")  # the one connection allowed is the tunnel's
            started = asyncio.get_running_loop().time()
            ended = await asyncio.wait_for(reader.read(), 10)  # closed once idle
            idle = asyncio.get_running_loop().time() - started
            writer.close()
            await writer.wait_closed()
            return opened + ended, busy, idle

    tunnel, busy, idle = asyncio.run(scenario())
    assert tunnel == b"HTTP/1.1 200 Connection established\r\n\r\n"
    assert busy.startswith(b"HTTP/1.1 503 ")
    assert 0.3 < idle < 5


@contextmanager
def keeping_open() -> Iterator[int]:
    """A server on 127.0.0.1 that answers one request and keeps its end of the connection
    open past ``Connection: close`` until the block ends: its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def answer() -> None:
        accepted, _ = listener.accept()
        with accepted:
            while b"\r\n\r\n" not in accepted.recv(65536):
                pass
            accepted.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            done.wait(30)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        thread.join()
        listener.close()


def test_an_exchange_ends_when_the_client_hangs_up_though_the_server_keeps_open() -> None:
    async def exchange(port: int) -> tuple[bytes, float]:
        proxy = EgressProxy()
        async with proxy.door(loopback_policy(), [].append) as door:
            async with through(door) as client:
                answer = await client.get(f"http://127.0.0.1:{port}/")
            started = asyncio.get_running_loop().time()
            while proxy.active:
                await asyncio.sleep(0.01)
            return answer.content, asyncio.get_running_loop().time() - started

    with keeping_open() as port:
        body, ended_after = asyncio.run(exchange(port))
    assert body == b"ok" and ended_after < 2  # not the 30 s idle timeout


@contextmanager
def silent() -> Iterator[tuple[int, socket.socket]]:
    """A server on 127.0.0.1 that takes connections and never says anything: its port, and
    its listener, non-blocking, to accept them from (accepted ones are held open)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    try:
        yield listener.getsockname()[1], listener
    finally:
        listener.close()


async def held(listener: socket.socket, count: int) -> list[socket.socket]:
    """The first ``count`` connections ``listener`` gets, accepted and kept open."""
    taken: list[socket.socket] = []
    async with asyncio.timeout(10):
        while len(taken) < count:
            try:
                taken.append(listener.accept()[0])
            except BlockingIOError:
                await asyncio.sleep(0.01)
    return taken


async def tunnel(door: str, port: int) -> tuple[bytes, asyncio.StreamWriter]:
    """A ``CONNECT`` to 127.0.0.1's ``port`` through ``door``: the head the proxy answers
    (the connection is left open when it is a tunnel's) and the client's writer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", int(door.rsplit(":", 1)[1]))
    writer.write(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
    return await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10), writer


async def opened(door: str, port: int) -> tuple[bytes, asyncio.StreamWriter]:
    """A tunnel through ``door`` that the proxy opened."""
    head, writer = await tunnel(door, port)
    assert head.startswith(b"HTTP/1.1 200 ")
    return head, writer


def test_a_connection_ends_when_the_browser_hangs_up_though_the_server_is_silent() -> None:
    """A page aborting its requests to a server that never answers frees each connection at
    once: a tunnel whose client has gone, and an exchange waiting for an answer's head."""

    async def scenario(port: int, listener: socket.socket) -> float:
        proxy = EgressProxy()  # the idle timeout of 30 s is not what ends them
        async with proxy.door(loopback_policy(), [].append) as door:
            tunnel = await opened(door, port)
            exchange = await asyncio.open_connection("127.0.0.1", int(door.rsplit(":", 1)[1]))
            exchange[1].write(f"GET http://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n".encode())
            upstream = await held(listener, 2)
            try:
                assert proxy.active == 2
                for _, writer in (tunnel, exchange):
                    writer.close()
                    await writer.wait_closed()
                started = asyncio.get_running_loop().time()
                while proxy.active:
                    await asyncio.sleep(0.01)
                return asyncio.get_running_loop().time() - started
            finally:
                for accepted in upstream:
                    accepted.close()

    with silent() as (port, listener):
        assert asyncio.run(scenario(port, listener)) < 2


def test_one_door_holding_its_share_of_connections_leaves_the_others_theirs() -> None:
    """A page keeping many tunnels open (WebSockets, which Chromium pools apart from its 32
    http(s) connections to a proxy) is refused past its door's share; another page's door
    is still served."""

    async def scenario(port: int, listener: socket.socket) -> tuple[bytes, bytes]:
        proxy = EgressProxy(max_connections=4, doors=2)
        async with (
            proxy.door(loopback_policy(), [].append) as greedy,
            proxy.door(loopback_policy(), [].append) as other,
        ):
            held_open = [await opened(greedy, port) for _ in range(2)]
            refused, _ = await tunnel(greedy, port)
            served, writer = await tunnel(other, port)
            for _, client in [*held_open, (b"", writer)]:
                client.close()
            for accepted in await held(listener, 3):
                accepted.close()
            return refused, served

    with silent() as (port, listener):
        refused, served = asyncio.run(scenario(port, listener))
    assert refused.startswith(b"HTTP/1.1 503 ") and served.startswith(b"HTTP/1.1 200 ")


SOCKETS = """<script>
let closed = 0;
for (let i = 0; i < {count}; i++) {{
  const socket = new WebSocket('ws://{host}:{port}/' + i);
  socket.onclose = () => {{ if (++closed === {count}) {{ {mark} }} }};
}}
</script>"""


@pytest.mark.slow
def test_a_page_opening_websockets_without_end_is_stopped_at_its_request_budget(
    own_tmp: str,
) -> None:
    with watched() as (port, listener):
        mark = MARK.format("'all closed'")
        page = page_with(
            SOCKETS.format(count=MAX_REQUESTS + 50, host=REFUSED_HOST, port=port, mark=mark)
        )
        with pytest.raises(RenderFailed, match=f"more than {MAX_REQUESTS} addresses"):
            render(page)
        assert connections(listener) == 0
    assert left_behind(own_tmp) == []


def test_a_request_naming_a_host_idna_cannot_decode_is_answered_400() -> None:
    async def answer() -> bytes:
        async with EgressProxy().door(loopback_policy(), [].append) as door:
            return await ask(door, b"GET http://xn--ls8h.la/ HTTP/1.1\r\n\r\n")

    assert asyncio.run(answer()).startswith(b"HTTP/1.1 400 ")


def test_an_unexpected_failure_in_a_connection_is_answered_502_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(host: str) -> list[str]:
        raise RuntimeError("the resolver broke")

    async def answer() -> bytes:
        async with EgressProxy().door(loopback_policy(resolver=broken), [].append) as door:
            return await ask(door, b"GET http://broken.test/ HTTP/1.1\r\n\r\n")

    assert asyncio.run(answer()).startswith(b"HTTP/1.1 502 ")
    (record,) = [r for r in caplog.records if r.name == "citesift.scrape.egress"]
    assert record.exc_info is not None and "the resolver broke" in str(record.exc_info[1])


@pytest.mark.slow
def test_the_proxy_is_closed_though_closing_chromium_is_cancelled(own_tmp: str) -> None:
    async def scenario() -> tuple[bool, int]:
        browser = Browser()
        await browser.__aenter__()
        assert browser._proxy is not None and browser._proxy.server is not None  # watched
        port = int(browser._proxy.server.rsplit(":", 1)[1])
        closing = asyncio.ensure_future(browser.close())
        await asyncio.sleep(0)  # closing Chromium is under way
        closing.cancel()
        await asyncio.gather(closing, return_exceptions=True)
        return closing.cancelled(), port

    cancelled, port = asyncio.run(scenario())
    assert cancelled
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    assert left_behind(own_tmp) == []
