"""Hostile documents and sources against ``check_citations``: private addresses refused by
the address policy before any request (the resolver stubbed), a gzip bomb and an endless
body from a loopback server held by the caps, a citing sentence too long to grade, all
reported per citation while the rest of the document is still checked."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from citesift import WebPageSource, check_citations
from citesift.cli import app
from citesift.model import Document, ReadOutcome, SourceHit
from citesift.net import ClientIdentity
from citesift.verify.citations import MAX_CITATIONS, MAX_DOCUMENT_CHARS
from citesift.verify.claim_check import MAX_CLAIM_CHARS
from citesift.verify.document_check import UNDEFINED
from servers import MisbehavingServer, loopback_fetcher, serve
from test_rag_helpers import HashEmbedder

CONTACT = "https://example.org/contact"
IDENTITY = ClientIdentity("TestClient", "1.0", CONTACT)
STUB = {"intranet.example": ["10.0.0.7"], "mixed.example": ["93.184.215.14", "192.168.1.9"]}
PAGE = (
    "<html><body><p>The bridge opened in 1932. It carries six lanes of traffic.</p></body></html>"
)


def stub_resolver(host: str) -> Sequence[str]:
    """Addresses for the names the tests use; the loopback server by its literal address."""
    if host == "127.0.0.1":
        return ["127.0.0.1"]
    if host not in STUB:
        raise OSError(f"no such host {host}")
    return STUB[host]


@pytest.fixture
def server() -> Iterator[MisbehavingServer]:
    with serve() as running:
        yield running


def reader() -> WebPageSource:
    """Pages read as any check reads them, with 127.0.0.1 alone let through (for the test
    server) and names resolved by the stub: nothing leaves the loopback interface."""
    source = WebPageSource(IDENTITY, fetcher=loopback_fetcher())
    source.page_policy = source.page_policy.with_(
        allow_networks=("127.0.0.1/32",), robots=False, resolver=stub_resolver
    )
    return source


@pytest.mark.timeout(120)
def test_private_addresses_bombs_and_endless_bodies_are_sources_unavailable(
    server: MisbehavingServer,
) -> None:
    cited = [
        "http://10.0.0.1/notes",
        "http://169.254.169.254/latest/meta-data/",
        "http://intranet.example/wiki",
        "http://mixed.example/page",
        "http://[::1]:8080/admin",
        "http://0x7f000002/",
        server.url("/gzip-bomb"),
        server.url("/endless"),
        server.url("/ok?body=" + quote(PAGE)),
    ]
    text = " ".join(f"Claim number {i} holds here.[{i}]" for i in range(len(cited)))
    text += "\n\n" + "\n".join(f"[{i}]: {url}" for i, url in enumerate(cited))
    started = time.perf_counter()
    report = check_citations(text, reader(), embedder=HashEmbedder())
    assert time.perf_counter() - started < 90
    statuses = [(c.citation.url, c.status) for c in report.citations]
    assert statuses[:-1] == [(url, "source unavailable") for url in cited[:-1]]
    assert statuses[-1][1] != "source unavailable"  # the page that can be read is read
    asked = [seen.path.split("?")[0] for seen in server.seen]
    assert sorted(asked) == ["/endless", "/gzip-bomb", "/ok"]  # no other request was sent


@pytest.mark.timeout(120)
def test_a_citing_sentence_too_long_to_grade_is_said_and_the_rest_still_checked(
    server: MisbehavingServer,
) -> None:
    page = server.url("/ok?body=" + quote(PAGE))
    long_sentence = "The bridge " + "and the bridge " * (MAX_CLAIM_CHARS // 10) + "opened."
    text = f"{long_sentence}[1] The bridge opened in 1932.[1]\n\n[1]: {page}\n"
    report = check_citations(text, reader(), embedder=HashEmbedder())
    long, short = report.citations
    assert long.status == "not_supported"
    assert f"longer than {MAX_CLAIM_CHARS:,} characters" in long.reason
    assert short.status == "supported"
    assert [seen.path.split("?")[0] for seen in server.seen] == ["/ok"]  # one read for both


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "cp1252"])
def test_the_command_reads_a_document_in_its_own_charset(tmp_path: Path, encoding: str) -> None:
    """A UTF-16 document read as UTF-8 was text of NULs: no citation found, and a pass."""
    document = tmp_path / "notes.md"
    document.write_bytes(
        "Café prices rose in 2020.[1]\n\n[1]: http://10.0.0.1/prix\n".encode(encoding)
    )
    result = CliRunner().invoke(
        app, ["check", str(document), "--format", "json", "--contact", CONTACT]
    )
    assert result.exit_code == 1, result.output
    (citation,) = json.loads(result.stdout)["citations"]
    assert citation["sentence"] == "Café prices rose in 2020."
    assert citation["status"] == "unavailable"  # the private address is refused


def test_the_command_refuses_a_document_past_the_bound_in_one_line(tmp_path: Path) -> None:
    document = tmp_path / "huge.md"
    document.write_bytes(b"A claim [x](https://a.example/). " * (MAX_DOCUMENT_CHARS // 30))
    result = CliRunner().invoke(app, ["check", str(document), "--contact", CONTACT])
    assert result.exit_code == 1
    assert "text must be a string of at most" in result.output
    assert "Traceback" not in result.output


ODD_ADDRESSES = [
    "https://xn--/",  # an IDNA label that does not decode: a crash of the whole check before
    "https://xn--a.example/",
    "http://[zz/x",
    "http://[::1",
    "https://b.example/\ud800",
    "https://a.example:99999/x",
    "http://0177.0.0.1/",
    "https://" + "a" * 5_000 + ".example/",
]


@pytest.mark.parametrize("address", ODD_ADDRESSES)
def test_an_address_that_cannot_be_fetched_is_a_source_unavailable(
    server: MisbehavingServer, address: str
) -> None:
    page = server.url("/ok?body=" + quote(PAGE))
    text = (
        f"One claim holds here.[1] The bridge opened in 1932.[2]\n\n[1]: {address}\n[2]: {page}\n"
    )
    first, second = check_citations(text, reader(), embedder=HashEmbedder()).citations
    assert first.status == "source unavailable"
    assert second.status == "supported"
    assert [seen.path.split("?")[0] for seen in server.seen] == ["/ok"]


def past_the_cap(server: MisbehavingServer) -> str:
    """``MAX_CITATIONS`` sentences citing a page that supports them, then one citing a page
    that is not there: the last one is past the cap."""
    page = server.url("/ok?body=" + quote(PAGE))
    supported = "The bridge opened in 1932 [1].\n" * MAX_CITATIONS
    return f"{supported}The bridge is purple [2].\n\n[1]: {page}\n[2]: {server.url('/gone')}\n"


@pytest.mark.timeout(300)
def test_citations_past_the_cap_are_counted_unchecked_and_the_check_fails(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """Citations past the first 2,000 were dropped without a word: a document whose 2,001st
    citation cites a missing page passed, and ``citesift check`` exited 0."""
    report = check_citations(past_the_cap(server), reader(), embedder=HashEmbedder())
    assert len(report.citations) == report.supported == MAX_CITATIONS
    assert report.unchecked == 1 and not report.passed
    assert server.hits("/gone") == 0 and server.hits("/ok") == 1  # one read for them all
    document = tmp_path / "many.md"
    document.write_text(past_the_cap(server), "utf-8")
    flags = ["--allow-private", "--contact", CONTACT]
    result = CliRunner().invoke(app, ["check", str(document), *flags, "--format", "json"])
    assert result.exit_code == 1, result.output
    shown = json.loads(result.stdout)
    assert (shown["unchecked"], shown["passed"], shown["supported"]) == (1, False, MAX_CITATIONS)
    text = CliRunner().invoke(app, ["check", str(document), *flags])
    assert text.exit_code == 1
    assert text.stdout.rstrip().endswith("not checked: 1 more citations past the first 2,000")


def test_a_page_cited_with_its_scheme_in_capitals_is_read_once_and_graded(
    server: MisbehavingServer,
) -> None:
    page = server.url("/ok?body=" + quote(PAGE))
    shouted = "HTTP" + page.removeprefix("http")
    text = (
        f"The bridge opened in 1932 [1]. It carries six lanes [2].\n\n[1]: {shouted}\n[2]: {page}\n"
    )
    report = check_citations(text, reader(), embedder=HashEmbedder())
    assert [c.status for c in report.citations] == ["supported", "supported"]
    assert server.hits("/ok") == 1


def test_credentials_in_a_cited_address_are_neither_sent_nor_shown(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """They were kept in the citation, the link to the evidence, the page's title and the
    stored snapshot's address, though the fetch never sends them."""
    page = server.url("/ok?body=" + quote(PAGE)).replace("http://", "http://user:secret@")
    document = tmp_path / "creds.md"
    document.write_text(f"The bridge opened in 1932 [1].\n\n[1]: {page}\n", "utf-8")
    store = tmp_path / "store.db"
    flags = ["--allow-private", "--contact", CONTACT, "--format", "json", "--store", str(store)]
    result = CliRunner().invoke(app, ["check", str(document), *flags])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["supported"] == 1 and "secret" not in result.stdout
    assert "secret" not in store.read_bytes().decode("latin-1")
    assert all("Authorization" not in seen.headers for seen in server.seen)


