"""Crawl benchmark: citesift's crawl beside Scrapy on one generated site served on loopback.

    python bench/crawl.py [--pages 2000] [--small 500] [--concurrency 16] [--rounds 1]

A site of ``--pages`` HTML pages (a sitemap, robots.txt, links that loop back, the same page
spelt several ways, redirects, slow pages and 404s) is served by a process of its own on
127.0.0.1. Each crawler then crawls it whole, in a process of its own, with the per-host
limiter relaxed to ``--concurrency`` requests at once and no spacing (robots.txt still
honoured), and again stopped at ``--small`` pages. The table gives, for each run, the pages
read, pages/s, the pages the server was asked for twice, the process's peak memory and its
CPU time per page (which a busy machine does not move as it moves pages/s); then citesift's
pages/s as a ratio of Scrapy's, Scrapy's CPU per page as a ratio of citesift's, and
citesift's peak memory at ``--small`` vs all pages (the best of ``--rounds`` runs each).
Scrapy is an optional dependency (``pip install -e '.[bench]'``); without it only
citesift's rows are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parent.parent
WORDS = [
    *("river", "light", "power", "panel", "city", "market", "winter", "harbour", "signal"),
    *("garden", "stone", "engine", "paper", "table", "window", "forest", "letter", "bridge"),
]
SLOW_EVERY, SLOW_SECONDS = 40, 0.3
MISSING_EVERY, MOVED_EVERY = 20, 25
ALL = 100_000
"""The page limit of a run that reads the whole site."""


# --- the site -------------------------------------------------------------------------------


def page_body(i: int, pages: int) -> bytes:
    """Page ``i``: navigation that loops back, a few paragraphs, links onward (spelt several
    ways), now and then a link to a 404 or to a redirect."""
    rng = random.Random(i)
    children = [j for j in (2 * i + 1, 2 * i + 2, i + 1) if j < pages]
    links = [f'<a href="/p/{j}.html">Page {j}</a>' for j in children]
    if children:
        j = children[0]
        links += [f'<a href="/p/{j}.html#part">again</a>', f'<a href="/p/./{j}.html">and</a>']
    if i % MISSING_EVERY == 0:
        links.append(f'<a href="/gone/{i}.html">gone</a>')
    if i % MOVED_EVERY == 0 and i + 3 < pages:
        links.append(f'<a href="/old/{i + 3}.html">moved</a>')
    nav = "".join(f'<li><a href="/p/{k}.html">Section {k}</a></li>' for k in range(5))
    paragraphs = "".join(
        "<p>" + " ".join(rng.choice(WORDS) for _ in range(60)) + ".</p>" for _ in range(6)
    )
    return (
        f"<!doctype html><html><head><title>Page {i}</title></head><body>"
        f'<nav><ul><li><a href="/">Home</a></li>{nav}</ul></nav>'
        f"<main><article><h1>Page {i}</h1>{paragraphs}<p>{' '.join(links)}</p></article></main>"
        f"<footer><p>Footer of page {i}</p></footer></body></html>"
    ).encode()


def site(pages: int, origin: str) -> dict[str, tuple[int, bytes, str]]:
    """Every path of the site: its status, body and content type."""
    found = {
        f"/p/{i}.html": (200, page_body(i, pages), "text/html; charset=utf-8") for i in range(pages)
    }
    found["/"] = found["/p/0.html"]
    urls = "".join(f"<url><loc>{origin}/p/{i}.html</loc></url>" for i in range(pages))
    sitemap = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    found["/sitemap.xml"] = (200, sitemap.encode(), "application/xml")
    robots = f"User-agent: *\nDisallow: /private/\nSitemap: {origin}/sitemap.xml\n"
    found["/robots.txt"] = (200, robots.encode(), "text/plain")
    return found


async def serve_site(pages: int) -> None:
    """Serve the site on 127.0.0.1 (HTTP/1.1, keep-alive) until standard input closes; say
    the port on standard output. ``/__hits`` answers the counts of requests since the last
    ask, by path, and starts counting afresh."""
    hits: Counter[str] = Counter()
    paths: dict[str, tuple[int, bytes, str]] = {}

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode("latin-1").split("?")[0]
                if path == "/__hits":
                    status, body, kind = 200, json.dumps(hits).encode(), "application/json"
                    hits.clear()
                else:
                    hits[path] += 1
                    status, body, kind = paths.get(path, (404, b"<h1>Not found</h1>", "text/html"))
                    number = path.removeprefix("/p/").removesuffix(".html")
                    if number.isdigit() and int(number) % SLOW_EVERY == SLOW_EVERY - 1:
                        await asyncio.sleep(SLOW_SECONDS)
                extra = ""
                if path.startswith("/old/"):
                    status, body = 301, b""
                    extra = f"Location: /p/{path.removeprefix('/old/')}\r\n"
                reason = {200: "OK", 301: "Moved", 404: "Not Found"}[status]
                writer.write(
                    f"HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\n{extra}"
                    f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client went away, or the server is shutting down
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, backlog=512)
    port = server.sockets[0].getsockname()[1]
    paths.update(site(pages, f"http://127.0.0.1:{port}"))
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    server.close()


# --- the crawlers (each run in a process of its own) -----------------------------------------


def crawl_ours(url: str, limit: int, concurrency: int, work: Path) -> dict[str, Any]:
    """citesift's crawl of ``url``, every page's record written to a JSON-lines file."""
    from citesift import (
        ClientIdentity,
        CrawlOptions,
        Fetcher,
        FetchPolicy,
        LimiterRegistry,
        SourceLimiter,
        SQLiteStore,
        acrawl,
    )

    fetcher = Fetcher(
        LimiterRegistry(lambda: SourceLimiter(concurrency, spacing=0, per_minute=100_000))
    )
    identity = ClientIdentity("citesift-bench", "1.0", "https://example.org/contact")
    policy = FetchPolicy.for_pages(identity, allow_private=True)
    options = CrawlOptions(limit, max_depth=1_000, concurrency=concurrency, per_host=concurrency)
    pages = 0
    with SQLiteStore(work / "ours.db") as store, (work / "ours.jsonl").open("w") as out:

        def write(record: dict[str, Any]) -> None:
            nonlocal pages
            pages += 1
            out.write(json.dumps(record) + "\n")

        started = time.perf_counter()
        asyncio.run(
            acrawl(url, options, policy=policy, store=store, fetcher=fetcher, on_result=write)
        )
        seconds = time.perf_counter() - started
    return {"pages": pages, "seconds": seconds}


def crawl_scrapy(url: str, limit: int, concurrency: int, work: Path) -> dict[str, Any]:
    """Scrapy's crawl of ``url`` (a CrawlSpider following every link on the host, robots.txt
    obeyed), each page's URL, title and paragraph text written to a JSON-lines file."""
    from scrapy.crawler import CrawlerProcess
    from scrapy.linkextractors import LinkExtractor
    from scrapy.spiders import CrawlSpider, Rule

    host = url.split("/")[2].split(":")[0]
    pages = 0

    class SiteSpider(CrawlSpider):  # type: ignore[misc]
        name = "site"
        allowed_domains: ClassVar[list[str]] = [host]  # its port is ignored, as on a site's host
        start_urls: ClassVar[list[str]] = [url]
        rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)

        def parse_start_url(self, response: Any, **kwargs: Any) -> Any:
            return self.parse_page(response)

        def parse_page(self, response: Any) -> dict[str, Any]:
            nonlocal pages
            pages += 1
            text = "\n\n".join(" ".join(p.xpath(".//text()").getall()) for p in response.css("p"))
            return {"url": response.url, "title": response.css("title::text").get(), "text": text}

    settings = {
        "ROBOTSTXT_OBEY": True,
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
        "DOWNLOAD_DELAY": 0,
        "DEPTH_LIMIT": 0,
        "LOG_LEVEL": os.environ.get("BENCH_LOG", "ERROR"),
        "TELNETCONSOLE_ENABLED": False,
        "FEEDS": {str(work / "scrapy.jsonl"): {"format": "jsonlines"}},
    }
    if limit < ALL:
        settings["CLOSESPIDER_ITEMCOUNT"] = limit
    process = CrawlerProcess(settings)
    process.crawl(SiteSpider)
    started = time.perf_counter()
    process.start()
    return {"pages": pages, "seconds": time.perf_counter() - started}


