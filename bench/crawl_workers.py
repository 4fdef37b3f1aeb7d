"""How a crawl scales with its workers: one generated site on loopback crawled whole with
1, 2 and 4 worker processes sharing one frontier in the store.

    python bench/crawl_workers.py [--store FILE|postgresql://...] [--pages 2000] [--workers 1 2 4]

The site is ``bench/crawl.py``'s (served by a process of its own, as there). Each run is a
new crawl (its start address differs by a query) in the same store, with the per-host
limiter relaxed (no spacing, a large minute budget; robots.txt still honoured), so the
figure is what the workers, the store and the machine allow. Printed for each worker count:
pages read, seconds (worker start-up included), pages/s, pages the site was asked for
twice, and the CPU time per page of the crawl's processes (which a busy machine does not
move as it moves pages/s). Without ``--store`` a new SQLite file in a temporary folder is used.
"""

from __future__ import annotations

import argparse
import functools
import json
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import crawl as site_bench  # the generated site and its server

CONCURRENCY = 16
"""Requests at once in each worker, as in ``bench/crawl.py``."""


def crawl_scaling(
    store: str, pages: int = 2000, workers: tuple[int, ...] = (1, 2, 4)
) -> list[dict[str, Any]]:
    """Crawl a ``pages``-page loopback site whole once per count in ``workers``, keeping the
    frontier in ``store`` (a SQLite file or a postgresql:// URL); one row per count, printed
    as it is measured: workers, pages, failed, seconds, pages_per_s, twice."""
    server = subprocess.Popen(
        [sys.executable, site_bench.__file__, "--serve", "--pages", str(pages)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=site_bench._env(),
    )
    rows: list[dict[str, Any]] = []
    try:
        assert server.stdout is not None
        origin = f"http://127.0.0.1:{int(server.stdout.readline())}"
        print(f"site: {pages} pages on loopback; store: {_shown(store)}")
        heads = ("pages", "failed", "seconds", "pages/s", "twice", "CPU ms/page")
        print("workers " + " ".join(f"{head:>8}" for head in heads))
        for count in workers:
            row = _crawl_once(store, origin, count)
            rows.append(row)
            print(
                f"{count:>7} {row['pages']:>8} {row['failed']:>8} {row['seconds']:>8.2f}"
                f" {row['pages_per_s']:>8.1f} {row['twice']:>8} {row['cpu_ms_per_page']:>11.1f}",
                flush=True,
            )
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
    return rows


def _crawl_once(store: str, origin: str, workers: int) -> dict[str, Any]:
    """One whole crawl of the site by ``workers`` processes (one is a process too, so every
    count pays the same start-up); the server's counts cleared first."""
    from citesift import ClientIdentity, CrawlOptions, FetchPolicy, SourceLimiter, open_store
    from citesift.scrape.crawl_workers import crawl_with_workers

    urllib.request.urlopen(f"{origin}/__hits").read()  # counts start afresh
    identity = ClientIdentity("citesift-bench", "1.0", "https://example.org/contact")
    policy = FetchPolicy.for_pages(identity, allow_private=True)
    relaxed = functools.partial(SourceLimiter, CONCURRENCY, spacing=0, per_minute=100_000)
    options = CrawlOptions(
        site_bench.ALL, max_depth=1_000, concurrency=CONCURRENCY, per_host=CONCURRENCY
    )
    start = f"{origin}/?run={workers}-{time.time_ns()}"  # a new crawl each time
    before = _cpu_seconds()
    with open_store(store) as opened:
        began = time.perf_counter()
        ended = crawl_with_workers(
            start, options, workers, policy=policy, store=opened, limiter=relaxed
        )
        seconds = time.perf_counter() - began
    cpu = _cpu_seconds() - before
    hits = json.loads(urllib.request.urlopen(f"{origin}/__hits").read())
    # robots.txt is read by each worker, and "/" both as the start (with its query) and as
    # a link: neither is a page read twice
    twice = sum(1 for path, n in hits.items() if n > 1 and path not in ("/robots.txt", "/"))
    return {
        "workers": workers,
        "pages": ended.done,
        "failed": ended.failed,
        "seconds": seconds,
        "pages_per_s": ended.done / seconds,
        "twice": twice,
        "cpu_ms_per_page": 1000 * cpu / max(ended.done, 1),
    }


def _cpu_seconds() -> float:
    """CPU time (user and system) of this process and of its ended workers."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _shown(store: str) -> str:
    from citesift.store import is_postgres_url
    from citesift.store.location import redacted

    return redacted(store) if is_postgres_url(store) else store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--store",
        help="a SQLite file or a postgresql:// URL (default: a new file in a temp folder)",
    )
    parser.add_argument("--pages", type=int, default=2_000, help="pages of the generated site")
    parser.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2, 4], help="worker counts, one crawl each"
    )
    args = parser.parse_args()
    if args.store:
        crawl_scaling(args.store, args.pages, tuple(args.workers))
        return
    with tempfile.TemporaryDirectory() as work:
        crawl_scaling(str(Path(work) / "crawl.db"), args.pages, tuple(args.workers))


if __name__ == "__main__":
    main()