PAGES_CITED = 12


class CountingReader:
    """Reads as ``reader()`` does, noting before each read how many documents read are still
    held in memory."""

    def __init__(self) -> None:
        self.pages = reader()
        self.held: list[int] = []

    async def read(self, hit: SourceHit) -> ReadOutcome:
        gc.collect()
        self.held.append(sum(isinstance(kept, Document) for kept in gc.get_objects()))
        return await self.pages.read(hit)


def test_pages_cited_in_turn_again_and_again_are_held_one_at_a_time(
    server: MisbehavingServer,
) -> None:
    """Each page was held from its first citation to its last: a document citing 2,000 long
    pages, then each again, held them all at once (gigabytes)."""
    refs = "\n".join(
        f"[{i}]: {server.url('/ok')}?n={i}&body={quote(PAGE)}" for i in range(PAGES_CITED)
    )
    text = "\n".join(
        " ".join(f"The bridge opened in 1932, round {r} [{i}]." for i in range(PAGES_CITED))
        for r in range(2)
    )
    counting = CountingReader()
    gc.collect()
    before = sum(isinstance(kept, Document) for kept in gc.get_objects())
    report = check_citations(f"{text}\n\n{refs}\n", counting, embedder=HashEmbedder())
    assert len(report.citations) == 2 * PAGES_CITED and report.unavailable == 0
    assert len(counting.held) == PAGES_CITED  # each page read once
    assert max(counting.held) - before <= 1  # the page read before, at most


