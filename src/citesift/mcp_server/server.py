"""The MCP server: the SDK's ``MCPServer`` with citesift's tools, run over stdio or
streamable HTTP with one source setup for the whole process (one fetcher, its limiters,
the store) and one lazy browser, made on the server's event loop and closed when it
stops."""

from __future__ import annotations

import asyncio

from mcp.server.mcpserver import MCPServer

from citesift.mcp_server import checking, crawling, reading
from citesift.mcp_server.config import McpConfig
from citesift.mcp_server.paging import Pager
from citesift.mcp_server.state import Shared
from citesift.settings import Settings, source_setup, version_text

INSTRUCTIONS = (
    "citesift gives citable evidence: passages with their URL, title, licence and a link "
    "that scrolls to the sentence. Long results come in pages: pass next_cursor back to read on."
)


def build_server(shared: Shared) -> MCPServer:
    """The server with every tool, each reading ``shared``."""
    server: MCPServer = MCPServer(
        "citesift", version=version_text(), instructions=INSTRUCTIONS, log_level="WARNING"
    )
    reading.register(server, shared)
    crawling.register(server, shared)
    checking.register(server, shared)
    return server


async def run_server(config: McpConfig, settings: Settings) -> None:
    """Serve until the transport ends (stdin closed) or the process is interrupted."""
    shared = Shared(config, settings, Pager(config.page_chars, config.held_results))
    server = build_server(shared)
    with source_setup(settings) as setup:
        shared.setup = setup
        try:
            async with settings.lazy_browser() as browser:  # ended when it stops
                shared.browser = browser
                if config.transport == "stdio":
                    await server.run_stdio_async()
                else:
                    await server.run_streamable_http_async(host=config.host, port=config.port)
        finally:
            await _stop_crawls(shared)
            await setup.fetcher.aclose()


async def _stop_crawls(shared: Shared) -> None:
    """Cancel the crawls still running; their frontiers stay in the store to go on."""
    running = [task for task in shared.crawls.values() if not task.done()]
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)
