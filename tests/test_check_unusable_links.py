"""Citations a check cannot read as written, and words that are no claim's.

A relative link (Markdown inline, a reference definition, an HTML ``href``) or an address
that cannot be parsed was dropped without a word, so a document citing only so passed with
"0 citations": each is now "source unavailable" with the reason, or read against the base
address given (``base_url``, ``--base-url``, the URL a page was read from). A note marker
after a full stop was read as the first word of the next sentence, and a link's text
(``(source)``) as words of its claim: neither is a claim word now. Pages come from a loopback
server; names are never resolved."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from citesift import check_citations, find_citations
from citesift.cli import app
from citesift.verify.citations import RELATIVE, UNPARSEABLE
from servers import MisbehavingServer, serve
from test_check_hostile import CONTACT, reader
from test_rag_helpers import HashEmbedder
from test_scrape import page_route

PAGE = (
    "<html><body><p>The bridge opened in 1932. It carries six lanes of traffic.</p></body></html>"
)
RUST = (
    "<html><body><p>Mozilla sponsored Rust in 2009. "
    "Rust 0.1 came out on January 20, 2012.</p></body></html>"
)


@pytest.fixture
def server() -> Iterator[MisbehavingServer]:
    with serve() as running:
        yield running


def test_relative_links_are_kept_as_written_without_a_base_and_read_against_one() -> None:
    markdown = (
        "Rust is fast [a](rust.html). Rust is safe [1]. Rust is old [b](#history).\n\n"
        "Its logo ![logo](logo.png) is red ![r](https://a.example/r.png).\n\n"
        '[1]: /wiki/Rust "Rust"\n[2]: Ibid.\n'
    )
    html = (
        '<p>Rust is fast <a href="rust.html">a</a>. Mail <a href="mailto:x@y.example">me</a>.</p>'
    )
    assert [(c.sentence, c.url) for c in find_citations(markdown)] == [
        ("Rust is fast a.", "rust.html"),
        ("Rust is safe.", "/wiki/Rust"),
    ]  # a place in the document itself, images and a definition holding a word cite nothing
    assert [(c.sentence, c.url) for c in find_citations(html, "html")] == [
        ("Rust is fast a.", "rust.html")
    ]
    base = "https://docs.example/book/intro.html"
    assert [c.url for c in find_citations(markdown, base_url=base)] == [
        "https://docs.example/book/rust.html",
        "https://docs.example/wiki/Rust",
    ]
    assert [c.url for c in find_citations(html, "html", base)] == [
        "https://docs.example/book/rust.html"
    ]


def test_html_note_markers_belong_to_the_sentence_before_and_the_notes_are_no_claims() -> None:
    html = (
        '<p>Intro.<sup id="back7"><a href="#n7">7</a></sup> Rust 0.1 came out on January 20, 2012.'
        '<sup class="reference"><a href="#n8">[8]</a></sup> Energy is mc<sup>2</sup> here.'
        " It began in 2006.<sup>9</sup></p>"
        '<h2>Notes</h2><ol><li id="n7"><a href="#back7">^</a> '
        '<a href="https://a.example/history">Rust history</a></li>'
        '<li id="n8"><a href="release.html">Rust release</a>. Mozilla.</li>'
        '<li id="n9"><a href="https://a.example/unmarked">Unmarked entry</a> says more.</li></ol>'
        '<p>Energy is <a href="https://a.example/e">measured</a>.</p>'
    )
    found = find_citations(html, "html", "https://b.example/doc")
    assert [(c.sentence, c.url, c.marker) for c in found] == [
        ("Intro.", "https://a.example/history", "7"),
        ("Rust 0.1 came out on January 20, 2012.", "https://b.example/release.html", "[8]"),
        ("Energy is measured.", "https://a.example/e", "measured"),
    ]  # a power (mc2) stays, the notes' own links and the way back cite nothing


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Mozilla sponsored Rust in 2009 ([source](https://a.example/r)).", "markdown"),
        ("Mozilla sponsored Rust in 2009 [source](https://a.example/r).", "markdown"),
        (
            "Mozilla sponsored Rust in 2009 ([1](https://a.example/r), [2](https://a.example/r)).",
            "markdown",
        ),
        (
            '<p>Mozilla sponsored Rust in 2009 (<a href="https://a.example/r">source</a>).</p>',
            "html",
        ),
        (
            '<p>Mozilla sponsored Rust in 2009 (see <a href="https://a.example/r">here</a>).</p>',
            "html",
        ),
    ],
)
def test_a_links_text_naming_its_source_is_no_claim_word(text: str, kind: str) -> None:
    (citation,) = find_citations(text, "html" if kind == "html" else "markdown")
    assert citation.sentence == "Mozilla sponsored Rust in 2009."


def test_a_links_own_words_stay_in_the_claim() -> None:
    text = "[Mozilla](https://a.example/m) sponsored Rust in 2009."
    assert [c.sentence for c in find_citations(text)] == ["Mozilla sponsored Rust in 2009."]


def test_unusable_links_are_sources_unavailable_saying_why_and_not_fetched(
    server: MisbehavingServer,
) -> None:
    page = server.url("/ok?body=" + quote(PAGE))
    text = (
        f"The bridge opened in 1932 [1]. It was built [a](/ok?body={quote(PAGE)}). "
        f"It is old [b](bridge.html). It is long [c](http://[::1/x).\n\n[1]: {page}\n"
    )
    report = check_citations(text, reader(), embedder=HashEmbedder())
    verdicts = [(c.citation.url, c.status, c.reason) for c in report.citations]
    assert verdicts[1:] == [
        (f"/ok?body={quote(PAGE)}", "source unavailable", RELATIVE),
        ("bridge.html", "source unavailable", RELATIVE),
        ("http://[::1/x", "source unavailable", UNPARSEABLE),
    ]
    assert report.citations[0].status == "supported" and not report.passed
    assert server.hits("/ok") == 1


def test_a_base_address_reads_markdown_relative_links(server: MisbehavingServer) -> None:
    text = f"The bridge opened in 1932 [a](ok?body={quote(PAGE)}).\n"
    report = check_citations(text, reader(), base_url=server.url("/docs"), embedder=HashEmbedder())
    (check,) = report.citations
    assert (check.citation.url, check.status) == (
        server.url("/ok?body=" + quote(PAGE)),
        "supported",
    )


def test_link_words_and_note_markers_no_longer_lower_a_verdict(server: MisbehavingServer) -> None:
    """``Mozilla sponsored Rust in 2009 (source).`` was 75% covered, and ``7 Rust 0.1 came
    out…`` missed its ``7``: both are supported by a page saying just that."""
    page_route(server, "/rust", RUST)
    rust = server.url("/rust")
    markdown = f"Mozilla sponsored Rust in 2009 ([source]({rust})).\n"
    html = (
        f'<p>Intro.<sup id="back7"><a href="#n7">7</a></sup> Rust 0.1 came out on January 20, 2012.'
        f'<sup><a href="#n8">8</a></sup></p><ol><li id="n7"><a href="{rust}">Rust history</a>'
        f'</li><li id="n8"><a href="{rust}">Rust releases</a></li></ol>'
    )
    first = check_citations(markdown, reader(), embedder=HashEmbedder())
    second = check_citations(html, reader(), "html", embedder=HashEmbedder())
    assert [c.status for c in first.citations] == ["supported"]
    claims = {c.citation.sentence: c.status for c in second.citations}
    assert claims["Rust 0.1 came out on January 20, 2012."] == "supported"
    assert set(claims) == {"Intro.", "Rust 0.1 came out on January 20, 2012."}


def test_the_command_reads_relative_links_against_base_url_or_says_why_not(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    document = tmp_path / "notes.md"
    document.write_text(f"The bridge opened in 1932 [a](/ok?body={quote(PAGE)}).\n", "utf-8")
    flags = ["--allow-private", "--contact", CONTACT, "--format", "json"]
    unread = CliRunner().invoke(app, ["check", str(document), *flags])
    assert unread.exit_code == 1, unread.output
    (citation,) = json.loads(unread.stdout)["citations"]
    assert (citation["status"], citation["reason"]) == ("unavailable", RELATIVE)
    base = ["--base-url", server.url("/notes.md")]
    read = CliRunner().invoke(app, ["check", str(document), *flags, *base])
    assert read.exit_code == 0, read.output
    assert json.loads(read.stdout)["supported"] == 1
    refused = CliRunner().invoke(app, ["check", str(document), "--base-url", "notes/"])
    assert refused.exit_code == 64 and "base_url" in refused.output


def test_the_command_reads_a_pages_relative_links_against_its_url(
    server: MisbehavingServer,
) -> None:
    page_route(server, "/bridge", PAGE)
    page_route(
        server, "/docs/page", '<p>The bridge opened in 1932 (<a href="../bridge">source</a>).</p>'
    )
    flags = ["--allow-private", "--contact", CONTACT, "--format", "json"]
    run = CliRunner().invoke(app, ["check", server.url("/docs/page"), *flags])
    assert run.exit_code == 0, run.output
    (citation,) = json.loads(run.stdout)["citations"]
    assert citation["url"] == server.url("/bridge")
    assert citation["sentence"] == "The bridge opened in 1932."


NOTES = "# Bridge notes\n\nThe bridge opened in 1932.[^1]\n\n[^1]: The bridge page, {url}\n"


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/notes", "text/markdown; charset=utf-8"),
        ("/notes", "text/x-markdown"),
        ("/notes.md", "text/plain; charset=utf-8"),
        ("/docs/NOTES.Markdown", "text/plain"),
    ],
)
def test_a_markdown_document_at_a_url_is_read_as_markdown(
    server: MisbehavingServer, path: str, content_type: str
) -> None:
    """A Markdown page was read as plain text: its heading joined its first claim, each
    ``[^1]`` cited a note "not defined", and the note's own line was graded."""
    page_route(server, "/bridge", PAGE)
    page_route(server, path, NOTES.format(url=server.url("/bridge")), content_type=content_type)
    flags = ["--allow-private", "--contact", CONTACT, "--format", "json"]
    run = CliRunner().invoke(app, ["check", server.url(path), *flags])
    assert run.exit_code == 0, run.output
    (citation,) = json.loads(run.stdout)["citations"]
    assert (citation["sentence"], citation["marker"]) == ("The bridge opened in 1932.", "[^1]")
    assert (citation["url"], citation["status"]) == (server.url("/bridge"), "supported")


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/notes.txt", "text/plain"), ("/notes.md", "application/json"), ("/notes.md", "")],
)
def test_a_document_at_a_url_of_another_type_is_refused(
    server: MisbehavingServer, path: str, content_type: str
) -> None:
    page_route(server, path, NOTES.format(url=server.url("/bridge")), content_type=content_type)
    run = CliRunner().invoke(
        app, ["check", server.url(path), "--allow-private", "--contact", CONTACT]
    )
    assert run.exit_code == 64, run.output
    shown = content_type or "no content type"
    assert f"served as {shown}, which is not HTML (text/html) or Markdown" in run.stderr


def test_a_cited_works_title_is_not_taken_for_its_evidence(server: MisbehavingServer) -> None:
    """The ``<cite>`` title stayed in the claim, and the cited page's heading, saying that
    title, was given as the best evidence (with a link to it)."""
    page_route(
        server,
        "/facts",
        "<html><body><h1>Rust facts</h1><p>Graydon Hoare began Rust in 2006. Mozilla "
        "sponsored Rust in 2011.</p></body></html>",
    )
    html = (
        f'<p>Mozilla sponsored Rust in 2011, according to <cite><a href="{server.url("/facts")}">'
        "Rust facts</a></cite>.</p>"
    )
    (check,) = check_citations(html, reader(), "html").citations
    assert (check.citation.sentence, check.status) == (
        "Mozilla sponsored Rust in 2011.",
        "supported",
    )
    assert check.evidence == "Mozilla sponsored Rust in 2011."
    assert check.evidence_url is not None and "Rust%20facts" not in check.evidence_url
