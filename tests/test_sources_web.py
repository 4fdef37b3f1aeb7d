"""WebPageSource against a local server: page mode, stated metadata, bounded redirects."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from citesift import Document, Failed, Hits, Licence, Limited, Skipped, SourceHit
from citesift.errors import InvalidArgument
from citesift.net import ClientIdentity, Fetcher
from citesift.sources import Aborted, PageLimits, PublicSourceProvider, WebPageSource
from citesift.text import citation_sources
from wikipedia_server import Answer, WikipediaStandIn

IDENTITY = ClientIdentity("TestClient", "1.0", "https://example.org/contact")
HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGE = b"""<!doctype html><html lang="en"><head><title>Plans and prices | Example News</title>
<meta property="og:site_name" content="Example News">
<meta property="article:published_time" content="2024-03-05T10:00:00Z">
<link rel="license" href="https://creativecommons.org/licenses/by/4.0/">
</head><body><nav><a href="/">Home</a></nav><article><h1>Plans and prices</h1>
<p>The basic plan costs less. It was introduced in 2020.</p>
<table><tr><th>Plan</th><td>$20 per month</td></tr></table>
</article></body></html>"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[WikipediaStandIn]:
    with WikipediaStandIn(tmp_path) as stand_in:
        stand_in.answer("/page", Answer(200, HTML, PAGE))
        yield stand_in


def source(**limits: float) -> WebPageSource:
    return WebPageSource(IDENTITY, limits=PageLimits(**limits), allow_private=True)


def read(server: WikipediaStandIn, path: str, title: str = "", **limits: float) -> object:
    url = server.origin + path
    return source(**limits).read_sync(SourceHit(url, title or url))


def test_web_source_satisfies_the_protocol() -> None:
    assert isinstance(source(), PublicSourceProvider)


def test_web_source_reads_a_page_in_page_mode_with_its_metadata(server: WikipediaStandIn) -> None:
    outcome = read(server, "/page")
    assert isinstance(outcome, Document)
    document = outcome.document
    texts = [block.text for block in document.blocks]
    assert "Plan" in texts and "$20 per month" in texts
    assert document.publisher == "Example News"
    assert document.page_date == 1_709_632_800_000
    assert document.licence is not None
    assert document.licence.url == "https://creativecommons.org/licenses/by/4.0/"
    assert document.title == "Plans and prices"
    assert document.site == "127.0.0.1" and document.url == server.origin + "/page"
    assert document.revision is None


def test_web_source_keeps_a_hit_title_that_names_the_page(server: WikipediaStandIn) -> None:
    outcome = read(server, "/page", title="Prices (cited)")
    assert isinstance(outcome, Document) and outcome.document.title == "Prices (cited)"


def test_web_source_passages_cite_the_page(server: WikipediaStandIn) -> None:
    outcome = read(server, "/page")
    assert isinstance(outcome, Document)
    contents = [p.content for p in citation_sources(outcome.document)]
    assert "It was introduced in 2020." in contents
    licence = citation_sources(outcome.document)[0].licence
    assert isinstance(licence, Licence)


def test_web_source_article_mode_drops_tables(server: WikipediaStandIn) -> None:
    article = WebPageSource(IDENTITY, "article", allow_private=True)
    outcome = article.read_sync(SourceHit(server.origin + "/page", "Prices"))
    assert isinstance(outcome, Document)
    assert "$20 per month" not in [block.text for block in outcome.document.blocks]


def test_web_source_follows_redirects_and_cites_where_it_landed(server: WikipediaStandIn) -> None:
    server.answer("/old", Answer(301, {"Location": "/middle"}))
    server.answer("/middle", Answer(302, {"Location": server.origin + "/page"}))
    outcome = read(server, "/old")
    assert isinstance(outcome, Document)
    assert outcome.document.url == server.origin + "/page"
    assert outcome.document.key == server.origin + "/old"
    assert [p for p in server.paths() if p != "/robots.txt"] == ["/old", "/middle", "/page"]


def test_web_source_bounds_redirects(server: WikipediaStandIn) -> None:
    for hop in range(4):
        server.answer(f"/r{hop}", Answer(302, {"Location": f"/r{hop + 1}"}))
    outcome = read(server, "/r0", max_redirects=2)
    assert isinstance(outcome, Skipped) and outcome.status == 302
    assert "/r3" not in server.paths()


def test_web_source_rechecks_each_hop(server: WikipediaStandIn) -> None:
    server.answer("/away", Answer(302, {"Location": "file:///etc/passwd"}))
    outcome = read(server, "/away")
    assert isinstance(outcome, Skipped) and outcome.status is None


def test_web_source_refuses_a_private_address_unless_allowed(server: WikipediaStandIn) -> None:
    closed = WebPageSource(IDENTITY)
    outcome = closed.read_sync(SourceHit(server.origin + "/page", "x"))
    assert isinstance(outcome, Skipped) and outcome.status is None
    assert server.requests == []


