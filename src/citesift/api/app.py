"""The FastAPI application: the guard in front, Firecrawl's routes under ``/v2``, the
schema at ``/openapi.json`` and its documentation at ``/docs``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from citesift.agent.research import search_backend
from citesift.api import firecrawl, index_routes, job_routes, own_routes, replies
from citesift.api.config import ServeConfig, local_hosts, origin_text
from citesift.api.guard import Guard, RateLimit
from citesift.api.state import Serving
from citesift.jobs import JobRunner
from citesift.settings import Settings, source_setup, version_text
from citesift.store.jobs import JobStore
from citesift.store.sqlite import MEMORY, SQLiteStore


def build_app(config: ServeConfig, settings: Settings) -> FastAPI:
    """The API for ``config``, fetching as ``settings`` say (a missing contact, a bad bound or
    a store that cannot be opened is raised here, before anything listens)."""
    settings.fetch_policy()
    if settings.store:  # one that cannot be opened (a server down) is said before listening
        settings.open_store().close()
    if settings.search not in (None, "none", "wikipedia"):  # an unknown one, a missing address
        search_backend(settings.search, settings.search_url, settings.search_key, None)  # type: ignore[arg-type]

    wiki_search = settings.search_url if settings.search == "wikipedia" else None
    wiki_origins = tuple(filter(None, (*config.wiki_origins, origin_text(wiki_search))))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        setup = source_setup(settings)
        search = setup.web_search()
        jobs_store = setup.store or setup.budget or SQLiteStore(MEMORY)
        # its own owner name: the jobs of a server still running on the store are left to it
        runner = JobRunner(JobStore(jobs_store), max_running=config.max_jobs)
        slots = asyncio.Semaphore(config.max_in_flight)
        kept = setup.store or setup.budget
        policy = settings.fetch_policy()
        try:
            async with settings.lazy_browser() as browser:  # ended at shutdown
                app.state.serving = Serving(
                    setup, policy, slots, runner, kept, search, browser, wiki_origins
                )
                yield
        finally:
            await runner.aclose()
            await setup.fetcher.aclose()
            setup.close()
            if jobs_store not in (setup.store, setup.budget):
                jobs_store.close()

    app = FastAPI(
        title="citesift",
        version=version_text(),
        summary="Citable evidence from the web: a Firecrawl v2 compatible subset.",
        lifespan=lifespan,
        redoc_url=None,
    )
    replies.install(app)
    app.include_router(job_routes.router)
    app.include_router(firecrawl.router)
    app.include_router(index_routes.router)
    app.include_router(own_routes.router)
    app.add_middleware(
        Guard,
        keys=config.api_keys,
        rate=RateLimit(config.rate_per_minute),
        max_body=config.max_body_bytes,
        body_seconds=config.body_seconds,
        hosts=local_hosts(config.host),
    )
    return app
