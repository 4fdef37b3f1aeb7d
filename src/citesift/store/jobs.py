"""Long jobs (a crawl, a batch of scrapes, a research run) kept in the store, so a client can
ask how one stands, page through its results and errors, and cancel it; a server restart
loses no finished result.

A job has an id, a kind, a status (``running``, then ``completed``, ``failed`` or
``cancelled``), the request that started it, its times (wall-clock ms), an error when it
failed, a warning when it did what was asked with less than asked (a crawl asked to render
that no browser could), how many items it expects (``total``), and the owner that runs it.
Its results and errors (and a crawl's links robots.txt kept it from: ``blocked``, counted
as neither) are items in their own table, numbered in the order they were added, and read a
page at a time. A status leaves ``running`` once: a job cancelled while it runs
keeps its ``cancelled`` status, and the items its runner still adds are refused, which tells
the runner to stop; only the one partial result the runner hands over as it stops is kept.
When a server starts, the jobs left running by an owner that is no longer alive (a process
of this machine that died with them) are marked failed with the reason, never left running
for ever; the jobs of a server still running beside it are its own.

One ``JobStore`` serves both backends: the tables and statements are the same in SQLite and
PostgreSQL, only the parameter marks differ.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from citesift.checks import lone_surrogate_at
from citesift.errors import invalid, written_number
from citesift.numbers import number_in
from citesift.store.holders import holder_gone, holder_name, is_holder_name
from citesift.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from citesift.store.location import AnyStore

COMPONENT = "jobs"
STEPS = [
    """
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL,
        request TEXT NOT NULL, owner TEXT NOT NULL,
        created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
        error TEXT, total BIGINT NOT NULL DEFAULT 0);
    CREATE INDEX jobs_by_owner ON jobs (owner, status);
    CREATE TABLE job_items (
        job TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        kind TEXT NOT NULL, seq BIGINT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (job, kind, seq));
    """,
    "ALTER TABLE jobs ADD COLUMN warning TEXT;",
]
JobKind = Literal["crawl", "batch", "agent", "extract"]
JobStatus = Literal["running", "completed", "failed", "cancelled"]
ItemKind = Literal["result", "error", "blocked"]
KINDS: tuple[str, ...] = get_args(JobKind)
ENDED: tuple[str, ...] = ("completed", "failed", "cancelled")
PAGE_ITEMS = 100
"""Items one page holds at most (Firecrawl's page)."""
PAGE_BYTES = 10 << 20
"""JSON bytes one page holds at most (Firecrawl's page); a page holds at least one item."""
MAX_REQUEST_BYTES = 1 << 20
"""A job's request as JSON, at most (the HTTP API's body bound)."""
MAX_WARNING_CHARS = 2000
"""A job's warning is cut to this many characters."""
INTERRUPTED = "the server stopped while the job ran (it was not resumed)"


@dataclass(frozen=True, slots=True)
class Job:
    """A job as kept: its status and request, its times (wall-clock ms), its error when it
    failed, its counts of results, errors and items expected in all, and its warning."""

    id: str
    kind: str
    status: str
    request: dict[str, Any]
    owner: str
    created_at: int
    updated_at: int
    error: str | None
    total: int
    results: int
    errors: int
    warning: str | None = None

    @property
    def ended(self) -> bool:
        """Whether the job is over (completed, failed or cancelled)."""
        return self.status in ENDED


class JobStore:
    """Jobs in a SQLite or PostgreSQL store (their tables migrated on first use), run by
    ``owner``: the name of the server that runs the jobs it starts (by default this
    process's own, ``holder_name``: no two servers share it). Only such a name tells
    another server starting on the store whether its owner still runs: the running jobs
    of any other name are taken for a server gone, and failed."""

    def __init__(self, store: AnyStore, owner: str | None = None) -> None:
        owner = holder_name() if owner is None else owner
        if not isinstance(owner, str) or not owner or len(owner) > 200:
            raise invalid("owner", owner, "a name of 1 to 200 characters")
        self.store = store
        self.owner = owner
        self._mark = "?" if isinstance(store, SQLiteStore) else "%s"
        store.migrate(COMPONENT, STEPS)

    def _sql(self, text: str) -> str:
        return text.replace("?", self._mark)

    def create(self, kind: str, request: dict[str, Any], total: int = 0) -> Job:
        """A new running job of ``kind`` for ``request`` (kept as JSON)."""
        if kind not in KINDS:
            raise invalid("kind", kind, f"one of {', '.join(KINDS)}")
        where = lone_surrogate_at(request)
        if where is not None:  # no store can keep it
            field = ".".join(map(str, ["request", *where]))
            raise invalid(field, "\\ud800", "text UTF-8 can carry (it holds a lone surrogate)")
        text = json.dumps(request, ensure_ascii=False, default=str)
        if len(text.encode()) > MAX_REQUEST_BYTES:
            raise invalid(
                "request", text[:40], f"at most {written_number(MAX_REQUEST_BYTES)} bytes as JSON"
            )
        job = str(uuid.uuid4())
        now = _now()
        with self.store.transaction() as conn:
            conn.execute(
                self._sql(
                    "INSERT INTO jobs (id, kind, status, request, owner, created_at, updated_at,"
                    " total) VALUES (?, ?, 'running', ?, ?, ?, ?, ?)"
                ),
                (job, kind, text, self.owner, now, now, total),
            )
        found = self.get(job)
        assert found is not None
        return found

    def get(self, job: str) -> Job | None:
        """The job ``job`` with its counts, or None when there is none."""
        if not _well_formed(job):
            return None
        with self.store.reading() as conn:
            row = conn.execute(
                self._sql(
                    "SELECT id, kind, status, request, owner, created_at, updated_at, error,"
                    " total, warning,"
                    " (SELECT count(*) FROM job_items WHERE job = ? AND kind = 'result'),"
                    " (SELECT count(*) FROM job_items WHERE job = ? AND kind = 'error')"
                    " FROM jobs WHERE id = ?"
                ),
                (job, job, job),
            ).fetchone()
        if row is None:
            return None
        found, kind, status, request, owner, created, updated, error, total, warning, *counts = row
        return Job(
            str(found),
            str(kind),
            str(status),
            json.loads(request),
            str(owner),
            int(created),
            int(updated),
            error,
            int(total),
            int(counts[0]),
            int(counts[1]),
            warning,
        )

    def add(self, job: str, kind: ItemKind, body: dict[str, Any]) -> bool:
        """Add a result, an error or a blocked link to a running job; False (nothing added)
        when the job is no longer running (cancelled: its runner should stop) or unknown."""
        if kind not in get_args(ItemKind):
            raise invalid("kind", kind, "'result', 'error' or 'blocked'")
        text = json.dumps(body, ensure_ascii=False, default=str)
        with self.store.transaction() as conn:
            touched = conn.execute(
                self._sql("UPDATE jobs SET updated_at = ? WHERE id = ? AND status = 'running'"),
                (_now(), job),
            ).rowcount
            if not touched:
                return False
            self._insert(conn, job, kind, text)
        return True

    def keep_partial(self, job: str, body: dict[str, Any]) -> bool:
        """Keep the partial result the runner of a job cancelled while it ran hands over as
        it stops (a research run's answer so far); False (nothing kept) unless the job is
        cancelled, run by this owner, and holds no result yet."""
        text = json.dumps(body, ensure_ascii=False, default=str)
        with self.store.transaction() as conn:
            touched = conn.execute(
                self._sql(
                    "UPDATE jobs SET updated_at = ? WHERE id = ? AND status = 'cancelled'"
                    " AND owner = ? AND NOT EXISTS"
                    " (SELECT 1 FROM job_items WHERE job = ? AND kind = 'result')"
                ),
                (_now(), job, self.owner, job),
            ).rowcount
            if not touched:
                return False
            self._insert(conn, job, "result", text)
        return True

    def _insert(self, conn: Any, job: str, kind: ItemKind, text: str) -> None:
        """Add item ``text`` after the job's others of ``kind`` (within ``conn``'s transaction)."""
        conn.execute(
            self._sql(
                "INSERT INTO job_items (job, kind, seq, body) VALUES (?, ?,"
                " (SELECT COALESCE(MAX(seq), -1) + 1 FROM job_items"
                "  WHERE job = ? AND kind = ?), ?)"
            ),
            (job, kind, job, kind, text),
        )

    def expect(self, job: str, total: int) -> bool:
        """Say how many items a running job expects in all; False when it is not running."""
        number_in("total", total, 0, 1 << 62, whole=True)
        with self.store.transaction() as conn:
            touched = conn.execute(
                self._sql(
                    "UPDATE jobs SET total = ?, updated_at = ? WHERE id = ? AND status = 'running'"
                ),
                (total, _now(), job),
            ).rowcount
        return bool(touched)

    def warn(self, job: str, warning: str) -> bool:
        """Say what a running job warns of (its status and results stand; a later warning
        replaces it); False when it is not running."""
        if not isinstance(warning, str) or not warning:
            raise invalid("warning", warning, "a text saying what the job warns of")
        with self.store.transaction() as conn:
            touched = conn.execute(
                self._sql(
                    "UPDATE jobs SET warning = ?, updated_at = ?"
                    " WHERE id = ? AND status = 'running'"
                ),
                (warning[:MAX_WARNING_CHARS], _now(), job),
            ).rowcount
        return bool(touched)

    def finish(self, job: str, status: JobStatus, error: str | None = None) -> bool:
        """End a running job with ``status`` (and ``error`` when it failed); False when it
        had already ended (its status is kept) or is unknown."""
        if status not in ENDED:
            raise invalid("status", status, f"one of {', '.join(ENDED)}")
        with self.store.transaction() as conn:
            touched = conn.execute(
                self._sql(
                    "UPDATE jobs SET status = ?, error = ?, updated_at = ?"
                    " WHERE id = ? AND status = 'running'"
                ),
                (status, error, _now(), job),
            ).rowcount
        return bool(touched)

    def reopen(self, job: str) -> bool:
        """Run again a job that failed or was cancelled (its results and errors kept, its
        error cleared), now under this owner; False when it is running, completed or
        unknown."""
        with self.store.transaction() as conn:
            touched = conn.execute(
                self._sql(
                    "UPDATE jobs SET status = 'running', error = NULL, owner = ?, updated_at = ?"
                    " WHERE id = ? AND status IN ('failed', 'cancelled')"
                ),
                (self.owner, _now(), job),
            ).rowcount
        return bool(touched)

    def items(
        self,
        job: str,
        kind: ItemKind,
        skip: int = 0,
        limit: int = PAGE_ITEMS,
        max_bytes: int = PAGE_BYTES,
    ) -> list[dict[str, Any]]:
        """The job's results (or errors) from the ``skip``-th on, in the order they were
        added: at most ``limit`` of them and ``max_bytes`` of JSON (at least one)."""
        number_in("skip", skip, 0, 1 << 62, whole=True)
        number_in("limit", limit, 1, PAGE_ITEMS, whole=True)
        number_in("max_bytes", max_bytes, 1, PAGE_BYTES, whole=True)
        with self.store.reading() as conn:
            rows = conn.execute(
                self._sql(
                    "SELECT body FROM job_items WHERE job = ? AND kind = ? AND seq >= ?"
                    " ORDER BY seq LIMIT ?"
                ),
                (job, kind, skip, limit),
            ).fetchall()
        page: list[dict[str, Any]] = []
        size = 0
        for (body,) in rows:
            size += len(body.encode())
            if page and size > max_bytes:
                break
            page.append(json.loads(body))
        return page

    def interrupted(self, reason: str = INTERRUPTED) -> int:
        """Mark failed, with ``reason``, every running job whose owner is no longer alive:
        this owner's (a server of the same name started again), those of a process of this
        machine that has ended, and those of an owner name not of the holder form (call this
        when a server starts); the jobs of a live process, or of another machine's holder,
        are left to it. Returns how many were failed.

        Servers of earlier versions named themselves by machine and port, by transport or
        by a fixed name, and failed the jobs of their own name when they started again. Such
        a name tells no process to check, and its server failed its jobs only by starting
        again under it, which it no longer does: a job it left running would stay so for
        ever. A server starting on the store is of this version, so those of earlier
        versions on it have been replaced; their running jobs are failed."""
        with self.store.reading() as conn:
            owners = conn.execute("SELECT DISTINCT owner FROM jobs WHERE status = 'running'")
            gone = [str(o) for (o,) in owners.fetchall() if self._gone(str(o))]
        count = 0
        with self.store.transaction() as conn:
            for owner in gone:
                count += conn.execute(
                    self._sql(
                        "UPDATE jobs SET status = 'failed', error = ?, updated_at = ?"
                        " WHERE owner = ? AND status = 'running'"
                    ),
                    (reason, _now(), owner),
                ).rowcount
        return count

    def _gone(self, owner: str) -> bool:
        """Whether ``owner``'s running jobs can no longer end (see ``interrupted``)."""
        return owner == self.owner or not is_holder_name(owner) or holder_gone(owner)

    def forget(self, before_ms: int) -> int:
        """Delete the ended jobs last changed before ``before_ms`` (their results too);
        returns how many."""
        with self.store.transaction() as conn:
            conn.execute(
                self._sql(
                    "DELETE FROM job_items WHERE job IN (SELECT id FROM jobs"
                    " WHERE status <> 'running' AND updated_at < ?)"
                ),
                (before_ms,),
            )
            count = conn.execute(
                self._sql("DELETE FROM jobs WHERE status <> 'running' AND updated_at < ?"),
                (before_ms,),
            ).rowcount
        return int(count)

    def running(self) -> int:
        """How many jobs this owner runs now."""
        with self.store.reading() as conn:
            row = conn.execute(
                self._sql("SELECT count(*) FROM jobs WHERE owner = ? AND status = 'running'"),
                (self.owner,),
            ).fetchone()
        return int(row[0]) if row else 0


def _now() -> int:
    return int(time.time() * 1000)


def _well_formed(job: object) -> bool:
    """Whether ``job`` could be a job's id (a UUID's letters), so odd input is never a query."""
    return (
        isinstance(job, str) and 0 < len(job) <= 64 and all(c in "0123456789abcdef-" for c in job)
    )
