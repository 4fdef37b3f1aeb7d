"""One bound on a query's length and one on ``top_k``, the same for the Python API, the
command line and the HTTP API (the MCP server's are in test_mcp_bounds.py): a query past it
is refused before anything is scored, and an argument refused over HTTP names its field."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from citesift import create_partitioned_rag, create_rag
from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.errors import InvalidArgument
from citesift.index.arguments import MAX_TOP_K
from citesift.index.query import MAX_QUERY_CHARS
from local_site import page, serve_page
from servers import MisbehavingServer

pytestmark = pytest.mark.timeout(60)
TIDES = "The tides of the northern bay rise twice a day, pulled by the moon over the shoals."


def test_a_query_past_the_bound_is_refused_before_it_is_scored(tmp_path: Path) -> None:
    rag = create_rag(store=tmp_path / "index.db", retrieval="bm25")
    rag.ingest([{"id": "tides", "content": TIDES, "metadata": {}}])
    assert rag.search("t" * MAX_QUERY_CHARS, top_k=1) == []
    started = time.monotonic()
    with pytest.raises(InvalidArgument, match="query must be at most 2,000 characters") as refused:
        rag.search("tides " * 2_000_000)  # 12 MB: was scored whole
    assert time.monotonic() - started < 1 and refused.value.argument == "query"
    assert "12,000,000" in str(refused.value)
    with pytest.raises(InvalidArgument, match="top_k must be"):
        rag.search("tides", top_k=MAX_TOP_K + 1)
    assert len(rag.search("tides", top_k=MAX_TOP_K)) == 1


def test_a_chat_message_over_the_bound_is_searched_by_its_first_words(tmp_path: Path) -> None:
    long_message = "Why do the tides rise? " + "moon shoals " * 300  # 3,623 characters
    chat = [{"role": "user", "content": long_message}, {"role": "assistant", "content": "…"}]
    rag = create_rag(store=tmp_path / "index.db", retrieval="bm25")
    rag.ingest([{"id": "tides", "content": TIDES, "metadata": {}}])
    assert [m.content for m in rag.retrieve(messages=chat)] == [TIDES]
    shared = create_partitioned_rag("bay", store=tmp_path / "shared.db", retrieval="bm25")
    shared.ingest([{"id": "tides", "content": TIDES, "metadata": {}}])
    assert [m.content for m in shared.retrieve(messages=chat)] == [TIDES]
    with pytest.raises(InvalidArgument, match="at most 2,000"):  # a query given is not cut
        rag.retrieve(query=long_message)


def test_the_command_line_refuses_a_long_query_or_top_k_as_usage(tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    for arguments in (["x" * (MAX_QUERY_CHARS + 1)], ["tides", "--top-k", "1001"]):
        result = CliRunner().invoke(app, ["search", *arguments, "--store", store])
        assert result.exit_code == EXIT_USAGE, result.output
        assert result.stderr.startswith(("error: query must be", "error: top_k must be"))


def test_http_refusals_name_the_field(served: str, server: MisbehavingServer) -> None:
    serve_page(server, "/tides", page("Tides", [], TIDES))
    ingest = {"urls": [server.url("/tides")], "retrieval": "bm25"}
    added = httpx.post(f"{served}/citesift/index/documents", json=ingest, timeout=30)
    assert added.status_code == 200 and added.json()["added"] == 1, added.text
    search = f"{served}/citesift/index/search"
    for query in ("   ", "q" * (MAX_QUERY_CHARS + 1)):
        refused = httpx.post(search, json={"query": query, "retrieval": "bm25"})
        assert refused.status_code == 400 and refused.json()["details"][0]["path"] == ["query"]
    wide = httpx.post(search, json={"query": "tides", "top_k": MAX_TOP_K, "retrieval": "bm25"})
    assert wide.status_code == 200 and len(wide.json()["hits"]) == 1
    overlap = {**ingest, "chunk_size": 60, "chunk_overlap": 60}
    refused = httpx.post(f"{served}/citesift/index/documents", json=overlap, timeout=30)
    assert refused.status_code == 400, refused.text
    [detail] = refused.json()["details"]
    assert detail["path"] == ["chunk_overlap"] and detail["message"].startswith("chunk_overlap ")
