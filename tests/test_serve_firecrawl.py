"""The unmodified firecrawl-py SDK against ``citesift serve`` on loopback, over a local site:
scrape formats and metadata, provenance, failures, map with sitemaps and ranking, and a 400
naming each option citesift cannot honour."""

from __future__ import annotations

import base64
import struct
import time
import warnings
from pathlib import Path

import httpx
import pytest
from firecrawl.v2.utils.error_handler import (
    BadRequestError,
    FirecrawlError,
    RequestTimeoutError,
    WebsiteNotSupportedError,
)

from citesift.settings import Settings
from local_site import page, serve_bytes, serve_page, urlset
from servers import MisbehavingServer
from serving import CONTACT, client, running
from test_scrape import RICH, page_route

pytestmark = pytest.mark.timeout(60)


def test_scrape_answers_each_format_asked_with_metadata_and_provenance(
    served: str, server: MisbehavingServer
) -> None:
    page_route(server, "/rich", RICH)
    doc = client(served).scrape(
        server.url("/rich"), formats=["markdown", "html", "rawHtml", "links"]
    )
    assert doc.markdown is not None and doc.markdown.startswith("The river rises")
    assert doc.html is not None and "<script" not in doc.html and "The river rises" in doc.html
    assert doc.raw_html is not None and 'console.log("analytics")' in doc.raw_html
    assert doc.links is not None and "https://example.org/x" in doc.links
    assert all(isinstance(link, str) for link in doc.links)
    meta = doc.metadata
    assert meta is not None
    assert meta.title == "River notes" and meta.description == "Notes about a river."
    assert meta.language == "en"
    assert meta.source_url == meta.url == server.url("/rich")
    assert meta.status_code == 200
    own = meta.model_extra["citesift"]  # type: ignore[index]
    assert own["snapshot_ids"] and own["snapshot_ids"][0] == meta.scrape_id
    assert own["render"]["rendered"] is False
    passage = own["passages"][0]
    assert passage["content"].startswith("The river rises")
    block = own["blocks"][0]
    assert block["text"].startswith("The river rises")
    spanned = doc.raw_html[block["source_start"] : block["source_end"]]
    assert spanned.startswith("The river rises") and spanned.endswith("to the sea.")


def test_scrape_with_no_options_answers_markdown_only(
    served: str, server: MisbehavingServer
) -> None:
    page_route(server, "/rich", RICH)
    doc = client(served).scrape(server.url("/rich"))
    assert doc.markdown and doc.html is None and doc.raw_html is None and doc.links is None


def test_the_sdks_default_options_are_accepted_and_main_content_is_honoured(
    served: str, server: MisbehavingServer
) -> None:
    page_route(server, "/rich", RICH)
    fc = client(served)
    article = fc.scrape(server.url("/rich"), formats=["markdown"], only_main_content=True)
    whole = fc.scrape(server.url("/rich"), formats=["markdown"], only_main_content=False)
    assert article.markdown and whole.markdown
    assert "About us" not in article.markdown and "About us" in whole.markdown
    narrowed = fc.scrape(server.url("/rich"), formats=["markdown"], exclude_tags=["p.lead"])
    assert narrowed.markdown and "The river rises" not in narrowed.markdown


def test_headers_go_with_the_page_and_one_citesift_sets_itself_is_a_400(
    served: str, server: MisbehavingServer
) -> None:
    page_route(server, "/rich", RICH)
    client(served).scrape(server.url("/rich"), formats=["markdown"], headers={"X-Trace": "tide-3"})
    assert [seen.headers.get("X-Trace") for seen in server.seen if seen.path == "/rich"] == [
        "tide-3"
    ]
    body = {"url": server.url("/rich"), "headers": {"User-Agent": "Mozilla/5.0"}}
    refused = httpx.post(f"{served}/v2/scrape", json=body)
    assert refused.status_code == 400 and "headers" in refused.text
    assert server.hits("/rich") == 1


def test_a_page_answered_404_is_still_a_document_with_its_status(
    served: str, server: MisbehavingServer
) -> None:
    page_route(server, "/gone", RICH, status=404)
    doc = client(served).scrape(server.url("/gone"), formats=["markdown"])
    assert doc.metadata is not None and doc.metadata.status_code == 404


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"actions": [{"type": "click", "selector": "a"}]}, "actions"),
        (
            {"actions": [{"type": "wait", "selector": "#a"}, {"type": "wait", "selector": "#b"}]},
            "actions.1",
        ),
        ({"actions": [{"type": "wait", "milliseconds": 60_001}]}, "actions"),
        ({"location": {"country": "DE"}}, "location"),
        ({"mobile": True}, "mobile"),
        ({"formats": [{"type": "json", "prompt": "p", "schema": {"type": "object"}}]}, "formats"),
        ({"formats": ["summary"]}, "formats"),
        ({"proxy": "stealth"}, "proxy"),
        ({"parsers": ["image"]}, "parsers"),
        ({"skip_tls_verification": True}, "skipTlsVerification"),
    ],
)
def test_an_option_citesift_cannot_honour_is_a_400_naming_it(
    served: str, server: MisbehavingServer, options: dict[str, object], named: str
) -> None:
    page_route(server, "/rich", RICH)
    with pytest.raises(BadRequestError) as raised:
        client(served).scrape(server.url("/rich"), **options)  # type: ignore[arg-type]
    assert named in str(raised.value) and "not supported by citesift" in str(raised.value)
    assert server.hits("/rich") == 0  # refused before anything is fetched


