"""Bodies drawn at random against the running API: every answer is Firecrawl's JSON shape
(never an unhandled error), in bounded time. Every URL drawn is the local site's, so
nothing leaves this machine."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from local_site import page, serve_page
from servers import MisbehavingServer, serve
from serving import running

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

SCRAPE_KEYS = [
    "formats", "onlyMainContent", "includeTags", "excludeTags", "headers", "waitFor",
    "timeout", "mobile", "parsers", "actions", "location", "skipTlsVerification",
    "removeBase64Images", "fastMode", "blockAds", "proxy", "maxAge", "minAge", "lockdown",
    "storeInCache", "zeroDataRetention", "origin", "integration", "redactPII", "__x",
]  # fmt: skip
MAP_KEYS = [
    "search", "sitemap", "includeSubdomains", "ignoreQueryParameters", "limit", "timeout",
    "includePaths", "excludePaths", "location", "useIndex", "origin",
]  # fmt: skip
FORMATS = ["markdown", "html", "rawHtml", "links", "metadata", "json", "screenshot", "x"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 100_000), st.text(max_size=12),
    st.sampled_from(["basic", "stealth", "include", "only", "skip", "pdf", "p > a", "[["]),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
format_items = st.one_of(
    st.sampled_from(FORMATS),
    st.fixed_dictionaries(
        {"type": st.sampled_from(FORMATS)},
        optional={"fullPage": values, "viewport": values, "quality": values},
    ),
)


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[MisbehavingServer, str]]:
    with serve() as server, running() as base:
        serve_page(server, "/", page("Home", ["/a", "/b"]))
        yield server, base


def bodies(keys: list[str], local: str) -> st.SearchStrategy[dict[str, Any]]:
    url = st.sampled_from([local, local + "a", 7, None, "", "ftp://127.0.0.1/"])
    extra = st.dictionaries(st.sampled_from(keys), values, max_size=4)
    formats = st.dictionaries(st.just("formats"), st.lists(format_items, max_size=3))
    if "formats" not in keys:
        formats = st.just({})
    return st.builds(lambda u, e, f: {"url": u, **e, **f}, url, extra, formats)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_scrape_and_map_bodies_get_firecrawl_shaped_answers(
    site: tuple[MisbehavingServer, str], data: st.DataObject
) -> None:
    server, base = site
    route, keys = data.draw(st.sampled_from([("scrape", SCRAPE_KEYS), ("map", MAP_KEYS)]))
    body = data.draw(bodies(keys, server.url("/")))
    started = time.monotonic()
    answer = httpx.post(f"{base}/v2/{route}", json=body, timeout=60)
    assert time.monotonic() - started < 30
    reply = answer.json()
    assert isinstance(reply, dict) and isinstance(reply.get("success"), bool), answer.text
    if answer.status_code >= 500:
        assert str(reply.get("code", "")).startswith("SCRAPE_"), answer.text
