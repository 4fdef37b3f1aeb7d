"""S3 loader: against a real S3-compatible server on loopback (moto's server mode), and
against a stand-in whose listing pages and objects misbehave: a 500 on one object, one past
the byte cap, one slower than the deadline, a continuation token met twice."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import boto3
import pytest
from moto.server import ThreadedMotoServer

from citesift.errors import LOAD_FAILED, PEER_MISSING, InvalidArgument, LoadError
from citesift.sources.loaders.limits import LoadLimits
from citesift.sources.loaders.s3 import S3Prefix, load_s3, load_s3_sync, parse_s3
from loader_servers import slow_body, text_answer
from made_documents import pdf
from s3_server import S3StandIn
from servers import MisbehavingServer, seconds_to_cancel, serve

SECRET = "s3-secret-key-never-shown"
LIMITS = LoadLimits(timeout_ms=1500, max_response_bytes=1000)


@pytest.fixture(autouse=True)
def credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    """Credentials from the environment only: no file of this machine is read."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


@pytest.fixture
def moto_url() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def test_a_prefix_loads_from_an_s3_compatible_server(moto_url: str) -> None:
    s3 = boto3.client("s3", endpoint_url=moto_url)
    s3.create_bucket(Bucket="team-docs")
    s3.put_object(Bucket="team-docs", Key="notes/plan.md", Body=b"# Plan\n\n## Goals\n\nShip it.")
    s3.put_object(Bucket="team-docs", Key="notes/report.bin", Body=pdf(["Glaciers retreat."]))
    s3.put_object(Bucket="team-docs", Key="notes/skip.txt", Body=b"not chosen")
    s3.put_object(Bucket="team-docs", Key="other/x.md", Body=b"# Elsewhere")
    s3.put_object(Bucket="team-docs", Key="notes/folder/", Body=b"")
    loaded = load_s3_sync(S3Prefix("team-docs", "notes/"), ["*.md", "*.bin"],
                          endpoint_url=moto_url)  # fmt: skip
    assert [d.url for d in loaded.documents] == [
        "s3://team-docs/notes/plan.md",
        "s3://team-docs/notes/report.bin",
    ]
    plan, report = loaded.documents
    assert plan.title == "Plan" and plan.blocks[-1].section == ("Plan", "Goals")
    etag = s3.head_object(Bucket="team-docs", Key="notes/plan.md")["ETag"].strip('"')
    assert plan.revision == etag and plan.metadata["key"] == "notes/plan.md"
    assert "Glaciers retreat." in report.blocks[0].text
    assert loaded.failures == ()


@pytest.fixture
def stand_in() -> Iterator[tuple[MisbehavingServer, S3StandIn]]:
    with serve() as server:
        yield server, S3StandIn(server, "bucket")


def test_pages_are_followed_and_failed_objects_reported(
    stand_in: tuple[MisbehavingServer, S3StandIn],
) -> None:
    server, s3 = stand_in
    s3.pages = {None: (["d/a.md", "d/broken.md"], "t2"), "t2": (["d/big.md", "d/slow.md"], None)}
    s3.objects = {
        "d/a.md": text_answer("# A\n\nFirst note.", etag="v1"),
        "d/broken.md": text_answer("<Error/>", status=500),
        "d/big.md": text_answer("x" * 5000),
        "d/slow.md": slow_body,
    }
    s3.serve_objects()
    started = time.monotonic()
    loaded = load_s3_sync(S3Prefix("bucket", "d/"), limits=LIMITS, endpoint_url=server.url(""))
    assert time.monotonic() - started < 6
    assert [d.title for d in loaded.documents] == ["A"]
    assert loaded.documents[0].revision == "v1"
    reasons = {f.source: f.reason for f in loaded.failures}
    assert reasons == {
        "s3://bucket/d/broken.md": "s3 500: s3://bucket/d/broken.md",
        "s3://bucket/d/big.md": "s3: response exceeds 1000 bytes",
        "s3://bucket/d/slow.md": "s3: timed out after 1500ms",
    }
    assert all(SECRET not in reason for reason in reasons.values())
    listings = [seen.path for seen in server.seen if seen.path.startswith("/bucket?")]
    assert len(listings) == 2 and "continuation-token=t2" in listings[1]


def test_a_repeated_continuation_token_is_an_error(
    stand_in: tuple[MisbehavingServer, S3StandIn],
) -> None:
    server, s3 = stand_in
    s3.pages = {None: (["a.md"], "t1"), "t1": (["b.md"], "t2"), "t2": (["c.md"], "t1")}
    with pytest.raises(LoadError, match="incomplete pagination") as caught:
        load_s3_sync(S3Prefix("bucket"), limits=LIMITS, endpoint_url=server.url(""))
    assert caught.value.code == LOAD_FAILED


def test_every_object_failing_is_an_error(stand_in: tuple[MisbehavingServer, S3StandIn]) -> None:
    server, s3 = stand_in
    s3.pages = {None: (["a.md"], None)}
    s3.objects = {"a.md": text_answer("no", status=500)}
    s3.serve_objects()
    with pytest.raises(LoadError, match="s3: all eligible downloads failed"):
        load_s3_sync(S3Prefix("bucket"), limits=LIMITS, endpoint_url=server.url(""))


def test_no_files_asked_for_means_no_request(stand_in: tuple[MisbehavingServer, S3StandIn]) -> None:
    server, _ = stand_in
    loaded = load_s3_sync(S3Prefix("bucket"), max_files=0, endpoint_url=server.url(""))
    assert loaded.documents == () and server.seen == []


def test_without_boto3_the_peer_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "boto3", None)
    with pytest.raises(LoadError) as caught:
        load_s3_sync(S3Prefix("bucket"), endpoint_url="http://127.0.0.1:9")
    assert caught.value.code == PEER_MISSING and "citesift[s3]" in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "bucket", "prefix"),
    [("s3://bucket", "bucket", ""), ("s3://my.bucket/a/b/", "my.bucket", "a/b/")],
)
def test_s3_sources_are_parsed(spec: str, bucket: str, prefix: str) -> None:
    assert parse_s3(spec) == S3Prefix(bucket, prefix)


@pytest.mark.parametrize("spec", ["s3://", "s3://UPPER/x", "s3://a/x", "gs://bucket/x"])
def test_bad_s3_sources_are_refused(spec: str) -> None:
    with pytest.raises(InvalidArgument):
        parse_s3(spec)


def test_the_callers_cancellation_is_never_swallowed(
    stand_in: tuple[MisbehavingServer, S3StandIn],
) -> None:
    server, s3 = stand_in
    s3.pages = {None: (["slow.md"], None)}
    s3.objects = {"slow.md": slow_body}
    s3.serve_objects()
    patient = LoadLimits(timeout_ms=60_000)
    spent = seconds_to_cancel(
        lambda: load_s3(S3Prefix("bucket"), limits=patient, endpoint_url=server.url(""))
    )
    assert spent < 2
