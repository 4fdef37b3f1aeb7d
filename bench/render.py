"""Render benchmark: how often the render decision sends static pages to the browser, and
how many JavaScript pages one browser renders a second.

The decision is read over the extraction dev pages (goal: none is sent to the browser, as
each holds its text as served); then ``--pages`` local pages whose text only a script
writes are served on loopback and scraped through one ``Browser`` (skipped when there is
no browser to launch).

    python bench/render.py [--data DIR] [--pages N] [--at-once N]
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from citesift.encoding import decode_html
from citesift.net import ClientIdentity, FetchPolicy
from citesift.scrape.browser import Browser, BrowserUnavailable
from citesift.scrape.decision import needs_rendering
from citesift.scrape.page import scrape
from citesift.scrape.result import ScrapeResult
from tools import require_data

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "extraction" / "dev"
IDENTITY = ClientIdentity("citesift-bench", "1.0", "https://example.org/contact")
SCRIPTED = (
    "<!doctype html><html><head><title>Page {n}</title></head><body><div id='root'></div>"
    "<script>document.getElementById('root').innerHTML = '<h1>Entry {n}</h1><p>'"
    " + 'The script wrote this line for entry {n}. '.repeat(20) + '</p>';</script></body></html>"
)


def decision_share(data: Path) -> tuple[int, int, list[str]]:
    """How many of the pages in ``data`` the decision would render, of how many, and why."""
    pages = sorted(data.glob("*.html"))
    sent = []
    for page in pages:
        decided, why = needs_rendering(decode_html(page.read_bytes())[0])
        if decided:
            sent.append(f"{page.name}: {why}")
    return len(sent), len(pages), sent


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


async def render_rate(origin: str, pages: int, at_once: int) -> tuple[int, float]:
    """Pages rendered and the seconds taken, all through one browser."""
    policy = FetchPolicy.for_pages(IDENTITY, allow_networks=("127.0.0.1/32",), robots=False)
    async with Browser(max_pages=at_once) as browser:
        started = time.perf_counter()
        calls = [
            scrape(f"{origin}/{n}", ("text",), identity=IDENTITY, policy=policy, browser=browser)
            for n in range(pages)
        ]
        results = await asyncio.gather(*calls)
        spent = time.perf_counter() - started
    for result in results:
        if not (isinstance(result, ScrapeResult) and result.render.rendered):
            print(f"  not rendered: {result}")
    done = sum(isinstance(r, ScrapeResult) and r.render.rendered for r in results)
    return done, spent


def main(argv: list[str] | None = None) -> None:
    """Print the decision's share over the dev pages, then the render rate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--at-once", type=int, default=4)
    args = parser.parse_args(argv)
    require_data(args.data, "extraction benchmark pages", ["ground-truth.json"])
    sent, total, why = decision_share(args.data)
    print(f"render decision: {sent} of {total} static dev pages sent to the browser (goal 0)")
    for line in why:
        print(f"  {line}")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        done, spent = asyncio.run(render_rate(origin, args.pages, args.at_once))
    except BrowserUnavailable as error:
        print(f"render rate: skipped ({error})")
        return
    finally:
        server.shutdown()
    rate = done / spent
    print(f"render rate: {done} of {args.pages} JavaScript pages in {spent:.1f} s, {rate:.1f}/s")


if __name__ == "__main__":
    main()
