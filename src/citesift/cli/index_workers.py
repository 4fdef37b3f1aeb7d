"""``index add --workers N``: what one ``index add`` was given, read and indexed by N worker
processes. A folder is cut into its files here; each file, page or remote source is one item.

With a PostgreSQL store the items go to a job table (``citesift.store.postgres.claims``:
``FOR UPDATE SKIP LOCKED`` under leases) named after the command (its sources and
options), so the same command started on other machines against the same server shares
it: each item is read once, and an item held by a worker killed mid-way comes back when
its lease runs out. A worker keeps claiming while any item is left, and the job is
forgotten once done, so running the command again later reads its sources again. With the
SQLite store the items are handed to the workers of this machine directly (the store's
writes take turns).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import TYPE_CHECKING

from citesift.cli.gather import Item, LoadOptions, Refusal, Unchanged, gather_item, items_of
from citesift.cli.options import source_setup
from citesift.extract.rules import Mode
from citesift.index.documents import IngestDoc, as_ingest_doc
from citesift.index.rag import Rag, create_rag
from citesift.settings import SourceSetup
from citesift.sources.web import is_web_url
from citesift.store import is_postgres_url
from citesift.store.frontier import holder_name

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore
    from citesift.store.postgres.claims import ClaimQueue

MAX_WORKERS = 64
LEASE_S = 120.0
"""How long a worker holds an item unless it renews (it renews after each item it reads)."""
BATCH = 4
"""Items a worker claims at once."""
POLL_S = 0.5
"""Seconds a worker with nothing to claim waits while others still hold items."""


@dataclass(frozen=True, slots=True)
class Job:
    """What every worker needs to read and index items the same way."""

    store: str
    retrieval: str
    mode: Mode
    chunk_size: int
    chunk_overlap: int
    files: LoadOptions
    access: tuple[str | None, bool, bool, float | None] | None
    """``--contact``, ``--allow-private``, ``--offline`` and ``--deadline``, when pages are
    read (None: no source is a page)."""


def page_setup(job: Job) -> SourceSetup | None:
    """The setup pages are read with, when some are (a usage error for a bad contact)."""
    if job.access is None:
        return None
    contact, allow_private, offline, deadline = job.access
    return source_setup(contact, allow_private, job.store, offline, deadline)


@dataclass
class Tally:
    """What workers did: documents indexed and their chunks, ids seen unchanged, refusals,
    items read, and items another command sharing the job table read instead."""

    documents: int = 0
    chunks: int = 0
    unchanged: set[str] = field(default_factory=set)
    refusals: list[Refusal] = field(default_factory=list)
    items: int = 0
    elsewhere: int = 0

    def add(self, other: Tally) -> None:
        self.items += other.items
        self.documents += other.documents
        self.chunks += other.chunks
        self.unchanged |= other.unchanged
        self.refusals.extend(other.refusals)


def add_with_workers(
    sources: Sequence[str], job: Job, workers: int, progress: Callable[[int, int], None]
) -> Tally:
    """Read and index ``sources`` with ``workers`` processes; ``progress`` hears
    ``(items done, items in all)``."""
    tally = Tally()
    items: list[Item] = []
    for source in sources:
        found = items_of(source, job.files)
        if isinstance(found, Refusal):
            tally.refusals.append(found)
        else:
            items.extend(found)
    if not items:
        return tally
    spawn = get_context("spawn")
    with ProcessPoolExecutor(workers, spawn, initializer=_start, initargs=(job,)) as pool:
        if is_postgres_url(job.store):
            from citesift.store.postgres import PostgresStore

            with PostgresStore(job.store, pool_size=1) as store:
                queue = _job_table(store, job, items)
                runs = [pool.submit(_drain, queue.queue) for _ in range(workers)]
                _follow(runs, lambda: len(items) - queue.pending(), len(items), progress)
                queue.forget_when_done()
        else:
            runs = [pool.submit(_read, [item]) for item in items]
            _follow(runs, lambda: sum(run.done() for run in runs), len(items), progress)
    for run in runs:
        tally.add(run.result())
    tally.elsewhere = len(items) - tally.items
    return tally


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


def _job_table(store: PostgresStore, job: Job, items: list[Item]) -> ClaimQueue:
    """The job table's queue of this command, ``items`` added (those already there, queued
    by the same command on another machine, are left as they are)."""
    from citesift.store.postgres.claims import ClaimQueue

    keyed = [(_key(item), json.dumps([item.source, item.listed])) for item in items]
    command = json.dumps([job.retrieval, job.mode, job.chunk_size, job.chunk_overlap,
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

_worker: tuple[Job, Rag, SourceSetup | None] | None = None


def _start(job: Job) -> None:
    """Open the worker's index (and, for pages, its fetcher) once."""
    global _worker
    rag = create_rag(store=job.store, mode=job.retrieval, chunk_size=job.chunk_size,
                     chunk_overlap=job.chunk_overlap)  # fmt: skip
    _worker = (job, rag, page_setup(job))


def _read(items: list[Item]) -> Tally:
    """Read ``items`` and index what they hold."""
    assert _worker is not None, "the pool's initializer ran"
    job, rag, setup = _worker
    tally = Tally(items=len(items))
    documents: dict[str, IngestDoc] = {}
    for item in items:
        for found in gather_item(item, setup, job.mode, job.files):
            if isinstance(found, Refusal):
                tally.refusals.append(found)
            elif isinstance(found, Unchanged):
                tally.unchanged.add(found.name)
            else:
                document = as_ingest_doc(found)
                documents[document.id] = document
    if documents:
        tally.chunks += rag.ingest(list(documents.values()))
        tally.documents += len(documents)
    return tally


def _drain(queue: str) -> Tally:
    """Claim items of the job table and do them until none is left for any worker."""
    from citesift.store.postgres import PostgresStore
    from citesift.store.postgres.claims import ClaimQueue

    assert _worker is not None, "the pool's initializer ran"
    tally = Tally()
    with PostgresStore(_worker[0].store, pool_size=1) as store:
        claims = ClaimQueue(store, queue, holder_name())
        while claims.pending():
            held = claims.claim(BATCH, LEASE_S)
            if not held:
                time.sleep(POLL_S)
                continue
            for claim in held:
                source, listed = json.loads(claim.payload)
                tally.add(_read([Item(source, listed)]))
                claims.finish([claim.key])
                claims.renew([c.key for c in held], LEASE_S)
    return tally


__all__ = ["Job", "Tally", "add_with_workers"]
