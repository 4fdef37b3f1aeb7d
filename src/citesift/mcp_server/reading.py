"""The tools that read: the local index's passages, Wikipedia's search and articles, one
page scraped, a site's map. Each calls what the command line calls."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from citesift.index.arguments import MAX_TOP_K
from citesift.index.query import MAX_QUERY_CHARS
from citesift.index.rag import create_rag
from citesift.mcp_server.failures import anticipated, gave_nothing
from citesift.mcp_server.paging import pieces
from citesift.mcp_server.shapes import match_item, passage_item
from citesift.mcp_server.state import Shared, web_url
from citesift.model import Document, Hits, SourceHit
from citesift.scrape.map import MAP_LIMIT, MAX_MAP_LIMIT, areadable_map
from citesift.scrape.options import ScrapeOptions
from citesift.scrape.page import scrape
from citesift.scrape.result import ScrapeFailure
from citesift.sources.reasons import read_note
from citesift.sources.wikipedia import checked_phrase, wiki_key
from citesift.text import citation_sources

Cursor = Annotated[
    str | None, Field(description="A next_cursor from an earlier call: read on from there.")
]
Url = Annotated[str, Field(description="The page's address (http or https).")]
Reading = Literal["article", "page"]


def register(server: MCPServer, shared: Shared) -> None:
    """Add the reading tools to ``server``."""

    @server.tool()
    @anticipated
    async def search_passages(
        query: Annotated[str, Field(max_length=MAX_QUERY_CHARS, description="What to look for.")],
        top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K, description="How many passages.")] = 5,
        retrieval: Literal["hybrid", "bm25", "dense"] = "hybrid",
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        """Search the local index (what `citesift index add` added): the best passages,
        each with its URL, title, licence and a link to it."""
        if cursor:
            return shared.pager.next("search_passages", cursor)
        store = await asyncio.to_thread(shared.index_store)
        if store is None:
            return shared.pager.first("search_passages", [])
        with create_rag(store=store, retrieval=retrieval) as rag:  # closes only what it opened
            found = await asyncio.to_thread(rag.search, query, top_k)
        return shared.pager.first("search_passages", [match_item(hit) for hit in found])

    @server.tool()
    @anticipated
    async def wiki_search(
        query: Annotated[str, Field(description="A short topic phrase.")],
        limit: Annotated[int, Field(ge=1, le=100, description="Most hits.")] = 5,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        """Search Wikipedia: each hit's key (for wiki_passages), title, excerpt and URL."""
        if cursor:
            return shared.pager.next("wiki_search", cursor)
        checked_phrase(query, "query")
        provider = shared.wikipedia()
        outcome = await provider.search(query, limit)
        if not isinstance(outcome, Hits):
            raise gave_nothing("search", outcome)
        hits = [
            {"key": h.key, "title": h.title, "excerpt": h.excerpt,
             "url": provider.article_url(h.key)}
            for h in outcome.hits
        ]  # fmt: skip
        return shared.pager.first("wiki_search", hits)

    @server.tool()
    @anticipated
    async def wiki_passages(
        key: Annotated[
            str, Field(description="The article's key, as wiki_search gives it (spaces sent as _).")
        ],
        title: Annotated[str | None, Field(description="The title to cite.")] = None,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        """A Wikipedia article as passages, each with its URL, title, licence (with the
        attribution it asks for) and a link that scrolls to it; ``note`` says when the page
        holds no text to cite or is a redirect or disambiguation page, and a key the wiki
        redirects is refused naming the title to ask for."""
        if cursor:
            return shared.pager.next("wiki_passages", cursor)
        key = wiki_key(key)
        provider = shared.wikipedia()
        outcome = await provider.read(SourceHit(key, title or key.replace("_", " ")))
        unread = provider.not_read(key, outcome)
        if unread:
            raise ToolError(unread[1])
        if not isinstance(outcome, Document):
            raise gave_nothing("read", outcome)
        read = outcome.document
        passages = [passage_item(p) for p in citation_sources(read)]
        note = read_note(read)
        said = {"note": note} if note else {}
        return shared.pager.first("wiki_passages", passages, title=read.title, **said)

    @server.tool(name="scrape")
    @anticipated
    async def scrape_tool(
        url: Url,
        format: Annotated[
            Literal["markdown", "passages"],
            Field(description="Markdown of the page, or its passages with their links."),
        ] = "markdown",
        mode: Annotated[
            Reading, Field(description="Keep the article's prose, or all the page shows.")
        ] = "article",
        render: Literal["auto", "always", "never"] = "auto",
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        """Scrape one page (rendered in a browser when it needs it): its Markdown in
        pieces, or its passages, each with its URL, title, licence and link."""
        if cursor:
            return shared.pager.next("scrape", cursor)
        setup = shared.sources
        options = ScrapeOptions(
            formats=(format, "metadata"), render=render, only_main_content=mode == "article"
        )
        outcome = await scrape(
            web_url(url), options=options, browser=shared.browser, **setup.scraping()
        )
        if isinstance(outcome, ScrapeFailure):
            raise ToolError(f"scrape failed: {outcome.code}: {outcome.message}")
        value = outcome.formats.get(format)
        if format == "passages":
            items = [passage_item(p) for p in value or []]
        else:
            items = [
                {"markdown": piece} for piece in pieces(value or "", shared.pager.page_chars // 2)
            ]
        head = {
            "url": outcome.final_url,
            "status": outcome.status,
            "title": outcome.metadata.get("title"),
            "licence": outcome.metadata.get("licence"),
            "warnings": list(outcome.warnings),
        }
        return shared.pager.first("scrape", items, **head)

    @server.tool(name="map")
    @anticipated
    async def map_tool(
        url: Annotated[str, Field(description="The site's start page (http or https).")],
        search: Annotated[
            str | None, Field(description="Words to rank the URLs by (most matching first).")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_MAP_LIMIT, description="Most URLs.")] = (
            MAP_LIMIT
        ),
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        """A site's URLs, from its sitemaps and its start page's links; ``disallowed``: how
        many were left out because robots.txt disallows them."""
        if cursor:
            return shared.pager.next("map", cursor)
        setup = shared.sources
        found, urls = await areadable_map(
            web_url(url), search, limit, policy=setup.settings.fetch_policy(),
            fetcher=setup.fetcher,
        )  # fmt: skip
        items = [{"url": address} for address in urls]
        return shared.pager.first(
            "map", items, problems=list(found.problems), disallowed=found.disallowed
        )
