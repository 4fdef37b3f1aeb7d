"""The jobs every store keeps, held against each backend (SQLite and PostgreSQL): a job's
status leaves running once, its results page in order within their bounds, a cancelled
job refuses more results but the one partial result its runner hands over, and a reopened
store reports the jobs left running as failed while keeping every result finished."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from citesift.errors import InvalidArgument
from citesift.store import AnyStore, open_store
from citesift.store.holders import holder_gone, holder_name, is_holder_name
from citesift.store.jobs import INTERRUPTED, JobStore

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def store(store_location: str) -> Iterator[AnyStore]:
    with open_store(store_location) as opened:
        yield opened


def test_a_job_starts_running_and_ends_once(store: AnyStore) -> None:
    jobs = JobStore(store)
    job = jobs.create("crawl", {"url": "https://a.example/", "limit": 3})
    assert job.status == "running" and not job.ended and job.request["limit"] == 3
    assert job.results == job.errors == 0 and job.created_at == job.updated_at
    assert jobs.expect(job.id, 3)
    assert jobs.finish(job.id, "completed")
    assert not jobs.finish(job.id, "failed", "too late")  # an ended job keeps its status
    ended = jobs.get(job.id)
    assert ended is not None and ended.status == "completed" and ended.error is None
    assert ended.total == 3 and ended.ended
    assert jobs.get("0" * 8 + "-unknown") is None and jobs.get("'; DROP TABLE jobs") is None


def test_results_and_errors_page_in_order_within_their_bounds(store: AnyStore) -> None:
    jobs = JobStore(store)
    job = jobs.create("batch", {"urls": []})
    for number in range(7):
        assert jobs.add(job.id, "result", {"n": number, "text": "x" * 100})
    assert jobs.add(job.id, "error", {"url": "https://a.example/x", "error": "HTTP 404"})
    assert [item["n"] for item in jobs.items(job.id, "result", 0, 3)] == [0, 1, 2]
    assert [item["n"] for item in jobs.items(job.id, "result", 5, 3)] == [5, 6]
    assert jobs.items(job.id, "result", 7) == []
    assert [item["n"] for item in jobs.items(job.id, "result", 2, 100, max_bytes=250)] == [2, 3]
    assert len(jobs.items(job.id, "result", 0, 100, max_bytes=1)) == 1  # one, however big
    assert jobs.items(job.id, "error") == [{"url": "https://a.example/x", "error": "HTTP 404"}]
    counted = jobs.get(job.id)
    assert counted is not None and (counted.results, counted.errors) == (7, 1)
    with pytest.raises(InvalidArgument, match="limit"):
        jobs.items(job.id, "result", 0, 1000)


def test_a_cancelled_job_refuses_results_so_its_runner_stops(store: AnyStore) -> None:
    jobs = JobStore(store)
    job = jobs.create("crawl", {"url": "https://a.example/"})
    assert jobs.add(job.id, "result", {"n": 0})
    assert jobs.finish(job.id, "cancelled")
    assert not jobs.add(job.id, "result", {"n": 1}) and not jobs.expect(job.id, 9)
    kept = jobs.get(job.id)
    assert kept is not None and kept.status == "cancelled" and kept.results == 1


def test_a_job_cancelled_keeps_the_one_partial_result_its_runner_hands_over(
    store: AnyStore,
) -> None:
    jobs = JobStore(store)
    job = jobs.create("extract", {"urls": []})
    assert not jobs.keep_partial(job.id, {"partial": 0})  # a running job takes results
    assert jobs.finish(job.id, "cancelled")
    assert not JobStore(store, owner="another-server").keep_partial(job.id, {"partial": 1})
    assert jobs.keep_partial(job.id, {"partial": 2})
    assert not jobs.keep_partial(job.id, {"partial": 3})  # one, and no more
    assert not jobs.add(job.id, "result", {"late": True})
    assert jobs.items(job.id, "result") == [{"partial": 2}]
    ended = jobs.create("extract", {"urls": []})
    assert jobs.finish(ended.id, "completed") and not jobs.keep_partial(ended.id, {})


def test_jobs_left_by_owners_named_as_earlier_versions_did_are_failed_on_start(
    store_location: str,
) -> None:
    here = socket.gethostname()
    old = [f"{here}:8080", f"{here}:mcp:stdio", "local"]  # machine:port, transport, fixed
    with open_store(store_location) as first:
        left = [JobStore(first, owner=o).create("crawl", {"url": "x"}).id for o in old]
        live = JobStore(first, owner=holder_name()).create("crawl", {"url": "y"}).id
        afar = JobStore(first, owner="elsewhere/12/ab").create("crawl", {"url": "z"}).id
    with open_store(store_location) as second:
        jobs = JobStore(second)
        assert jobs.interrupted() == len(old)
        for job in left:
            failed = jobs.get(job)
            assert failed is not None and (failed.status, failed.error) == ("failed", INTERRUPTED)
        for job in (live, afar):  # a live process's, and another machine's, are left to them
            kept = jobs.get(job)
            assert kept is not None and kept.status == "running"


def test_a_reopened_store_reports_jobs_left_running_as_failed_keeps_results_and_reruns_them(
    store_location: str,
) -> None:
    with open_store(store_location) as first:
        jobs = JobStore(first, owner="server-a")
        done = jobs.create("crawl", {"url": "https://a.example/"})
        jobs.add(done.id, "result", {"url": "https://a.example/"})
        jobs.finish(done.id, "completed")
        cut = jobs.create("crawl", {"url": "https://b.example/"})
        jobs.add(cut.id, "result", {"url": "https://b.example/"})
        other = JobStore(first, owner=holder_name()).create("agent", {"prompt": "p"})  # alive
    with open_store(store_location) as second:
        jobs = JobStore(second, owner="server-a")
        assert jobs.interrupted() == 1
        failed = jobs.get(cut.id)
        assert failed is not None and failed.status == "failed" and failed.error == INTERRUPTED
        assert jobs.items(cut.id, "result") == [{"url": "https://b.example/"}]
        kept = jobs.get(done.id)
        assert kept is not None and kept.status == "completed"
        assert jobs.items(done.id, "result") == [{"url": "https://a.example/"}]
        elsewhere = jobs.get(other.id)  # another server's job is its own to report
        assert elsewhere is not None and elsewhere.status == "running"
        again = JobStore(second, owner="server-c")
        assert again.reopen(cut.id)  # runs again under its new owner, its results kept
        assert not again.reopen(cut.id) and not again.reopen(done.id)  # running, completed
        going = again.get(cut.id)
        assert going is not None and (going.status, going.owner, going.error) == (
            "running", "server-c", None,
        )  # fmt: skip
        assert again.add(cut.id, "result", {"url": "https://b.example/2"})
        assert [item["url"] for item in again.items(cut.id, "result")] == [
            "https://b.example/", "https://b.example/2",
        ]  # fmt: skip


def test_ended_jobs_are_forgotten_after_their_time_and_running_ones_never(
    store: AnyStore,
) -> None:
    jobs = JobStore(store)
    ended = jobs.create("batch", {"urls": ["https://a.example/"]})
    jobs.add(ended.id, "result", {"n": 0})
    jobs.finish(ended.id, "completed")
    running = jobs.create("batch", {"urls": ["https://b.example/"]})
    assert jobs.running() == 1
    assert jobs.forget(before_ms=2**62) == 1
    assert jobs.get(ended.id) is None and jobs.items(ended.id, "result") == []
    assert jobs.get(running.id) is not None


def test_bad_arguments_are_refused_by_name(store: AnyStore) -> None:
    jobs = JobStore(store)
    with pytest.raises(InvalidArgument, match="kind"):
        jobs.create("deep-research", {})
    with pytest.raises(InvalidArgument, match="request"):
        jobs.create("crawl", {"text": "x" * (2 << 20)})
    with pytest.raises(InvalidArgument, match=r"request\.include_paths\.1 must be text UTF-8"):
        jobs.create("crawl", {"include_paths": ["^/a", "\ud800"]})  # not a UnicodeEncodeError
    with pytest.raises(InvalidArgument, match=r"request\.urls\.0 must be text UTF-8"):
        jobs.create("batch", {"urls": ("\ud800",)})  # a tuple is walked as a list
    with pytest.raises(InvalidArgument, match="owner"):
        JobStore(store, owner="")
    job = jobs.create("crawl", {})
    with pytest.raises(InvalidArgument, match="status"):
        jobs.finish(job.id, "running")  # type: ignore[arg-type]


def test_a_name_with_digits_int_cannot_read_is_no_holder_s() -> None:
    assert is_holder_name(holder_name())
    assert not is_holder_name("machine/²/ab12") and not holder_gone("machine/²/ab12")