def test_a_footnote_defined_nowhere_is_a_citation_of_nothing_and_fails_the_check(
    server: MisbehavingServer,
) -> None:
    """A document citing only footnotes it never defined (100,000 of them) passed its check:
    they cited nothing, so nothing was checked. A note naming no web address (a book) is
    still no citation to check."""
    page = server.url("/ok?body=" + quote(PAGE))
    undefined = " ".join(f"Claim {i} holds.[^n{i}]" for i in range(100_000))
    text = (
        f"The bridge opened in 1932.[^1] A book says so.[^2] {undefined}\n\n"
        f"[^1]: {page}\n[^2]: Smith, A Book, 2020.\n"
    )
    started = time.perf_counter()
    report = check_citations(text, reader(), embedder=HashEmbedder())
    assert time.perf_counter() - started < 30
    first, *rest = report.citations
    assert (first.status, rest[0].citation.marker) == ("supported", "[^n0]")
    assert {(c.status, c.reason) for c in rest} == {("source unavailable", UNDEFINED)}
    assert report.unavailable == MAX_CITATIONS - 1 and report.unchecked == 100_000 - 1_999
    assert not report.passed and server.hits("/ok") == 1 and len(server.seen) == 1


def test_the_command_names_a_footnote_defined_nowhere(tmp_path: Path) -> None:
    document = tmp_path / "notes.md"
    document.write_text("A claim holds here.[^9]\n", "utf-8")
    result = CliRunner().invoke(app, ["check", str(document), "--contact", CONTACT])
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith(
        f"source unavailable: A claim holds here.\n  cites [^9]\n  {UNDEFINED}\n"
    )
