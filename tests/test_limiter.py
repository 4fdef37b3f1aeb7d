"""SourceLimiter timing rules on a virtual clock: spacing, concurrency, minute budget, blocks."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from email.utils import formatdate

import pytest

from citesift.errors import InvalidArgument
from citesift.net import (
    LimiterRefused,
    LimiterRegistry,
    ManualClock,
    SourceLimiter,
    retry_after_ms,
)

pytestmark = pytest.mark.timeout(20)


def run(scenario: Callable[[], Awaitable[object]]) -> object:
    return asyncio.run(scenario())


async def refusal(
    limiter: SourceLimiter, task: Callable[[], Awaitable[object]], **kw: object
) -> str:
    with pytest.raises(LimiterRefused) as refused:
        await limiter.run(task, **kw)  # type: ignore[arg-type]
    return refused.value.reason


async def nothing() -> str:
    return "done"


def test_three_held_tasks_start_250_ms_apart_and_a_fourth_is_refused_after_the_wait() -> None:
    async def scenario() -> tuple[list[float], str, float]:
        clock = ManualClock()
        limiter = SourceLimiter(clock=clock)
        gate = asyncio.Event()
        starts: list[float] = []

        async def held() -> None:
            starts.append(clock.now_ms())
            await gate.wait()

        runs = [asyncio.create_task(limiter.run(held)) for _ in range(3)]
        while len(starts) < 3:
            await asyncio.sleep(0)
        asked = clock.now_ms()
        reason = await refusal(limiter, held)
        waited = clock.now_ms() - asked
        gate.set()
        await asyncio.gather(*runs)
        return starts, reason, waited

    starts, reason, waited = run(scenario)  # type: ignore[misc]
    assert starts == [0, 250, 500]
    assert reason == "wait"
    assert 1950 <= waited <= 2000


def test_the_201st_start_in_a_minute_is_refused_until_the_oldest_start_is_60_s_old() -> None:
    async def scenario() -> tuple[list[str], str, str, str]:
        clock = ManualClock()
        limiter = SourceLimiter(spacing=0, clock=clock)
        done = [await limiter.run(nothing) for _ in range(200)]
        refused = await refusal(limiter, nothing)
        clock.advance(59_999)
        still = await refusal(limiter, nothing)
        clock.advance(2)
        return done, refused, still, await limiter.run(nothing)

    done, refused, still, after = run(scenario)  # type: ignore[misc]
    assert done == ["done"] * 200
    assert (refused, still, after) == ("minute", "minute", "done")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("7", 7_000),
        (" 7 ", 7_000),
        (None, 5_000),
        ("", 5_000),
        ("soon", 5_000),
        ("-3", 5_000),
        ("٣", 5_000),
        ("999999", 3_600_000),
        ("99999999999999999999999", 3_600_000),
    ],
)
def test_retry_after_ms_reads_seconds_and_falls_back_to_5_s(
    header: str | None, expected: int
) -> None:
    assert retry_after_ms(header, 1_700_000_000_000) == expected


def test_retry_after_ms_reads_an_http_date_relative_to_now() -> None:
    now_ms = 1_700_000_000_000
    assert retry_after_ms(formatdate(now_ms / 1000 + 9, usegmt=True), now_ms) == 9_000
    assert retry_after_ms(formatdate(now_ms / 1000 - 60, usegmt=True), now_ms) == 5_000
    assert retry_after_ms(formatdate(now_ms / 1000 + 86_400, usegmt=True), now_ms) == 3_600_000


def test_block_refuses_until_retry_after_has_passed() -> None:
    async def scenario() -> tuple[str, str]:
        clock = ManualClock()
        limiter = SourceLimiter(clock=clock)
        limiter.block("7")
        clock.advance(6_999)
        blocked = await refusal(limiter, nothing)
        clock.advance(2)
        return blocked, await limiter.run(nothing)

    assert run(scenario) == ("blocked", "done")


def test_a_block_never_shortens_an_earlier_longer_one() -> None:
    async def scenario() -> str:
        clock = ManualClock()
        limiter = SourceLimiter(clock=clock)
        limiter.block("60")
        limiter.block("1")
        clock.advance(30_000)
        return await refusal(limiter, nothing)

    assert run(scenario) == "blocked"


def test_on_send_refusing_spends_no_start_and_runs_nothing() -> None:
    async def scenario() -> tuple[str, list[str], str]:
        limiter = SourceLimiter(per_minute=1, clock=ManualClock())
        ran: list[str] = []

        async def task() -> str:
            ran.append("task")
            return "done"

        def refuse() -> None:
            raise LimiterRefused("caller")

        reason = await refusal(limiter, task, on_send=refuse)
        return reason, list(ran), await limiter.run(task)

    assert run(scenario) == ("caller", [], "done")


def test_on_send_failing_otherwise_propagates_and_spends_nothing() -> None:
    async def scenario() -> str:
        limiter = SourceLimiter(per_minute=1, clock=ManualClock())

        def broken() -> None:
            raise KeyError("quota store down")

        with pytest.raises(KeyError):
            await limiter.run(nothing, on_send=broken)
        return await limiter.run(nothing)

    assert run(scenario) == "done"


def test_a_pending_on_send_holds_the_only_start_of_the_minute() -> None:
    async def scenario() -> tuple[str, str]:
        limiter = SourceLimiter(per_minute=1, spacing=0, clock=ManualClock())
        release = asyncio.Event()
        entered = asyncio.Event()

        async def on_send() -> None:
            entered.set()
            await release.wait()

        first = asyncio.create_task(limiter.run(nothing, on_send=on_send))
        await entered.wait()
        other = await refusal(limiter, nothing)
        release.set()
        return other, await first

    assert run(scenario) == ("minute", "done")


def test_a_block_arriving_during_on_send_refuses_the_request() -> None:
    async def scenario() -> tuple[str, list[str]]:
        limiter = SourceLimiter(clock=ManualClock())
        ran: list[str] = []

        async def task() -> None:
            ran.append("task")

        reason = await refusal(limiter, task, on_send=lambda: limiter.block("30"))
        return reason, ran

    assert run(scenario) == ("blocked", [])


@pytest.mark.parametrize("slow_first", [True, False])
def test_a_slow_on_send_never_brings_two_starts_closer_than_the_spacing(slow_first: bool) -> None:
    async def scenario() -> list[float]:
        clock = ManualClock()
        limiter = SourceLimiter(clock=clock)
        starts: list[float] = []

        async def task() -> None:
            starts.append(clock.now_ms())

        async def slow_on_send() -> None:
            await clock.sleep(100)

        slow = limiter.run(task, on_send=slow_on_send)
        plain = limiter.run(task)
        await asyncio.gather(*((slow, plain) if slow_first else (plain, slow)))
        return starts

    starts = run(scenario)
    assert len(starts) == 2  # type: ignore[arg-type]
    assert starts[1] - starts[0] >= 250  # type: ignore[index]


def test_time_spent_in_on_send_does_not_count_as_waiting() -> None:
    async def scenario() -> str:
        clock = ManualClock()
        limiter = SourceLimiter(wait=2.0, clock=clock)

        async def very_slow() -> None:
            await clock.sleep(5_000)

        return await limiter.run(nothing, on_send=very_slow)

    assert run(scenario) == "done"


def test_crawl_delay_slows_the_host_but_never_below_the_base_spacing() -> None:
    async def scenario() -> list[float]:
        clock = ManualClock()
        limiter = SourceLimiter(wait=5.0, clock=clock)
        limiter.slow_to(1.5)
        starts: list[float] = []

        async def task() -> None:
            starts.append(clock.now_ms())

        for _ in range(3):
            await limiter.run(task)
        limiter.slow_to(0.01)
        await limiter.run(task)
        return starts

    assert run(scenario) == [0, 1500, 3000, 3250]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -5, 10**400, "many", None, True])
@pytest.mark.parametrize("name", ["concurrency", "spacing", "per_minute", "wait"])
def test_absurd_limiter_settings_are_refused_naming_the_setting(bad: object, name: str) -> None:
    with pytest.raises(InvalidArgument, match=f"^{name} must be"):
        SourceLimiter(**{name: bad})  # type: ignore[arg-type]


def test_the_registry_gives_every_caller_the_same_limiter_per_host() -> None:
    registry = LimiterRegistry()
    first = registry.limiter_for("En.Wikipedia.org")
    assert registry.limiter_for("en.wikipedia.org.") is first
    assert registry.limiter_for("de.wikipedia.org") is not first
