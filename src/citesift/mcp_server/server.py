"""The MCP server: the SDK's ``MCPServer`` with citesift's tools, run over stdio (lines
that are no JSON-RPC message answered with its errors) or streamable HTTP with one source
setup for the whole process (one fetcher, its limiters, the store) and one lazy browser,
made on the server's event loop and closed when it stops."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from citesift.api.config import local_hosts
from citesift.jobs import JobRunner
from citesift.mcp_server import checking, crawling, reading
from citesift.mcp_server.config import McpConfig
from citesift.mcp_server.failures import boolean_for_number, refused_arguments
from citesift.mcp_server.paging import Pager
from citesift.mcp_server.state import Shared
from citesift.mcp_server.stdio import run_stdio
from citesift.settings import Settings, source_setup, version_text
from citesift.store.jobs import JobStore

MAX_JOBS = 4
"""Crawls running at once in one server; starting more is refused until one ends."""

INSTRUCTIONS = (
    "citesift gives citable evidence: passages with their URL, title, licence and a link "
    "that scrolls to the sentence. Long results come in pages: pass next_cursor back to read on."
)


class Server(MCPServer[Any]):
    """The SDK's server, its tools' arguments out of their bounds refused in one plain
    line naming the argument and the bound (the SDK answers with the validator's text), and
    a boolean given for a number refused, not read as 1 or 0, and a tool's own refusal said
    the same way, after the tool's name.
    Only the SDK's own argument check is reworded: a crash inside a tool
    (``UnexpectedToolError``, even one caused by a pydantic model) goes on as the SDK
    answers it, naming no internal field or value."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        tool = self._tool_manager.get_tool(name)
        refused = tool and boolean_for_number(name, tool.parameters, arguments or {})
        if refused:
            raise refused
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if type(error) is ToolError and isinstance(cause, ValidationError):
                raise refused_arguments(name, cause) from None
            if type(error) is ToolError and type(cause) is ToolError:
                raise ToolError(f"{name}: {cause}") from None  # as an argument refusal says
            raise


def build_server(shared: Shared) -> MCPServer[Any]:
    """The server with every tool, each reading ``shared``."""
    server = Server(
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
        kept = setup.store or setup.budget
        if kept is not None:
            shared.jobs = JobRunner(JobStore(kept), max_running=MAX_JOBS)
        try:
            async with settings.lazy_browser() as browser:  # ended when it stops
                shared.browser = browser
                if config.transport == "stdio":
                    await run_stdio(server)
                else:
                    await server.run_streamable_http_async(
                        host=config.host, port=config.port, transport_security=_local_only(config)
                    )
        finally:
            if shared.jobs is not None:  # each reported failed; its frontier stays to go on
                await shared.jobs.aclose()
            await setup.fetcher.aclose()


def _local_only(config: McpConfig) -> TransportSecuritySettings:
    """The SDK's DNS rebinding guard set to the loopback names and the listen host, on any
    port: a request whose Host names another site (421) or that a page of another site sends
    (its Origin, 403) is refused, since this transport takes no keys."""
    hosts = local_hosts(config.host)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[name for host in hosts for name in (host, f"{host}:*")],
        allowed_origins=[
            f"{scheme}://{host}{port}"
            for scheme in ("http", "https")
            for host in hosts
            for port in ("", ":*")
        ],
    )
