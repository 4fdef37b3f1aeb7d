"""citesift's own index routes under ``/citesift/index``: each calls what ``citesift index
add`` and ``citesift search`` call (``index_add``, ``create_rag``)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from citesift.api.index_requests import (
    IndexHit,
    IndexSearchRequest,
    IndexSearchResponse,
    IngestRequest,
    IngestResponse,
)
from citesift.api.replies import Unsupported, failure
from citesift.api.state import Serving, serving, slot
from citesift.index.rag import create_rag
from citesift.ingest import index_add
from citesift.sources.web import is_web_url
from citesift.store import made_store, store_location
from citesift.text import match_link

router = APIRouter(prefix="/citesift/index", tags=["citesift"], dependencies=[Depends(slot)])
Shared = Annotated[Serving, Depends(serving)]
NO_INDEX = "nothing is indexed yet: add documents with POST /citesift/index/documents"


def index_location(shared: Serving) -> str | Path:
    """The index's store, as the command line and the MCP server find it: the PostgreSQL
    URL or the SQLite file the settings name, else the default file."""
    return store_location(shared.setup.settings.store)


@router.post("/documents")
async def ingest(body: IngestRequest, shared: Shared) -> IngestResponse:
    """Read web pages and add them to the index as ``index_add`` does (the same limits,
    robots.txt, snapshots and report): a page that cannot be read is refused with its
    reason, and the rest are added."""
    for index, url in enumerate(body.urls):
        if not is_web_url(url):
            raise Unsupported(["urls", index], url, "only http(s) pages are read from a request")
    report = await asyncio.to_thread(
        index_add,
        list(dict.fromkeys(body.urls)),
        store=index_location(shared),
        retrieval=body.retrieval,
        mode=body.mode,
        chunk_size=body.chunk_size,
        chunk_overlap=body.chunk_overlap,
        pages=shared.setup.page_access(),
    )
    return IngestResponse.model_validate(dataclasses.asdict(report))


@router.post("/search", response_model=IndexSearchResponse)
async def search(body: IndexSearchRequest, shared: Shared) -> IndexSearchResponse | JSONResponse:
    """The best chunks of the local index for a query, each with its provenance and a link
    to it on its page; 404 ``NO_INDEX`` while nothing is indexed (as the command line says
    "no index"), so an empty list always means nothing matched. The server's open store is
    searched (no connection or pool made per request; SQLite's by a connection of its own,
    so a long search keeps no fetch waiting); emptiness is read only when nothing matched."""
    opened = await asyncio.to_thread(shared.setup.search_store)
    location = opened or made_store(shared.setup.settings.store)
    if location is None:
        return failure(404, NO_INDEX, "NO_INDEX")
    with create_rag(store=location, retrieval=body.retrieval) as rag:
        found = await asyncio.to_thread(rag.search, body.query, body.top_k)
        if not found and not await asyncio.to_thread(rag.has_documents):
            return failure(404, NO_INDEX, "NO_INDEX")
    hits = [
        IndexHit(
            id=hit.id,
            score=hit.score,
            content=hit.content,
            metadata=hit.metadata,
            provenance=dataclasses.asdict(hit.provenance) if hit.provenance else None,
            link=match_link(hit),
        )
        for hit in found
    ]
    return IndexSearchResponse(hits=hits)