# --- the runner ------------------------------------------------------------------------------


@dataclass
class Row:
    """One crawler's run: pages read, seconds, pages asked for twice, peak memory (MiB) and
    CPU seconds (user and system: what the run cost, however busy the machine was)."""

    crawler: str
    limit: int
    pages: int
    seconds: float
    twice: int
    peak_mib: float
    cpu: float

    @property
    def rate(self) -> float:
        return self.pages / self.seconds

    @property
    def cpu_per_page(self) -> float:
        return self.cpu / self.pages


def run_one(crawler: str, url: str, limit: int, concurrency: int, origin: str) -> Row:
    """Run ``crawler`` in a process of its own; its peak memory is the process's own."""
    with tempfile.TemporaryDirectory() as work:
        command = [sys.executable, __file__, "--run", crawler, "--url", url, "--limit", str(limit)]
        command += ["--concurrency", str(concurrency), "--work", work]
        child = subprocess.Popen(command, stdout=subprocess.PIPE, env=_env())
        assert child.stdout is not None
        said = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise SystemExit(f"{crawler} crawl failed ({child.returncode})")
    found = json.loads(said.decode().strip().splitlines()[-1])
    hits = json.loads(urllib.request.urlopen(f"{origin}/__hits").read())
    twice = sum(1 for path, n in hits.items() if n > 1 and path != "/robots.txt")
    peak, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
    return Row(crawler, limit, found["pages"], found["seconds"], twice, peak, cpu)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=2_000, help="pages of the generated site")
    parser.add_argument("--small", type=int, default=500, help="the page limit of the small runs")
    parser.add_argument("--concurrency", type=int, default=16, help="requests at once per crawler")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each (best kept)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--run", choices=("ours", "scrapy"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--limit", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve_site(args.pages))
        return
    if args.run:
        crawl = crawl_ours if args.run == "ours" else crawl_scrapy
        print(json.dumps(crawl(args.url, args.limit, args.concurrency, args.work)))
        return
    crawlers = ["ours"]
    try:
        import scrapy  # noqa: F401
    except ImportError:
        print(
            "scrapy is not installed (pip install -e '.[bench]'): citesift alone", file=sys.stderr
        )
    else:
        crawlers.append("scrapy")
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--pages", str(args.pages)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert server.stdout is not None
        origin = f"http://127.0.0.1:{int(server.stdout.readline())}"
        rows = [
            run_one(crawler, f"{origin}/", limit, args.concurrency, origin)
            for _ in range(args.rounds)
            for limit in (args.small, ALL)
            for crawler in crawlers
        ]
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
    report(rows, args)


