"""Research runs kept in the store: each run's task, every event of it in order (prompts,
replies, actions, evidence) as JSON, and its answer, so any field can be traced later."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from citesift.store.sqlite import SQLiteStore

COMPONENT = "runs"
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


class RunStore:
    """Runs in a ``SQLiteStore`` (their own tables, migrated on first use)."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        store.migrate(COMPONENT, STEPS)

    def start(self, task: str) -> str:
        """A new run of ``task``; its id."""
        run_id = uuid.uuid4().hex[:16]
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO runs (id, task, created_at) VALUES (?, ?, ?)",
                (run_id, task, int(time.time() * 1000)),
            )
        return run_id

    def add(self, run_id: str, kind: str, body: Any) -> None:
        """Append one event to the run."""
        text = json.dumps(body, ensure_ascii=False, default=str)
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO run_events (run_id, seq, kind, body) VALUES (?,"
                " (SELECT COALESCE(MAX(seq), -1) + 1 FROM run_events WHERE run_id = ?), ?, ?)",
                (run_id, run_id, kind, text),
            )

    def finish(self, run_id: str, answer: Any) -> None:
        """Keep the run's answer."""
        text = json.dumps(answer, ensure_ascii=False, default=str)
        with self.store.transaction() as conn:
            conn.execute("UPDATE runs SET answer = ? WHERE id = ?", (text, run_id))

    def get(self, run_id: str) -> StoredRun | None:
        """The run ``run_id`` (a unique prefix of it will do), or None."""
        if not run_id.isascii() or not run_id.isalnum():
            return None
        with self.store.reading() as conn:
            rows = conn.execute(
                "SELECT id, task, created_at, answer FROM runs WHERE id = ? OR id LIKE ?"
                " ORDER BY id = ? DESC LIMIT 2",
                (run_id, run_id + "%", run_id),
            ).fetchall()
            if not rows or (len(rows) > 1 and rows[0][0] != run_id):
                return None
            found, task, created_at, answer = rows[0]
            events = conn.execute(
                "SELECT kind, body FROM run_events WHERE run_id = ? ORDER BY seq", (found,)
            ).fetchall()
        return StoredRun(
            str(found),
            str(task),
            int(created_at),
            None if answer is None else json.loads(answer),
            tuple((str(kind), json.loads(body)) for kind, body in events),
        )
