"""OneDrive loader against a loopback stand-in of Microsoft Graph: folders walked once
each, ``@odata.nextLink`` followed, a link met twice or on another origin refused, files
downloaded from their own links without the token; a 500, an answer past the cap and a
slow one reported, the rest read."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from citesift.errors import LoadError
from citesift.sources.loaders.limits import LoadLimits
from citesift.sources.loaders.onedrive import load_onedrive_sync
from loader_servers import json_answer, slow_body, text_answer
from servers import MisbehavingServer, Query, Request, Route, serve

SECRET = "graph-secret-token"
LIMITS = LoadLimits(timeout_ms=1500, max_response_bytes=1000)


def file(server: MisbehavingServer, item_id: str, name: str) -> dict[str, Any]:
    return {"id": item_id, "name": name, "eTag": f"e-{item_id}",
            "file": {"mimeType": "text/markdown"},
            "@microsoft.graph.downloadUrl": server.url(f"/dl/{item_id}")}  # fmt: skip


def by_page(pages: dict[str | None, Any]) -> Route:
    def route(request: Request, query: Query) -> None:
        json_answer(pages[query.get("page")])(request, query)

    return route


@pytest.fixture
def graph() -> Iterator[MisbehavingServer]:
    with serve() as server:
        root = server.url("/v1.0/me/drive/root/children")
        server.route("/v1.0/me/drive/root/children", by_page({
            None: {"value": [{"id": "d1", "name": "docs", "folder": {}},
                             file(server, "a", "a.md")],
                   "@odata.nextLink": root + "?page=2"},
            "2": {"value": [file(server, "broken", "broken.md"), file(server, "big", "big.md"),
                            file(server, "slow", "slow.md"), {"id": "x", "name": "no-link"}]},
        }))  # fmt: skip
        server.route("/v1.0/me/drive/items/d1/children", json_answer({"value": [
            file(server, "guide", "guide.md"), {"id": "d1", "name": "again", "folder": {}},
        ]}))  # fmt: skip
        server.route("/dl/a", text_answer("# A\n\nFirst."))
        server.route("/dl/guide", text_answer("# Guide\n\nSecond."))
        server.route("/dl/broken", text_answer("no", status=500))
        server.route("/dl/big", text_answer("x" * 5000))
        server.route("/dl/slow", slow_body)
        cycle = server.url("/v1.0/drives/cycle/root/children")
        server.route("/v1.0/drives/cycle/root/children", by_page({
            None: {"value": [], "@odata.nextLink": cycle + "?page=2"},
            "2": {"value": [], "@odata.nextLink": cycle + "?page=2"},
        }))  # fmt: skip
        server.route("/v1.0/drives/away/root/children", json_answer(
            {"value": [], "@odata.nextLink": "https://elsewhere.test/v1.0/next"}))  # fmt: skip
        yield server


def load(server: MisbehavingServer, **options: Any) -> Any:
    api = server.url("").rstrip("/")
    return load_onedrive_sync(SECRET, limits=LIMITS, api=api, **options)


def test_folders_and_pages_are_walked_and_failures_reported(graph: MisbehavingServer) -> None:
    started = time.monotonic()
    loaded = load(graph)
    assert time.monotonic() - started < 8
    assert [d.url for d in loaded.documents] == ["onedrive:a", "onedrive:guide"]
    first = loaded.documents[0]
    assert first.title == "A" and first.revision == "e-a"
    assert first.metadata["name"] == "a.md" and first.metadata["mimeType"] == "text/markdown"
    reasons = {f.source: f.reason for f in loaded.failures}
    assert reasons["onedrive:broken"].startswith("onedrive 500: ")
    assert reasons["onedrive:big"] == "onedrive: response exceeds 1000 bytes"
    assert reasons["onedrive:slow"] == "onedrive: timed out after 1.5s"
    assert graph.hits("/v1.0/me/drive/items/d1/children") == 1
    listing = next(s for s in graph.seen if s.path.startswith("/v1.0/me/drive/root"))
    assert listing.headers["Authorization"] == f"Bearer {SECRET}"
    download = next(s for s in graph.seen if s.path == "/dl/a")
    assert "Authorization" not in download.headers


def test_patterns_and_max_files_choose_the_files(graph: MisbehavingServer) -> None:
    loaded = load(graph, patterns=["docs/*.md"])
    assert [d.url for d in loaded.documents] == ["onedrive:guide"]
    assert [d.url for d in load(graph, max_files=1).documents] == ["onedrive:a"]
    graph.seen.clear()
    assert load(graph, max_files=0).documents == () and graph.seen == []


def test_a_repeated_next_link_is_an_error(graph: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match="onedrive: incomplete pagination"):
        load(graph, drive_id="cycle")


def test_a_next_link_on_another_origin_is_never_followed(graph: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match=r"another origin: elsewhere\.test"):
        load(graph, drive_id="away")
