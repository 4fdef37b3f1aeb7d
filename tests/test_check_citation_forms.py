"""A model's answer citing its sources in the forms real answers and papers use (addresses
written out, an autolink, a range of numbered references, author–year citations with a
reference list) checked against the pages they cite, served on 127.0.0.1; an author–year
citation the reference list lacks is reported as a note defined nowhere is, by the library,
the command line and the HTTP API."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import httpx
from typer.testing import CliRunner

from citesift import check_citations
from citesift.cli import app
from citesift.verify.document_check import UNDEFINED
from servers import MisbehavingServer
from test_check_hostile import CONTACT, reader
from test_rag_helpers import HashEmbedder

BRIDGE = (
    "<html><body><h1>Sydney Harbour Bridge</h1><p>The bridge opened in 1932. It carries "
    "six lanes of road traffic.</p><p>Its main span is 503 metres long. It was built by "
    "Dorman Long of Middlesbrough.</p><p>Its arch is painted grey.</p></body></html>"
)


def page(server: MisbehavingServer, n: int) -> str:
    """One of the pages cited: each its own address, all about the bridge."""
    return server.url(f"/ok?n={n}&body={quote(BRIDGE)}")


def answer(server: MisbehavingServer) -> str:
    return (
        "# The Sydney Harbour Bridge\n\n"
        f"The bridge opened in 1932 ({page(server, 1)}). "
        "It carries six lanes of road traffic [Bradfield 1924]. "
        "Its main span is 503 metres long [1-2].\n"
        "It was built by Dorman Long of Middlesbrough.\n"
        f"Source: <{page(server, 3)}>\n\n"
        "Its arch is painted pink (Freeman et al., 1930).\n\n"
        "## References\n\n"
        f"1. {page(server, 2)}\n"
        f"2. The bridge in numbers: {page(server, 2)}\n"
        f"- Bradfield, J. J. C. (1924). Report on the proposed bridge. {page(server, 4)}\n"
    )


def test_each_form_cites_its_page_and_a_work_not_listed_cites_nothing(
    server: MisbehavingServer,
) -> None:
    report = check_citations(answer(server), reader(), embedder=HashEmbedder())
    found = [
        (c.citation.sentence, c.citation.url, c.citation.marker, c.status, c.reason)
        for c in report.citations
    ]
    supported = [(sentence, url) for sentence, url, _, status, _ in found if status == "supported"]
    assert supported == [
        ("The bridge opened in 1932.", page(server, 1)),
        ("It carries six lanes of road traffic.", page(server, 4)),
        ("Its main span is 503 metres long.", page(server, 2)),
        ("It was built by Dorman Long of Middlesbrough.", page(server, 3)),
    ]
    assert found[-1] == (
        "Its arch is painted pink.",
        "",
        "(Freeman et al., 1930)",
        "source unavailable",
        UNDEFINED,
    )
    assert len(found) == 5 and not report.passed and report.unavailable == 1
    assert server.hits("/ok") == 4  # each page read once, the reference list cited by none


def test_the_command_and_the_api_name_a_work_the_reference_list_lacks(
    server: MisbehavingServer, served: str, tmp_path: Path
) -> None:
    document = tmp_path / "answer.md"
    document.write_text(answer(server), "utf-8")
    flags = ["--allow-private", "--contact", CONTACT]
    text = CliRunner().invoke(app, ["check", str(document), *flags])
    assert text.exit_code == 1, text.output
    assert (
        f"source unavailable: Its arch is painted pink.\n  cites (Freeman et al., 1930)\n"
        f"  {UNDEFINED}\n"
    ) in text.stdout
    shown = CliRunner().invoke(app, ["check", str(document), *flags, "--format", "json"])
    citations = json.loads(shown.stdout)["citations"]
    assert citations[-1]["marker"] == "(Freeman et al., 1930)"
    assert (citations[-1]["url"], citations[-1]["reason"]) == ("", UNDEFINED)
    posted = httpx.post(
        f"{served}/citesift/check",
        json={
            "text": "The bridge opened in 1932 [Freeman et al. 1930]. Its main span is 503 "
            f"metres long (Bradfield, 1924).\n\nBradfield, J. (1924). Plans. {page(server, 5)}\n"
        },
        timeout=120,
    ).json()
    assert [(c["url"], c["marker"], c["status"]) for c in posted["citations"]] == [
        ("", "[Freeman et al. 1930]", "unavailable"),
        (page(server, 5), "(Bradfield, 1924)", "supported"),
    ]
    assert posted["passed"] is False
