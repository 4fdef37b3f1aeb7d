"""Per-host politeness: concurrency, spacing between starts, a per-minute budget, blocks.

``SourceLimiter.run`` admits a request when fewer than ``concurrency`` are running, the
last start is at least ``spacing`` ago and fewer than ``per_minute`` starts (counting
requests whose ``on_send`` is still pending) fall in the last 60 s. It waits at most
``wait`` seconds for that, else refuses with nothing sent. After a 429 or 503 the caller
blocks the host until its Retry-After has passed.

Several processes share one host's spacing, minute budget and blocks when their registries
share a ``SharedBudget`` (the store implements one; it is composed above ``net``, which
knows only this protocol); concurrency stays per process. A registry belongs to its
``Fetcher``: nothing here is process-wide.
"""

from __future__ import annotations

import inspect
import math
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Literal, Protocol, TypeVar

from citesift.checks import text_arg
from citesift.errors import CitesiftError
from citesift.net.clock import SYSTEM_CLOCK, Clock
from citesift.net.retry_after import retry_after_ms
from citesift.numbers import clamped, number_in

T = TypeVar("T")
RefusalReason = Literal["blocked", "minute", "wait", "caller"]
OnSend = Callable[[], Awaitable[None] | None]

DEFAULT_CONCURRENCY = 3
DEFAULT_SPACING = 0.25
DEFAULT_PER_MINUTE = 200
DEFAULT_WAIT = 2.0
MAX_SPACING = 60.0
MAX_WAIT = 60.0
WINDOW_MS = 60_000
POLL_MS = 25


class LimiterRefused(CitesiftError):
    """The limiter (or the caller's ``on_send``) refused a request before it was sent."""

    def __init__(self, reason: RefusalReason) -> None:
        super().__init__(reason)
        self.reason: RefusalReason = reason


class SharedBudget(Protocol):
    """Starts and blocks per host shared by several processes (wall-clock milliseconds)."""

    def claim(
        self, host: str, now_ms: float, spacing_ms: float, per_minute: int
    ) -> float | RefusalReason | None:
        """Record a start now (None), or say how long to wait (ms), or refuse (a reason)."""
        ...

    def block(self, host: str, until_ms: float) -> None:
        """Refuse the host's starts until ``until_ms``."""
        ...

    def blocked_until(self, host: str) -> float | None:
        """When the host's block ends (ms), or None when it has none."""
        ...


