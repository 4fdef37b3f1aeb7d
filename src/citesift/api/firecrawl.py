"""Firecrawl's v2 routes: each parses its body, calls the library function the command line
calls, and answers in Firecrawl's shape."""

from __future__ import annotations

import asyncio
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from citesift.agent.tools import WikipediaSearch
from citesift.api.documents import document, failed
from citesift.api.map_request import MapRequest
from citesift.api.replies import failure
from citesift.api.scrape_request import ScrapeFields, ScrapeRequest
from citesift.api.search_request import SearchRequest
from citesift.api.state import Serving, serving, slot
from citesift.jobs import BATCH_AT_ONCE
from citesift.scrape.browser import Browser
from citesift.scrape.map import amap_site
from citesift.scrape.page import scrape
from citesift.scrape.result import TIMEOUT, ScrapeFailure, ScrapeOutcome
from citesift.sources.wikipedia import checked_phrase

router = APIRouter(prefix="/v2", tags=["firecrawl"])
Shared = Annotated[Serving, Depends(serving)]
WORK = [Depends(slot)]
"""What every route that fetches holds while it runs: one of the server's work slots."""


@router.post("/scrape", response_model=None, dependencies=WORK)
async def scrape_page(body: ScrapeRequest, shared: Shared) -> JSONResponse | dict[str, Any]:
    """One page in the formats asked, with citesift's provenance in ``metadata.citesift``."""
    try:
        outcome = await scrape_within(body.url, body, shared)
    except TimeoutError:
        return failure(408, f"the scrape took over {body.timeout} ms", "SCRAPE_TIMEOUT")
    if isinstance(outcome, ScrapeFailure):
        return failed(outcome)
    return {"success": True, "data": document(outcome)}


async def scrape_within(
    url: str, fields: ScrapeFields, shared: Serving, browser: Browser | None = None
) -> ScrapeOutcome:
    """``scrape`` of ``url`` with the options ``fields`` give, within their ``timeout``
    (``TimeoutError`` past it), rendering with ``browser`` (default: the server's)."""
    setup = shared.setup
    call = scrape(
        url,
        identity=setup.identity,
        options=fields.options(),
        policy=shared.policy,
        fetcher=setup.fetcher,
        store=setup.store if fields.store_in_cache else None,
        offline=setup.settings.offline,
        browser=browser or shared.browser,
    )
    return await asyncio.wait_for(call, _seconds(fields.timeout))


@router.post("/map", response_model=None, dependencies=WORK)
async def map_urls(body: MapRequest, shared: Shared) -> JSONResponse | dict[str, Any]:
    """A site's URLs from its sitemaps and start page, ranked by ``search`` when given."""
    call = amap_site(
        body.url,
        body.search,
        body.limit,
        policy=shared.policy,
        fetcher=shared.setup.fetcher,
        bounds=body.bounds(),
    )
    try:
        found = await asyncio.wait_for(call, _seconds(body.timeout))
    except TimeoutError:
        return failure(408, f"the map took over {body.timeout} ms", "MAP_TIMEOUT")
    answer: dict[str, Any] = {"success": True, "links": [{"url": url} for url in found.urls]}
    answer["disallowed"] = found.disallowed  # citesift's own: Firecrawl clients ignore it
    warnings = [*found.problems, found.disallowed_note() or ""]
    if any(warnings):
        answer["warning"] = "; ".join(filter(None, warnings))
    return answer


@router.post("/search", response_model=None, dependencies=WORK)
async def search(body: SearchRequest, shared: Shared) -> JSONResponse | dict[str, Any]:
    """Web results for a query from the server's search source, each read as a page when
    scrape formats are asked (every address checked as any fetch is)."""
    scraping = body.scraping()
    if shared.search is None:
        why = "no search source is configured: set search (wikipedia, searxng, brave, tavily)"
        return failure(501, why, "SEARCH_NOT_CONFIGURED")
    if isinstance(shared.search, WikipediaSearch):
        checked_phrase(body.query, "query")  # a 400 naming it, before Wikipedia is asked
    try:
        asked = shared.search.search(body.query, body.limit)
        found = await asyncio.wait_for(asked, _seconds(body.timeout))
    except TimeoutError:
        return failure(408, f"the search took over {body.timeout} ms", "SEARCH_TIMEOUT")
    web: list[dict[str, Any]] = [
        {"url": hit.url, "title": hit.title, "description": hit.snippet, "position": rank}
        for rank, hit in enumerate(found, 1)
    ]
    if scraping is not None:
        at_once = asyncio.Semaphore(BATCH_AT_ONCE)
        pages = await asyncio.gather(*(_page(i["url"], scraping, shared, at_once) for i in web))
        web = [item | page for item, page in zip(web, pages, strict=True)]
    return {"success": True, "data": {"web": web}, "creditsUsed": 0, "id": str(uuid.uuid4())}


async def _page(
    url: str, fields: ScrapeFields, shared: Serving, at_once: asyncio.Semaphore
) -> dict[str, Any]:
    """A search result read as a Document (its metadata's ``error`` when it could not be)."""
    try:
        async with at_once:
            outcome = await scrape_within(url, fields, shared)
    except TimeoutError:
        return {"metadata": {"sourceURL": url, "url": url, "statusCode": 0, "error": TIMEOUT}}
    if isinstance(outcome, ScrapeFailure):
        why = f"{outcome.code}: {outcome.message}"
        status = outcome.status or 0
        return {"metadata": {"sourceURL": url, "url": url, "statusCode": status, "error": why}}
    return document(outcome)


def _seconds(timeout_ms: int | None) -> float | None:
    """Firecrawl's ``timeout`` (milliseconds for the whole request) in seconds."""
    return timeout_ms / 1000 if timeout_ms is not None else None
