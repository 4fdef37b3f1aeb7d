"""The MCP tools take the bounds the command line and the HTTP API take, from the same
constants, and refuse an argument past its bound in one plain line naming it and the
bound; the server is driven in process by the official ``mcp`` client."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client
from pydantic import BaseModel

from citesift.api.own_requests import CitationsRequest, ClaimRequest
from citesift.mcp_server.config import McpConfig
from citesift.mcp_server.paging import Pager
from citesift.mcp_server.server import build_server
from citesift.mcp_server.state import Shared
from citesift.settings import Settings
from citesift.verify.claim_check import MAX_CLAIM_CHARS
from citesift.verify.document_check import MAX_SERVED_DOCUMENT_CHARS, MAX_SERVED_SECONDS


def served(scenario: Callable[[Client], Awaitable[None]]) -> None:
    config = McpConfig()
    shared = Shared(config, Settings(), Pager(config.page_chars, config.held_results))

    async def run() -> None:
        async with Client(build_server(shared)) as client:
            await scenario(client)

    asyncio.run(run())


def text_of(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def test_tools_take_the_bounds_of_the_http_api_and_the_library() -> None:
    http_claim = ClaimRequest.model_json_schema()["properties"]["claim"]["maxLength"]
    http_text = CitationsRequest.model_json_schema()["properties"]["text"]["maxLength"]
    assert (http_claim, http_text) == (MAX_CLAIM_CHARS, MAX_SERVED_DOCUMENT_CHARS)

    async def scenario(client: Client) -> None:
        tools = {
            tool.name: tool.input_schema["properties"] for tool in (await client.list_tools()).tools
        }
        assert tools["verify_claim"]["claim"]["maxLength"] == MAX_CLAIM_CHARS
        assert tools["check_citations"]["text"]["maxLength"] == MAX_SERVED_DOCUMENT_CHARS
        assert tools["check_citations"]["max_seconds"]["maximum"] == MAX_SERVED_SECONDS
        at_bound = await client.call_tool(
            "verify_claim", {"claim": "x" * MAX_CLAIM_CHARS, "sentences": []}
        )
        assert not at_bound.is_error, text_of(at_bound)
        assert at_bound.structured_content is not None
        assert at_bound.structured_content["reason"] == "no source"

    served(scenario)


def test_an_argument_past_its_bound_is_refused_in_one_plain_line() -> None:
    past = "x" * (MAX_CLAIM_CHARS + 1)
    refusals = {
        ("verify_claim", "claim", past): (
            "verify_claim: claim must be a string of at most 10,000 characters (given 10,001)"
        ),
        ("check_citations", "text", "y" * (MAX_SERVED_DOCUMENT_CHARS + 1)): (
            "check_citations: text must be a string of at most 1,048,576 characters "
            "(given 1,048,577)"
        ),
        ("check_citations", "max_seconds", 3601): (
            "check_citations: max_seconds must be at most 3,600 (given 3601)"
        ),
        ("check_citations", "max_seconds", 0): (
            "check_citations: max_seconds must be above 0 (given 0)"
        ),
        ("search_passages", "top_k", 1001): (
            "search_passages: top_k must be at most 1,000 (given 1001)"
        ),
        ("search_passages", "query", "tide " * 401): (
            "search_passages: query must be a string of at most 2,000 characters (given 2,005)"
        ),
        ("wiki_search", "query", " "): (
            "wiki_search: query must be text of 1 to 300 characters (the most Wikipedia's "
            "search takes), not ' '"
        ),
    }

    async def scenario(client: Client) -> None:
        for (tool, name, value), said in refusals.items():
            arguments = {"text": "a [b](https://a.example/)", "query": "q", name: value}
            result = await client.call_tool(tool, arguments)
            assert result.is_error and text_of(result) == said
        missing = await client.call_tool("verify_claim", {"sentences": ["s"]})
        assert missing.is_error and text_of(missing) == "verify_claim: claim must be given"
        both = await client.call_tool("check_citations", {"text": 5, "kind": "pdf"})
        shown = text_of(both)
        assert shown.startswith("check_citations: text: ") and shown.endswith(" (and 1 more)")
        for result in (missing, both):
            assert "\n" not in text_of(result) and "pydantic" not in text_of(result)

    served(scenario)


def test_a_crash_inside_a_tool_is_not_answered_as_an_argument_error() -> None:
    config = McpConfig()
    shared = Shared(config, Settings(), Pager(config.page_chars, config.held_results))
    server = build_server(shared)

    class Inner(BaseModel):
        secret_field: int

    @server.tool()
    async def breaks(word: str) -> str:
        """Builds a model from a value it was never meant to hold."""
        return str(Inner(secret_field=word))  # type: ignore[arg-type]

    async def run() -> None:
        async with Client(server) as client:
            crashed = await client.call_tool("breaks", {"word": "internal-value"})
            assert crashed.is_error and text_of(crashed) == "Error executing tool breaks"
            refused = await client.call_tool("breaks", {})
            assert refused.is_error and text_of(refused) == "breaks: word must be given"

    asyncio.run(run())


def test_a_boolean_for_a_number_is_refused_not_read_as_one() -> None:
    """As the HTTP API answers 400: pydantic's lax mode would read ``true`` as 1."""
    refusals = {
        ("search_passages", "top_k", True): "search_passages: top_k must be a number, not true",
        ("wiki_search", "limit", False): "wiki_search: limit must be a number, not false",
        ("crawl", "max_depth", True): "crawl: max_depth must be a number, not true",
        ("check_citations", "max_seconds", True): (
            "check_citations: max_seconds must be a number, not true"
        ),
    }

    async def scenario(client: Client) -> None:
        for (tool, name, value), said in refusals.items():
            arguments = {"text": "t", "query": "q", "url": "https://a.example/", name: value}
            result = await client.call_tool(tool, arguments)
            assert result.is_error and text_of(result) == said

    served(scenario)


