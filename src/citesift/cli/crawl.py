"""``citesift crawl URL``: a site's pages, one JSON object a page, resumable when killed.

The frontier and results are kept in the store, so the same command run again (or
``--resume ID``) goes on where a killed run stopped. ``--out FILE`` is written afresh on
every run from the results already stored, then each new page as it is done, so it holds
every page of the crawl once; without it the pages go to standard output. Each page that
failed follows the pages as a line of its own (``url``, ``error``: why, ``code``), and
standard error says how many failed and why, the most frequent reasons first with the first
URLs of each; the command exits 1 when no page could be read, and 75 when its ``--limit``
stopped it with pages queued before one was read and none failed (a larger limit goes
on). A progress line (done, queued, failed, links robots.txt disallows (left out, never
fetched), pages per second) goes to standard error.
``--workers N`` reads the crawl with N processes sharing its frontier; the same command
started on other machines against one PostgreSQL store (``--store postgresql://...``)
shares it too.
"""

from __future__ import annotations

import asyncio
import re
import time
from contextlib import AbstractContextManager, nullcontext
from enum import StrEnum
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from citesift.cli.app import app
from citesift.cli.options import AllowPrivate, Contact, Deadline, Store, source_setup, usage_error
from citesift.cli.reading import EXIT_FAILED, EXIT_LIMITED, fail
from citesift.cli.terminal import safe_json, say
from citesift.errors import CitesiftError, ConfigError, InvalidArgument
from citesift.scrape.crawl import (
    CONCURRENCY,
    CRAWL_DEPTH,
    CRAWL_LIMIT,
    CrawlOptions,
    CrawlProgress,
    acrawl,
    crawl_failures,
    crawl_id,
    marked_results,
    stored_start,
)
from citesift.scrape.crawl_workers import crawl_with_workers
from citesift.scrape.map import start_url
from citesift.settings import Settings
from citesift.store.frontier import LEASE_S

PROGRESS_EVERY = 1.0
"""Seconds between two progress lines."""
FAILURE_GROUPS_SHOWN = 5
"""Reasons of failure the summary names (the most frequent first)."""
FAILED_URLS_SHOWN = 3
"""URLs the summary names for each reason (the first that failed for it)."""
MAX_FAILURE_GROUPS = 1_000
"""Distinct reasons counted apart: the pages failing for any further reason are counted
together (a summary of a huge crawl stays small)."""
OTHER_REASONS = "other reasons"
MAX_REASON_CHARS, MAX_URL_CHARS = 200, 120
"""How much of a reason and of a URL the summary shows (a line stays readable)."""
_ADDRESS = re.compile(r"https?://\S+")
"""An address in a reason of failure (a redirect's target): left out, so that pages failing
the same way are counted together."""


class CrawlRender(StrEnum):
    """Whether a crawled page that needs JavaScript is rendered in a browser."""

    auto = "auto"
    never = "never"


class CrawlFormat(StrEnum):
    """What each page's JSON object carries besides its address, status, title and snapshot."""

    markdown = "markdown"
    text = "text"
    blocks = "blocks"
    links = "links"
    metadata = "metadata"


