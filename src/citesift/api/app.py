"""The FastAPI application: the guard in front, Firecrawl's routes under ``/v2``, the
schema at ``/openapi.json`` and its documentation at ``/docs``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from citesift.api import firecrawl, index_routes, replies
from citesift.api.config import ServeConfig
from citesift.api.guard import Guard, RateLimit
from citesift.api.state import Serving
from citesift.settings import Settings, source_setup, version_text


def build_app(config: ServeConfig, settings: Settings) -> FastAPI:
    """The API for ``config``, fetching as ``settings`` say (a missing contact or a bad bound
    is raised here, before anything listens)."""
    settings.fetch_policy()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        setup = source_setup(settings)
        slots = asyncio.Semaphore(config.max_in_flight)
        app.state.serving = Serving(setup, settings.fetch_policy(), slots)
        try:
            yield
        finally:
            await setup.fetcher.aclose()
            setup.close()

    app = FastAPI(
        title="citesift",
        version=version_text(),
        summary="Citable evidence from the web: a Firecrawl v2 compatible subset.",
        lifespan=lifespan,
        redoc_url=None,
    )
    replies.install(app)
    app.include_router(firecrawl.router)
    app.include_router(index_routes.router)
    app.add_middleware(
        Guard,
        keys=config.api_keys,
        rate=RateLimit(config.rate_per_minute),
        max_body=config.max_body_bytes,
    )
    return app
