"""``citesift serve``: the HTTP API (a Firecrawl v2 compatible subset) on a host and port."""

from __future__ import annotations

from typing import Annotated

import typer

from citesift.api.config import (
    DEFAULT_BODY_SECONDS,
    DEFAULT_HOST,
    DEFAULT_IN_FLIGHT,
    DEFAULT_JOBS,
    DEFAULT_PORT,
    DEFAULT_RATE,
    ServeConfig,
)
from citesift.api.run import serve
from citesift.cli.app import app
from citesift.cli.options import AllowPrivate, Contact, Store, load_cli_settings, refuse
from citesift.errors import CitesiftError
from citesift.sources import DEFAULT_ORIGIN

KEYS_ENV = "CITESIFT_SERVE_API_KEY"
"""The environment variable holding the bearer keys (space-separated) when no ``--api-key``
is given: a key on the command line is visible to every user of the machine."""
OPTIONS = {
    "host": "--host",
    "port": "--port",
    "api_keys": f"--api-key (or {KEYS_ENV})",
    "rate_per_minute": "--rate-limit",
    "max_in_flight": "--max-in-flight",
    "max_jobs": "--max-jobs",
    "wiki_origins": "--wiki-origin",
}
"""The option of this command each setting of ``ServeConfig`` is given by, so an error names
what the user typed."""


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = DEFAULT_PORT,
    api_key: Annotated[
        list[str] | None,
        typer.Option(
            "--api-key",
            envvar=KEYS_ENV,
            show_envvar=False,
            metavar="KEY",
            help=f"A bearer key callers must send (repeatable; or {KEYS_ENV}, keys"
            " separated by spaces); required off loopback.",
        ),
    ] = None,
    rate_limit: Annotated[
        int, typer.Option(help="Requests per minute per client before 429.")
    ] = DEFAULT_RATE,
    max_in_flight: Annotated[
        int, typer.Option(help="Scrapes and maps run at once; more wait for a slot.")
    ] = DEFAULT_IN_FLIGHT,
    max_jobs: Annotated[
        int, typer.Option(help="Crawls, batch scrapes and research runs at once; more: 429.")
    ] = DEFAULT_JOBS,
    body_seconds: Annotated[
        float, typer.Option(help="Seconds a client has to send a request's body; then 408.")
    ] = DEFAULT_BODY_SECONDS,
    search: Annotated[
        str | None,
        typer.Option(help="The web search source: wikipedia, searxng, brave or tavily."),
    ] = None,
    search_url: Annotated[
        str | None, typer.Option(help="The search source's address (SearXNG's is required).")
    ] = None,
    wiki_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--wiki-origin",
            metavar="ORIGIN",
            help="A wiki whose articles /citesift/wikipedia/passages reads (repeatable; "
            "default https://en.wikipedia.org); no other is read.",
        ),
    ] = None,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
) -> None:
    """Serve the HTTP API: Firecrawl's /v2 scrape, map, crawl, batch scrape, search and
    agent, citesift's own /citesift routes, the schema at /openapi.json, its documentation
    at /docs. A search source's key is read from CITESIFT_SEARCH_KEY."""
    flags = {"contact": contact, "allow_private": allow_private or None, "store": store}
    settings = load_cli_settings(flags | {"search": search, "search_url": search_url})
    try:
        # a missing contact, a bad bound or no key off loopback is refused before listening
        keys = tuple(api_key or ())
        config = ServeConfig(
            host,
            port,
            keys,
            rate_limit,
            max_in_flight=max_in_flight,
            max_jobs=max_jobs,
            wiki_origins=tuple(wiki_origin or (DEFAULT_ORIGIN,)),
            body_seconds=body_seconds,
        )
        serve(config, settings)
    except CitesiftError as error:
        refuse(error, OPTIONS)
