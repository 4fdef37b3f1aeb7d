"""``citesift serve``: the HTTP API (a Firecrawl v2 compatible subset) on a host and port."""

from __future__ import annotations

from typing import Annotated

import typer

from citesift.api.config import (
    DEFAULT_HOST,
    DEFAULT_IN_FLIGHT,
    DEFAULT_PORT,
    DEFAULT_RATE,
    ServeConfig,
)
from citesift.api.run import serve
from citesift.cli.app import app
from citesift.cli.options import AllowPrivate, Contact, Store, load_cli_settings, usage_error
from citesift.errors import CitesiftError


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = DEFAULT_PORT,
    api_key: Annotated[
        list[str] | None,
        typer.Option(
            "--api-key",
            metavar="KEY",
            help="A bearer key callers must send (repeatable); required off loopback.",
        ),
    ] = None,
    rate_limit: Annotated[
        int, typer.Option(help="Requests per minute per client before 429.")
    ] = DEFAULT_RATE,
    max_in_flight: Annotated[
        int, typer.Option(help="Scrapes and maps run at once; more wait for a slot.")
    ] = DEFAULT_IN_FLIGHT,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
) -> None:
    """Serve the HTTP API: Firecrawl's /v2/scrape and /v2/map, the schema at /openapi.json,
    its documentation at /docs."""
    settings = load_cli_settings(
        {"contact": contact, "allow_private": allow_private or None, "store": store}
    )
    try:
        # a missing contact, a bad bound or no key off loopback is refused before listening
        keys = tuple(api_key or ())
        serve(ServeConfig(host, port, keys, rate_limit, max_in_flight=max_in_flight), settings)
    except CitesiftError as error:
        usage_error(str(error))