def test_an_unknown_key_and_a_bad_value_are_400s_naming_them(served: str) -> None:
    unknown = httpx.post(f"{served}/v2/scrape", json={"url": "http://x.test/", "redactPII": True})
    assert unknown.status_code == 400
    assert unknown.json()["details"][0]["path"] == ["redactPII"]
    bad = httpx.post(f"{served}/v2/scrape", json={"url": "http://x.test/", "waitFor": -1})
    assert bad.status_code == 400 and bad.json()["details"][0]["path"] == ["waitFor"]
    for number in ("waitFor", "timeout", "maxAge"):  # a boolean is no number, in any body
        flag = httpx.post(f"{served}/v2/scrape", json={"url": "http://x.test/", number: True})
        assert flag.status_code == 400 and flag.json()["details"][0]["path"] == [number]
    limit = httpx.post(f"{served}/v2/crawl", json={"url": "http://x.test/", "limit": True})
    assert limit.status_code == 400 and limit.json()["details"][0]["path"] == ["limit"]
    scheme = httpx.post(f"{served}/v2/scrape", json={"url": "ftp://x.test/"})
    assert scheme.status_code == 400 and "url" in scheme.json()["details"][0]["message"]


def test_a_private_address_is_refused_unless_the_server_allows_it(
    server: MisbehavingServer,
) -> None:
    page_route(server, "/rich", RICH)
    with (
        running(settings=Settings(contact=CONTACT)) as base,
        pytest.raises(WebsiteNotSupportedError) as raised,
    ):
        client(base).scrape(server.url("/rich"))
    assert "SSRF_BLOCKED" in str(raised.value)
    assert server.hits("/rich") == 0


def test_a_failed_fetch_is_an_error_with_its_code(served: str, server: MisbehavingServer) -> None:
    with pytest.raises(FirecrawlError) as raised:
        client(served).scrape("http://unresolvable.invalid/page")
    assert raised.value.status_code == 500
    assert "NETWORK_ERROR" in str(raised.value)


def test_map_lists_the_sitemap_and_start_page_and_ranks_by_search(
    served: str, server: MisbehavingServer
) -> None:
    base = server.url("")
    sitemap = [f"{base}/news/sports", f"{base}/blog/solar-panels", f"{base}/about"]
    serve_bytes(server, "/sitemap.xml", urlset(sitemap), "application/xml")
    serve_page(server, "/", page("Home", ["/contact"]))
    fc = client(served)
    found = [link.url for link in fc.map(server.url("/")).links]
    assert set(found) == {f"{base}/", f"{base}/contact", *sitemap}
    ranked = [link.url for link in fc.map(server.url("/"), search="solar panels", limit=2).links]
    assert ranked == [f"{base}/blog/solar-panels", f"{base}/"]
    skipped = [link.url for link in fc.map(server.url("/"), sitemap="skip").links]
    assert set(skipped) == {f"{base}/", f"{base}/contact"}


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"sitemap": "only"}, "sitemap"),
        ({"include_subdomains": True}, "includeSubdomains"),
        ({"ignore_query_parameters": True}, "ignoreQueryParameters"),
    ],
)
def test_a_map_option_citesift_cannot_honour_is_a_400_naming_it(
    served: str, server: MisbehavingServer, options: dict[str, object], named: str
) -> None:
    with pytest.raises(BadRequestError) as raised:
        client(served).map(server.url("/"), **options)  # type: ignore[arg-type]
    assert named in str(raised.value)
    assert server.hits("/") == 0


def test_a_map_lists_a_start_page_that_fails_first_and_warns_why(
    served: str, server: MisbehavingServer
) -> None:
    base = server.url("")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/a"]), "application/xml")
    answer = httpx.post(f"{served}/v2/map", json={"url": server.url("/nothere")}, timeout=10)
    assert answer.status_code == 200
    assert [link["url"] for link in answer.json()["links"]] == [f"{base}/nothere", f"{base}/a"]
    assert f"{base}/nothere: HTTP 404 Not Found" in answer.json()["warning"]


def test_a_map_leaves_out_what_robots_txt_disallows_and_says_how_many(
    served: str, server: MisbehavingServer
) -> None:
    base = server.url("")
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    serve_bytes(server, "/sitemap.xml", urlset([f"{base}/a", f"{base}/private"]), "text/xml")
    serve_page(server, "/", page("Home", ["/private/too"]))
    answer = httpx.post(f"{served}/v2/map", json={"url": server.url("/")}, timeout=10).json()
    assert [link["url"] for link in answer["links"]] == [f"{base}/", f"{base}/a"]
    assert answer["disallowed"] == 2
    assert "2 URL(s) left out: robots.txt disallows them" in answer["warning"]
    found = [link.url for link in client(served).map(server.url("/")).links]
    assert found == [f"{base}/", f"{base}/a"]  # a Firecrawl client reads the answer as ever
    assert server.hits("/private") == 0 and server.hits("/private/too") == 0


