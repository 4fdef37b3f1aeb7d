"""One host's budget shared by several processes through the store."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citesift.net import LimiterRefused, LimiterRegistry, ManualClock, SourceLimiter
from citesift.store import SQLiteStore
from citesift.store.limits import StoreBudget
from servers import serve

pytestmark = pytest.mark.timeout(60)


def registry(path: Path, clock: ManualClock, **settings: float) -> LimiterRegistry:
    """A registry as one process would hold it: its own connection to the shared file."""
    budget = StoreBudget(SQLiteStore(path))
    return LimiterRegistry(lambda: SourceLimiter(clock=clock, **settings), budget)  # type: ignore[arg-type]


async def nothing() -> str:
    return "done"


def test_starts_in_two_processes_keep_the_spacing_between_them(tmp_path: Path) -> None:
    clock = ManualClock()
    first = registry(tmp_path / "s.db", clock).limiter_for("en.wikipedia.org")
    second = registry(tmp_path / "s.db", clock).limiter_for("en.wikipedia.org")
    starts: list[float] = []

    async def stamped() -> None:
        starts.append(clock.now_ms())

    async def scenario() -> None:
        await first.run(stamped)
        await second.run(stamped)
        await first.run(stamped)

    asyncio.run(scenario())
    assert starts == [0, 250, 500]


def test_the_minute_budget_and_blocks_are_shared(tmp_path: Path) -> None:
    clock = ManualClock()
    first = registry(tmp_path / "s.db", clock, per_minute=2, spacing=0).limiter_for("h")
    second = registry(tmp_path / "s.db", clock, per_minute=2, spacing=0).limiter_for("h")

    async def scenario() -> list[str]:
        await first.run(nothing)
        await first.run(nothing)
        reasons = []
        with pytest.raises(LimiterRefused) as refused:
            await second.run(nothing)
        reasons.append(refused.value.reason)
        clock.advance(60_001)
        first.block("30")
        with pytest.raises(LimiterRefused) as refused:
            await second.run(nothing)
        reasons.append(refused.value.reason)
        clock.advance(30_001)
        reasons.append(await second.run(nothing))
        return reasons

    assert asyncio.run(scenario()) == ["minute", "blocked", "done"]


WORKER = """
import sys, time
from citesift.net import ClientIdentity, FetchPolicy, fetch_sync
from citesift.sources.snapshots import shared_fetcher
from citesift.store import SQLiteStore

url, path, start_at = sys.argv[1], sys.argv[2], float(sys.argv[3])
identity = ClientIdentity("citesift-test", "1.0", "https://example.org/contact")
policy = FetchPolicy(identity, allow_networks=("127.0.0.1/32",), robots=False)
fetch_sync(url + "/warm-up", policy)
shared = shared_fetcher(SQLiteStore(path))
time.sleep(max(0.0, start_at - time.time()))
for _ in range(3):
    print(type(shared.fetch_sync(url + "/ok", policy)).__name__, flush=True)
"""


@pytest.mark.slow
def test_two_real_processes_fetching_one_host_stay_250_ms_apart(tmp_path: Path) -> None:
    with serve() as server:
        start_at = str(time.time() + 2.0)
        workers = [
            subprocess.Popen(
                [sys.executable, "-c", WORKER, server.url(""), str(tmp_path / "s.db"), start_at],
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outputs = [worker.communicate(timeout=30)[0].split() for worker in workers]
        arrivals = sorted(seen.at for seen in server.seen if seen.path == "/ok")
    assert outputs == [["Snapshot"] * 3] * 2
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    assert len(arrivals) == 6
    assert min(gaps) >= 0.23, gaps
