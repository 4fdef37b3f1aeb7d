"""Running the MCP server; the ``mcp`` extra is imported only here, when asked, and its
absence is said plainly."""

from __future__ import annotations

import asyncio

from citesift.errors import ConfigError
from citesift.mcp_server.config import McpConfig
from citesift.settings import Settings

MISSING_EXTRA = "the MCP server needs the mcp SDK: pip install 'citesift[mcp]'"


def serve_mcp(config: McpConfig, settings: Settings) -> None:
    """Serve citesift's tools over ``config``'s transport until it ends; a missing contact
    or a bad bound is raised before anything is served."""
    settings.fetch_policy()
    try:
        from citesift.mcp_server.server import run_server
    except ModuleNotFoundError as error:
        raise ConfigError(f"{MISSING_EXTRA} ({error})") from None
    asyncio.run(run_server(config, settings))
