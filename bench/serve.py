"""Serve load run: ``citesift serve`` answering scrapes of a local site, many at a time.

    python bench/serve.py [--requests 500] [--concurrency 50] [--hosts 50] [--pages 40]

A site of ``--pages`` HTML pages (the crawl benchmark's pages) is served by a process of
its own on ``--hosts`` loopback addresses (127.0.0.1, 127.0.0.2, …: every one of them is
this machine), so that the per-host politeness limits, which hold here as everywhere, spread
the load the way many sites would. ``citesift serve`` runs in a process of its own on
127.0.0.1 with a store of its own, ``--allow-private`` and no per-client rate limit. Then
``--requests`` ``POST /v2/scrape`` requests for Markdown go to it, ``--concurrency`` at a
time, each page of each host in turn. Printed: the requests that failed (any answer but a
200 with ``success: true``; goal 0, with the first few reasons), the server's resident
memory before the first request and after each quarter of them (goal: flat after the first
quarter, which loads what a scrape needs), latency p50/p99 and requests per second.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from crawl import page_body

ROOT = Path(__file__).resolve().parent.parent
CONTACT = "https://example.org/contact"
HTML = "text/html; charset=utf-8"
ROBOTS = b"User-agent: *\nAllow: /\n"
QUARTERS = 4
KEEP_ALIVE = 2.0
"""Seconds the client keeps an idle connection: less than uvicorn's 5, so the client never
sends on a connection the server is closing at that moment."""


# --- the site --------------------------------------------------------------------------------


async def serve_site(pages: int, hosts: int) -> None:
    """Serve the pages on 127.0.0.1 … 127.0.0.<hosts>, one port for all, until standard input
    closes; say the port on standard output."""
    bodies = {f"/p/{i}.html": page_body(i, pages) for i in range(pages)}

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode("latin-1").split("?")[0]
                body, kind, status = bodies.get(path, b"<h1>Not found</h1>"), HTML, 200
                if path == "/robots.txt":
                    body, kind = ROBOTS, "text/plain"
                elif path not in bodies:
                    status = 404
                writer.write(
                    f"HTTP/1.1 {status} {'OK' if status == 200 else 'Not Found'}\r\n"
                    f"Content-Type: {kind}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client went away, or the site is shutting down
        finally:
            writer.close()

    first = await asyncio.start_server(answer, "127.0.0.1", 0, backlog=512)
    port = first.sockets[0].getsockname()[1]
    others = [
        await asyncio.start_server(answer, f"127.0.0.{n}", port, backlog=512)
        for n in range(2, hosts + 1)
    ]
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for server in [first, *others]:
        server.close()


# --- the processes ---------------------------------------------------------------------------


@contextmanager
def site_process(pages: int, hosts: int) -> Iterator[int]:
    """The site in a process of its own; yields its port."""
    command = [sys.executable, __file__, "--site", "--pages", str(pages), "--hosts", str(hosts)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as p:
        assert p.stdout is not None and p.stdin is not None
        try:
            yield int(p.stdout.readline())
        finally:
            p.stdin.close()
            p.wait(10)


@contextmanager
def api_process(work: Path) -> Iterator[tuple[str, int]]:
    """``citesift serve`` on a free loopback port with a store in ``work``; yields its base URL
    and process id once it answers."""
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "CITESIFT_HOME": str(work / "home"),
        "CITESIFT_BROWSER": "/nonexistent/chromium",  # static pages: never rendered
    }
    command = [
        sys.executable, "-m", "citesift", "serve", "--port", str(port), "--allow-private",
        "--contact", CONTACT, "--store", str(work / "store.db"), "--rate-limit", "1000000",
    ]  # fmt: skip
    with (
        (work / "serve.log").open("w") as log,
        subprocess.Popen(command, env=env, stdout=log, stderr=log) as process,
    ):
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while not answers(base):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("citesift serve did not start")
                time.sleep(0.1)
            yield base, process.pid
        finally:
            process.terminate()
            process.wait(10)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def answers(base: str) -> bool:
    try:
        return httpx.get(f"{base}/openapi.json", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def rss_mib(pid: int) -> float:
    """The process's resident memory in MiB (Linux's /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- the load --------------------------------------------------------------------------------


async def load(base: str, pid: int, urls: list[str], concurrency: int) -> int:
    """Send a scrape for each of ``urls``, ``concurrency`` at a time; print what it gave and
    answer how many failed."""
    slots = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    errors: list[str] = []
    memory = [("start", rss_mib(pid))]
    quarter = max(1, len(urls) // QUARTERS)
    limits = httpx.Limits(
        max_connections=concurrency,
        max_keepalive_connections=concurrency,
        keepalive_expiry=KEEP_ALIVE,
    )

    async with httpx.AsyncClient(limits=limits, timeout=120) as client:

        async def one(url: str) -> None:
            async with slots:
                started = time.perf_counter()
                try:
                    reply = await client.post(
                        f"{base}/v2/scrape", json={"url": url, "formats": ["markdown"]}
                    )
                    body = reply.json()
                    if reply.status_code != 200 or body.get("success") is not True:
                        errors.append(f"{reply.status_code} {str(body)[:160]}")
                except (httpx.HTTPError, ValueError) as error:
                    errors.append(f"{type(error).__name__}: {error}")
                latencies.append(time.perf_counter() - started)
                if len(latencies) % quarter == 0 and len(memory) <= QUARTERS:
                    memory.append((f"after {len(latencies)}", rss_mib(pid)))

        began = time.perf_counter()
        await asyncio.gather(*(one(url) for url in urls))
        seconds = time.perf_counter() - began

    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)) - 1)]
    print(f"requests: {len(urls)}, {concurrency} at a time; errors: {len(errors)}")
    for error in errors[:5]:
        print(f"  {error}")
    print("server RSS (MiB): " + ", ".join(f"{label} {mib:.1f}" for label, mib in memory))
    print(f"latency: p50 {statistics.median(ordered) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms")
    print(f"throughput: {len(urls) / seconds:.1f} requests/s over {seconds:.1f} s")
    return len(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--requests", type=int, default=500, help="scrape requests to send")
    parser.add_argument("--concurrency", type=int, default=50, help="requests at a time")
    parser.add_argument("--hosts", type=int, default=50, help="loopback addresses (at most 254)")
    parser.add_argument("--pages", type=int, default=40, help="pages of the site")
    parser.add_argument("--site", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not (1 <= args.hosts <= 254 and args.pages >= 1 and args.requests >= 1):
        parser.error("--hosts takes 1 to 254; --pages and --requests at least 1")
    if args.site:
        asyncio.run(serve_site(args.pages, args.hosts))
        return
    with tempfile.TemporaryDirectory() as work, site_process(args.pages, args.hosts) as port:
        urls = [
            f"http://127.0.0.{1 + n % args.hosts}:{port}/p/{(n // args.hosts) % args.pages}.html"
            for n in range(args.requests)
        ]
        with api_process(Path(work)) as (base, pid):
            failed = asyncio.run(load(base, pid, urls, args.concurrency))
        if failed:
            logged = (Path(work) / "serve.log").read_text(errors="replace").splitlines()
            print(
                "the server's last words:",
                *[line for line in logged if "INFO" not in line][-20:],
                sep="\n  ",
            )


if __name__ == "__main__":
    main()
