"""A page whose script holds gigabytes in a loop ends its own renderer at the heap bound:
the render fails in bounded time, the browser's processes never hold much past that bound,
and the same browser renders the next page."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from chromium import JS_PAGE, left_behind, polling, processes
from citesift.scrape.browser import Browser, find_executable
from citesift.scrape.page import scrape
from citesift.scrape.result import ScrapeFailure, ScrapeResult
from servers import TEST_IDENTITY, MisbehavingServer, loopback_policy
from test_scrape import page_route

find_executable()  # no Chromium here fails these tests, naming what is missing: never a pass

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
HOG = """<!doctype html><html><body><div id="app"></div><script>
const kept = [];  // 3,000 arrays of 2^17 doubles: 3 GB, held
for (let i = 0; i < 3000; i++) kept.push(new Array(1 << 17).fill(i + 0.5));
document.getElementById("app").textContent = "held " + kept.length;
</script></body></html>"""
DEADLINE = 20.0
PEAK_MB = 2_200
"""MB the browser's processes may hold together: the heap bound, the browser, its driver and
its other processes (pages they share counted in each); the page's 3 GB never fits."""


@contextmanager
def peak_rss_mb(marker: str) -> Iterator[list[int]]:
    """The most memory (resident, in MB) the processes naming ``marker`` held together while
    the block ran, looked at every 50 ms."""
    peak = [0]

    def look() -> None:
        total = 0
        for pid, line, environ in processes():
            if marker.encode() in line or marker.encode() in environ:
                total += _rss_kb(pid)
        peak[0] = max(peak[0], total // 1024)

    with polling(look):
        yield peak


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def test_a_page_holding_gigabytes_fails_at_the_heap_bound_and_the_browser_serves_on(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/hog", HOG)
    page_route(server, "/js", JS_PAGE)

    async def go() -> tuple[Any, float, Any]:
        async with Browser() as browser:
            started = time.monotonic()
            policy = loopback_policy()
            hog = await scrape(
                server.url("/hog"), ("text",), identity=TEST_IDENTITY, policy=policy,
                browser=browser, render="always", timeout=DEADLINE,
            )  # fmt: skip
            seconds = time.monotonic() - started
            after = await scrape(
                server.url("/js"), ("text",), identity=TEST_IDENTITY, policy=policy,
                browser=browser,
            )  # fmt: skip
            return hog, seconds, after

    with peak_rss_mb(own_tmp) as peak:
        hog, seconds, after = asyncio.run(go())
    assert isinstance(hog, ScrapeFailure) and hog.code == "RENDER_FAILED", hog
    assert seconds < DEADLINE
    assert peak[0] < PEAK_MB, peak
    assert isinstance(after, ScrapeResult) and "ferry left at noon" in after.formats["text"]
    assert left_behind(own_tmp) == []
