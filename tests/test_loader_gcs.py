"""Cloud Storage loader against a loopback stand-in of the JSON API: pages followed by
``pageToken``, a token met twice refused, downloads with ``alt=media``; a 500, an answer
past the cap and a slow one reported; the access token asked for afresh each request."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from citesift.errors import InvalidArgument, LoadError
from citesift.sources.loaders.gcs import load_gcs, load_gcs_sync
from citesift.sources.loaders.limits import LoadLimits
from loader_servers import json_answer, slow_body, text_answer
from servers import MisbehavingServer, Query, Request, Route, serve

LIMITS = LoadLimits(timeout_ms=1500, max_response_bytes=1000)


def listing(pages: dict[str | None, Any]) -> Route:
    def route(request: Request, query: Query) -> None:
        json_answer(pages[query.get("pageToken")])(request, query)

    return route


def item(name: str) -> dict[str, str]:
    return {"name": name, "generation": f"g-{name}"}


@pytest.fixture
def gcs() -> Iterator[MisbehavingServer]:
    with serve() as server:
        server.route("/storage/v1/b/docs-bucket/o", listing({
            None: {"items": [item("kb/a.md"), item("kb/"), item("kb/broken.md")],
                   "nextPageToken": "p2"},
            "p2": {"items": [item("kb/big.md"), item("kb/slow.md")]},
        }))  # fmt: skip
        server.route("/storage/v1/b/docs-bucket/o/kb%2Fa.md", text_answer("# A\n\nAlpha."))
        server.route("/storage/v1/b/docs-bucket/o/kb%2Fbroken.md", text_answer("", status=500))
        server.route("/storage/v1/b/docs-bucket/o/kb%2Fbig.md", text_answer("x" * 5000))
        server.route("/storage/v1/b/docs-bucket/o/kb%2Fslow.md", slow_body)
        server.route("/storage/v1/b/cycle-bucket/o", listing({
            None: {"items": [], "nextPageToken": "t1"},
            "t1": {"items": [], "nextPageToken": "t1"},
        }))  # fmt: skip
        yield server


def test_pages_are_followed_and_failures_reported(gcs: MisbehavingServer) -> None:
    tokens = iter(["first", "second", "third", "fourth", "fifth", "sixth"])
    started = time.monotonic()
    loaded = load_gcs_sync("docs-bucket", "kb/", lambda: next(tokens), limits=LIMITS,
                           api=gcs.url("").rstrip("/"))  # fmt: skip
    assert time.monotonic() - started < 8
    [alpha] = loaded.documents
    assert alpha.url == "gs://docs-bucket/kb/a.md" and alpha.revision == "g-kb/a.md"
    assert alpha.title == "A"
    reasons = {f.source: f.reason for f in loaded.failures}
    assert reasons["gs://docs-bucket/kb/broken.md"].startswith("gcs 500: ")
    assert reasons["gs://docs-bucket/kb/big.md"] == "gcs: response exceeds 1000 bytes"
    assert reasons["gs://docs-bucket/kb/slow.md"] == "gcs: timed out after 1.5s"
    assert [s.headers["Authorization"] for s in gcs.seen[:3]] == [
        "Bearer first", "Bearer second", "Bearer third"]  # fmt: skip
    assert "alt=media" in gcs.seen[2].path and "pageToken=p2" in gcs.seen[1].path


def test_an_async_token_function_is_awaited(gcs: MisbehavingServer) -> None:
    async def token() -> str:
        return "async-token"

    loaded = asyncio.run(load_gcs("docs-bucket", "kb/", token, ["a.md"], limits=LIMITS,
                                  api=gcs.url("").rstrip("/")))  # fmt: skip
    assert len(loaded.documents) == 1
    assert gcs.seen[0].headers["Authorization"] == "Bearer async-token"


def test_a_repeated_page_token_is_an_error(gcs: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match="gcs: incomplete pagination"):
        load_gcs_sync("cycle-bucket", token="t", limits=LIMITS, api=gcs.url("").rstrip("/"))


def test_bad_buckets_and_no_files_ask_nothing(gcs: MisbehavingServer) -> None:
    with pytest.raises(InvalidArgument):
        load_gcs_sync("Bad/Bucket", api=gcs.url("").rstrip("/"))
    for count in (-1, 0, float("nan")):
        loaded = load_gcs_sync("docs-bucket", max_files=count, api=gcs.url("").rstrip("/"))
        assert loaded.documents == () and loaded.failures == ()
    assert gcs.seen == []
