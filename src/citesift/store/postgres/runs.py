"""Research runs in PostgreSQL: the SQLite store's tables and rules over a ``PostgresStore``."""

from __future__ import annotations

from typing import ClassVar

from citesift.store.postgres import placeholders
from citesift.store.runs import RunStore

STEPS = [
    """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY, task TEXT NOT NULL, created_at BIGINT NOT NULL, answer TEXT);
    CREATE TABLE run_events (
        run_id TEXT NOT NULL REFERENCES runs (id), seq INTEGER NOT NULL,
        kind TEXT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (run_id, seq));
    """
]


class PostgresRuns(RunStore):
    """A ``RunStore`` in a ``PostgresStore`` (its own tables, migrated on first use)."""

    steps: ClassVar[list[str]] = STEPS

    def _sql(self, sql: str) -> str:
        return placeholders(sql)