def test_web_source_honours_robots_txt(server: WikipediaStandIn) -> None:
    server.answer(
        "/robots.txt",
        Answer(200, {"Content-Type": "text/plain"}, b"User-agent: *\nDisallow: /page\n"),
    )
    outcome = read(server, "/page")
    assert isinstance(outcome, Skipped)
    assert "/page" not in server.paths()


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        (Answer(200, {"Content-Type": "application/pdf"}, b"%PDF-1.4"), 200),
        (Answer(404, HTML, b"<p>gone</p>"), 404),
        (Answer(429, {"Retry-After": "60"}), 429),
    ],
    ids=["not-html", "404", "429"],
)
def test_web_source_skips_unusable_answers(
    server: WikipediaStandIn, answer: Answer, status: int
) -> None:
    server.answer("/bad", answer)
    outcome = read(server, "/bad")
    assert isinstance(outcome, Skipped) and outcome.status == status


def test_web_source_after_429_is_limited(server: WikipediaStandIn) -> None:
    server.answer("/bad", Answer(429, {"Retry-After": "60"}))
    pages = source()
    pages.read_sync(SourceHit(server.origin + "/bad", "x"))
    assert isinstance(pages.read_sync(SourceHit(server.origin + "/page", "x")), Limited)


@pytest.mark.timeout(10)
def test_web_source_deadline(server: WikipediaStandIn) -> None:
    server.answer("/slow", Answer(200, HTML, b"<p>late</p>", delay=2.0))
    outcome = read(server, "/slow", deadline=0.2)
    assert isinstance(outcome, Skipped) and outcome.status is None


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        (
            "https://example.org/a?b=1",
            Hits((SourceHit("https://example.org/a?b=1", "https://example.org/a?b=1"),)),
        ),
        (
            "  http://example.org/  ",
            Hits((SourceHit("http://example.org/", "http://example.org/"),)),
        ),
    ],
)
def test_web_source_search_recognises_a_url(phrase: str, expected: Hits) -> None:
    assert asyncio.run(source().search(phrase)) == expected


@pytest.mark.parametrize(
    "phrase",
    ["Treaty of Versailles", "ftp://example.org/x", "http://", "http://[::1", "\ud800", None],
)
def test_web_source_search_of_anything_else_fails(phrase: object) -> None:
    outcome = source().search_sync(phrase)  # type: ignore[arg-type]
    assert isinstance(outcome, Failed) and outcome.status is None


def test_web_source_refuses_an_unknown_mode() -> None:
    with pytest.raises(ValueError, match="mode"):
        WebPageSource(IDENTITY, "everything")  # type: ignore[arg-type]


@pytest.mark.parametrize("key", [None, "", "not a url", "http://[::1", "http://x\ud800.org/"])
def test_web_source_read_of_an_unusable_key_is_skipped(key: object) -> None:
    outcome = source().read_sync(SourceHit(key, None))  # type: ignore[arg-type]
    assert isinstance(outcome, Skipped) and outcome.status is None


def test_web_source_without_a_hit_title_uses_the_page_title(server: WikipediaStandIn) -> None:
    hit = SourceHit(server.origin + "/page", None)  # type: ignore[arg-type]
    outcome = source().read_sync(hit)
    assert isinstance(outcome, Document) and outcome.document.title == "Plans and prices"


def test_a_signal_set_before_a_read_sends_nothing(server: WikipediaStandIn) -> None:
    signal = asyncio.Event()
    signal.set()
    hit = SourceHit(server.origin + "/page", "Plans")
    with pytest.raises(Aborted):
        asyncio.run(source().read(hit, signal=signal))
    assert server.requests == []


def test_search_sync_and_read_sync_work_inside_a_running_event_loop(
    server: WikipediaStandIn,
) -> None:
    url = server.origin + "/page"

    async def notebook_cell() -> tuple[object, object]:
        pages = source()
        return pages.search_sync(url), pages.read_sync(SourceHit(url, "Prices"))

    found, read = asyncio.run(notebook_cell())
    assert found == Hits((SourceHit(url, url),))
    assert isinstance(read, Document) and read.document.title == "Prices"


def test_sources_share_the_fetcher_they_are_given(server: WikipediaStandIn) -> None:
    shared = Fetcher()
    server.answer("/busy", Answer(429, {"Retry-After": "60"}, b""))
    first = WebPageSource(IDENTITY, allow_private=True, fetcher=shared)
    assert isinstance(first.read_sync(SourceHit(server.origin + "/busy", "x")), Skipped)
    second = WebPageSource(IDENTITY, "article", allow_private=True, fetcher=shared)
    assert second.read_sync(SourceHit(server.origin + "/page", "x")) == Limited("blocked")
    assert isinstance(source().read_sync(SourceHit(server.origin + "/page", "x")), Document)


@pytest.mark.parametrize(
    ("field", "absurd"),
    [
        ("deadline", float("nan")),
        ("max_declared_bytes", 0),
        ("max_body_bytes", -1),
        ("max_redirects", 10**6),
        ("text_budget", float("inf")),
    ],
)
def test_absurd_page_limits_are_refused_naming_the_bound(field: str, absurd: float) -> None:
    with pytest.raises(InvalidArgument, match=f"^{field} must be"):
        PageLimits(**{field: absurd})  # type: ignore[arg-type]
