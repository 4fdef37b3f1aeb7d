"""The job runner other faces share (the HTTP API, the MCP server): a job's work runs in the
background and ends completed, failed with its reason, or cancelled, here or by another
process through the store; a runner takes a bounded number at once, and stopping it leaves
no job running."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from citesift.jobs import STOPPED, JobRunner, JobsBusy, JobSink
from citesift.store import SQLiteStore
from citesift.store.jobs import JobStore

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def jobs(tmp_path: Path) -> Iterator[JobStore]:
    with SQLiteStore(tmp_path / "store.db") as store:
        yield JobStore(store)


async def settle(jobs: JobStore, job: str) -> str:
    """The job's status once it has ended."""
    for _ in range(200):
        found = jobs.get(job)
        assert found is not None
        if found.ended:
            return found.status
        await asyncio.sleep(0.01)
    raise AssertionError("the job never ended")


def test_work_that_returns_completes_and_work_that_raises_fails_with_why(jobs: JobStore) -> None:
    async def counts(sink: JobSink) -> None:
        sink.expect(2)
        sink.result({"n": 0})
        sink.error({"url": "https://a.example/", "error": "HTTP 404"})
        sink.result({"n": 1})

    async def breaks(sink: JobSink) -> None:
        sink.result({"n": 0})
        raise ValueError("the site went away")

    async def scenario() -> tuple[str, str]:
        runner = JobRunner(jobs)
        done = runner.start("batch", {"urls": 2}, counts)
        broken = runner.start("batch", {"urls": 1}, breaks)
        return await settle(jobs, done.id), await settle(jobs, broken.id)

    assert asyncio.run(scenario()) == ("completed", "failed")
    ended = [job for job in (jobs.get(j) for j in _ids(jobs)) if job is not None]
    by_status = {job.status: job for job in ended}
    assert by_status["completed"].results == 2 and by_status["completed"].errors == 1
    assert by_status["failed"].error == "the site went away" and by_status["failed"].results == 1


def test_a_job_cancelled_here_or_by_another_process_stops(jobs: JobStore) -> None:
    steps: list[int] = []

    async def endless(sink: JobSink) -> None:
        for step in range(1000):
            steps.append(step)
            sink.result({"n": step})
            await asyncio.sleep(0.01)

    async def scenario() -> None:
        runner = JobRunner(jobs)
        here = runner.start("crawl", {}, endless)
        await asyncio.sleep(0.05)
        assert runner.cancel(here.id) and not runner.cancel(here.id)
        assert await settle(jobs, here.id) == "cancelled"
        elsewhere = runner.start("crawl", {}, endless)
        await asyncio.sleep(0.05)
        assert jobs.finish(elsewhere.id, "cancelled")  # as another process does, in the store
        before = len(steps)
        await asyncio.sleep(0.1)
        assert len(steps) <= before + 1  # its next result was refused, and it stopped
        await runner.aclose()

    asyncio.run(scenario())


def test_a_runner_takes_a_bounded_number_and_stopping_it_fails_the_rest(jobs: JobStore) -> None:
    async def waits(sink: JobSink) -> None:
        await asyncio.sleep(60)

    async def scenario() -> list[str]:
        runner = JobRunner(jobs, max_running=2)
        started = [runner.start("agent", {"n": n}, waits) for n in range(2)]
        with pytest.raises(JobsBusy):
            runner.start("agent", {"n": 3}, waits)
        await runner.aclose()
        return [await settle(jobs, job.id) for job in started]

    assert asyncio.run(scenario()) == ["failed", "failed"]
    assert {job.error for job in map(jobs.get, _ids(jobs)) if job is not None} == {STOPPED}


def _ids(jobs: JobStore) -> list[str]:
    with jobs.store.reading() as conn:
        return [row[0] for row in conn.execute("SELECT id FROM jobs").fetchall()]
