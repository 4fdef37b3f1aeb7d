"""Time as the limiter sees it: the system clock, or a manual one that tests drive."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    """Milliseconds on a monotonic scale, wall-clock milliseconds, and an awaitable sleep."""

    def now_ms(self) -> float: ...

    def wall_ms(self) -> float: ...

    async def sleep(self, ms: float) -> None: ...


class SystemClock:
    """The real clock: ``time.monotonic`` for intervals, ``time.time`` for HTTP dates."""

    def now_ms(self) -> float:
        return time.monotonic() * 1000

    def wall_ms(self) -> float:
        return time.time() * 1000

    async def sleep(self, ms: float) -> None:
        await asyncio.sleep(max(ms, 0) / 1000)


class ManualClock:
    """A virtual clock: a sleep moves time forward by its length at once, then yields.

    Timing rules can then be checked exactly and instantly; concurrent sleepers each move
    time on, so virtual time runs at least as fast as the real one would.
    """

    def __init__(self, start_ms: float = 0.0, wall_start_ms: float = 1_700_000_000_000.0) -> None:
        self._now = start_ms
        self._wall_offset = wall_start_ms - start_ms

    def now_ms(self) -> float:
        return self._now

    def wall_ms(self) -> float:
        return self._now + self._wall_offset

    def advance(self, ms: float) -> None:
        """Move time forward by ``ms``."""
        self._now += max(ms, 0)

    async def sleep(self, ms: float) -> None:
        self.advance(ms)
        await asyncio.sleep(0)


SYSTEM_CLOCK = SystemClock()