def report(rows: list[Row], args: argparse.Namespace) -> None:
    print(f"site: {args.pages} pages on loopback, {args.concurrency} requests at once per crawler")
    heads = ("limit", "pages", "seconds", "pages/s", "twice", "peak MiB", "CPU ms/page")
    print(f"{'crawler':8} " + " ".join(f"{head:>{len(head) + 2}}" for head in heads))
    for row in rows:
        limit = "all" if row.limit == ALL else str(row.limit)
        print(
            f"{row.crawler:8} {limit:>7} {row.pages:>7} {row.seconds:>9.2f} {row.rate:>9.1f}"
            f" {row.twice:>7} {row.peak_mib:>10.1f} {1000 * row.cpu / row.pages:>13.1f}"
        )

    def best(crawler: str, limit: int, what: str) -> float:
        found = [
            getattr(row, what) for row in rows if row.crawler == crawler and row.limit == limit
        ]
        return max(found) if what == "rate" else min(found)

    if any(row.crawler == "scrapy" for row in rows):
        ratio = best("ours", ALL, "rate") / best("scrapy", ALL, "rate")
        print(f"pages/s, citesift / Scrapy (whole site): {ratio:.2f}")
        cost = best("scrapy", ALL, "cpu_per_page") / best("ours", ALL, "cpu_per_page")
        print(f"CPU per page, Scrapy / citesift (whole site): {cost:.2f}")
    small, whole = best("ours", args.small, "peak_mib"), best("ours", ALL, "peak_mib")
    print(
        f"citesift peak memory: {small:.1f} MiB at {args.small} pages, {whole:.1f} MiB at all"
        f" ({whole / small:.2f}x)"
    )


if __name__ == "__main__":
    main()