@app.command("crawl")
def crawl_command(
    url: Annotated[
        str | None,
        typer.Argument(metavar="[URL]", help="The start page (http or https); none with --resume."),
    ] = None,
    limit: Annotated[int, typer.Option(help="Pages to try, failures included.")] = CRAWL_LIMIT,
    max_depth: Annotated[int, typer.Option(help="Links to follow from the start, at most.")] = (
        CRAWL_DEPTH
    ),
    include_paths: Annotated[
        list[str] | None,
        typer.Option(help="Follow only links whose path (not query) matches (a regex)."),
    ] = None,
    exclude_paths: Annotated[
        list[str] | None,
        typer.Option(help="Never follow links whose path (not query) matches (a regex)."),
    ] = None,
    allow_external: Annotated[
        bool, typer.Option("--allow-external", help="Follow links to other hosts too.")
    ] = False,
    formats: Annotated[
        list[CrawlFormat] | None,
        typer.Option(help="What each page carries (repeat for more; default: markdown)."),
    ] = None,
    query: Annotated[str | None, typer.Option(help="Read the links best-first by these words.")] = (
        None
    ),
    out: Annotated[Path | None, typer.Option(help="Write the pages here, one JSON a line.")] = None,
    resume: Annotated[str | None, typer.Option(help="Go on with the stored crawl of this id.")] = (
        None
    ),
    concurrency: Annotated[int, typer.Option(help="Pages read at once by each worker.")] = (
        CONCURRENCY
    ),
    lease: Annotated[
        float,
        typer.Option(
            help="Seconds a worker's claim on a page holds unless renewed (a killed"
            " worker's pages go to the others after this)."
        ),
    ] = LEASE_S,
    workers: Annotated[
        int, typer.Option(help="Worker processes sharing the crawl's frontier.")
    ] = 1,
    render: Annotated[
        CrawlRender,
        typer.Option(help="Render a page that needs JavaScript in headless Chromium: auto, never."),
    ] = CrawlRender.never,
    wait_for: Annotated[
        str,
        typer.Option(
            "--wait-for",
            metavar="MS|SELECTOR",
            help="After a rendered page loads: milliseconds, or a CSS selector (--render auto).",
        ),
    ] = "0",
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    deadline: Deadline = None,
) -> None:
    """Crawl a site breadth-first (best-first with --query), politely (robots.txt, its
    Crawl-delay, per-host limits), keeping its frontier in the store; the pages that failed
    follow the pages, with why, and the command exits 1 when no page could be read (75 when
    its --limit stopped it with pages queued before one was read and none failed)."""
    if (url is None) == (resume is None):
        usage_error("give a URL to crawl, or --resume ID, not both")
    try:
        options = CrawlOptions(
            limit,
            max_depth,
            tuple(include_paths or ()),
            tuple(exclude_paths or ()),
            allow_external,
            tuple(kind.value for kind in formats or [CrawlFormat.markdown]),
            query,
            concurrency,
            lease=lease,
            render=render.value,
            wait_for=wait_for,
        )
        crawl = resume if resume is not None else crawl_id(start_url(url), options)
    except InvalidArgument as error:
        usage_error(str(error))
    with source_setup(contact, allow_private, store, deadline=deadline) as setup:
        kept = setup.store or setup.budget
        if kept is None:
            usage_error("a crawl keeps its frontier in a store: name one with --store")
        executable = _browser(setup.settings) if render is CrawlRender.auto else None
        if resume is not None:
            try:
                stored_start(kept, resume)
            except InvalidArgument as error:
                usage_error(str(error))
        with _output(out) as sink:
            say(f"crawl {crawl} (run the same command, or --resume {crawl}, to go on)", err=True)
            written = _Written(sink)
            mark = (0, 0)  # the workers follow on from the last result written
            for found, record in marked_results(kept, crawl):
                written(record)
                mark = found
            policy = setup.settings.fetch_policy()
            progress = _Progress()
            try:
                if workers == 1:
                    ended = asyncio.run(
                        acrawl(url, options, policy=policy, store=kept, fetcher=setup.fetcher,
                               resume=resume, on_result=written, on_progress=progress,
                               executable=executable)
                    )  # fmt: skip
                else:
                    ended = crawl_with_workers(
                        url, options, workers, policy=policy, store=kept, resume=resume,
                        on_result=written, on_progress=progress, executable=executable,
                        after=mark,
                    )  # fmt: skip
            except InvalidArgument as error:
                usage_error(str(error))
            except CitesiftError as error:  # every worker process failed
                fail(str(error))
            failures = _FailureSummary()
            for failure in crawl_failures(kept, crawl):
                written(failure)
                failures.add(failure)
    progress.warn(ended)
    for line in failures.lines():
        say(line, err=True)
    say(_progress_line(ended), err=True)
    ending = unread_ending(ended)
    if ending is not None:
        fail(*ending)


