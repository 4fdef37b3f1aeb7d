"""A crawl read by several worker processes of this machine sharing its frontier in the
store (``crawl(..., workers=N)``); the same crawl started on other machines against one
PostgreSQL store shares it too.

The calling process makes the crawl, starts ``workers`` processes (spawned, so nothing of
its own state is shared by accident), each of which goes on with the crawl by its id with
fetchers of its own whose limiters share the store's budget (spacing, the minute budget,
429/503 blocks) with every other worker, and meanwhile follows the results stored and the
frontier's counts to call ``on_result`` and ``on_progress`` (with each warning of a worker,
once, as soon as the worker knows it, through a queue they share); only the results stored
after the caller's mark are passed on (those stored once the workers start, when it gives
none), those before are the caller's to read (``crawl_results``, ``marked_results``). A
worker killed mid-page holds its pages until its lease runs out; the others then read them.
A worker ends as soon as the calling process ends, killed or not: a crawl run again (or
resumed) then takes its pages back.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections.abc import Callable, Sequence
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from queue import Empty
from typing import Any

from citesift.errors import CitesiftError, invalid
from citesift.net import Fetcher, Fetches, FetchPolicy, LimiterRegistry, SourceLimiter
from citesift.numbers import number_in
from citesift.scrape.crawl import CrawlOptions, CrawlProgress, acrawl, ended_at, start_crawl
from citesift.store import AnyStore, open_store
from citesift.store.frontier import Frontier
from citesift.store.holders import end_with_parent
from citesift.store.limits import budget_in
from citesift.store.location import location_of

MAX_WORKERS = 64
FOLLOW_S = 0.25
"""Seconds between two looks at the results and counts while the workers run."""
STOP_WAIT_S = 10.0


def crawl_with_workers(
    url: str | None,
    options: CrawlOptions,
    workers: int,
    *,
    policy: FetchPolicy,
    store: AnyStore,
    limiter: Callable[[], SourceLimiter] | None = None,
    fetcher: Fetches | None = None,
    resume: str | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    on_progress: Callable[[CrawlProgress], None] | None = None,
    executable: str | None = None,
    after: tuple[int, int] | None = None,
) -> CrawlProgress:
    """Crawl ``url`` with ``options`` (or go on with the stored crawl ``resume``) in
    ``workers`` processes; returns where the crawl ended. ``limiter`` makes each worker's
    per-host limiters (picklable: a class or a ``functools.partial`` of one); a ``fetcher``
    cannot cross into another process, so giving one is an ``InvalidArgument``. Each
    worker renders (``render="auto"``) with a Chromium of its own, ``executable``'s.
    ``on_result`` hears the pages done from now on, as a run of one process does, or every
    result stored after the mark ``after`` (``marked_results``: a caller that read the
    stored results up to it misses none stored since)."""
    number_in("workers", workers, 1, MAX_WORKERS, whole=True)
    if fetcher is not None:
        raise invalid("fetcher", fetcher, "None with workers: each worker makes its own")
    if not isinstance(policy, FetchPolicy):
        raise invalid("policy", policy, "a FetchPolicy")
    location = location_of(store)
    frontier, crawl, _, options = start_crawl(url, options, store, resume)
    spawn = multiprocessing.get_context("spawn")
    warned: Queue[tuple[str, ...]] = spawn.Queue()
    processes = [
        spawn.Process(
            target=_work, args=(location, crawl, options, policy, limiter, executable, warned)
        )
        for _ in range(workers)
    ]
    began = time.monotonic()
    finished = sum(frontier.counts(crawl)[state] for state in ("done", "failed", "moved"))
    mark = frontier.results_end(crawl) if after is None else after
    said: dict[str, None] = {}
    try:
        for process in processes:
            process.start()
        while True:
            running = any(process.is_alive() for process in processes)
            while page := frontier.results_after(crawl, mark):
                mark = page[-1][0]
                for _, record in page:
                    if on_result is not None:
                        on_result(record)
            if not running:
                break
            if on_progress is not None:
                on_progress(_progress(frontier, crawl, finished, began, _heard(warned, said)))
            time.sleep(FOLLOW_S)
    finally:
        _stop(processes)
    if all(process.exitcode != 0 for process in processes):
        codes = ", ".join(str(process.exitcode) for process in processes)
        raise CitesiftError(f"every crawl worker failed (exit statuses {codes})")
    return _progress(frontier, crawl, finished, began, _heard(warned, said))


def _progress(
    frontier: Frontier, crawl: str, finished: int, began: float, warnings: Sequence[str] = ()
) -> CrawlProgress:
    """Where the crawl stands, with the pages read since the workers started per second."""
    counts = frontier.counts(crawl)
    now = sum(counts[state] for state in ("done", "failed", "moved"))
    seconds = max(time.monotonic() - began, 1e-9)
    return ended_at(frontier, crawl, now - finished, seconds, warnings)


def _heard(warned: Queue[tuple[str, ...]], said: dict[str, None]) -> tuple[str, ...]:
    """What the workers have warned of so far (added to ``said``), each warning once."""
    while True:
        try:
            said.update(dict.fromkeys(warned.get_nowait()))
        except Empty:
            return tuple(said)


def _stop(processes: Sequence[BaseProcess]) -> None:
    """End the workers still running (the caller was interrupted) and wait for them all."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        if process.pid is not None:
            process.join(STOP_WAIT_S)


def _work(
    location: str,
    crawl: str,
    options: CrawlOptions,
    policy: FetchPolicy,
    limiter: Callable[[], SourceLimiter] | None,
    executable: str | None,
    warned: Queue[tuple[str, ...]],
) -> None:
    """One worker: go on with the stored crawl until nothing is left for any worker, handing
    each thing it warns of to the calling process as soon as it is known."""
    end_with_parent()
    sent: set[str] = set()

    def tell(progress: CrawlProgress) -> None:
        """Hand the calling process the warnings of ``progress`` not handed before."""
        new = tuple(warning for warning in progress.warnings if warning not in sent)
        if new:
            sent.update(new)
            warned.put(new)

    with open_store(location) as store:
        fetcher = Fetcher(LimiterRegistry(limiter or SourceLimiter, budget=budget_in(store)))

        async def run() -> None:
            try:
                ended = await acrawl(None, options, policy=policy, store=store, fetcher=fetcher,
                                     resume=crawl, executable=executable,
                                     on_progress=tell)  # fmt: skip
                tell(ended)
            finally:
                await fetcher.aclose()

        asyncio.run(run())
