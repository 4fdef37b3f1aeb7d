"""``index_add`` by N worker processes: the items (a folder's files, each other source
whole) are shared among them, and each worker opens its own index and page source once.

With a PostgreSQL store the items go to a job table (``citesift.store.postgres.claims``:
``FOR UPDATE SKIP LOCKED`` under leases) named after the command (its items and options),
so the same command started on other machines against the same server shares it: each
item is read once, and an item held by a worker killed mid-way comes back when its lease
runs out. A worker keeps claiming while any item is left, so when this command's workers
stop the whole job is done; the command that then drops the job from the table is the
one that may prune (every other has finished reading), and running the command again
later reads its sources again. With the SQLite store the items are handed to the workers
of this machine through a queue (the store's writes take turns). A worker ends as soon as
the command's process ends, killed or not; the command run again goes on from what was
indexed.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from multiprocessing import get_context
from multiprocessing.queues import Queue
from multiprocessing.sharedctypes import Synchronized
from typing import TYPE_CHECKING

from citesift.errors import WorkerLost
from citesift.ingest.job import IngestJob, opened, read_and_index
from citesift.ingest.report import IndexProgress, Tally
from citesift.sources.gather import Item
from citesift.sources.web import is_web_url
from citesift.store import is_postgres_url
from citesift.store.holders import end_with_parent, holder_name

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore
    from citesift.store.postgres.claims import ClaimQueue

MAX_WORKERS = 64
LEASE_S = 120.0
"""How long a worker holds an item unless it renews (it renews after each item it reads,
and gives the batch up as done once it is indexed)."""
BATCH = 16
"""Most items a worker reads before it writes what they hold to the index at once (fewer
when there are few items for each worker)."""
POLL_S = 0.5
"""Seconds between looks at how far the workers are (and a worker with nothing to claim
waits while others still hold items)."""
LABEL = "Indexing"


def index_by_workers(
    items: Sequence[Item], job: IngestJob, workers: int, prune: bool, progress: IndexProgress
) -> tuple[Tally, bool]:
    """What ``workers`` processes read and indexed of ``items``, and whether this command
    may prune (it found the shared job done); ``progress`` hears the items done."""
    follow = partial(progress, LABEL)
    try:
        if is_postgres_url(job.store):
            tallies, finished = _shared(items, job, workers, prune, follow)
        else:
            tallies, finished = _here(items, job, workers, follow), True
    except BrokenProcessPool:
        raise WorkerLost("a worker process ended before its work was done") from None
    tally = Tally()
    for each in tallies:
        tally.merge(each)
    return tally, finished


def _here(
    items: Sequence[Item], job: IngestJob, workers: int, progress: Callable[[int, int], None]
) -> list[Tally]:
    """The workers of this machine, each taking items from one queue until it is empty."""
    spawn = get_context("spawn")
    todo: Queue[list[Item] | None] = spawn.Queue()
    todo.cancel_join_thread()  # a worker that died leaves items no one will take
    done = spawn.Value("i", 0)
    size = _batch(len(items), workers)
    for start in range(0, len(items), size):
        todo.put(list(items[start : start + size]))
    for _ in range(workers):  # one end mark for each worker
        todo.put(None)
    with ProcessPoolExecutor(workers, spawn, initializer=_hold, initargs=(todo, done)) as pool:
        runs = [pool.submit(_take, job) for _ in range(workers)]
        _follow(runs, lambda: int(done.value), len(items), progress)
    return [run.result() for run in runs]


def _shared(
    items: Sequence[Item],
    job: IngestJob,
    workers: int,
    prune: bool,
    progress: Callable[[int, int], None],
) -> tuple[list[Tally], bool]:
    """The workers of this machine claiming items from the command's job table, and
    whether this command dropped the job, done, from the table."""
    from citesift.store.postgres import PostgresStore

    with PostgresStore(job.store, pool_size=1) as store:
        queue = _job_table(store, job, items, prune)
        spawn = get_context("spawn")
        with ProcessPoolExecutor(workers, spawn, initializer=end_with_parent) as pool:
            runs = [pool.submit(_claim, job, queue.queue, workers) for _ in range(workers)]
            _follow(runs, lambda: len(items) - queue.pending(), len(items), progress)
        tallies = [run.result() for run in runs]
        return tallies, queue.forget_when_done()


def _batch(items: int, workers: int) -> int:
    """How many items a worker reads at once: up to ``BATCH``, and few enough that each
    worker gets several batches to share the work evenly."""
    return max(1, min(BATCH, items // (workers * 4)))


def _follow(
    runs: list[Future[Tally]],
    done: Callable[[], int],
    total: int,
    progress: Callable[[int, int], None],
) -> None:
    """Tell ``progress`` how far the workers are until they have all ended."""
    while wait(runs, timeout=POLL_S).not_done:
        progress(done(), total)
    progress(total, total)


def _job_table(
    store: PostgresStore, job: IngestJob, items: Sequence[Item], prune: bool
) -> ClaimQueue:
    """The job table's queue of this command, ``items`` added (those already there, queued
    by the same command on another machine, are left as they are)."""
    from citesift.store.postgres.claims import ClaimQueue

    keyed = [(_key(item), json.dumps([item.source, item.listed])) for item in items]
    command = json.dumps([job.retrieval, job.mode, job.chunk_size, job.chunk_overlap, prune,
                          list(job.files.patterns), sorted(key for key, _ in keyed)])  # fmt: skip
    name = "index-add:" + hashlib.sha256(command.encode()).hexdigest()[:24]
    queue = ClaimQueue(store, name, "planner")
    queue.add(keyed)
    return queue


def _key(item: Item) -> str:
    """An item's key: its source, and for a file its size and time of change, so a file
    changed since another machine queued it is a new item."""
    if is_web_url(item.source):
        return item.source
    try:
        stat = os.stat(item.source)
    except OSError:
        return item.source
    return f"{item.source}\n{stat.st_size}-{stat.st_mtime_ns}"


# --- in each worker process -------------------------------------------------------------------

_queue: tuple[Queue[list[Item] | None], Synchronized[int]] | None = None


def _hold(todo: Queue[list[Item] | None], done: Synchronized[int]) -> None:
    """Keep the queue of items and the count of items done (handed over as the process
    starts, the only way a queue can be shared), and end with the command's process."""
    global _queue
    end_with_parent()
    _queue = (todo, done)


