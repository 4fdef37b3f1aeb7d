"""Firecrawl's v2 routes: each parses its body, calls the library function the command line
calls, and answers in Firecrawl's shape."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from citesift.scrape.map import amap_site
from citesift.scrape.page import scrape
from citesift.scrape.result import ScrapeFailure
from citesift.serve.documents import document, failed
from citesift.serve.map_request import MapRequest
from citesift.serve.replies import failure
from citesift.serve.scrape_request import ScrapeRequest
from citesift.serve.state import Serving, serving, slot

router = APIRouter(prefix="/v2", tags=["firecrawl"])
Shared = Annotated[Serving, Depends(serving)]
WORK = [Depends(slot)]
"""What every route that fetches holds while it runs: one of the server's work slots."""

LATER = ("/crawl", "/batch/scrape", "/search", "/extract", "/agent")
"""Firecrawl routes citesift does not serve yet: answered 501 with what is missing."""


@router.post("/scrape", response_model=None, dependencies=WORK)
async def scrape_page(body: ScrapeRequest, shared: Shared) -> JSONResponse | dict[str, Any]:
    """One page in the formats asked, with citesift's provenance in ``metadata.citesift``."""
    setup = shared.setup
    outcome = await scrape(
        body.url,
        identity=setup.identity,
        options=body.options(),
        policy=shared.policy,
        fetcher=setup.fetcher,
        store=setup.store if body.store_in_cache else None,
        offline=setup.settings.offline,
        executable=setup.settings.browser,
    )
    if isinstance(outcome, ScrapeFailure):
        return failed(outcome)
    return {"success": True, "data": document(outcome)}


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
        found = await asyncio.wait_for(call, body.timeout / 1000 if body.timeout else None)
    except TimeoutError:
        return failure(408, f"the map took over {body.timeout} ms", "MAP_TIMEOUT")
    answer: dict[str, Any] = {"success": True, "links": [{"url": url} for url in found.urls]}
    if found.problems:
        answer["warning"] = "; ".join(found.problems)
    return answer


def _later(path: str) -> None:
    async def missing() -> JSONResponse:
        return failure(501, f"/v2{path} is not served by citesift yet", "NOT_IMPLEMENTED")

    for suffix in ("", "/{job}", "/{job}/errors"):
        router.add_api_route(
            path + suffix,
            missing,
            methods=["GET", "POST", "DELETE"],
            include_in_schema=False,
            name=f"later{path}{suffix}",
        )


for _path in LATER:
    _later(_path)
