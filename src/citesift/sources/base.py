"""What every public source offers: a search by phrase and a read of one hit."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Coroutine
from typing import Any, Protocol, TypeVar, runtime_checkable

from citesift.model import ReadOutcome, SearchOutcome, SourceHit
from citesift.net.limiter import OnSend
from citesift.store import SQLiteStore

DEFAULT_LIMIT = 2
MAX_LIMIT = 100
TEXT_BUDGET = 300_000
MAX_TEXT_BUDGET = 10_000_000
T = TypeVar("T")
Signal = asyncio.Event
"""The caller's abort signal: once set, a call in flight is abandoned and raises ``Aborted``."""


class Aborted(Exception):
    """The caller's signal was set: the call was abandoned (nothing more is sent or read)."""


@runtime_checkable
class PublicSourceProvider(Protocol):
    """A public source: ``search`` answers hits, ``read`` answers a document.

    Neither raises for a refusal or a failure: ``search`` answers ``Hits | Limited |
    Failed`` and ``read`` answers ``Document | Limited | Skipped``. Only the caller's own
    abort propagates: ``Aborted`` when its ``signal`` is set, or the task's cancellation.
    """

    site: str

    async def search(
        self,
        phrase: str,
        limit: int = DEFAULT_LIMIT,
        *,
        signal: Signal | None = None,
        on_send: OnSend | None = None,
    ) -> SearchOutcome: ...

    async def read(self, hit: SourceHit, *, signal: Signal | None = None) -> ReadOutcome: ...


async def abortable(call: Coroutine[Any, Any, T], signal: Signal | None) -> T:
    """``call``'s result, unless ``signal`` is set first: then ``call`` is cancelled (or
    never started) and ``Aborted`` raised."""
    if signal is None:
        return await call
    if signal.is_set():
        call.close()
        raise Aborted("the caller's signal was set before the call")
    work, stop = asyncio.ensure_future(call), asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait((work, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        work.cancel()  # nothing when it is done
    if work in done:
        return work.result()
    with contextlib.suppress(asyncio.CancelledError):
        await work
    raise Aborted("the caller's signal was set during the call")


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
