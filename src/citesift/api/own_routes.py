"""citesift's own routes under ``/citesift``: each calls what its command calls (``wiki
read``, ``page``, ``verify claim``, ``check``, ``trace``) and answers in the Python API's
words. Every page is read as any fetch is (address policy, robots.txt, limiter)."""

from __future__ import annotations

import asyncio
import dataclasses
import math
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
from citesift.model import Document, Limited, ReadOutcome, SourceHit
from citesift.net import run_sync
from citesift.sources import DEFAULT_ORIGIN
from citesift.sources.reasons import asks_to_wait, describe, read_note
from citesift.sources.snapshots import shared_fetcher
from citesift.sources.web import is_web_url
from citesift.sources.wikipedia import wiki_key
from citesift.text.passages import citation_sources
from citesift.verify import check_citations, check_json, verify_claim

router = APIRouter(prefix="/citesift", tags=["citesift"])
Shared = Annotated[Serving, Depends(serving)]
WORK = [Depends(slot)]
RETRY_AFTER = 30
"""Seconds a 429 asks the caller to wait when neither the host nor our limiter knows how
long (another process's limit, shared through the store)."""
BUSY_RETRY_AFTER = 1
"""Seconds a 429 asks the caller to wait when only the host's busy fetch slots refused (our
limiter's ``wait``, with no block, minute or spacing left): a slot frees in moments."""


@router.post("/wikipedia/passages", response_model=PassagesResponse, dependencies=WORK)
async def wikipedia_passages(
    body: WikipediaPassagesRequest, shared: Shared
) -> JSONResponse | PassagesResponse:
    """An article's attributed passages (licence, revision, offsets, a link to each), of one
    of the server's Wikimedia origins only; a key that redirects is a 404 ``REDIRECTED``
    naming the title to ask for."""
    origin = origin_text(body.origin) if body.origin else _default_wiki(shared)
    if origin not in shared.wiki_origins:
        allowed = ", ".join(shared.wiki_origins)
        raise Unsupported(["origin"], body.origin, f"only this server's wikis are read: {allowed}")
    try:
        provider = shared.setup.wikipedia(origin, body.page_path)  # the origin checked
    except ValueError as error:
        raise Unsupported(["page_path"], body.page_path, str(error)) from None
    key = wiki_key(body.key)
    outcome = await provider.read(SourceHit(key, body.title or key.replace("_", " ")))
    unread = provider.not_read(key, outcome)
    if unread:
        kind, message = unread
        return failure(404, message, kind)
    return await _passages(outcome, shared, origin)


def _default_wiki(shared: Serving) -> str:
    """The wiki a request naming none reads: the server's one wiki, English Wikipedia when
    it has several; of several others, none: the request must name one (they are listed)."""
    wikis = shared.wiki_origins
    if len(wikis) == 1:
        return wikis[0]
    if DEFAULT_ORIGIN in wikis:
        return DEFAULT_ORIGIN
    named = ", ".join(wikis)
    why = f"this server reads several wikis, English Wikipedia not among them: name one of {named}"
    raise Unsupported(["origin"], None, why)


@router.post("/page/passages", response_model=PassagesResponse, dependencies=WORK)
async def page_passages(
    body: PagePassagesRequest, shared: Shared
) -> JSONResponse | PassagesResponse:
    """A web page's attributed passages (its article prose, or all it shows)."""
    if not is_web_url(body.url):
        raise Unsupported(["url"], body.url, "an http(s) URL with a host is")
    source = shared.setup.web_pages(body.mode)
    outcome = await source.read(SourceHit(body.url, body.title or body.url))
    return await _passages(outcome, shared, body.url)


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


def retry_after(outcome: ReadOutcome, ready: float) -> int:
    """The whole seconds a 429 for ``outcome`` asks the caller to wait: the host's block
    when the outcome knows it, else ``ready`` (when the fetcher may ask the host again),
    else ``BUSY_RETRY_AFTER`` for busy slots, else ``RETRY_AFTER``."""
    known = getattr(outcome, "retry_in", None) or ready
    if not known:
        busy = isinstance(outcome, Limited) and outcome.reason == "wait"
        known = BUSY_RETRY_AFTER if busy else RETRY_AFTER
    return max(1, math.ceil(known))


async def _passages(
    outcome: ReadOutcome, shared: Serving, url: str
) -> JSONResponse | PassagesResponse:
    """The document's passages (and a ``warning`` when the page holds no text to cite or
    is a redirect or disambiguation page), or the read's failure: 429 with Retry-After when
    asked to wait (when ``url``'s host may be asked again, read from the fetcher, and its
    store, off the event loop and only then), else 502."""
    if asks_to_wait(outcome):
        known = getattr(outcome, "retry_in", None)
        fetcher = shared.setup.fetcher
        ready = 0.0 if known else await asyncio.to_thread(fetcher.ready_seconds, url)
        wait = {"Retry-After": str(retry_after(outcome, ready))}
        return failure(429, describe(outcome), "RATE_LIMITED", headers=wait)
    if not isinstance(outcome, Document):
        return failure(502, describe(outcome), "READ_FAILED")
    read = outcome.document
    passages = [PassageOut.model_validate(dataclasses.asdict(p)) for p in citation_sources(read)]
    shown = {k: v for k, v in dataclasses.asdict(read).items() if k not in ("blocks", "metadata")}
    document = SourceDocumentOut.model_validate(shown)
    return PassagesResponse(document=document, passages=passages, warning=read_note(read))
