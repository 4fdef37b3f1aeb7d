"""citesift's own index routes under ``/citesift/index``: each calls what ``citesift index
add`` and ``citesift search`` call (``index_add``, ``create_rag``)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends

from citesift.api.index_requests import (
    IndexHit,
    IndexSearchRequest,
    IndexSearchResponse,
    IngestRequest,
    IngestResponse,
)
from citesift.api.replies import Unsupported
from citesift.api.state import Serving, serving, slot
from citesift.index.rag import create_rag
from citesift.ingest import index_add
from citesift.sources.web import is_web_url
from citesift.store.sqlite import default_store_path

router = APIRouter(prefix="/citesift/index", tags=["citesift"], dependencies=[Depends(slot)])
Shared = Annotated[Serving, Depends(serving)]


def index_path(shared: Serving) -> Path:
    """The index's store: the one the settings name, else the default path."""
    named = shared.setup.settings.store
    return Path(named) if named else default_store_path()


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
        store=index_path(shared),
        retrieval=body.retrieval,
        mode=body.mode,
        chunk_size=body.chunk_size,
        chunk_overlap=body.chunk_overlap,
        pages=shared.setup.page_access(),
    )
    return IngestResponse.model_validate(dataclasses.asdict(report))


@router.post("/search")
async def search(body: IndexSearchRequest, shared: Shared) -> IndexSearchResponse:
    """The best chunks of the local index for a query, each with its provenance."""
    path = index_path(shared)
    if not path.exists():
        return IndexSearchResponse(hits=[])
    with create_rag(store=path, retrieval=body.retrieval) as rag:
        found = await asyncio.to_thread(rag.search, body.query, body.top_k)
    hits = [
        IndexHit(
            id=hit.id,
            score=hit.score,
            content=hit.content,
            metadata=hit.metadata,
            provenance=dataclasses.asdict(hit.provenance) if hit.provenance else None,
        )
        for hit in found
    ]
    return IndexSearchResponse(hits=hits)
