"""Hostile requests to the HTTP API over real HTTP: each is answered with a clear status in
Firecrawl's error shape, never a 500 with a traceback or a dropped connection, and the
server goes on serving."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from citesift.api.config import ServeConfig
from serving import running

pytestmark = pytest.mark.timeout(60)
PAGE = "http://127.0.0.1:9/"
"""A page no test reaches: every request here is refused before any fetch."""
HUGE = "9" * 4000
"""A whole number JSON carries and no float holds."""


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running(ServeConfig(port=0, rate_per_minute=1_000_000)) as url:
        yield url


def _post(base: str, path: str, body: str) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    return httpx.post(base + path, content=body, headers=headers, timeout=30)


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v2/scrape", f'{{"url": "{PAGE}", "timeout": {HUGE}}}', "timeout"),
        ("/v2/scrape", f'{{"url": "{PAGE}", "maxAge": {HUGE}}}', "maxAge"),
        ("/v2/map", f'{{"url": "{PAGE}", "timeout": {HUGE}}}', "timeout"),
        ("/v2/search", f'{{"query": "q", "timeout": {HUGE}}}', "timeout"),
        ("/v2/batch/scrape", f'{{"urls": ["{PAGE}"], "maxAge": {HUGE}}}', "maxAge"),
        ("/v2/crawl", f'{{"url": "{PAGE}", "scrapeOptions": {{"maxAge": {HUGE}}}}}', "maxAge"),
    ],
    ids=["scrape-timeout", "scrape-maxAge", "map", "search", "batch", "crawl"],
)
def test_a_duration_no_float_holds_is_a_400_naming_it(
    base: str, path: str, body: str, field: str
) -> None:
    answer = _post(base, path, body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["details"][0]["path"][-1] == field
    assert httpx.get(base + "/openapi.json").status_code == 200


def test_a_duration_of_ten_years_is_still_taken(base: str) -> None:
    body = json.dumps({"url": PAGE, "maxAge": 10 * 365 * 86_400_000, "timeout": 10**11})
    answer = _post(base, "/v2/scrape", body)
    assert answer.status_code == 500  # past the checks: the page cannot be reached
    assert answer.json()["code"] == "SCRAPE_NETWORK_ERROR"


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"$ref": "http://10.0.0.1/schema.json"},
        json.loads('{"not": ' * 100 + "{}" + "}" * 100),
        {"type": "banana"},
    ],
    ids=["endless", "elsewhere", "deep", "invalid"],
)
@pytest.mark.parametrize("route", ["/v2/agent", "/v2/extract"])
def test_a_schema_that_cannot_be_checked_is_a_400_before_any_job(
    base: str, route: str, schema: object
) -> None:
    body = json.dumps({"prompt": "When?", "urls": [PAGE], "schema": schema})
    answer = _post(base, route, body)
    assert answer.status_code == 400, answer.text
    assert "schema" in answer.json()["details"][0]["message"]
