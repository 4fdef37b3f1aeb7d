"""Firecrawl's v2 routes: each parses its body, calls the library function the command line
calls, and answers in Firecrawl's shape."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from citesift.serve.replies import failure

router = APIRouter(prefix="/v2")

LATER = ("/crawl", "/batch/scrape", "/search", "/extract", "/agent")
"""Firecrawl routes citesift does not serve yet: answered 501 with what is missing."""


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
