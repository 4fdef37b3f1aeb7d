"""What every public source offers: a search by phrase and a read of one hit."""

from __future__ import annotations

import asyncio
import math
from typing import Protocol, runtime_checkable

from citesift.model import ReadOutcome, SearchOutcome, SourceHit
from citesift.net.limiter import OnSend
from citesift.store import SQLiteStore

DEFAULT_LIMIT = 2
MAX_LIMIT = 100
TEXT_BUDGET = 300_000
MAX_TEXT_BUDGET = 10_000_000


@runtime_checkable
class PublicSourceProvider(Protocol):
    """A public source: ``search`` answers hits, ``read`` answers a document.

    Neither raises for a refusal or a failure: ``search`` answers ``Hits | Limited |
    Failed`` and ``read`` answers ``Document | Limited | Skipped``. Only the caller's own
    cancellation propagates.
    """

    site: str

    async def search(
        self, phrase: str, limit: int = DEFAULT_LIMIT, *, on_send: OnSend | None = None
    ) -> SearchOutcome: ...

    async def read(self, hit: SourceHit) -> ReadOutcome: ...


class BlockingCalls:
    """``search_sync`` and ``read_sync`` for callers with no event loop of their own."""

    def search_sync(
        self: PublicSourceProvider, phrase: str, limit: int = DEFAULT_LIMIT
    ) -> SearchOutcome:
        """``search`` run to completion on a fresh event loop."""
        return asyncio.run(self.search(phrase, limit))

    def read_sync(self: PublicSourceProvider, hit: SourceHit) -> ReadOutcome:
        """``read`` run to completion on a fresh event loop."""
        return asyncio.run(self.read(hit))


def sane_limit(limit: object) -> int:
    """A hit count between 1 and ``MAX_LIMIT``; ``DEFAULT_LIMIT`` for anything absurd."""
    if isinstance(limit, bool) or not isinstance(limit, int | float | str):
        return DEFAULT_LIMIT
    try:
        number = float(limit)
    except ValueError:
        return DEFAULT_LIMIT
    return int(min(max(number, 1), MAX_LIMIT)) if math.isfinite(number) else DEFAULT_LIMIT


def sane_budget(value: object) -> int:
    """A positive text budget, at most ``MAX_TEXT_BUDGET``; the default otherwise."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return TEXT_BUDGET
    if not math.isfinite(number) or number <= 0:
        return TEXT_BUDGET
    return int(min(number, MAX_TEXT_BUDGET))


def keeping(store: SQLiteStore | None, offline: bool) -> dict[str, object]:
    """Fetch-policy fields for a store: save every snapshot to it, or (offline) answer from it."""
    return {"store": store, "save": store is not None and not offline, "offline": offline}
