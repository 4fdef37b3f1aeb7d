"""fetch against a local server that misbehaves: every case ends in a clear outcome, in time."""

from __future__ import annotations

import asyncio
import hashlib
import time

import pytest

from citesift.model import Limited, Skipped, Snapshot
from citesift.net import (
    FetchPolicy,
    LimiterRefused,
    fetch,
    fetch_sync,
)
from measure import traced
from servers import (
    SAMPLE_TEXT,
    MisbehavingServer,
    Query,
    Request,
    loopback_policy,
    seconds_to_cancel,
    serve,
)

pytestmark = pytest.mark.timeout(30)
MIB = 1 << 20


def timed(url: str, chosen: FetchPolicy) -> tuple[object, float]:
    started = time.monotonic()
    outcome = fetch_sync(url, chosen)
    return outcome, time.monotonic() - started


def test_a_page_becomes_a_snapshot_named_by_the_sha256_of_its_body(
    server: MisbehavingServer,
) -> None:
    outcome = fetch_sync(server.url("/ok"), loopback_policy())
    assert isinstance(outcome, Snapshot)
    assert outcome.id == hashlib.sha256(outcome.body).hexdigest()
    assert (outcome.status, outcome.charset) == (200, "utf-8")
    assert outcome.url == outcome.final_url == server.url("/ok")
    assert outcome.header("Content-Type") == "text/html; charset=utf-8"
    assert b"Hello from the test server." in outcome.body
    assert outcome.fetched_at > 1_600_000_000_000


def test_requests_name_the_client_ask_for_compression_and_carry_no_cookie(
    server: MisbehavingServer,
) -> None:
    outcome = fetch_sync(server.url("/set-cookie?to=/ok"), loopback_policy(max_redirects=1))
    assert isinstance(outcome, Snapshot)
    first, second = server.seen
    assert first.headers["User-Agent"] == "citesift-test/1.0 (https://example.org/contact)"
    assert first.headers["Host"] == f"127.0.0.1:{server.port}"
    assert "gzip" in first.headers["Accept-Encoding"]
    assert "Cookie" not in second.headers


def test_bytes_trickling_past_the_deadline_end_in_skipped(server: MisbehavingServer) -> None:
    outcome, elapsed = timed(server.url("/slowloris?every=0.05"), loopback_policy(deadline=0.5))
    assert isinstance(outcome, Skipped)
    assert outcome.status is None and "deadline" in outcome.reason
    assert elapsed < 2.5


def test_a_server_slower_than_the_deadline_ends_in_skipped(server: MisbehavingServer) -> None:
    outcome, elapsed = timed(server.url("/slow?delay=10"), loopback_policy(deadline=0.3))
    assert outcome == Skipped(None, "no complete answer within the 0.3 s deadline")
    assert elapsed < 5


def test_the_deadline_bounds_all_hops_together(server: MisbehavingServer) -> None:
    def slow_hop(request: Request, query: Query) -> None:
        time.sleep(0.3)
        request.answer(302, b"", {"Location": query["to"]})

    server.route("/slow-hop", slow_hop)
    chain = server.url("/slow-hop?to=/slow-hop%3Fto%3D/slow-hop%253Fto%253D/ok")
    within = fetch_sync(chain, loopback_policy(max_redirects=5, deadline=3))
    assert isinstance(within, Snapshot) and within.final_url == server.url("/ok")
    outcome, elapsed = timed(chain, loopback_policy(max_redirects=5, deadline=0.7))
    assert outcome == Skipped(None, "no complete answer within the 0.7 s deadline")
    assert elapsed < 2.5  # each hop alone (0.3 s) is within the deadline; together they are not


def test_an_endless_chunked_body_stops_at_the_cap(server: MisbehavingServer) -> None:
    outcome, elapsed = timed(server.url("/endless"), loopback_policy(max_body_bytes=MIB))
    assert isinstance(outcome, Skipped)
    assert outcome.status == 200 and "cap" in outcome.reason
    assert elapsed < 5


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd"])
def test_a_1_gib_compression_bomb_stops_at_the_cap_in_bounded_time_and_memory(
    server: MisbehavingServer, encoding: str
) -> None:
    url, policy = server.url(f"/bomb?encoding={encoding}"), loopback_policy(max_body_bytes=MIB)
    outcome, elapsed, peak = traced(lambda: fetch_sync(url, policy))
    assert isinstance(outcome, Skipped)
    assert outcome.status == 200 and "cap" in outcome.reason
    assert elapsed < 5
    assert peak < 16 * MIB


def test_a_gzipped_chunked_body_without_length_within_the_cap_is_read_whole(
    server: MisbehavingServer,
) -> None:
    outcome = fetch_sync(
        server.url(f"/gzip-bomb?size={3 * MIB}"), loopback_policy(max_body_bytes=4 * MIB)
    )
    assert isinstance(outcome, Snapshot)
    assert outcome.body == bytes(3 * MIB)
    assert outcome.header("content-encoding") == "gzip"


@pytest.mark.parametrize("encoding", ["deflate", "br", "zstd"])
def test_other_encodings_within_the_cap_are_decoded(
    server: MisbehavingServer, encoding: str
) -> None:
    outcome = fetch_sync(server.url(f"/bomb?encoding={encoding}&size=300000"), loopback_policy())
    assert isinstance(outcome, Snapshot)
    assert outcome.body == bytes(300_000)


