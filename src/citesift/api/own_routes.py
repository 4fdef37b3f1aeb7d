"""citesift's own routes under ``/citesift``: each calls what its command calls (``wiki
read``, ``page``, ``verify claim``, ``check``, ``trace``) and answers in the Python API's
words. Every page is read as any fetch is (address policy, robots.txt, limiter)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse

from citesift.agent.trace import trace
from citesift.api.config import origin_text
from citesift.api.own_requests import (
    CitationsRequest,
    CitationsResponse,
    ClaimRequest,
    ClaimResponse,
    PagePassagesRequest,
    PassageOut,
    PassagesResponse,
    SourceDocumentOut,
    TraceResponse,
    WikipediaPassagesRequest,
)
from citesift.api.replies import Unsupported, failure
from citesift.api.state import Serving, serving, slot
from citesift.model import Document, ReadOutcome, SourceHit
from citesift.net import run_sync
from citesift.sources.reasons import asks_to_wait, describe
from citesift.sources.snapshots import shared_fetcher
from citesift.sources.web import is_web_url
from citesift.text.passages import citation_sources
from citesift.verify import check_citations, check_json, verify_claim

router = APIRouter(prefix="/citesift", tags=["citesift"])
Shared = Annotated[Serving, Depends(serving)]
WORK = [Depends(slot)]


@router.post("/wikipedia/passages", response_model=PassagesResponse, dependencies=WORK)
async def wikipedia_passages(
    body: WikipediaPassagesRequest, shared: Shared
) -> JSONResponse | PassagesResponse:
    """An article's attributed passages (licence, revision, offsets, a link to each), of one
    of the server's Wikimedia origins only."""
    origin = origin_text(body.origin)
    if origin not in shared.wiki_origins:
        allowed = ", ".join(shared.wiki_origins)
        raise Unsupported(["origin"], body.origin, f"only this server's wikis are read: {allowed}")
    try:
        provider = shared.setup.wikipedia(origin, body.page_path)  # the origin checked
    except ValueError as error:
        raise Unsupported(["page_path"], body.page_path, str(error)) from None
    title = body.title or body.key.replace("_", " ")
    return _passages(await provider.read(SourceHit(body.key, title)))


@router.post("/page/passages", response_model=PassagesResponse, dependencies=WORK)
async def page_passages(
    body: PagePassagesRequest, shared: Shared
) -> JSONResponse | PassagesResponse:
    """A web page's attributed passages (its article prose, or all it shows)."""
    if not is_web_url(body.url):
        raise Unsupported(["url"], body.url, "an http(s) URL with a host is")
    source = shared.setup.web_pages(body.mode)
    return _passages(await source.read(SourceHit(body.url, body.title or body.url)))


@router.post("/verify/claim", dependencies=WORK)
async def claim(body: ClaimRequest) -> ClaimResponse:
    """How well the sentences support the claim (the offline judge decides)."""
    check = await asyncio.to_thread(
        verify_claim, body.claim, body.sentences, top=body.top, about=body.about
    )
    return ClaimResponse(**dataclasses.asdict(check))


@router.post("/check", dependencies=WORK)
async def check(body: CitationsRequest, shared: Shared) -> CitationsResponse:
    """Each citation of the document checked against the page it cites: the verdict and
    the page's best supporting sentence, with a link to it."""
    setup = shared.setup
    fetcher = shared_fetcher(setup.budget) if setup.budget is not None else None
    reading = dataclasses.replace(setup, fetcher=fetcher) if fetcher is not None else setup
    pages = reading.web_pages("page")
    try:
        report = await asyncio.to_thread(
            check_citations,
            body.text,
            pages,
            body.kind,
            base_url=body.base_url,
            max_seconds=body.max_seconds,
        )
    finally:
        if fetcher is not None:
            await asyncio.to_thread(run_sync, fetcher.aclose())
    return CitationsResponse.model_validate(check_json(report))


@router.get("/runs/{run_id}", response_model=TraceResponse)
async def run_trace(
    run_id: str,
    shared: Shared,
    pointer: Annotated[str | None, Query(max_length=2000)] = None,
) -> JSONResponse | TraceResponse:
    """A stored research run (a unique prefix of its id will do): its task, answer, and
    each field (or the one at ``pointer``) with its evidence traced to the stored bytes."""
    if shared.work_store is None:
        return failure(404, "no research run is kept: the server has no store", "NO_RUNS")
    found = await asyncio.to_thread(trace, shared.work_store, run_id, pointer)
    return TraceResponse.model_validate(dataclasses.asdict(found))


def _passages(outcome: ReadOutcome) -> JSONResponse | PassagesResponse:
    """The document's passages, or the read's failure: 429 when asked to wait, else 502."""
    if not isinstance(outcome, Document):
        status, code = (429, "RATE_LIMITED") if asks_to_wait(outcome) else (502, "READ_FAILED")
        return failure(status, describe(outcome), code)
    read = outcome.document
    passages = [PassageOut.model_validate(dataclasses.asdict(p)) for p in citation_sources(read)]
    shown = {k: v for k, v in dataclasses.asdict(read).items() if k not in ("blocks", "metadata")}
    return PassagesResponse(document=SourceDocumentOut.model_validate(shown), passages=passages)
