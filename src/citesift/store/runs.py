"""Research runs kept in the store: each run's task, every event of it in order (prompts,
replies, actions, evidence) as JSON, and its answer, so any field can be traced later.
``runs_in(store)`` gives the runs of either store (SQLite, or PostgreSQL's in
``citesift.store.postgres.runs``)."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from citesift.errors import NotFound, StoreCorrupt, invalid
from citesift.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore

COMPONENT = "runs"
MAX_RUN_ID = 64
"""The longest run id looked for (ids are 16 characters; a longer one matches none)."""
STEPS = [
    """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY, task TEXT NOT NULL, created_at INTEGER NOT NULL, answer TEXT);
    CREATE TABLE run_events (
        run_id TEXT NOT NULL REFERENCES runs (id), seq INTEGER NOT NULL,
        kind TEXT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (run_id, seq));
    """
]


@dataclass(frozen=True, slots=True)
class StoredRun:
    """A run as kept: its id, task, start time (ms), answer (None while it runs) and events
    as ``(kind, body)`` in order."""

    id: str
    task: str
    created_at: int
    answer: Any
    events: tuple[tuple[str, Any], ...]

    def of_kind(self, kind: str) -> list[Any]:
        """The bodies of the events of ``kind``, in order."""
        return [body for k, body in self.events if k == kind]

    def listed(self, key: str) -> list[dict[str, Any]]:
        """The objects listed under ``key`` in the answer; anything else there (an answer
        edited by hand, or damaged) is left out."""
        items = self.answer.get(key) if isinstance(self.answer, dict) else None
        return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


class RunStore:
    """Runs in a ``SQLiteStore`` (their own tables, migrated on first use)."""

    steps: ClassVar[list[str]] = STEPS

    def __init__(self, store: SQLiteStore | PostgresStore) -> None:
        self.store = store
        store.migrate(COMPONENT, self.steps)

    def _sql(self, sql: str) -> str:
        """``sql`` in the store's own placeholders."""
        return sql

    def start(self, task: str) -> str:
        """A new run of ``task``; its id."""
        run_id = uuid.uuid4().hex[:16]
        with self.store.transaction() as conn:
            conn.execute(
                self._sql("INSERT INTO runs (id, task, created_at) VALUES (?, ?, ?)"),
                (run_id, task, int(time.time() * 1000)),
            )
        return run_id

    def add(self, run_id: str, kind: str, body: Any) -> None:
        """Append one event to the run."""
        text = _json(body)
        with self.store.transaction() as conn:
            conn.execute(
                self._sql(
                    "INSERT INTO run_events (run_id, seq, kind, body) VALUES (?,"
                    " (SELECT COALESCE(MAX(seq), -1) + 1 FROM run_events WHERE run_id = ?), ?, ?)"
                ),
                (run_id, run_id, kind, text),
            )

    def finish(self, run_id: str, answer: Any) -> None:
        """Keep the run's answer."""
        text = _json(answer)
        with self.store.transaction() as conn:
            conn.execute(self._sql("UPDATE runs SET answer = ? WHERE id = ?"), (text, run_id))

    def get(self, run_id: str) -> StoredRun | None:
        """The run ``run_id`` (a unique prefix of it will do), or None."""
        if not run_id.isascii() or not run_id.isalnum() or len(run_id) > MAX_RUN_ID:
            return None
        with self.store.reading() as conn:
            rows = conn.execute(
                self._sql(
                    "SELECT id, task, created_at, answer FROM runs WHERE id = ? OR id LIKE ?"
                    " ORDER BY id = ? DESC LIMIT 2"
                ),
                (run_id, run_id + "%", run_id),
            ).fetchall()
            if not rows or (len(rows) > 1 and rows[0][0] != run_id):
                return None
            found, task, created_at, answer = rows[0]
            events = conn.execute(
                self._sql("SELECT kind, body FROM run_events WHERE run_id = ? ORDER BY seq"),
                (found,),
            ).fetchall()
        try:
            return StoredRun(
                str(found),
                str(task),
                int(created_at),
                None if answer is None else json.loads(answer),
                tuple((str(kind), json.loads(body)) for kind, body in events),
            )
        except (TypeError, ValueError, RecursionError) as error:
            raise StoreCorrupt(f"run {found} is damaged in the store: {error}"[:300]) from None

    def ids_begun_by(self, prefix: str, most: int = 3) -> list[str]:
        """The ids (``most`` of them at most, in order) of the runs ``prefix`` begins: more
        than one when it is too short to name a run."""
        if not prefix.isascii() or not prefix.isalnum() or len(prefix) > MAX_RUN_ID:
            return []
        with self.store.reading() as conn:
            rows = conn.execute(
                self._sql("SELECT id FROM runs WHERE id LIKE ? ORDER BY id LIMIT ?"),
                (prefix + "%", most),
            ).fetchall()
        return [str(row[0]) for row in rows]


def cited_ids(field: dict[str, Any]) -> list[str]:
    """The evidence ids a stored answer's field cites, each once in the order first cited
    (anything but a list of strings cites none)."""
    ids = field.get("evidence_ids")
    return (
        list(dict.fromkeys(i for i in ids if isinstance(i, str))) if isinstance(ids, list) else []
    )


def _json(value: Any) -> str:
    """``value`` as a run keeps it: compact JSON (an answer can list thousands of places)."""
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def stored_run(store: SQLiteStore | PostgresStore, run_id: object) -> StoredRun:
    """The run ``run_id`` (a unique prefix of it will do) kept in ``store``; ``NotFound``
    when there is none, ``InvalidArgument`` naming the runs it begins when it begins more
    than one."""
    runs = runs_in(store)
    run = runs.get(run_id) if isinstance(run_id, str) else None
    if run is not None:
        return run
    begun = runs.ids_begun_by(run_id) if isinstance(run_id, str) else []
    if len(begun) > 1:
        named = ", ".join(begun[:2]) + (", ..." if len(begun) > 2 else "")
        raise invalid("run", run_id, f"a prefix of one stored run's id, not of several ({named})")
    raise NotFound(str(invalid("run", run_id, "the id of a stored run")))


def runs_in(store: SQLiteStore | PostgresStore) -> RunStore:
    """The research runs kept in ``store``, whichever kind it is."""
    if isinstance(store, SQLiteStore):
        return RunStore(store)
    from citesift.store.postgres.runs import PostgresRuns  # needs the extra

    return PostgresRuns(store)