def _take(job: IngestJob) -> Tally:
    """Take batches of items from the queue and index them until an end mark comes."""
    assert _queue is not None, "the pool's initializer ran"
    todo, done = _queue
    tally = Tally()
    with opened(job) as (rag, pages):
        while (batch := todo.get()) is not None:
            tally.merge(read_and_index(batch, rag, pages, job))
            with done.get_lock():
                done.value += len(batch)
    return tally


def _claim(job: IngestJob, queue: str, workers: int) -> Tally:
    """Claim items of the job table and index them until none is left for any worker."""
    from citesift.store.postgres import PostgresStore
    from citesift.store.postgres.claims import ClaimQueue

    tally = Tally()
    with opened(job) as (rag, pages), PostgresStore(job.store, pool_size=1) as store:
        claims = ClaimQueue(store, queue, holder_name())
        while pending := claims.pending():
            held = claims.claim(_batch(pending, workers), LEASE_S)
            if not held:
                time.sleep(POLL_S)
                continue
            keys = [claim.key for claim in held]
            items = [Item(*json.loads(claim.payload)) for claim in held]
            renew = partial(claims.renew, keys, LEASE_S)  # held while the batch is read
            tally.merge(read_and_index(items, rag, pages, job, renew))
            claims.finish(keys)  # once indexed: a worker killed before gives them back
    return tally
