"""Notion loader against a loopback stand-in of the blocks API: pages of blocks followed by
their cursor in order, a cursor cycle and a missing cursor refused, a 500, an answer past
the byte cap and one slower than the deadline each an error naming the service."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from citesift.errors import LOAD_FAILED, InvalidArgument, LoadError
from citesift.sources.loaders.limits import LoadLimits
from citesift.sources.loaders.notion import load_notion_page_sync
from loader_servers import json_answer, slow_body, text_answer
from servers import MisbehavingServer, Query, Request, Route, serve

SECRET = "secret_notion_token"
LIMITS = LoadLimits(timeout_ms=1500, max_response_bytes=2000)


def block(kind: str, text: str) -> dict[str, Any]:
    return {"type": kind, kind: {"rich_text": [{"plain_text": text}]}}


def paged(pages: dict[str | None, dict[str, Any]]) -> Route:
    """A children route answering the page for the ``start_cursor`` asked."""

    def route(request: Request, query: Query) -> None:
        json_answer(pages[query.get("start_cursor")])(request, query)

    return route


@pytest.fixture
def notion() -> Iterator[MisbehavingServer]:
    with serve() as server:
        server.route(
            "/v1/blocks/page1/children",
            paged({
                None: {"results": [block("heading_1", "Page1"), block("paragraph", "first"),
                                   {"type": "image", "image": {}}],
                       "has_more": True, "next_cursor": "c2"},
                "c2": {"results": [block("heading_2", "Page2"), block("paragraph", "second")],
                       "has_more": False, "next_cursor": None},
            }),
        )  # fmt: skip
        server.route(
            "/v1/blocks/cycle/children",
            paged({
                None: {"results": [], "has_more": True, "next_cursor": "a"},
                "a": {"results": [], "has_more": True, "next_cursor": "b"},
                "b": {"results": [], "has_more": True, "next_cursor": "a"},
            }),
        )  # fmt: skip
        server.route(
            "/v1/blocks/nocursor/children",
            json_answer({"results": [], "has_more": True, "next_cursor": None}),
        )
        server.route("/v1/blocks/fails/children", text_answer("down", status=500))
        server.route("/v1/blocks/huge/children", text_answer("x" * 5000))
        server.route("/v1/blocks/slow/children", slow_body)
        server.route("/v1/blocks/garbled/children", text_answer("{not json"))
        yield server


def load(server: MisbehavingServer, page: str, **options: Any) -> Any:
    return load_notion_page_sync(page, SECRET, LIMITS, api=server.url("").rstrip("/"), **options)


def test_pages_of_blocks_are_read_in_order(notion: MisbehavingServer) -> None:
    document = load(notion, "page1")
    assert [(b.kind, b.section, b.text) for b in document.blocks] == [
        ("heading", (), "Page1"),
        ("paragraph", ("Page1",), "first"),
        ("heading", ("Page1",), "Page2"),
        ("paragraph", ("Page1", "Page2"), "second"),
    ]
    assert document.url == "notion://page1" and document.title == "Page1"
    first, second = notion.seen
    assert first.path == "/v1/blocks/page1/children?page_size=100"
    assert second.path == "/v1/blocks/page1/children?page_size=100&start_cursor=c2"
    assert first.headers["Notion-Version"] == "2022-06-28"
    assert first.headers["Authorization"] == f"Bearer {SECRET}"


def test_a_cursor_cycle_is_an_error(notion: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match="incomplete pagination") as caught:
        load(notion, "cycle")
    assert caught.value.code == LOAD_FAILED and len(notion.seen) == 3


def test_more_promised_without_a_cursor_is_an_error(notion: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match="incomplete pagination"):
        load(notion, "nocursor")


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ("fails", r"notion 500: http://127\.0\.0\.1:\d+/v1/blocks/fails/children$"),
        ("huge", r"^notion: response exceeds 2000 bytes$"),
        ("slow", r"^notion: timed out after 1\.5s$"),
        ("garbled", r"^notion: failed to read/parse response body$"),
    ],
)
def test_failures_are_errors_that_name_the_service(
    notion: MisbehavingServer, page: str, message: str
) -> None:
    started = time.monotonic()
    with pytest.raises(LoadError, match=message) as caught:
        load(notion, page)
    assert time.monotonic() - started < 3
    assert SECRET not in str(caught.value)


def test_the_token_comes_from_the_environment(
    notion: MisbehavingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTION_TOKEN", "from-env")
    load_notion_page_sync("page1", None, LIMITS, api=notion.url("").rstrip("/"))
    assert notion.seen[0].headers["Authorization"] == "Bearer from-env"


@pytest.mark.parametrize("page", ["", "a/b", "../x", "x" * 65, 7])
def test_bad_page_ids_are_refused_before_any_request(
    notion: MisbehavingServer, page: object
) -> None:
    with pytest.raises(InvalidArgument):
        load(notion, page)  # type: ignore[arg-type]
    assert notion.seen == []