def test_a_declared_length_over_the_cap_is_refused_unread(server: MisbehavingServer) -> None:
    outcome = fetch_sync(server.url("/lying-length?declared=2000000&sent=10"), loopback_policy())
    assert outcome == Skipped(
        200, "declared length 2,000,000 bytes over the cap of 1,500,000 bytes"
    )


@pytest.mark.parametrize("path", ["/lying-length?declared=5000&sent=10", "/close-mid-body"])
def test_a_body_shorter_than_declared_or_cut_mid_way_ends_in_skipped(
    server: MisbehavingServer, path: str
) -> None:
    outcome, elapsed = timed(server.url(path), loopback_policy())
    assert isinstance(outcome, Skipped)
    assert outcome.status is None and "closed" in outcome.reason
    assert elapsed < 2


def test_a_http_error_answers_skipped_with_its_status_or_a_snapshot_when_asked(
    server: MisbehavingServer,
) -> None:
    assert fetch_sync(server.url("/missing"), loopback_policy()) == Skipped(404, "HTTP 404")
    kept = fetch_sync(server.url("/missing"), loopback_policy(error_pages=True))
    assert isinstance(kept, Snapshot)
    assert (kept.status, kept.body) == (404, b"not found")


def test_a_wrong_http_charset_is_recorded_and_decoding_replaces_bad_bytes(
    server: MisbehavingServer,
) -> None:
    outcome = fetch_sync(server.url("/charset?declared=utf-8&actual=cp1252"), loopback_policy())
    assert isinstance(outcome, Snapshot)
    assert outcome.charset == "utf-8"
    assert "caf\ufffd" in outcome.text()


def test_a_meta_charset_is_used_when_http_names_none(server: MisbehavingServer) -> None:
    outcome = fetch_sync(server.url("/charset?actual=cp1252&meta=iso-8859-1"), loopback_policy())
    assert isinstance(outcome, Snapshot)
    assert outcome.charset == "cp1252"
    assert SAMPLE_TEXT in outcome.text()


def test_an_undeclared_utf8_page_is_detected(server: MisbehavingServer) -> None:
    outcome = fetch_sync(server.url("/charset?actual=utf-8"), loopback_policy())
    assert isinstance(outcome, Snapshot)
    assert outcome.charset == "utf-8"
    assert SAMPLE_TEXT in outcome.text()


def test_a_bogus_http_charset_falls_through_to_meta(server: MisbehavingServer) -> None:
    outcome = fetch_sync(
        server.url("/charset?declared=x-bogus&actual=utf-8&meta=utf-8"), loopback_policy()
    )
    assert isinstance(outcome, Snapshot)
    assert outcome.charset == "utf-8"


def test_on_send_runs_once_before_the_request_is_sent(server: MisbehavingServer) -> None:
    calls: list[int] = []
    outcome = asyncio.run(
        fetch(server.url("/ok"), loopback_policy(), on_send=lambda: calls.append(len(server.seen)))
    )
    assert isinstance(outcome, Snapshot)
    assert calls == [0]


@pytest.mark.parametrize("error", [LimiterRefused("caller"), RuntimeError("quota store down")])
def test_on_send_refusing_answers_limited_with_nothing_sent(
    server: MisbehavingServer, error: Exception
) -> None:
    def refuse() -> None:
        raise error

    outcome = asyncio.run(fetch(server.url("/ok"), loopback_policy(), on_send=refuse))
    assert outcome == Limited("caller")
    assert server.seen == []


def test_the_callers_cancellation_propagates(server: MisbehavingServer) -> None:
    slow = server.url("/slowloris")
    assert seconds_to_cancel(lambda: fetch(slow, loopback_policy(deadline=10))) < 2


def test_an_ipv6_loopback_server_is_reached_by_name_and_by_literal() -> None:
    with serve(bind="::1") as v6:
        chosen = loopback_policy(allow_networks=("::1/128",), resolver=lambda host: ["::1"])
        by_name = fetch_sync(f"http://v6.test:{v6.port}/ok", chosen)
        by_literal = fetch_sync(v6.url("/ok"), chosen)
    assert isinstance(by_name, Snapshot) and isinstance(by_literal, Snapshot)
    assert [seen.headers["Host"] for seen in v6.seen] == [
        f"v6.test:{v6.port}",
        f"[::1]:{v6.port}",
    ]


def test_when_an_address_refuses_the_connection_the_next_checked_one_is_tried(
    server: MisbehavingServer,
) -> None:
    chosen = loopback_policy(
        allow_networks=("127.0.0.0/8",), resolver=lambda host: ["127.0.0.9", "127.0.0.1"]
    )
    outcome = fetch_sync(f"http://two.test:{server.port}/ok", chosen)
    assert isinstance(outcome, Snapshot)
    assert server.seen[0].headers["Host"] == f"two.test:{server.port}"
    only_refusing = chosen.with_(resolver=lambda host: ["127.0.0.9"])
    refused = fetch_sync(f"http://two.test:{server.port}/ok", only_refusing)
    assert isinstance(refused, Skipped) and "ConnectError" in refused.reason