class SourceLimiter:
    """The politeness rules for one host (see the module docstring)."""

    def __init__(
        self,
        concurrency: int = DEFAULT_CONCURRENCY,
        spacing: float = DEFAULT_SPACING,
        per_minute: int = DEFAULT_PER_MINUTE,
        wait: float = DEFAULT_WAIT,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.concurrency = int(number_in("concurrency", concurrency, 1, 64, whole=True))
        self.base_spacing_ms = number_in("spacing", spacing, 0, MAX_SPACING) * 1000
        self.spacing_ms = self.base_spacing_ms
        self.per_minute = int(number_in("per_minute", per_minute, 1, 100_000, whole=True))
        self.wait_ms = number_in("wait", wait, 0, MAX_WAIT) * 1000
        self.clock = clock
        self.blocked_until = -math.inf
        self._starts: deque[float] = deque()
        self._last_start = -math.inf
        self._active = 0
        self._pending = 0
        self._lock = threading.Lock()
        self._shared: tuple[SharedBudget, str] | None = None

    def share(self, budget: SharedBudget, host: str) -> None:
        """Also count starts and blocks in ``budget`` under ``host``, with other processes."""
        self._shared = (budget, host)

    async def run(self, task: Callable[[], Awaitable[T]], on_send: OnSend | None = None) -> T:
        """Run ``task`` once admitted; ``on_send`` runs after admission, before the start.

        Raises ``LimiterRefused`` (nothing sent) when refused; an exception from
        ``on_send`` ends the run with no start spent.
        """
        await self._admit(holding=on_send is not None)
        try:
            if on_send is not None:
                await self._before_start(on_send)
            return await task()
        finally:
            with self._lock:
                self._active -= 1

    def block(self, retry_after: str | None) -> None:
        """Refuse every request until the header's Retry-After (5 s when absent) has passed
        (a number from the network: clamped, never refused)."""
        wait = retry_after_ms(retry_after, self.clock.wall_ms())
        with self._lock:
            self.blocked_until = max(self.blocked_until, self.clock.now_ms() + wait)
        if self._shared is not None:
            budget, host = self._shared
            budget.block(host, self.clock.wall_ms() + wait)

    def blocked_ms(self) -> float:
        """Milliseconds until this host's block ends (here or in the shared budget); 0 if none."""
        left = self.blocked_until - self.clock.now_ms()
        if self._shared is not None:
            budget, host = self._shared
            until = budget.blocked_until(host)
            if until is not None:
                left = max(left, until - self.clock.wall_ms())
        return max(0.0, left)

    def ready_ms(self) -> float:
        """Milliseconds until this host may be asked again: its block, else what is left of
        the minute's window when its starts are spent, else of the spacing since the last
        start; 0 when it may be asked now (as far as time alone says)."""
        now = self.clock.now_ms()
        with self._lock:
            recent = [start for start in self._starts if now - start < WINDOW_MS]
            full = len(recent) >= self.per_minute
            window = recent[-self.per_minute] + WINDOW_MS - now if full else 0.0
            spacing = self._last_start + self.spacing_ms - now
        return max(self.blocked_ms(), window, spacing, 0.0)

    def slow_to(self, spacing: float) -> None:
        """Keep starts at least ``spacing`` seconds apart (a robots.txt Crawl-delay)."""
        wanted = clamped(spacing, 0, 0, MAX_SPACING) * 1000
        self.spacing_ms = max(self.base_spacing_ms, wanted)

    async def _admit(self, holding: bool) -> None:
        started = self.clock.now_ms()
        while True:
            now = self.clock.now_ms()
            delay = self._try_admit(now, holding)
            if delay is None:
                return
            if now + delay > started + self.wait_ms:
                raise LimiterRefused("wait")
            await self.clock.sleep(delay)

    def _try_admit(self, now: float, holding: bool) -> float | None:
        """Admit (and stamp unless ``holding``) with no await in between, or return the wait."""
        with self._lock:
            if now < self.blocked_until:
                raise LimiterRefused("blocked")
            while self._starts and now - self._starts[0] >= WINDOW_MS:
                self._starts.popleft()
            if len(self._starts) + self._pending >= self.per_minute:
                raise LimiterRefused("minute")
            if self._active >= self.concurrency:
                return POLL_MS
            gap = self._last_start + self.spacing_ms - now
            if gap > 0:
                return gap
            if holding:
                self._pending += 1
            else:
                wait = self._claim(now)
                if wait is not None:
                    return wait
            self._active += 1
            return None

    async def _before_start(self, on_send: OnSend) -> None:
        """Await ``on_send`` holding a start, then wait out spacing against newer starts."""
        try:
            result = on_send()
            if inspect.isawaitable(result):
                await result
            settled = self.clock.now_ms()
            while (delay := self._try_stamp(self.clock.now_ms())) is not None:
                if self.clock.now_ms() + delay > settled + self.wait_ms:
                    raise LimiterRefused("wait")
                await self.clock.sleep(delay)
        except BaseException:
            with self._lock:
                self._pending -= 1
            raise

    def _try_stamp(self, now: float) -> float | None:
        with self._lock:
            if now < self.blocked_until:
                raise LimiterRefused("blocked")
            gap = self._last_start + self.spacing_ms - now
            if gap > 0:
                return gap
            wait = self._claim(now)
            if wait is None:
                self._pending -= 1
            return wait

    def _claim(self, now: float) -> float | None:
        """Stamp a start at ``now``, unless the shared budget says to wait (ms) or refuses."""
        if self._shared is not None:
            budget, host = self._shared
            verdict = budget.claim(host, self.clock.wall_ms(), self.spacing_ms, self.per_minute)
            if isinstance(verdict, str):
                raise LimiterRefused(verdict)
            if verdict is not None:
                return verdict
        self._starts.append(now)
        self._last_start = now
        return None


class LimiterRegistry:
    """One limiter per host for everyone who asks through the same registry."""

    def __init__(
        self,
        factory: Callable[[], SourceLimiter] = SourceLimiter,
        budget: SharedBudget | None = None,
    ) -> None:
        self._factory = factory
        self._budget = budget
        self._limiters: dict[str, SourceLimiter] = {}
        self._lock = threading.Lock()

    def limiter_for(self, host: str) -> SourceLimiter:
        """The limiter of ``host`` (case and a trailing dot ignored), made on first use."""
        key = text_arg(host, "host").lower().rstrip(".")
        with self._lock:
            if key not in self._limiters:
                limiter = self._factory()
                if self._budget is not None:
                    limiter.share(self._budget, key)
                self._limiters[key] = limiter
            return self._limiters[key]

    def forget(self) -> None:
        """Drop every host's limiter (its starts and blocks) so the next caller starts afresh."""
        with self._lock:
            self._limiters.clear()
