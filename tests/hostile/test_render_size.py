"""A page whose script writes far more than a fetch may read: its render is refused at the
body cap, measured in the page, as a served body that large would be; a page within the cap
renders as before."""

from __future__ import annotations

import time

import pytest

from chromium import left_behind
from citesift.scrape.browser import find_executable
from citesift.scrape.page import scrape_sync
from citesift.scrape.result import ScrapeFailure, ScrapeResult
from servers import TEST_IDENTITY, MisbehavingServer, loopback_policy
from test_scrape import page_route

find_executable()  # no Chromium here fails these tests, naming what is missing: never a pass

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
CAP = 400_000
WRITING = """<!doctype html><html><body><div id="app"></div><script>
document.getElementById("app").textContent = "The tide rose. ".repeat({times});
</script></body></html>"""


def render(server: MisbehavingServer, path: str) -> object:
    return scrape_sync(
        server.url(path), ("text",), identity=TEST_IDENTITY,
        policy=loopback_policy(max_body_bytes=CAP), render="always", timeout=20,
    )  # fmt: skip


def test_a_page_writing_past_the_body_cap_is_refused_and_one_within_it_rendered(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/flood", WRITING.format(times=100_000))  # 1.5 MB written
    page_route(server, "/brief", WRITING.format(times=1_000))
    started = time.monotonic()
    flood = render(server, "/flood")
    assert isinstance(flood, ScrapeFailure) and flood.code == "RENDER_FAILED", flood
    assert f"larger than the cap of {CAP} bytes" in flood.message
    assert time.monotonic() - started < 20
    brief = render(server, "/brief")
    assert isinstance(brief, ScrapeResult) and "The tide rose." in brief.formats["text"]
    assert left_behind(own_tmp) == []


def test_the_cap_counts_bytes_and_half_a_surrogate_pair_is_read_as_a_replacement(
    server: MisbehavingServer, own_tmp: str
) -> None:
    # 200,000 characters of three UTF-8 bytes each: within the cap in characters, past it
    # in the bytes the rendered snapshot would hold.
    page_route(server, "/wide", WRITING.replace("The tide rose. ", "潮").format(times=200_000))
    half = WRITING.replace("The tide rose. ", "The tide rose \\ud800 at dusk. ")
    page_route(server, "/half", half.format(times=1))
    wide = render(server, "/wide")
    assert isinstance(wide, ScrapeFailure) and wide.code == "RENDER_FAILED", wide
    assert f"larger than the cap of {CAP} bytes" in wide.message
    read = render(server, "/half")
    assert isinstance(read, ScrapeResult), read
    assert "The tide rose \ufffd at dusk." in read.formats["text"]
    assert left_behind(own_tmp) == []
