"""Dropbox loader against a loopback stand-in of its API: a recursive listing continued by
cursor, a cursor met twice refused, files downloaded through files/download with their
path in the Dropbox-API-Arg header; a 500, an answer past the cap and a slow one reported."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from citesift.errors import InvalidArgument, LoadError
from citesift.sources.loaders.dropbox import load_dropbox_sync
from citesift.sources.loaders.limits import LoadLimits
from loader_servers import json_answer, slow_body, text_answer
from servers import MisbehavingServer, Query, Request, Route, serve

SECRET = "dropbox-secret"
LIMITS = LoadLimits(timeout_ms=1500, max_response_bytes=1000)


def file(path: str) -> dict[str, Any]:
    return {".tag": "file", "path_lower": path.lower(), "path_display": path, "rev": f"r-{path}"}


def by_body(answers: dict[str, Route]) -> Route:
    """Answer by the ``cursor`` (or, for a download, the ``path``) the request names."""

    def route(request: Request, query: Query) -> None:
        seen = request.server.owner.seen[-1]
        asked = json.loads(seen.body or seen.headers.get("Dropbox-API-Arg", "{}"))
        answers[asked.get("cursor") or asked.get("path") or ""](request, query)

    return route


@pytest.fixture
def dropbox() -> Iterator[MisbehavingServer]:
    with serve() as server:
        server.route("/2/files/list_folder", by_body({
            "/team": json_answer({"entries": [{".tag": "folder", "path_lower": "/team/docs"},
                                              file("/Team/Plan.md"), file("/Team/docs/Broken.md")],
                                  "has_more": True, "cursor": "c1"}),
            "/loop": json_answer({"entries": [], "has_more": True, "cursor": "k1"}),
        }))  # fmt: skip
        server.route("/2/files/list_folder/continue", by_body({
            "c1": json_answer({"entries": [file("/Team/Big.md"), file("/Team/Slow.md"),
                                           {".tag": "deleted", "path_lower": "/team/x"}],
                               "has_more": False, "cursor": "c2"}),
            "k1": json_answer({"entries": [], "has_more": True, "cursor": "k1"}),
        }))  # fmt: skip
        server.route(
            "/2/files/download",
            by_body(
                {
                    "/team/plan.md": text_answer("# Plan\n\nShip in May."),
                    "/team/docs/broken.md": text_answer("", status=500),
                    "/team/big.md": text_answer("x" * 5000),
                    "/team/slow.md": slow_body,
                }
            ),
        )
        yield server


def load(server: MisbehavingServer, path: str, **options: Any) -> Any:
    base = server.url("").rstrip("/")
    return load_dropbox_sync(path, SECRET, limits=LIMITS, api=base, content=base, **options)


def test_the_listing_is_continued_and_failures_reported(dropbox: MisbehavingServer) -> None:
    started = time.monotonic()
    loaded = load(dropbox, "/team")
    assert time.monotonic() - started < 8
    [plan] = loaded.documents
    assert plan.url == "dropbox:/Team/Plan.md" and plan.revision == "r-/Team/Plan.md"
    assert plan.title == "Plan"
    reasons = {f.source: f.reason for f in loaded.failures}
    assert reasons["dropbox:/Team/docs/Broken.md"].startswith("dropbox 500: ")
    assert reasons["dropbox:/Team/Big.md"] == "dropbox: response exceeds 1000 bytes"
    assert reasons["dropbox:/Team/Slow.md"] == "dropbox: timed out after 1.5s"
    first = dropbox.seen[0]
    assert first.method == "POST" and json.loads(first.body) == {"path": "/team", "recursive": True}
    assert first.headers["Authorization"] == f"Bearer {SECRET}"
    assert all(SECRET not in reason for reason in reasons.values())


def test_patterns_choose_the_files(dropbox: MisbehavingServer) -> None:
    loaded = load(dropbox, "/team", patterns=["Plan.md", "Big.md"])
    assert [d.url for d in loaded.documents] == ["dropbox:/Team/Plan.md"]
    asked = [s.headers.get("Dropbox-API-Arg") for s in dropbox.seen if s.path.endswith("download")]
    assert asked == ['{"path": "/team/plan.md"}', '{"path": "/team/big.md"}']


def test_a_repeated_cursor_is_an_error(dropbox: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match="dropbox: incomplete pagination"):
        load(dropbox, "/loop")


def test_bad_paths_and_no_files_ask_nothing(dropbox: MisbehavingServer) -> None:
    with pytest.raises(InvalidArgument):
        load(dropbox, "team")
    assert load(dropbox, "/team", max_files=0).documents == ()
    assert dropbox.seen == []
