"""One document checked through the command line, the HTTP API and the MCP server gives the
same JSON: the same citation objects (a PDF's place and a note defined nowhere among them)
and the same counts, as ``check_json`` makes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from typer.testing import CliRunner

from citesift.cli import app
from made_documents import pdf
from test_mcp import CITED, CONTACT, World, call, stdio, world  # noqa: F401 (a fixture)
from test_scrape import page_route

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]
PAGED = ("items", "total", "next_cursor")
"""What the MCP server's paged answer adds, the citations being its items."""


def document(on: World) -> str:
    """A document citing a web page twice (once truly), a PDF and a note it never defines."""
    cited, report = on.site.url("/cited"), on.site.url("/report")
    return (
        f"The mill was built in 1820 [source]({cited}). The moon is made of cheese "
        f"[moon]({cited}).\n\nThe river Quill floods every spring [1]. It is red.[^9]\n\n"
        f"[1] {report}\n"
    )


def by_mcp(served_by: World, text: str) -> dict[str, Any]:
    """The MCP tool's answer with every page of its items read, as one list."""
    answered: dict[str, Any] = {}

    async def scenario(client: Client) -> None:
        first = await call(client, "check_citations", text=text)
        items, after = list(first["items"]), first["next_cursor"]
        while after is not None:
            more = await call(client, "check_citations", text=text, cursor=after)
            items, after = items + more["items"], more["next_cursor"]
        answered.update(first, items=items)

    stdio(served_by, scenario)
    return answered


def test_the_cli_http_and_mcp_give_the_same_check(
    world: World,  # noqa: F811
    served: str,
    tmp_path: Path,
) -> None:
    page_route(world.site, "/report", pdf(["Cover", CITED]), content_type="application/pdf")
    text = document(world)
    file = tmp_path / "notes.md"
    file.write_text(text, "utf-8")
    flags = ["--allow-private", "--contact", CONTACT, "--store", str(tmp_path / "cli.db")]
    ran = CliRunner().invoke(app, ["check", str(file), "--format", "json", *flags])
    assert ran.exit_code == 1, ran.output  # the moon is not supported
    by_cli = json.loads(ran.stdout)
    by_http = httpx.post(f"{served}/citesift/check", json={"text": text}, timeout=120).json()
    mcp = by_mcp(world, text)

    citations = by_cli["citations"]
    assert [(c["status"], c["marker"]) for c in citations] == [
        ("supported", "source"),
        ("not_supported", "moon"),
        ("supported", "[1]"),
        ("unavailable", "[^9]"),
    ]
    assert citations[2]["place"]["page"] == 2 and citations[0]["place"] is None
    assert citations[0]["licence"] is None and citations[0]["title"] == "Cited"
    assert by_http["citations"] == citations
    assert mcp["items"] == citations
    counts = {key: value for key, value in by_cli.items() if key != "citations"}
    assert {k: v for k, v in by_http.items() if k not in ("citations", "success")} == counts
    assert {k: v for k, v in mcp.items() if k not in PAGED} == counts
    assert counts["passed"] is False and counts["supported"] == 2
    assert counts["unavailable"] == 1  # the status a count counts is the count's key
    assert not any(c["abstained"] for c in citations)
