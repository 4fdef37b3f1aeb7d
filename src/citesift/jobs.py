"""Long work run in the background of a server and kept in the store as jobs: a crawl, a
batch of scrapes, a research run. The HTTP API and the MCP server start them here, and read
how they stand from the ``JobStore``.

A ``JobRunner`` starts a job's work as an asyncio task (at most ``max_running`` at once),
records each result and error as the work gives it, and ends the job ``completed``,
``failed`` (with the reason) or ``cancelled``. Cancelling a job ends it in the store at once
and stops its task; a job cancelled by another process stops at its next result, which the
store refuses. When a runner starts, the jobs left running by an owner that is no longer
alive are reported failed.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citesift.agent.research import aresearch
from citesift.errors import CitesiftError
from citesift.net import Fetcher, FetchPolicy
from citesift.numbers import number_in
from citesift.scrape.browser import Browser
from citesift.scrape.crawl import (
    CrawlOptions,
    CrawlProgress,
    acrawl,
    crawl_disallowed,
    crawl_failures,
)
from citesift.store.jobs import ItemKind, Job, JobStore
from citesift.store.location import AnyStore
from citesift.store.sqlite import SQLiteStore

MAX_RUNNING = 4
"""Jobs one runner runs at once; starting more is refused (``JobsBusy``)."""
KEEP_SECONDS = 24 * 3600
"""How long an ended job is kept before it is forgotten (Firecrawl's 24 hours)."""
BATCH_AT_ONCE = 4
"""Pages of a batch scraped at once."""
STOPPED = "the server stopped while the job ran"


class JobsBusy(CitesiftError):
    """As many jobs as the runner takes are running; start this one later."""


class JobStopped(Exception):
    """The store refused a job's item: the job was cancelled (here or by another process)."""


class JobFailed(CitesiftError):
    """A job's work ended without doing what was asked; the message says why."""


@dataclass(frozen=True)
class JobSink:
    """Where a job's work puts what it finds: results, errors, and how many it expects."""

    jobs: JobStore
    job: str

    def result(self, body: dict[str, Any]) -> None:
        """Keep one result; ``JobStopped`` when the job was cancelled."""
        self._add("result", body)

    def partial(self, body: dict[str, Any]) -> None:
        """Keep what a job being cancelled gathered before the cancel, as its one result
        (when the store still takes it: see ``JobStore.keep_partial``)."""
        self.jobs.keep_partial(self.job, body)

    def error(self, body: dict[str, Any]) -> None:
        """Keep one error (a page that failed, with why); ``JobStopped`` when cancelled."""
        self._add("error", body)

    def blocked(self, url: str) -> None:
        """Keep a link robots.txt kept the work from (neither a result nor an error);
        ``JobStopped`` when cancelled."""
        self._add("blocked", {"url": url})

    def listed(self, kind: ItemKind = "error") -> set[str]:
        """The URLs of the items of ``kind`` the job lists already."""
        urls: set[str] = set()
        count = 0
        while page := self.jobs.items(self.job, kind, count):
            count += len(page)
            urls.update(str(item.get("url")) for item in page)
        return urls

    def warn(self, warning: str) -> None:
        """Say what the job warns of; ``JobStopped`` when it was cancelled."""
        if not self.jobs.warn(self.job, warning):
            raise JobStopped(self.job)

    def expect(self, total: int) -> None:
        """Say how many items the job expects in all."""
        if not self.jobs.expect(self.job, total):
            raise JobStopped(self.job)

    def _add(self, kind: ItemKind, body: dict[str, Any]) -> None:
        if not self.jobs.add(self.job, kind, body):
            raise JobStopped(self.job)


Work = Callable[[JobSink], Awaitable[None]]
"""A job's work: it puts its results in the sink and returns when done (raises to fail)."""


class JobRunner:
    """Runs jobs kept in ``jobs``; on start, reports the ones left running by an owner no
    longer alive as failed and forgets those ended over ``keep_seconds`` ago. Close it with
    ``aclose``."""

    def __init__(
        self, jobs: JobStore, max_running: int = MAX_RUNNING, keep_seconds: float = KEEP_SECONDS
    ) -> None:
        number_in("max_running", max_running, 1, 1000, whole=True)
        number_in("keep_seconds", keep_seconds, 0, 365 * 24 * 3600)
        self.jobs = jobs
        self.max_running = max_running
        self.keep_seconds = keep_seconds
        self._tasks: dict[str, asyncio.Task[None]] = {}
        jobs.interrupted()
        self._forget()

    def start(self, kind: str, request: dict[str, Any], work: Work) -> Job:
        """Start ``work`` as a new job of ``kind`` for ``request`` (call from a running event
        loop); ``JobsBusy`` when ``max_running`` jobs run already."""
        self._room()
        self._forget()
        return self._started(self.jobs.create(kind, request).id, work)

    def _room(self) -> None:
        if len(self._tasks) >= self.max_running:
            raise JobsBusy(f"{self.max_running} jobs are running already; start this one later")

    def _started(self, job: str, work: Work) -> Job:
        task = asyncio.create_task(self._run(job, work), name=f"job {job}")
        self._tasks[job] = task
        task.add_done_callback(lambda _: self._tasks.pop(job, None))
        found = self.jobs.get(job)
        assert found is not None
        return found

    def resume(self, job: str, work: Work) -> Job | None:
        """Run ``work`` again for the failed or cancelled ``job`` (its results kept, its
        status ``running`` again); None when it is running, completed or unknown;
        ``JobsBusy`` when ``max_running`` jobs run already."""
        self._room()
        if not self.jobs.reopen(job):
            return None
        return self._started(job, work)

    def cancel(self, job: str) -> bool:
        """Cancel a running job (its task stops); False when it had ended or is unknown."""
        ended = self.jobs.finish(job, "cancelled")
        task = self._tasks.get(job)
        if task is not None:
            task.cancel()
        return ended

    async def aclose(self) -> None:
        """Stop every job still running, each reported failed: the server is stopping."""
        tasks = list(self._tasks.items())
        for job, task in tasks:
            self.jobs.finish(job, "failed", STOPPED)
            task.cancel()
        await asyncio.gather(*(task for _, task in tasks), return_exceptions=True)

    async def _run(self, job: str, work: Work) -> None:
        try:
            await work(JobSink(self.jobs, job))
        except JobStopped:
            return
        except asyncio.CancelledError:
            self.jobs.finish(job, "cancelled")  # unless cancel or aclose ended it already
            raise
        except Exception as error:  # whatever the work raised fails the job, with why
            self.jobs.finish(job, "failed", str(error) or type(error).__name__)
            return
        self.jobs.finish(job, "completed")

    def _forget(self) -> None:
        self.jobs.forget(int((time.time() - self.keep_seconds) * 1000))


def crawl_work(
    url: str,
    options: CrawlOptions,
    *,
    policy: FetchPolicy,
    fetcher: Fetcher,
    store: AnyStore | None = None,
    snapshots: AnyStore | None = None,
    browser: Browser | None = None,
    resume: bool = False,
) -> Work:
    """A crawl as a job's work: each page's record a result, each page that failed an
    error (``url``, ``error``, ``code``), each link robots.txt disallows a ``blocked``
    item. The frontier is kept in ``store``, SQLite or PostgreSQL (without one, in a
    temporary store removed when the crawl ends), each page's snapshot in ``snapshots``
    (default: the frontier's store); with ``render="auto"`` the pages that need it are
    rendered by ``browser`` (a server's, kept open by its owner). With ``resume`` the job's
    stored crawl goes on where it stopped (its frontier kept under the job's id), listing
    only the failures and blocked links it did not list before. What the crawl warns
    of (pages read as served: no browser could start) is the job's warning."""

    async def work(sink: JobSink) -> None:
        warned: list[str] = []

        def progress(now: CrawlProgress) -> None:
            sink.expect(min(options.limit, now.done + now.failed + now.queued))
            if list(now.warnings) != warned:
                warned[:] = now.warnings
                sink.warn("; ".join(warned))

        with _frontier_store(store) as kept:
            listed = sink.listed() if resume else set()
            left_out = sink.listed("blocked") if resume else set()
            ended = await acrawl(
                None if resume else url,
                options,
                policy=policy,
                store=kept,
                fetcher=fetcher,
                resume=sink.job if resume else None,
                on_result=sink.result,
                on_progress=progress,
                crawl_as=sink.job,
                snapshots=snapshots,
                browser=browser,
            )
            progress(ended)
            for failure in crawl_failures(kept, sink.job):
                if failure["url"] not in listed:
                    sink.error(failure)
            for blocked in crawl_disallowed(kept, sink.job):
                if blocked not in left_out:
                    sink.blocked(blocked)

    return work


def batch_work(
    urls: Sequence[str],
    scrape_one: Callable[[str, Browser], Awaitable[tuple[ItemKind, dict[str, Any]]]],
    executable: str | None = None,
) -> Work:
    """Scrapes of ``urls`` as a job's work, ``BATCH_AT_ONCE`` at a time, in order:
    ``scrape_one`` renders with the batch's one lazy browser (Chromium started on the first
    page that needs it, ``executable`` as ``Browser`` takes it, ended with the job however
    it ends) and says whether each page gave a result or an error, and its body."""

    async def work(sink: JobSink) -> None:
        sink.expect(len(urls))
        async with Browser(executable, lazy=True) as browser:
            for first in range(0, len(urls), BATCH_AT_ONCE):
                pages = urls[first : first + BATCH_AT_ONCE]
                done = await asyncio.gather(*(scrape_one(url, browser) for url in pages))
                for kind, body in done:
                    if kind == "result":
                        sink.result(body)
                    else:
                        sink.error(body)

    return work


def research_work(task: str, **options: Any) -> Work:
    """A research run (``aresearch`` with ``options``) as a job's work: its answer is the
    one result; a run whose answer is incomplete fails the job with why; a run cancelled
    keeps its partial answer (the evidence read until then) as the result."""

    async def work(sink: JobSink) -> None:
        sink.expect(1)
        answer = await aresearch(
            task, **options, on_cancel=lambda partial: sink.partial(partial.to_dict())
        )
        sink.result(answer.to_dict())
        if answer.status == "failed":
            raise JobFailed(answer.message or answer.stop_reason)

    return work


@contextmanager
def _frontier_store(store: AnyStore | None) -> Iterator[AnyStore]:
    if store is not None:
        yield store
        return
    with (
        tempfile.TemporaryDirectory(prefix="citesift-crawl-") as folder,
        SQLiteStore(Path(folder) / "crawl.db") as kept,
    ):
        yield kept