def test_searching_passages_leaves_no_pool_of_its_store_open(postgres_url: str) -> None:
    """Each call closes the index it opened, a refused query's too: no connection pool is
    left for the garbage collector to close later, from whatever thread it runs on (which
    printed "Exception ignored ... cannot join current thread"). Collection is held off
    here, so a pool left open is still there to find."""
    from psycopg_pool import ConnectionPool

    def open_pools() -> list[ConnectionPool]:
        return [o for o in gc.get_objects() if isinstance(o, ConnectionPool) and not o.closed]

    config = McpConfig()
    settings = Settings(store=postgres_url)
    shared = Shared(config, settings, Pager(config.page_chars, config.held_results))

    async def run() -> None:
        async with Client(build_server(shared)) as client:
            for query, retrieval in (("  ", "hybrid"), ("", "dense"), ("x", "bm25")) * 3:
                arguments = {"query": query, "retrieval": retrieval}
                await client.call_tool("search_passages", arguments)
                assert open_pools() == []

    gc.collect()
    gc.disable()
    try:
        asyncio.run(run())
    finally:
        gc.enable()


def test_searching_passages_reads_the_running_server_s_open_store(postgres_url: str) -> None:
    """A running server's searches read the store it opened: none opens (and prepares) a
    store of its own, which waits while a migration elsewhere holds the store's lock."""
    import psycopg

    from citesift.index.rag import create_rag
    from citesift.settings import source_setup
    from citesift.store.postgres import MIGRATION_LOCK

    create_rag(store=postgres_url, retrieval="bm25").close()  # its tables made
    config = McpConfig()
    settings = Settings(contact="https://example.org/contact", store=postgres_url)
    shared = Shared(config, settings, Pager(config.page_chars, config.held_results))

    async def run() -> None:
        async with Client(build_server(shared)) as client:
            arguments = {"query": "tides", "retrieval": "bm25"}
            result = await client.call_tool("search_passages", arguments)
            assert not result.is_error, text_of(result)

    with source_setup(settings) as shared.setup, psycopg.connect(postgres_url) as other:
        other.autocommit = True
        assert shared.index_store() is shared.setup.budget  # a pool: shared, never a second
        other.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        unlock = threading.Timer(6, other.execute, ("SELECT pg_advisory_unlock_all()",))
        unlock.start()
        started = time.monotonic()
        try:
            asyncio.run(run())
            took = time.monotonic() - started
        finally:  # the lock goes with ``other``: a search that waited for it is freed at 6 s
            unlock.cancel()
            unlock.join()
    assert took < 4