def unread_ending(ended: CrawlProgress) -> tuple[str, int] | None:
    """Why a crawl that read no page ends, and its exit status (None when a page was read):
    75 when its limit stopped it with pages queued and none failed (a larger limit goes
    on), 1 when pages failed or none is left to read (the same command would end alike)."""
    if ended.done > 0:
        return None
    if ended.queued > 0 and ended.failed == 0:
        return (
            f"the crawl reached its --limit before a page was read ({ended.queued} queued);"
            " raise --limit to go on",
            EXIT_LIMITED,
        )
    return "no page of the crawl could be read", EXIT_FAILED


def _browser(settings: Settings) -> str | None:
    """The Chromium the settings name for rendering, checked before the crawl starts."""
    try:
        return settings.browser_path()
    except ConfigError as error:
        usage_error(str(error))


def _output(out: Path | None) -> AbstractContextManager[IO[str] | None]:
    """The file to write the pages to (made afresh), or None for standard output."""
    if out is None:
        return nullcontext()
    try:
        return out.open("w", encoding="utf-8")
    except OSError as error:
        usage_error(f"cannot write {out}: {error}")


class _Written:
    """Writes each page's record as one line, flushed, so a kill loses no line written."""

    def __init__(self, sink: IO[str] | None) -> None:
        self.sink = sink

    def __call__(self, record: dict[str, Any]) -> None:
        line = safe_json(record)
        if self.sink is None:
            say(line)
            return
        self.sink.write(line + "\n")
        self.sink.flush()


class _FailureSummary:
    """The pages that failed grouped by why (addresses in the reasons left out), each group
    counted with its first few URLs, to say in a few lines of standard error."""

    def __init__(self) -> None:
        self.groups: dict[str, tuple[int, list[str]]] = {}
        self.total = 0

    def add(self, failure: dict[str, str]) -> None:
        """Count one failed page (``url``, ``error``) in its group."""
        self.total += 1
        why = _ADDRESS.sub("…", " ".join(failure["error"].split())) or "no reason kept"
        why = _cut(why, MAX_REASON_CHARS)
        if why not in self.groups and len(self.groups) >= MAX_FAILURE_GROUPS:
            why = OTHER_REASONS
        count, urls = self.groups.get(why, (0, []))
        if len(urls) < FAILED_URLS_SHOWN:
            urls.append(_cut(failure["url"], MAX_URL_CHARS))
        self.groups[why] = (count + 1, urls)

    def lines(self) -> list[str]:
        """The summary: a line saying how many failed, then the most frequent reasons."""
        if not self.total:
            return []
        ranked = sorted(self.groups.items(), key=lambda group: -group[1][0])
        lines = [f"{self.total:,} page(s) failed:"]
        for why, (count, urls) in ranked[:FAILURE_GROUPS_SHOWN]:
            more = ", …" if count > len(urls) else ""
            lines.append(f"  {count:,} × {why}: {', '.join(urls)}{more}")
        rest = ranked[FAILURE_GROUPS_SHOWN:]
        if rest:
            left = sum(count for _, (count, _) in rest)
            lines.append(f"  {left:,} more for {len(rest):,} other reason(s)")
        return lines


def _cut(text: str, most: int) -> str:
    """``text``, ending with an ellipsis past its first ``most`` characters."""
    return text if len(text) <= most else text[: most - 1] + "…"


class _Progress:
    """Says where the crawl stands on standard error, at most every ``PROGRESS_EVERY`` s,
    and each thing it warns of once, as soon as it is known."""

    def __init__(self) -> None:
        self.last = 0.0
        self.warned: set[str] = set()

    def warn(self, progress: CrawlProgress) -> None:
        """Say each warning of ``progress`` not said before."""
        for warning in progress.warnings:
            if warning not in self.warned:
                self.warned.add(warning)
                say(f"warning: {warning}", err=True)

    def __call__(self, progress: CrawlProgress) -> None:
        self.warn(progress)
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY:
            self.last = now
            say(_progress_line(progress), err=True)


def _progress_line(progress: CrawlProgress) -> str:
    """Where the crawl stands, in a line (the links robots.txt left out, when there are)."""
    left_out = progress.disallowed
    return (
        f"crawl {progress.crawl}: {progress.done} done, {progress.queued} queued,"
        f" {progress.failed} failed{f', {left_out} disallowed' if left_out else ''},"
        f" {progress.rate:.1f} pages/s"
    )
