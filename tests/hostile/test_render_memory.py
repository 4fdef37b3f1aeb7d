"""A page whose script holds gigabytes in a loop ends its own renderer at the heap bound, and
one holding them outside the script heap (DOM nodes, a text node, canvases, image data,
array buffers) has its renderer ended at the browser's memory bound: the render fails in
bounded time, the renderers never hold much past that bound, and the same browser renders
the next page, or the one beside it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from chromium import JS_PAGE, left_behind, polling, processes
from citesift.scrape.browser import (
    MAX_DOM_NODES,
    MAX_RENDERER_MB,
    WATCH_EVERY,
    Browser,
    find_executable,
)
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


OUTSIDE_HEAP = {
    "nodes": """const root = document.getElementById("app");
for (let i = 0; i < 50000000; i++) root.appendChild(document.createElement("div"));""",
    "text": """const text = document.createTextNode("x");
document.getElementById("app").appendChild(text);
for (let i = 0; i < 40; i++) text.data = text.data + text.data;""",
    "canvas": """const kept = [];
for (let i = 0; i < 40; i++) { const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 16384; const drawn = canvas.getContext("2d");
  drawn.fillRect(0, 0, 16384, 16384); kept.push(document.body.appendChild(canvas)); }""",
    "image-data": """const kept = [];
for (let i = 0; i < 40; i++) kept.push(new ImageData(16384, 4096).data.fill(7));""",
    "array-buffers": """const kept = [];
