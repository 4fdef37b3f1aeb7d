"""A whole-page screenshot of a page 100,000 px tall (or wide) is a PNG cut at
``MAX_SHOT_SIDE`` pixels a side, taken well within the render's deadline."""

from __future__ import annotations

import time

import pytest

from chromium import left_behind
from citesift.scrape.browser import MAX_SHOT_SIDE, find_executable
from citesift.scrape.page import scrape_sync
from citesift.scrape.result import ScrapeResult
from servers import TEST_IDENTITY, MisbehavingServer, loopback_policy
from test_scrape import page_route

find_executable()  # no Chromium here fails these tests, naming what is missing: never a pass

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
DEADLINE = 10.0
HUGE = """<!doctype html><html><body style="margin:0">
<p>The tide table runs down a very long page indeed, as the harbour master wrote it.</p>
<div style="width:{width}px;height:{height}px;background:linear-gradient(#fff,#048)"></div>
</body></html>"""


@pytest.mark.parametrize(("width", "height"), [(600, 100_000), (100_000, 600)])
def test_a_screenshot_of_a_huge_page_is_cut_at_the_bound_in_time(
    server: MisbehavingServer, own_tmp: str, width: int, height: int
) -> None:
    page_route(server, "/huge", HUGE.format(width=width, height=height))
    started = time.monotonic()
    result = scrape_sync(
        server.url("/huge"), ("text", "screenshot"), identity=TEST_IDENTITY,
        policy=loopback_policy(), render="always", viewport=(800, 600), timeout=DEADLINE,
    )  # fmt: skip
    assert isinstance(result, ScrapeResult), result
    assert time.monotonic() - started < DEADLINE
    png = result.formats["screenshot"]
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    shown = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert max(shown) == MAX_SHOT_SIDE and min(shown) >= 600
    assert "the harbour master wrote it" in result.formats["text"]
    assert left_behind(own_tmp) == []
