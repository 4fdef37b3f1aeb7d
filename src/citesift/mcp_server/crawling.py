"""``crawl`` and ``crawl_status``: a crawl runs in the server process with the library's
``acrawl``; its frontier and pages are in the store, so its status (and its pages, read
on by a cursor) is read from there, and a crawl the server stopped for goes on when it is
started again with the same arguments."""

from __future__ import annotations

import asyncio
from itertools import islice
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from citesift.errors import invalid
from citesift.mcp_server.failures import anticipated
from citesift.mcp_server.paging import Cursor, Item, decode_cursor, page_of
from citesift.mcp_server.state import Shared, web_url
from citesift.scrape.crawl import CRAWL_DEPTH, CrawlOptions, acrawl, crawl_id, crawl_results
from citesift.scrape.map import start_url
from citesift.store.frontier import frontier_in

MAX_PAGES = 10_000
"""Pages one crawl started here may read at most."""
MAX_RUNNING = 4
"""Crawls running at once in one server."""
DEFAULT_PAGES = 20


def register(server: MCPServer, shared: Shared) -> None:
    """Add the crawl tools to ``server``."""

    @server.tool()
    @anticipated
    async def crawl(
        url: Annotated[str, Field(description="The start page (http or https).")],
        limit: Annotated[int, Field(ge=1, le=MAX_PAGES, description="Pages at most.")] = (
            DEFAULT_PAGES
        ),
        max_depth: Annotated[
            int, Field(ge=0, le=100, description="Links to follow from the start, at most.")
        ] = CRAWL_DEPTH,
        include_paths: Annotated[
            list[str] | None, Field(description="Follow only links whose path matches (regexes).")
        ] = None,
        exclude_paths: Annotated[
            list[str] | None, Field(description="Never follow links whose path matches (regexes).")
        ] = None,
        query: Annotated[
            str | None, Field(description="Read the links best-first by these words.")
        ] = None,
    ) -> dict[str, Any]:
        """Start crawling a site in the background (politely: robots.txt, per-host
        limits) and answer its id; crawl_status reads its progress and pages. The same
        arguments again go on with a crawl that was stopped."""
        options = CrawlOptions(
            limit, max_depth, tuple(include_paths or ()), tuple(exclude_paths or ()), query=query
        )
        start = start_url(web_url(url))
        crawl = crawl_id(start, options)
        kept = shared.kept()
        running = shared.crawls.get(crawl)
        if running is None or running.done():
            busy = sum(not task.done() for task in shared.crawls.values())
            if busy >= MAX_RUNNING:
                raise invalid("url", url, f"a crawl once fewer than {MAX_RUNNING} are running")
            setup = shared.sources
            task = asyncio.create_task(
                acrawl(start, options, policy=setup.settings.fetch_policy(), store=kept,
                       fetcher=setup.fetcher)
            )  # fmt: skip
            task.add_done_callback(_retrieved)
            shared.crawls[crawl] = task
        return _status(shared, crawl, 0)

    @server.tool()
    @anticipated
    async def crawl_status(
        id: Annotated[str, Field(description="The crawl's id, as crawl answered it.")],
        cursor: Annotated[
            str | None, Field(description="A next_cursor from an earlier call: read on.")
        ] = None,
    ) -> dict[str, Any]:
        """A crawl's state (running, finished, stopped or failed), its counts, and its
        pages read so far (address, title, status, snapshot and the start of its
        Markdown), read on by the cursor as more are done."""
        start = 0
        if cursor:
            at = decode_cursor(cursor, "crawl_status")
            if at.token != id:
                raise invalid("cursor", cursor, f"a cursor of crawl {id}")
            start = at.start
        return _status(shared, id, start)


def _status(shared: Shared, crawl: str, start: int) -> dict[str, Any]:
    """Where ``crawl`` stands and its pages from ``start``."""
    kept = shared.kept()
    frontier = frontier_in(kept)
    task = shared.crawls.get(crawl)
    stored = frontier.options(crawl)
    if task is None and stored is None:
        raise invalid("id", crawl, "the id of a crawl in the store")
    counts = frontier.counts(crawl)  # all 0 for a crawl started but not yet begun
    limit = int(stored[1]["limit"]) if stored is not None else 0
    state, reason = _state(task, counts, limit)
    excerpt = shared.pager.page_chars // 4
    pages = (_page(record, excerpt) for record in crawl_results(kept, crawl))
    items, after, more = page_of(pages, start, shared.pager.page_chars)
    following = (
        Cursor("crawl_status", crawl, after).encode() if more or state == "running" else None
    )
    return {
        "id": crawl,
        "state": state,
        "reason": reason,
        "done": counts["done"],
        "queued": counts["queued"] + counts["claimed"],
        "failed": counts["failed"],
        "failures": [{"url": u, "reason": r} for u, r in islice(frontier.failures(crawl), 20)],
        "items": items,
        "next_cursor": following,
    }


def _state(
    task: asyncio.Task[Any] | None, counts: dict[str, int], limit: int
) -> tuple[str, str | None]:
    """running, finished, failed (with why), or stopped: not running here with pages left
    to read within its ``limit`` (the server stopped during it; the same crawl call goes on
    with it). A crawl that read its limit is finished, whatever links it left queued."""
    if task is not None and not task.done():
        return "running", None
    if task is not None and not task.cancelled() and task.exception() is not None:
        return "failed", str(task.exception())
    taken = sum(counts.values()) - counts["queued"]
    if counts["claimed"] or (counts["queued"] and taken < limit):
        return "stopped", "not running in this server: call crawl with the same arguments"
    return "finished", None


def _page(record: Item, excerpt: int) -> Item:
    """A crawled page's record with its Markdown cut to ``excerpt`` characters."""
    text = record.get("markdown")
    if not isinstance(text, str) or len(text) <= excerpt:
        return record
    return {**record, "markdown": text[:excerpt], "markdown_truncated": True}


def _retrieved(task: asyncio.Task[Any]) -> None:
    """Read a finished crawl's exception so that it is never reported as unretrieved
    (``crawl_status`` says it)."""
    if not task.cancelled():
        task.exception()
