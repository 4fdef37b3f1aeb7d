"""The size caps of claim verification on every surface (library, command line, HTTP, MCP):
just over a cap is a clear error raised before anything is embedded, a page longer than one
check reads is read as far as the cap and says so, and absurd claims are refused quickly."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client
from typer.testing import CliRunner

from citesift import CitationVerifier, ClaimCheck, WebPageSource, check_citations, verify_claim
from citesift.cli import app
from citesift.errors import InvalidArgument
from citesift.net import ClientIdentity
from citesift.sources.web import PageLimits
from citesift.verify.claim_check import (
    MAX_CLAIM_CHARS,
    MAX_SENTENCES,
    MAX_SOURCE_CHARS,
    verify_read_far,
)
from citesift.verify.verifier import MAX_ANSWER_CHARS, MAX_CHARS, MAX_TEXTS
from servers import MisbehavingServer
from test_mcp import World, _text, stdio, world  # noqa: F401 - a fixture
from test_rag_helpers import HashEmbedder

CLAIM = "The bridge opened in 1932."
OVER = ["The bridge is long."] * (MAX_SENTENCES + 1)
QUICK = 5.0
"""Seconds a refusal may take at most, with the sentences' list built before the clock."""


class Splitter:
    """A claim splitter a caller brings: every sentence of the text it is given, counted."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> list[str]:
        self.calls += 1
        return [piece for piece in text.split(". ") if piece]


def test_one_sentence_over_the_cap_is_refused_before_embedding() -> None:
    embedder = HashEmbedder()
    started = time.monotonic()
    with pytest.raises(InvalidArgument, match=f"a list of at most {MAX_SENTENCES:,} strings"):
        verify_claim(CLAIM, OVER, embedder=embedder)
    assert time.monotonic() - started < QUICK and embedder.calls == 0


def test_sentences_holding_too_many_characters_are_refused_before_embedding() -> None:
    embedder = HashEmbedder()
    huge = ["The bridge is long. " * (MAX_SOURCE_CHARS // 40)] * 2 + ["It opened in 1932."]
    with pytest.raises(InvalidArgument, match=f"{MAX_SOURCE_CHARS:,} characters in all"):
        verify_claim(CLAIM, huge, embedder=embedder)
    assert embedder.calls == 0


def test_a_ten_megabyte_claim_is_refused_quickly() -> None:
    embedder = HashEmbedder()
    started = time.monotonic()
    with pytest.raises(InvalidArgument, match=f"at most {MAX_CLAIM_CHARS:,}"):
        verify_claim("The bridge opened in 1932. " * 400_000, ["x"], embedder=embedder)
    assert time.monotonic() - started < QUICK and embedder.calls == 0


def test_a_claim_read_far_is_bounded_alone_and_what_it_is_about_alone() -> None:
    """A short claim about a long name is checked as ``verify_claim`` checks it: each of
    the two within the bound is no fault, and the one past it is named."""
    embedder = HashEmbedder()
    short = verify_read_far("1932", [CLAIM], embedder=embedder, about="x" * (MAX_CLAIM_CHARS - 2))
    assert "longer than" not in short.reason
    long_about = verify_read_far("1932", [CLAIM], embedder=embedder, about="x" * 20_000)
    expected = f"what the claim is about is longer than {MAX_CLAIM_CHARS:,} characters"
    assert long_about == ClaimCheck("not_supported", (), 0.0, expected)
    long_claim = verify_read_far("x" * 20_000, [CLAIM], embedder=embedder)
    assert long_claim.reason == f"the claim is longer than {MAX_CLAIM_CHARS:,} characters"


def test_a_ten_megabyte_answer_is_refused_before_it_is_split() -> None:
    embedder, splitter = HashEmbedder(), Splitter()
    verifier = CitationVerifier(embedder, extract_claims=splitter)
    with pytest.raises(InvalidArgument, match=f"at most {MAX_ANSWER_CHARS:,} characters"):
        verifier.verify("The bridge opened in 1932. " * 400_000, [{"content": CLAIM}])
    assert (splitter.calls, embedder.calls) == (0, 0)


def test_an_answer_split_into_a_hundred_thousand_claims_is_refused_before_embedding() -> None:
    embedder, splitter = HashEmbedder(), Splitter()
    text = "A. " * 100_000  # within the characters, over the claims
    verifier = CitationVerifier(embedder, extract_claims=splitter)
    with pytest.raises(InvalidArgument, match=f"{MAX_TEXTS:,} at most"):
        verifier.verify(text, [{"content": CLAIM}])
    assert (splitter.calls, embedder.calls) == (1, 0)


def test_claims_and_sources_holding_too_many_characters_are_refused_before_embedding() -> None:
    embedder = HashEmbedder()
    long = "The bridge is long. " * (MAX_CHARS // 30)
    with pytest.raises(InvalidArgument, match=f"{MAX_CHARS:,} at most"):
        CitationVerifier(embedder).verify([long], [{"content": long}])
    assert embedder.calls == 0


def test_a_page_longer_than_a_check_reads_is_read_that_far_and_says_so(
    server: MisbehavingServer,
) -> None:
    """The one sentence that supports the claim comes after the first ``MAX_SENTENCES``."""
    filler = "".join(f"Lamp {n} is green. " for n in range(MAX_SENTENCES))
    body = f"<html><body><p>{filler}The bridge opened in 1932.</p></body></html>".encode()
    html = {"Content-Type": "text/html; charset=utf-8"}
    server.route("/long", lambda request, _: request.answer(200, body, html))
    url = server.url("/long")
    pages = WebPageSource(
        ClientIdentity("TestClient", "1.0", "https://example.org/contact"),
        limits=PageLimits(text_budget=2_000_000, max_body_bytes=8_000_000),
        allow_private=True,
    )
    report = check_citations(f"{CLAIM} [1]\n\n[1] {url}\n", pages, embedder=HashEmbedder())
    (checked,) = report.citations
    assert checked.status == "not_supported", checked
    read = f"only the first {MAX_SENTENCES:,} of {MAX_SENTENCES + 1:,} sentences were read"
    assert checked.reason.endswith(f"({read})")


@pytest.fixture
def over_the_cap(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sentences.txt"
    path.write_text("\n".join(f"Lamp {n} is green." for n in range(MAX_SENTENCES + 1)), "utf-8")
    yield path


def test_the_command_refuses_one_sentence_over_the_cap_in_one_line(over_the_cap: Path) -> None:
    started = time.monotonic()
    result = CliRunner().invoke(app, ["verify", "claim", CLAIM, str(over_the_cap)])
    assert time.monotonic() - started < QUICK
    assert result.exit_code == 1, result.output
    assert f"sentences must be a list of at most {MAX_SENTENCES:,} strings" in result.stderr
    assert "Traceback" not in result.output


def test_the_command_refuses_a_ten_megabyte_answer_in_one_line(tmp_path: Path) -> None:
    answer, sources = tmp_path / "answer.txt", tmp_path / "sources.json"
    answer.write_text("The bridge opened in 1932. " * 400_000, "utf-8")
    sources.write_text('[{"content": "The bridge opened in 1932."}]', "utf-8")
    started = time.monotonic()
    result = CliRunner().invoke(app, ["verify", "answer", str(answer), str(sources)])
    assert time.monotonic() - started < QUICK
    assert result.exit_code == 1, result.output
    assert f"a text of at most {MAX_ANSWER_CHARS:,} characters" in result.stderr


def test_the_http_route_refuses_one_sentence_over_the_cap(served: str) -> None:
    asked = {"claim": CLAIM, "sentences": ["a"] * (MAX_SENTENCES + 1)}
    started = time.monotonic()
    answer = httpx.post(f"{served}/citesift/verify/claim", json=asked, timeout=60)
    assert time.monotonic() - started < QUICK
    assert answer.status_code == 400, answer.text
    assert answer.json()["details"][0]["path"] == ["sentences"]


def test_the_mcp_tool_refuses_one_sentence_over_the_cap(world: World) -> None:  # noqa: F811
    async def scenario(client: Client) -> None:
        asked = {"claim": CLAIM, "sentences": ["a"] * (MAX_SENTENCES + 1)}
        started = time.monotonic()
        refused = await client.call_tool("verify_claim", asked)
        assert time.monotonic() - started < QUICK
        assert refused.is_error and "sentences" in _text(refused)
        assert f"{MAX_SENTENCES:,}" in _text(refused)

    stdio(world, scenario)
