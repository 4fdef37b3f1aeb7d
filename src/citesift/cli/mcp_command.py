"""``citesift mcp``: citesift's tools for LLM hosts over the Model Context Protocol."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from citesift.cli.app import app
from citesift.cli.options import AllowPrivate, Contact, Store, load_cli_settings, refuse
from citesift.errors import CitesiftError
from citesift.mcp_server.config import DEFAULT_HOST, DEFAULT_PORT, PAGE_CHARS, McpConfig
from citesift.mcp_server.run import serve_mcp
from citesift.sources import DEFAULT_ORIGIN


class TransportChoice(StrEnum):
    """How the host talks to the server."""

    stdio = "stdio"
    http = "http"


OPTIONS = {
    name: "--" + name.replace("_", "-")
    for name in ("transport", "host", "port", "wiki_origin", "page_chars")
}
"""The option of this command each setting of ``McpConfig`` is given by."""


@app.command("mcp")
def mcp_command(
    transport: Annotated[
        TransportChoice,
        typer.Option(help="stdio (the host starts the server), or streamable HTTP at /mcp."),
    ] = TransportChoice.stdio,
    host: Annotated[str, typer.Option(help="Loopback address to listen on (http).")] = (
        DEFAULT_HOST
    ),
    port: Annotated[int, typer.Option(help="Port to listen on (http).")] = DEFAULT_PORT,
    wiki_origin: Annotated[
        str, typer.Option(help="The wiki the Wikipedia tools ask (a stand-in or another wiki).")
    ] = DEFAULT_ORIGIN,
    page_chars: Annotated[
        int, typer.Option(help="Characters one result holds; the rest is read by its cursor.")
    ] = PAGE_CHARS,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
) -> None:
    """Serve citesift's tools to an MCP host: passages from the index, Wikipedia and any
    page, scrape, map, crawl, claim and citation checks, research."""
    settings = load_cli_settings(
        {"contact": contact, "allow_private": allow_private or None, "store": store}
    )
    try:
        config = McpConfig(transport.value, host, port, wiki_origin, page_chars)
        serve_mcp(config, settings)
    except CitesiftError as error:
        refuse(error, OPTIONS)
