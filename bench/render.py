"""Render benchmark: which static pages the render decision sends to the browser, and how many
JavaScript pages one browser renders a second, each beside an anchor measured in the same run.

Decision: over each folder of pages with gold text (the extraction dev pages), the share the
decision sends to the browser, and of those the pages it sends *wrongly*: their static HTML
already holds most of their gold text (recall of 4-word shingles, by the shared scorer, at
least ``--held``). Goal: none. Anchor: the share a naive rule (any ``<script>``) would send.

Rate: ``--pages`` local pages whose text only a script writes, served on loopback and scraped
through one ``Browser`` (``--at-once`` at a time); anchor: the same pages loaded by bare
Playwright in the same Chromium, one fresh context a page, nothing checked or extracted.
Skipped, saying why, when there is no browser to launch.

    python bench/render.py [--data DIR ...] [--pages N] [--at-once N] [--held R]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

from citesift.encoding import decode_html
from citesift.net import ClientIdentity, Fetcher, FetchPolicy, LimiterRegistry, SourceLimiter
from citesift.scrape.browser import LAUNCH_ARGS, Browser, BrowserUnavailable, find_executable
from citesift.scrape.decision import needs_rendering
from citesift.scrape.page import scrape
from citesift.scrape.result import ScrapeResult
from tools import load_tool, require_data

ROOT = Path(__file__).resolve().parent.parent
EXTRACTION = ROOT.parent / "shared" / "bench" / "extraction"
DEFAULT_DATA = [EXTRACTION / "dev", EXTRACTION / "webis-dev"]
DEFAULT_SCORER = ROOT.parent / "shared" / "tools" / "extraction_eval.py"
HELD = 0.5
"""Recall of the gold text in the static page from which rendering it is a wasted render."""
IDENTITY = ClientIdentity("citesift-bench", "1.0", "https://example.org/contact")
SCRIPTED = (
    "<!doctype html><html><head><title>Page {n}</title></head><body><div id='root'></div>"
    "<script>document.getElementById('root').innerHTML = '<h1>Entry {n}</h1><p>'"
    " + 'The script wrote this line for entry {n}. '.repeat(20) + '</p>';</script></body></html>"
)
_SCRIPT = re.compile(r"<script\b", re.IGNORECASE)


@dataclass
class Decisions:
    """The decision over one folder: pages read, sent to the browser, sent though the static
    page held its text (each with why), and what the naive rule would send."""

    pages: int = 0
    sent: list[str] = field(default_factory=list)
    wrongly: list[str] = field(default_factory=list)
    naive: int = 0


def decisions(data: Path, scorer: ModuleType, held: float) -> Decisions:
    """The render decision over every page of ``data``, checked against its gold text."""
    truth = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    found = Decisions()
    for page in sorted(data.glob("*.html")):
        html = decode_html(page.read_bytes())[0]
        found.pages += 1
        found.naive += _SCRIPT.search(html) is not None
        decided, why = needs_rendering(html)
        if not decided:
            continue
        gold = truth.get(page.stem, {}).get("articleBody", "")
        tp, _, fn = scorer.page_counts(gold, scorer.ex_alltext(html))
        recall = tp / (tp + fn) if tp + fn else 1.0
        line = f"{page.name}: {why}; the static page holds {recall:.0%} of its gold text"
        found.sent.append(line)
        if recall >= held:
            found.wrongly.append(line)
    return found


class _Scripted(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = SCRIPTED.format(n=self.path.strip("/")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@contextmanager
def scripted_site() -> Iterator[str]:
    """A loopback server of pages whose text a script writes; yields its origin."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def ours(origin: str, pages: int, at_once: int) -> tuple[int, float]:
    """Pages scraped and rendered through one ``Browser`` (``at_once`` renders at a time),
    fetched through one ``Fetcher`` whose per-host limits are relaxed (the browser is what
    is measured, not politeness), and the seconds taken."""
    policy = FetchPolicy.for_pages(IDENTITY, allow_networks=("127.0.0.1/32",), robots=False)
    relaxed = SourceLimiter(concurrency=64, spacing=0, per_minute=100_000)
    fetcher = Fetcher(LimiterRegistry(lambda: relaxed))  # one pool; the browser is measured

    async def one(n: int, browser: Browser) -> object:
        url = f"{origin}/{n}"
        return await scrape(
            url, ("text",), identity=IDENTITY, policy=policy, fetcher=fetcher, browser=browser
        )

    async with Browser(max_pages=at_once) as browser:  # its slots bound the renders
        started = time.perf_counter()
        results = await asyncio.gather(*(one(n, browser) for n in range(pages)))
        spent = time.perf_counter() - started
    for result in results:
        if not (isinstance(result, ScrapeResult) and result.render.rendered):
            print(f"  not rendered: {result}")
    return sum(isinstance(r, ScrapeResult) and r.render.rendered for r in results), spent


async def bare(origin: str, pages: int, at_once: int) -> tuple[int, float]:
    """The anchor: the same pages loaded by bare Playwright, one fresh context a page."""
    from playwright.async_api import async_playwright

    slots = asyncio.Semaphore(at_once)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=find_executable(), args=list(LAUNCH_ARGS)
        )

        async def load(n: int) -> bool:
            async with slots:
                context = await browser.new_context()
                try:
                    page = await context.new_page()
                    await page.goto(f"{origin}/{n}", wait_until="load")
                    return "The script wrote" in await page.content()
                finally:
                    await context.close()

        started = time.perf_counter()
        loaded = await asyncio.gather(*(load(n) for n in range(pages)))
        spent = time.perf_counter() - started
        await browser.close()
    return sum(loaded), spent


def main(argv: list[str] | None = None) -> None:
    """Print the decision over each folder, then the render rate beside its anchor."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, action="append", help="a folder of pages with gold text (repeatable)"
    )
    parser.add_argument("--scorer", type=Path, default=DEFAULT_SCORER, help="the shared scorer")
    parser.add_argument("--pages", type=int, default=50, help="JavaScript pages to render")
    parser.add_argument("--at-once", type=int, default=4, help="renders at a time")
    parser.add_argument(
        "--held",
        type=float,
        default=HELD,
        help="recall of the gold in the static page from which a render is sent wrongly",
    )
    args = parser.parse_args(argv)
    folders = args.data or DEFAULT_DATA
    for data in folders:
        require_data(data, "extraction benchmark pages", ["ground-truth.json"])
    scorer = load_tool(args.scorer, "extraction_eval", "--scorer")
    for data in folders:
        found = decisions(data, scorer, args.held)
        print(
            f"render decision over {data.name}: {len(found.wrongly)} of {found.pages} pages"
            f" sent wrongly (goal 0); {len(found.sent)} sent in all;"
            f" anchor, any <script>: {found.naive} ({found.naive / found.pages:.0%})"
        )
        for line in found.sent:
            print(f"  {'WRONG ' if line in found.wrongly else ''}{line}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    try:
        with scripted_site() as origin:
            done, spent = asyncio.run(ours(origin, args.pages, args.at_once))
            loaded, anchor = asyncio.run(bare(origin, args.pages, args.at_once))
    except BrowserUnavailable as error:
        print(f"render rate: skipped ({error})")
        return
    rate, bare_rate = done / spent, loaded / anchor
    print(
        f"render rate: {done} of {args.pages} JavaScript pages in {spent:.1f} s, {rate:.2f}/s;"
        f" bare Playwright {loaded} in {anchor:.1f} s, {bare_rate:.2f}/s;"
        f" ratio {rate / bare_rate:.2f}"
    )


if __name__ == "__main__":
    main()