for (let i = 0; i < 40; i++) kept.push(new Uint8Array(1 << 28).fill(7));""",
}
"""Scripts holding gigabytes outside the script heap, each by one kind of thing a page holds
(with no bound each took 1.5 to 6.7 GB before a 20 s deadline)."""
REASONS = (f"more than {MAX_RENDERER_MB} MB of memory", f"more than {MAX_DOM_NODES:,} DOM nodes")
"""Either bound may stop a page first (a page appending nodes mostly meets the count of
nodes first, but the page's answer is late when its renderer is busiest)."""
EITHER_BOUND = {"text"}
"""Kinds the script heap's bound may end first (a text node doubled is a script's string
doubled too), the renderer crashing there."""
RENDERER_PEAK_MB = MAX_RENDERER_MB + 1024
"""MB the renderers may hold together: one at the bound, what it took between two looks (one
canvas at Chromium's largest, 16,384 pixels square, is a gigabyte taken at once), and the
browser's other renderers (a few hundred MB)."""


LONG = """<!doctype html><html><body><div id="app"></div><script>
const root = document.getElementById("app");
for (let i = 0; i < 150000; i++) {
  const line = root.appendChild(document.createElement("p")); line.textContent = "line " + i;
}
</script></body></html>"""
"""A page of 300,000 nodes (150,000 paragraphs, a text node in each): longer than real pages
are, well within the count of nodes and the memory bound."""


LAYOUT = """<!doctype html><html><head><style>
div { display: inline-block; border: 1px solid; padding: 1px; }
div::before { content: "a"; } div::after { content: "b"; }
</style></head><body><div id="app"></div><script>
const root = document.getElementById("app"), many = "<div></div>".repeat(1000);
for (let i = 0; i < 3000; i++) { root.insertAdjacentHTML("beforeend", many); root.offsetHeight; }
</script></body></html>"""
"""A page laying out ever more boxes (each with two generated ones), laid out anew after
each thousand: unbounded it held about 1 GB at its 20 s deadline."""
LAYOUT_DEADLINE = 6.0
"""The layout page's deadline: its renderer, laying out all the while, holds by then most of
what it holds by 20 s (about 600 MB against 700 here)."""


def outside_heap_page(kind: str) -> str:
    """A page whose script holds gigabytes of ``kind``."""
    return f"""<!doctype html><html><body><div id="app"></div><script>
{OUTSIDE_HEAP[kind]}</script></body></html>"""


@contextmanager
def peak_rss_mb(marker: str, renderers: bool = False) -> Iterator[list[int]]:
    """The most memory (resident, in MB) the processes naming ``marker`` (only renderers, when
    asked) held together while the block ran, looked at every 50 ms."""
    peak = [0]

    def look() -> None:
        total = 0
        for pid, line, environ in processes():
            ours = marker.encode() in line or marker.encode() in environ
            if ours and (not renderers or b"--type=renderer" in line):
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


@pytest.mark.parametrize("kind", sorted(OUTSIDE_HEAP))
def test_a_page_holding_gigabytes_outside_its_script_heap_fails_at_the_memory_bound(
    server: MisbehavingServer, own_tmp: str, kind: str
) -> None:
    page_route(server, "/hog", outside_heap_page(kind))
    page_route(server, "/js", JS_PAGE)

    async def go() -> tuple[Any, float, Any]:
        async with Browser() as browser:
            started = time.monotonic()
            hog, after = await asyncio.gather(
                scrape(
                    server.url("/hog"), ("text",), identity=TEST_IDENTITY,
                    policy=loopback_policy(), browser=browser, render="always",
                    timeout=DEADLINE,
                ),
                scrape(
                    server.url("/js"), ("text",), identity=TEST_IDENTITY,
                    policy=loopback_policy(), browser=browser, wait_for=1000,
                ),
            )  # fmt: skip
            seconds = time.monotonic() - started
            assert browser.open_contexts == 0
            return hog, seconds, after

    with peak_rss_mb(own_tmp, renderers=True) as peak:
        hog, seconds, after = asyncio.run(go())
    assert isinstance(hog, ScrapeFailure) and hog.code == "RENDER_FAILED", hog
    said = any(reason in hog.message for reason in REASONS)
    assert said or (kind in EITHER_BOUND and "crashed" in hog.message), hog
    assert seconds < DEADLINE + WATCH_EVERY
    assert peak[0] < RENDERER_PEAK_MB, peak
    assert isinstance(after, ScrapeResult) and "ferry left at noon" in after.formats["text"]
    assert "late line arrived" in after.formats["text"]  # it rendered on, past the hog's end
    assert left_behind(own_tmp) == []


def test_a_long_page_of_a_few_hundred_thousand_nodes_renders(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/long", LONG)

    async def go() -> Any:
        async with Browser() as browser:
            return await scrape(
                server.url("/long"), ("raw_html",), identity=TEST_IDENTITY,
                policy=loopback_policy(), browser=browser, wait_for=1000,
            )  # fmt: skip

    long = asyncio.run(go())
    assert isinstance(long, ScrapeResult), long
    assert "line 149999" in long.formats["raw_html"]


def test_a_page_laying_out_boxes_in_a_loop_ends_by_its_deadline_within_the_bound(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/layout", LAYOUT)

    async def go() -> tuple[Any, float]:
        async with Browser() as browser:
            started = time.monotonic()
            outcome = await scrape(
                server.url("/layout"), ("text",), identity=TEST_IDENTITY,
                policy=loopback_policy(), browser=browser, render="always",
                timeout=LAYOUT_DEADLINE,
            )  # fmt: skip
            return outcome, time.monotonic() - started

    with peak_rss_mb(own_tmp, renderers=True) as peak:
        outcome, seconds = asyncio.run(go())
    assert isinstance(outcome, ScrapeFailure), outcome
    assert outcome.code in ("TIMEOUT", "RENDER_FAILED"), outcome
    assert seconds < LAYOUT_DEADLINE + 2 * WATCH_EVERY + 1  # closed once the deadline passes
    assert peak[0] < RENDERER_PEAK_MB, peak
    assert left_behind(own_tmp) == []


def test_the_memory_bound_holds_while_the_default_executor_is_busy(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/hog", outside_heap_page("array-buffers"))
    deadline = 8.0

    async def go() -> Any:
        busy, release = ThreadPoolExecutor(1), threading.Event()
        asyncio.get_running_loop().set_default_executor(busy)
        asyncio.get_running_loop().run_in_executor(None, release.wait)  # as a slow lookup would
        try:
            async with Browser() as browser:
                return await scrape(
                    server.url("/hog"), ("text",), identity=TEST_IDENTITY,
                    policy=loopback_policy(), browser=browser, render="always", timeout=deadline,
                )  # fmt: skip
        finally:
            release.set()

    hog = asyncio.run(go())
    assert isinstance(hog, ScrapeFailure) and REASONS[0] in hog.message, hog
    assert left_behind(own_tmp) == []
