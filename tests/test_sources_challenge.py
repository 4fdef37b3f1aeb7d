"""A bot challenge or block page sent with a success status is refused, never read as the page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citesift import Document, Skipped, Snapshot, SourceHit
from citesift.net import ClientIdentity
from citesift.sources import WebPageSource
from citesift.sources.challenge import stand_in
from conftest import ARTICLE_PAGES, WIKIPEDIA_FIXTURES
from wikipedia_server import Answer, WikipediaStandIn

IDENTITY = ClientIdentity("TestClient", "1.0", "https://example.org/contact")
HTML = {"Content-Type": "text/html; charset=utf-8"}
CHALLENGES = {
    "Cloudflare": b"""<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"></head><body><div class="main-wrapper">
<h1 class="zone-name-title h1">news.example</h1><p>Verifying you are human. This may take a
few seconds.</p><noscript>Enable JavaScript and cookies to continue</noscript></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cType: 'managed'};var a=document.createElement
('script');a.src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8';}());</script>
</body></html>""",
    "DataDome": b"""<html><head><title>news.example</title></head><body style="margin:0">
<p id="cmsg">Please enable JS and disable any ad blocker</p><script>var dd={'rt':'c','cid':'x'}
</script><script src="https://ct.captcha-delivery.com/c.js"></script></body></html>""",
    "PerimeterX": b"""<html><head><title>Access to this page has been denied</title></head>
<body><div id="px-captcha"></div><p>Press &amp; Hold to confirm you are a human (and not a bot).
</p><script src="/AbCdEf/captcha/captcha.js?a=c&u=1&v=&m=0"></script></body></html>""",
    "Akamai": b"""<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY><H1>Access Denied</H1>
You don't have permission to access "http&#58;&#47;&#47;news&#46;example&#47;" on this server.
<P>Reference&#32;&#35;18&#46;1&#46;1</P><P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net
</P><img src="https://errors.edgesuite.net/18.1.1.gif"></BODY></HTML>""",
}
ARTICLE = (
    b"<html><head><title>Edge services</title>"
    b'<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></head><body>'
    b"<article><h1>How sites answer bots</h1>"
    + b"<p>Some services answer with a page titled Just a moment... and a frame from "
    b"captcha-delivery.com, px-captcha or errors.edgesuite.net instead of the article.</p>"
    * 3
    + b"<p>"
    + b"A long and ordinary article about the web follows here. " * 60
    + b"</p></article></body></html>"
)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[WikipediaStandIn]:
    with WikipediaStandIn(tmp_path) as stand_in:
        yield stand_in


def read(server: WikipediaStandIn, path: str) -> object:
    source = WebPageSource(IDENTITY, allow_private=True)
    return source.read_sync(SourceHit(server.origin + path, server.origin + path))


@pytest.mark.parametrize("service", sorted(CHALLENGES))
def test_a_challenge_page_sent_as_200_is_skipped_and_named(
    server: WikipediaStandIn, service: str
) -> None:
    server.answer("/story", Answer(200, HTML, CHALLENGES[service]))
    outcome = read(server, "/story")
    assert outcome == Skipped(200, f"a {service} challenge or block page, not the page")


def test_a_challenge_header_is_enough(server: WikipediaStandIn) -> None:
    page = b"<html><body><p>Checking your connection.</p></body></html>"
    server.answer("/story", Answer(200, {**HTML, "cf-mitigated": "challenge"}, page))
    outcome = read(server, "/story")
    assert isinstance(outcome, Skipped) and "Cloudflare" in outcome.reason


def test_an_article_that_names_the_markers_or_loads_a_service_script_is_read(
    server: WikipediaStandIn,
) -> None:
    server.answer("/story", Answer(200, HTML, ARTICLE))
    outcome = read(server, "/story")
    assert isinstance(outcome, Document)
    assert outcome.document.blocks[0].text == "How sites answer bots"


def test_a_short_page_that_only_mentions_a_service_is_read(server: WikipediaStandIn) -> None:
    page = b"<html><head><title>Notes</title></head><body><p>Just a moment... said the"
    page += b" DataDome page at captcha-delivery.com, and px-captcha appeared.</p></body></html>"
    server.answer("/story", Answer(200, HTML, page))
    assert isinstance(read(server, "/story"), Document)


@pytest.mark.parametrize(
    "page",
    [
        b"<html><head><title>Page Not Found | Example News</title></head><body><nav>Home</nav>"
        b"<p>Sorry, we could not find that story.</p></body></html>",
        b"<html><body><h1>Sorry, this page can't be found.</h1><p>Try search.</p></body></html>",
        b"<html><head><title>Error 404</title></head><body><p>Gone.</p></body></html>",
    ],
    ids=["title", "heading", "status-in-title"],
)
def test_a_not_found_page_sent_as_200_is_a_soft_404(server: WikipediaStandIn, page: bytes) -> None:
    server.answer("/story", Answer(200, HTML, page))
    outcome = read(server, "/story")
    assert outcome == Skipped(200, "a page saying it was not found (a soft 404), not the page")


def test_an_article_about_404_pages_is_read(server: WikipediaStandIn) -> None:
    page = b"<html><head><title>Why a 404 page matters</title></head><body><article>"
    page += b"<p>A page not found answer should carry the status 404, not 200.</p>" * 40
    page += b"</article></body></html>"
    server.answer("/story", Answer(200, HTML, page))
    assert isinstance(read(server, "/story"), Document)


def test_no_real_page_of_the_fixtures_is_taken_for_a_stand_in() -> None:
    pages = ARTICLE_PAGES + sorted((WIKIPEDIA_FIXTURES / "pages").glob("*.html"))
    flagged = [
        page.name
        for page in pages
        if stand_in(Snapshot("id", "u", "u", 200, (), "text/html", "utf-8", 0, page.read_bytes()))
    ]
    assert len(pages) > 10 and flagged == []
