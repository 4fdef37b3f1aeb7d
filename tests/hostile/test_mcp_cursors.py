"""Cursors an MCP client makes up: each is refused with the words a cursor's tool would say,
never an unexplained tool crash."""

from __future__ import annotations

import base64
import json

import pytest

from citesift.errors import InvalidArgument
from citesift.mcp_server.paging import Cursor, decode_cursor


def _encoded(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        _encoded(b"[" * 100_000),  # nested past the JSON parser's stack
        _encoded(b"\xff\xfe"),
        _encoded(json.dumps(["scrape", "t", 0]).encode()),  # another tool's
        _encoded(json.dumps(["search_passages", "t", -1]).encode()),
        _encoded(json.dumps(["search_passages", "t"]).encode()),
        "%%%",
        "",
    ],
    ids=["deep", "bytes", "other-tool", "negative", "short", "not-base64", "empty"],
)
def test_a_cursor_no_result_gave_is_refused_by_name(cursor: str) -> None:
    with pytest.raises(InvalidArgument, match="cursor"):
        decode_cursor(cursor, "search_passages")


def test_a_cursor_a_result_gave_reads_back() -> None:
    given = Cursor("search_passages", "token", 12)
    assert decode_cursor(given.encode(), "search_passages") == given
