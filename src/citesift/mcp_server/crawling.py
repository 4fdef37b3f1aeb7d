"""``crawl`` and ``crawl_status``: a crawl is a job of the server's ``JobRunner``, kept in the
store as ``/v2/crawl``'s jobs are, so its status and its pages (read on by a cursor) are
read from there by its id. A crawl the server stopped during (reported failed) or that was
cancelled goes on where it stopped when ``crawl`` is called with ``resume`` and its id."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from citesift.errors import invalid
from citesift.jobs import Work, crawl_work
from citesift.mcp_server.failures import anticipated
from citesift.mcp_server.paging import Cursor, Item, decode_cursor, page_of
from citesift.mcp_server.state import Shared, web_url
from citesift.scrape.crawl import CRAWL_DEPTH, CrawlOptions
from citesift.scrape.map import start_url
from citesift.store.jobs import Job

MAX_PAGES = 10_000
"""Pages one crawl started here may read at most."""
DEFAULT_PAGES = 20
FAILURES_SHOWN = 20
"""Failed pages one status lists (the first ones)."""


def register(server: MCPServer, shared: Shared) -> None:
    """Add the crawl tools to ``server``."""

    @server.tool()
    @anticipated
    async def crawl(
        url: Annotated[
            str | None, Field(description="The start page (http or https); none with resume.")
        ] = None,
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
        render: Annotated[
            Literal["auto", "never"],
            Field(description="auto: render a page that needs JavaScript in a browser."),
        ] = "never",
        resume: Annotated[
            str | None,
            Field(description="The id of a crawl that failed or was cancelled: go on with it."),
        ] = None,
    ) -> dict[str, Any]:
        """Start crawling a site in the background (politely: robots.txt, per-host
        limits) and answer its id and status; crawl_status reads its progress and pages.
        A crawl the server stopped during goes on, its pages kept, with resume=its id."""
        runner = shared.runner()
        if (url is None) == (resume is None):
            raise invalid("url", url, "a start page, or resume with a crawl's id (not both)")
        if resume is not None:
            return _status(shared, _resumed(shared, resume), 0)
        options = CrawlOptions(
            limit, max_depth, tuple(include_paths or ()), tuple(exclude_paths or ()),
            query=query, render=render,
        )  # fmt: skip
        start = start_url(web_url(str(url)))
        request = {"url": start, **options.keyed(), "render": render}
        job = runner.start("crawl", request, _work(shared, start, options, resume=False))
        return _status(shared, job, 0)

    @server.tool()
    @anticipated
    async def crawl_status(
        id: Annotated[str, Field(description="The crawl's id, as crawl answered it.")],
        cursor: Annotated[
            str | None, Field(description="A next_cursor from an earlier call: read on.")
        ] = None,
    ) -> dict[str, Any]:
        """A crawl's status (running, completed, failed with why, or cancelled), what it
        warns of (pages read as served: no browser could start), its counts, its first
        failed pages, and its pages read so far (address, title, status,
        snapshot and the start of its Markdown), read on by the cursor as more are done."""
        start = 0
        if cursor:
            at = decode_cursor(cursor, "crawl_status")
            if at.token != id:
                raise invalid("cursor", cursor, f"a cursor of crawl {id}")
            start = at.start
        return _status(shared, _crawl_job(shared, id), start)


def _work(shared: Shared, start: str, options: CrawlOptions, *, resume: bool) -> Work:
    """The crawl's work, fetching through the server's fetcher and rendering with its
    browser, its frontier and pages kept in the server's store."""
    setup = shared.sources
    return crawl_work(
        start,
        options,
        policy=setup.settings.fetch_policy(),
        fetcher=setup.fetcher,
        store=shared.kept(),
        browser=shared.browser,
        resume=resume,
    )


def _resumed(shared: Shared, crawl: str) -> Job:
    """The stopped crawl ``crawl`` running again with its stored options."""
    found = _crawl_job(shared, crawl)
    asked = dict(found.request)
    start = str(asked.pop("url"))
    listed: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in asked.items()}
    work = _work(shared, start, CrawlOptions(**listed), resume=True)
    job = shared.runner().resume(found.id, work)
    if job is None:
        raise invalid("resume", crawl, f"a crawl that failed or was cancelled (not {found.status})")
    return job


def _crawl_job(shared: Shared, crawl: str) -> Job:
    """The crawl job ``crawl``; ``InvalidArgument`` when there is none."""
    found = shared.runner().jobs.get(crawl)
    if found is None or found.kind != "crawl":
        raise invalid("id", crawl, "the id of a crawl in the store")
    return found


def _status(shared: Shared, job: Job, start: int) -> dict[str, Any]:
    """Where the crawl ``job`` stands and its pages from ``start``, as many as fit a page
    (the rest behind ``next_cursor``, given too while the crawl runs)."""
    jobs = shared.runner().jobs
    found = jobs.get(job.id) or job
    excerpt = shared.pager.page_chars // 4
    pages = [_page(record, excerpt) for record in jobs.items(found.id, "result", start)]
    items, after, cut = page_of(pages, 0, shared.pager.page_chars)
    after += start
    more = cut or after < found.results
    following = (
        Cursor("crawl_status", found.id, after).encode()
        if more or found.status == "running"
        else None
    )
    failures = jobs.items(found.id, "error", 0, FAILURES_SHOWN)
    return {
        "id": found.id,
        "status": found.status,
        "error": found.error,
        "warning": found.warning,
        "done": found.results,
        "failed": found.errors,
        "total": max(found.total, found.results + found.errors),
        "failures": [{"url": f.get("url"), "reason": f.get("error")} for f in failures],
        "items": items,
        "next_cursor": following,
    }


def _page(record: Item, excerpt: int) -> Item:
    """A crawled page's record with its Markdown cut to ``excerpt`` characters."""
    text = record.get("markdown")
    if not isinstance(text, str) or len(text) <= excerpt:
        return record
    return {**record, "markdown": text[:excerpt], "markdown_truncated": True}