def test_a_map_past_its_timeout_is_a_408(served: str, server: MisbehavingServer) -> None:
    serve_page(server, "/", page("Home", []), delay=3)
    answer = httpx.post(
        f"{served}/v2/map", json={"url": server.url("/"), "timeout": 300}, timeout=10
    )
    assert answer.status_code == 408 and answer.json()["code"] == "MAP_TIMEOUT"


def test_the_schema_documents_the_firecrawl_bodies(served: str) -> None:
    schema = httpx.get(f"{served}/openapi.json").json()
    assert {"/v2/scrape", "/v2/map"} <= set(schema["paths"])
    scrape_body = schema["components"]["schemas"]["ScrapeRequest"]["properties"]
    assert {"url", "formats", "onlyMainContent", "includeTags", "maxAge"} <= set(scrape_body)


@pytest.mark.slow
def test_a_screenshot_is_a_png_data_url_of_the_rendered_page(server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    rendering = Settings(contact=CONTACT, allow_private=True)  # the system's Chromium
    with running(settings=rendering) as base:
        shot = {"type": "screenshot", "fullPage": False, "viewport": {"width": 400, "height": 300}}
        doc = client(base).scrape(server.url("/rich"), formats=["markdown", shot])
    assert doc.screenshot is not None and doc.screenshot.startswith("data:image/png;base64,")
    png = base64.b64decode(doc.screenshot.split(",", 1)[1])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert struct.unpack(">II", png[16:24]) == (400, 300)  # the viewport asked, not the page
    assert doc.metadata is not None
    assert doc.metadata.model_extra["citesift"]["render"]["rendered"] is True  # type: ignore[index]


def test_max_age_answers_from_the_store_and_store_in_cache_false_keeps_nothing(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    page_route(server, "/kept", RICH)
    page_route(server, "/not-kept", RICH)
    stored = Settings(contact=CONTACT, allow_private=True, store=str(tmp_path / "store.db"))
    with running(settings=stored) as base:
        fc = client(base)
        first = fc.scrape(server.url("/kept"), formats=["markdown"])
        again = fc.scrape(server.url("/kept"), formats=["markdown"], max_age=3_600_000)
        fresh = fc.scrape(server.url("/kept"), formats=["markdown"], max_age=0)
        for _ in range(2):
            fc.scrape(server.url("/not-kept"), formats=["markdown"], store_in_cache=False)
    assert first.markdown == again.markdown == fresh.markdown
    assert server.hits("/kept") == 2  # the second scrape was answered by the store
    assert server.hits("/not-kept") == 2  # nothing was kept to answer from


def test_a_scrape_past_its_timeout_is_a_408(served: str, server: MisbehavingServer) -> None:
    serve_page(server, "/slow", page("Slow", []), delay=3)
    started = time.monotonic()
    with pytest.raises(RequestTimeoutError) as raised:
        client(served).scrape(server.url("/slow"), timeout=1000)
    assert time.monotonic() - started < 2.5
    assert raised.value.status_code == 408 and "SCRAPE_TIMEOUT" in str(raised.value.code)


def test_robots_txt_refusal_is_a_403(served: str, server: MisbehavingServer) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    page_route(server, "/private/page", RICH)
    with pytest.raises(WebsiteNotSupportedError) as raised:
        client(served).scrape(server.url("/private/page"))
    assert "ROBOTS_DISALLOWED" in str(raised.value)
    assert server.hits("/private/page") == 0


def test_a_screenshot_without_a_browser_is_an_error_saying_so(
    served: str, server: MisbehavingServer
) -> None:
    page_route(server, "/rich", RICH)
    with pytest.raises(FirecrawlError) as raised:
        client(served).scrape(server.url("/rich"), formats=["screenshot"])
    assert raised.value.status_code == 500 and "RENDER_UNAVAILABLE" in str(raised.value)


def test_the_v1_style_calls_langchain_makes_are_served(
    served: str, server: MisbehavingServer
) -> None:
    page_route(server, "/rich", RICH)
    fc = client(served)
    asked = {"formats": ["markdown"], "integration": "langchain"}
    with warnings.catch_warnings():  # the SDK warns once a process that v1 calls are old
        warnings.filterwarnings("ignore", "firecrawl: v1-style calls", DeprecationWarning)
        doc = fc.scrape_url(server.url("/rich"), params=asked)
        found = fc.map_url(server.url("/rich"), params={"integration": "langchain"})
    assert doc.markdown and doc.markdown.startswith("The river rises")
    assert server.url("/rich") in [link.url for link in found.links]
