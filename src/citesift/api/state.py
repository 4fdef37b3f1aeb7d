"""What the routes share while the server runs: the source setup (identity, store, one
fetcher with its limiters), the fetch policy the settings give and one lazy browser."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

from fastapi import HTTPException, Request

from citesift.api.config import SLOT_WAIT
from citesift.clients import WebSearch
from citesift.jobs import JobRunner
from citesift.net import FetchPolicy
from citesift.scrape.browser import Browser
from citesift.settings import SourceSetup
from citesift.store.location import AnyStore


@dataclass(frozen=True)
class Serving:
    """The setup every request reads through, its fetch policy, the slots that bound the
    scrapes and maps running at once, the runner of long jobs (crawls, batches, research),
    the store that keeps crawl frontiers and research traces, SQLite or PostgreSQL (None:
    none could be opened), the
    web search source the settings name (None: none) and the lazy browser the scrapes of
    requests render with (Chromium started by the first page that needs it, at most
    ``MAX_PAGES`` pages at once, ended when the server stops)."""

    setup: SourceSetup
    policy: FetchPolicy
    slots: asyncio.Semaphore
    jobs: JobRunner
    work_store: AnyStore | None
    search: WebSearch | None
    browser: Browser
    wiki_origins: tuple[str, ...]
    """The Wikimedia origins whose articles the Wikipedia route reads (no other)."""


def serving(request: Request) -> Serving:
    """The running server's shared setup (a FastAPI dependency)."""
    found: Serving = request.app.state.serving
    return found


async def slot(request: Request) -> AsyncIterator[None]:
    """Hold one of the server's work slots for a request (a FastAPI dependency); 503 with
    Retry-After when none frees within ``SLOT_WAIT`` seconds."""
    slots = serving(request).slots
    try:
        await asyncio.wait_for(slots.acquire(), SLOT_WAIT)
    except TimeoutError:
        raise HTTPException(503, "the server is busy", {"Retry-After": "5"}) from None
    try:
        yield
    finally:
        slots.release()
