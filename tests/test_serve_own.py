"""citesift's own routes under ``/citesift`` against ``citesift serve`` on loopback: a
Wikipedia article's passages (from the recorded stand-in) and a web page's, each with its
attribution and offsets; a private address refused unless the server allows it; a claim
graded against sentences; and a document's citations checked against the pages cited,
within a time limit."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from citesift.api.config import ServeConfig
from citesift.api.own_routes import retry_after
from citesift.errors import InvalidArgument
from citesift.index.embedders import shared_embedder
from citesift.model import Limited, Skipped
from citesift.settings import Settings
from local_site import serve_bytes
from made_documents import pdf
from servers import MisbehavingServer
from serving import CONTACT, running
from test_agent_run import MUSEUM, site
from test_check_citations import (
    BAD_LIMITS,
    LIMIT,
    assert_cut_short,
    dripping_document,
    slow_document,
)
from wikipedia_server import Answer, WikipediaStandIn, fresh_stand_in

pytestmark = pytest.mark.timeout(120)
PDF_TYPE = "application/pdf"
WIKI_HTML = {"Content-Type": "text/html; charset=utf-8"}
DISAMBIGUATION = (
    b'<html><head><meta property="mw:PageProp/disambiguation"/></head><body><section>'
    b"<p>Mercury may refer to:</p><ul><li>Mercury (planet), the closest planet to the Sun</li>"
    b"<li>Mercury (element), a chemical element</li></ul></section></body></html>"
)


@pytest.fixture
def stand_in(wikipedia_fixtures: Path) -> Iterator[WikipediaStandIn]:
    with fresh_stand_in(wikipedia_fixtures) as server:
        yield server


def test_an_articles_passages_carry_their_licence_revision_and_links(
    stand_in: WikipediaStandIn,
) -> None:
    with running(ServeConfig(port=0, wiki_origins=(stand_in.origin,))) as served:
        articles_of_a_configured_wiki(served, stand_in)


def articles_of_a_configured_wiki(served: str, stand_in: WikipediaStandIn) -> None:
    asked = {"key": "Dog", "origin": stand_in.origin}
    answer = httpx.post(f"{served}/citesift/wikipedia/passages", json=asked, timeout=30).json()
    first = answer["passages"][0]
    assert first["content"].startswith("The domestic dog") and first["block"] == 0
    assert first["fragment_url"].startswith(stand_in.origin + "/wiki/Dog#:~:text=The%20domestic")
    assert first["licence"]["name"] == "CC BY-SA 4.0" and first["revision"]
    assert answer["document"]["title"] == "Dog" and "blocks" not in answer["document"]
    missing = httpx.post(
        f"{served}/citesift/wikipedia/passages", json={**asked, "key": "No_such_page_here"}
    )
    assert missing.status_code == 404 and missing.json()["code"] == "NOT_FOUND"
    assert missing.json()["error"] == (
        f"{stand_in.origin} has no article 'No_such_page_here' (HTTP 404): search for its key"
    )
    spelt = {**asked, "origin": stand_in.origin + "/"}  # another spelling of the origin
    again = httpx.post(f"{served}/citesift/wikipedia/passages", json=spelt, timeout=30).json()
    assert again["passages"][0]["fragment_url"] == first["fragment_url"]


def test_a_servers_one_wiki_is_read_when_a_request_names_none(
    stand_in: WikipediaStandIn,
) -> None:
    stand_in.answer("/api/rest_v1/page/html/Empty", Answer(200, WIKI_HTML, b"<html></html>"))
    stand_in.answer("/api/rest_v1/page/html/Mercury", Answer(200, WIKI_HTML, DISAMBIGUATION))
    with running(ServeConfig(port=0, wiki_origins=(stand_in.origin,))) as served:
        url = f"{served}/citesift/wikipedia/passages"
        answer = httpx.post(url, json={"key": "Dog"}, timeout=30).json()
        redirected = httpx.post(url, json={"key": "dog"}, timeout=30)
        spaced = httpx.post(url, json={"key": "Rust (programming language)"}, timeout=30)
        empty = httpx.post(url, json={"key": "Empty"}, timeout=30).json()
        listing = httpx.post(url, json={"key": "Mercury"}, timeout=30).json()
    assert answer["document"]["url"] == stand_in.origin + "/wiki/Dog"
    assert answer["passages"] and answer["warning"] is None
    assert redirected.status_code == 404 and redirected.json()["code"] == "REDIRECTED"
    assert redirected.json()["error"] == "Wikipedia redirects dog to Dog: ask for Dog"
    assert spaced.json()["document"]["key"] == "Rust_(programming_language)", spaced.text
    assert "/api/rest_v1/page/html/Dog" in stand_in.paths()
    assert "/api/rest_v1/page/html/Rust_(programming_language)" in stand_in.paths()
    assert empty["passages"] == [] and empty["warning"] == "the page holds no text to cite"
    assert listing["passages"] and "disambiguation page" in listing["warning"]


def test_a_wiki_asking_to_wait_is_429_with_retry_after(stand_in: WikipediaStandIn) -> None:
    stand_in.answer("/api/rest_v1/page/html/Dog", Answer(429, {"Retry-After": "120"}))
    with running(ServeConfig(port=0, wiki_origins=(stand_in.origin,))) as served:
        url = f"{served}/citesift/wikipedia/passages"
        first = httpx.post(url, json={"key": "Dog"}, timeout=30)
        then = httpx.post(url, json={"key": "Dog"}, timeout=30)
    assert first.status_code == 429 and first.json()["code"] == "RATE_LIMITED"
    assert first.headers["retry-after"] == "120"  # the host's first answer: its own time
    assert then.status_code == 429 and 100 <= int(then.headers["retry-after"]) <= 120
    assert len(stand_in.requests) == 1


@pytest.mark.parametrize(
    ("outcome", "ready", "seconds"),
    [
        (Limited("wait"), 0.0, 1),  # only the host's fetch slots were busy
        (Limited("wait"), 2.2, 3),  # the spacing says how long
        (Limited("minute"), 0.0, 30),  # another process's minute: nothing here knows
        (Limited("blocked", 12.3), 0.0, 13),
        (Skipped(429, "HTTP 429"), 100.0, 100),
        (Skipped(503, "HTTP 503"), 0.0, 30),
    ],
)
def test_a_429_asks_for_the_wait_known_else_a_moment_for_busy_slots(
    outcome: Limited | Skipped, ready: float, seconds: int
) -> None:
    assert retry_after(outcome, ready) == seconds


def test_a_request_naming_no_wiki_of_several_others_is_told_to_name_one(
    stand_in: WikipediaStandIn,
) -> None:
    wikis = (stand_in.origin, "https://de.wikipedia.org")
    with running(ServeConfig(port=0, wiki_origins=wikis)) as served:
        url = f"{served}/citesift/wikipedia/passages"
        refused = httpx.post(url, json={"key": "Dog"}, timeout=30)
    assert refused.status_code == 400 and refused.json()["details"][0]["path"] == ["origin"]
    said = refused.json()["details"][0]["message"]
    assert f"name one of {stand_in.origin}, https://de.wikipedia.org" in said, said
    assert stand_in.paths() == []


def test_a_wiki_the_server_was_not_given_is_refused_unasked(
    served: str, stand_in: WikipediaStandIn, server: MisbehavingServer
) -> None:
    on_wiki = "https://en.wikipedia.org"
    for origin in (
        stand_in.origin,
        server.url("").rstrip("/"),
        on_wiki + ".evil",
        on_wiki.replace("//", "//someone@"),  # a configured wiki's host, but not an origin
    ):
        asked = {"key": "Dog", "origin": origin}
        refused = httpx.post(f"{served}/citesift/wikipedia/passages", json=asked, timeout=30)
        assert refused.status_code == 400, origin
        assert refused.json()["details"][0]["path"] == ["origin"]
        assert "only this server's wikis are read" in refused.json()["details"][0]["message"]
    assert server.seen == [] and stand_in.paths() == []  # nothing was asked of either


def test_a_pages_passages_point_into_its_stored_bytes(
    served: str, server: MisbehavingServer
) -> None:
    site(server)
    asked = {"url": server.url("/museum")}
    answer = httpx.post(f"{served}/citesift/page/passages", json=asked, timeout=30).json()
    floors = next(p for p in answer["passages"] if "12 floors" in p["content"])
    spanned = MUSEUM.decode()[floors["source_start"] : floors["source_end"]]
    assert spanned.strip() == floors["content"].strip() and floors["snapshot_id"]
    assert answer["document"]["title"] == "City Museum"
    unknown = httpx.post(f"{served}/citesift/page/passages", json={**asked, "depth": 2})
    assert unknown.status_code == 400 and unknown.json()["details"][0]["path"] == ["depth"]


def test_a_private_page_is_refused_unless_the_server_allows_it(server: MisbehavingServer) -> None:
    site(server)
    with running(settings=Settings(contact=CONTACT)) as base:
        asked = {"url": server.url("/museum")}
        answer = httpx.post(f"{base}/citesift/page/passages", json=asked, timeout=30)
    assert answer.status_code == 502 and server.hits("/museum") == 0


def test_a_claim_is_graded_against_the_sentences(served: str) -> None:
    sentences = ["The museum opened in 1998.", "It has 312 rooms on 12 floors.", "Tea is sold."]
    asked = {"claim": "The museum has 12 floors.", "sentences": sentences}
    answer = httpx.post(f"{served}/citesift/verify/claim", json=asked, timeout=60).json()
    assert answer["label"] == "supported" and 1 in answer["supporting"]
    assert answer["abstained"] is False
    wrong = httpx.post(
        f"{served}/citesift/verify/claim", json={**asked, "claim": "The museum has 40 floors."}
    ).json()
    assert wrong["label"] != "supported"
    tower = {"claim": "42", "about": "height", "sentences": ["It stands 42 metres tall."]}
    about = httpx.post(f"{served}/citesift/verify/claim", json=tower, timeout=60).json()
    assert about["label"] == "supported" and about["supporting"] == [0]  # height: 42


def test_each_citation_of_a_document_is_checked_against_its_page(
    served: str, server: MisbehavingServer
) -> None:
    site(server)
    museum = server.url("/museum")
    text = (
        f"The City Museum opened in 1998 [1]. Its director is Grace Hopper [1].\n\n[1] {museum}\n"
        "\nIts roof is copper.[^9]\n"
    )
    answer = httpx.post(f"{served}/citesift/check", json={"text": text}, timeout=60).json()
    verdicts = {c["sentence"]: c for c in answer["citations"]}
    undefined = verdicts["Its roof is copper."]  # a note defined nowhere: its marker names it
    assert (undefined["url"], undefined["marker"], undefined["status"]) == (
        "",
        "[^9]",
        "unavailable",
    )
    assert verdicts["The City Museum opened in 1998."]["status"] == "supported"
    assert "opened in 1998" in verdicts["The City Museum opened in 1998."]["evidence"]
    assert verdicts["Its director is Grace Hopper."]["status"] != "supported"
    assert answer["passed"] is False and server.hits("/museum") == 1


def test_a_markdown_documents_relative_links_are_read_against_base_url(
    served: str, server: MisbehavingServer
) -> None:
    """``base_url`` was used for HTML only: a Markdown document's relative links were
    dropped, and it passed with no citation."""
    site(server)
    text = "The City Museum opened in 1998 [1].\n\n[1]: /museum\n"
    asked = {"text": text, "base_url": server.url("/reports/2024.md")}
    answer = httpx.post(f"{served}/citesift/check", json=asked, timeout=60).json()
    (citation,) = answer["citations"]
    assert (citation["url"], citation["status"]) == (server.url("/museum"), "supported")
    alone = httpx.post(f"{served}/citesift/check", json={"text": text}, timeout=60).json()
    assert [(c["url"], c["status"]) for c in alone["citations"]] == [("/museum", "unavailable")]
    assert alone["passed"] is False and server.hits("/museum") == 1


def test_a_cited_pdf_is_checked_and_its_page_given(served: str, server: MisbehavingServer) -> None:
    serve_bytes(server, "/report", pdf(["Cover", "The City Museum opened in 1998."]), PDF_TYPE)
    text = f"The City Museum opened in 1998 [1].\n\n[1] {server.url('/report')}\n"
    answer = httpx.post(f"{served}/citesift/check", json={"text": text}, timeout=60).json()
    (citation,) = answer["citations"]
    assert citation["status"] == "supported" and citation["place"]["page"] == 2
    assert citation["evidence_url"] == server.url("/report") + "#page=2"


def test_a_checks_time_limit_cuts_it_short_and_a_senseless_one_is_refused(
    served: str, server: MisbehavingServer
) -> None:
    shared_embedder()  # the server runs in this process: loaded before the clock starts
    asked = {"text": slow_document(server), "max_seconds": LIMIT}
    answer = httpx.post(f"{served}/citesift/check", json=asked, timeout=60).json()
    assert answer["cut_short"] is True and answer["passed"] is False and answer["unchecked"] == 0
    assert_cut_short(answer["citations"], server)
    for max_seconds in [*BAD_LIMITS[:2], 3601]:
        refused = httpx.post(f"{served}/citesift/check", json={**asked, "max_seconds": max_seconds})
        assert refused.status_code == 400, refused.text
        assert refused.json()["details"][0]["path"] == ["max_seconds"]
    schema = httpx.get(f"{served}/openapi.json").json()["components"]["schemas"]
    bound = schema["CitationsRequest"]["properties"]["max_seconds"]
    assert (bound["default"], bound["maximum"]) == (300, 3600)  # no check holds a worker longer


def test_a_checks_time_limit_ends_a_read_under_way(served: str, server: MisbehavingServer) -> None:
    shared_embedder()
    asked = {"text": dripping_document(server), "max_seconds": 2}
    started = time.monotonic()
    answer = httpx.post(f"{served}/citesift/check", json=asked, timeout=60).json()
    assert time.monotonic() - started < 8  # not the server's page deadline of 15 s
    assert answer["cut_short"] is True and answer["unavailable"] == 2


def test_the_schema_documents_every_route_and_its_typed_answers(served: str) -> None:
    schema = httpx.get(f"{served}/openapi.json").json()
    paths = set(schema["paths"])
    assert {"/v2/crawl", "/v2/crawl/{job}", "/v2/batch/scrape", "/v2/search", "/v2/agent"} <= paths
    assert {"/citesift/wikipedia/passages", "/citesift/check", "/citesift/runs/{run_id}"} <= paths
    models = schema["components"]["schemas"]
    assert {"url", "limit", "includePaths", "maxDiscoveryDepth"} <= set(
        models["CrawlRequest"]["properties"]
    )
    assert {"content", "fragment_url", "source_start"} <= set(models["PassageOut"]["properties"])
    passages = schema["paths"]["/citesift/page/passages"]["post"]
    assert "attributed passages" in passages["description"]


def test_the_wikis_a_server_reads_are_origins_checked_once() -> None:
    given = ServeConfig(wiki_origins=("HTTPS://De.Wikipedia.org/", "https://de.wikipedia.org"))
    assert given.wiki_origins == ("https://de.wikipedia.org",)
    ported = ServeConfig(wiki_origins=("https://en.wikipedia.org:443", "http://wiki.test:8080"))
    assert ported.wiki_origins == ("https://en.wikipedia.org", "http://wiki.test:8080")
    for bad in (
        (),
        ("ftp://de.wikipedia.org",),
        ("https://de.wikipedia.org/wiki",),
        ("https://user@de.wikipedia.org",),
        (3,),
    ):
        with pytest.raises(InvalidArgument, match="wiki_origins"):
            ServeConfig(wiki_origins=bad)  # type: ignore[arg-type]
