"""scrape() on static pages from a local server: formats, the render decision, stand-ins,
fetch failures, narrowing by CSS selectors and answers from the store."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from citesift.errors import InvalidArgument
from citesift.extract import strip_tags
from citesift.scrape.decision import needs_rendering
from citesift.scrape.options import ScrapeOptions
from citesift.scrape.page import scrape_sync
from citesift.scrape.result import ScrapeFailure, ScrapeResult
from citesift.scrape.tags import narrowed
from citesift.store import SQLiteStore
from citesift.store.snapshots import snapshots_in
from servers import TEST_IDENTITY, MisbehavingServer, Query, Request, loopback_policy

pytestmark = pytest.mark.timeout(60)
PROSE = "The river rises in the northern hills and runs south to the sea. " * 30
RICH = f"""<!doctype html><html lang="en"><head><title>River notes</title>
<meta name="description" content="Notes about a river."><script src="/app.js"></script></head>
<body><nav><a href="/">Home</a> <a href="/about#team">About us</a></nav>
<article><h1>The river</h1><p class="lead" style="color:red">{PROSE}</p>
<p>See <a href="/about">the about page</a> and <a href="https://example.org/x#y">a map</a>.</p>
<div class="ad">Buy shoes now, a limited offer.</div></article>
<script>console.log("analytics")</script></body></html>"""
APP_SHELL = """<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<script src="/bundle.js"></script></body></html>"""
NOSCRIPT = """<!doctype html><html><head><title>App</title></head><body>
<noscript>You need to enable JavaScript to run this app.</noscript><div id="main">Loading</div>
<script src="/bundle.js"></script></body></html>"""
CHALLENGE = """<!doctype html><html><head><title>Just a moment...</title></head><body>
<div id="challenge-running">Checking your browser</div>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>"""
CONSENT = """<!doctype html><html><head><title>Before you continue</title></head><body>
<p>We use cookies and data to deliver and maintain services.</p>
<form action="https://consent.google.com/save" method="POST"><button>Accept all</button></form>
</body></html>"""
SOFT_404 = """<!doctype html><html><head><title>Page not found</title></head><body>
<h1>Sorry, that page could not be found</h1></body></html>"""


def page_route(
    server: MisbehavingServer,
    path: str,
    page: str | bytes,
    status: int = 200,
    content_type: str = "text/html; charset=utf-8",
) -> None:
    """Serve ``page`` at ``path`` as ``content_type`` (its body read from ``server.pages`` so a
    test may change it)."""
    pages: dict[str, str | bytes] = server.__dict__.setdefault("pages", {})
    pages[path] = page

    def answer(request: Request, query: Query) -> None:
        body = pages[path]
        sent = body.encode("utf-8") if isinstance(body, str) else body
        request.answer(status, sent, {"Content-Type": content_type})

    server.route(path, answer)


def run(server: MisbehavingServer, path: str, *formats: str, **keywords: Any) -> Any:
    keywords.setdefault("executable", "/nonexistent/chromium")  # these tests never render
    return scrape_sync(
        server.url(path),
        formats or None,
        identity=TEST_IDENTITY,
        policy=loopback_policy(),
        **keywords,
    )


def test_rich_static_page_is_not_rendered_and_says_why(server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    result = run(server, "/rich", "text")
    assert isinstance(result, ScrapeResult)
    assert not result.render.decided and not result.render.rendered
    assert "rich" in result.render.why
    assert result.formats["text"].startswith("The river rises in the northern hills")
    timings = result.timings
    assert set(timings) == {"fetch", "extract", "total"} and timings["fetch"] > 0
    assert timings["total"] == round(timings["fetch"] + timings["extract"], 1)


def test_headers_go_with_the_fetch_of_the_page_itself(server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    result = run(server, "/rich", "text", headers={"Accept-Language": "fr", "X-Trace": "tide-3"})
    assert isinstance(result, ScrapeResult)
    sent = [seen.headers for seen in server.seen if seen.path.startswith("/rich")]
    assert [(h.get("Accept-Language"), h.get("X-Trace")) for h in sent] == [("fr", "tide-3")]
    assert sent[0]["User-Agent"] == TEST_IDENTITY.user_agent


@pytest.mark.parametrize("html", [APP_SHELL, NOSCRIPT], ids=["empty-root", "noscript"])
def test_decision_renders_an_app_shell_or_a_page_asking_for_javascript(html: str) -> None:
    decided, why = needs_rendering(html)
    assert decided, why


def test_decision_leaves_a_small_page_without_scripts_alone() -> None:
    assert not needs_rendering("<html><body><p>Short and static.</p></body></html>")[0]


def test_decision_weighs_text_against_size_and_never_renders_a_rich_page() -> None:
    bundle = "<script>" + "var x = 1;" * 2_000 + "</script>"
    thin = f"<html><body><p>Loading the catalogue, one moment.</p>{bundle}</body></html>"
    decided, why = needs_rendering(thin)
    assert decided and "readable characters in" in why
    rich_shell = APP_SHELL.replace("</body>", f"<article><p>{PROSE}</p></article></body>")
    decided, why = needs_rendering(rich_shell)  # an empty root beside a whole article
    assert not decided and why.startswith("the static page is rich")
    cjk = (
        "<html><body><div id='root'></div><p>"
        + "漢字" * 300
        + "</p><script></script></body></html>"
    )
    assert not needs_rendering(cjk)[0]  # 600 CJK characters say as much as 1,800 Latin ones


def test_auto_without_a_browser_reads_the_static_page_and_says_so(
    server: MisbehavingServer,
) -> None:
    page_route(server, "/app", APP_SHELL)
    result = run(server, "/app", "text")
    assert isinstance(result, ScrapeResult)
    assert result.render.decided and result.render.unavailable and not result.render.rendered
    assert any("no browser executable at /nonexistent/chromium" in w for w in result.warnings)


def test_always_without_a_browser_is_a_clear_failure(server: MisbehavingServer) -> None:
    page_route(server, "/app", APP_SHELL)
    failure = run(server, "/app", "text", render="always")
    assert isinstance(failure, ScrapeFailure) and failure.code == "RENDER_UNAVAILABLE"
    assert "/nonexistent/chromium" in failure.message
    assert failure.render is not None and failure.render.unavailable


def test_never_does_not_render_even_an_app_shell(server: MisbehavingServer) -> None:
    page_route(server, "/app", APP_SHELL)
    result = run(server, "/app", "raw_html", render="never")
    assert isinstance(result, ScrapeResult) and not result.render.decided
    assert result.warnings == () and result.formats["raw_html"] == APP_SHELL


def test_each_format_holds_its_content(server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    formats = ("markdown", "text", "blocks", "passages", "html", "raw_html", "links", "metadata")
    result = run(server, "/rich", *formats)
    assert isinstance(result, ScrapeResult) and tuple(result.formats) == formats
    made = result.formats
    assert made["markdown"].startswith("The river rises in the northern hills")
    assert made["raw_html"] == RICH
    for block in made["blocks"]:
        shown = " ".join(RICH[block["source_start"] : block["source_end"]].split())
        assert block["text"][:20] in shown
    passage = made["passages"][0]
    assert passage["content"] == "The river rises in the northern hills and runs south to the sea."
    assert passage["snapshot_id"] == result.snapshot_ids[0]
    cleaned = made["html"]
    assert "The river rises" in cleaned and "<script" not in cleaned
    assert "class=" not in cleaned and "style=" not in cleaned and 'href="/about"' in cleaned
    origin = server.url("")
    assert made["links"] == [
        {"url": origin + "/", "text": "Home"},
        {"url": origin + "/about", "text": "About us"},
        {"url": "https://example.org/x", "text": "a map"},
    ]
    assert made["metadata"]["title"] == "River notes"
    assert made["metadata"]["description"] == "Notes about a river."
    assert made["metadata"]["language"] == "en"
    assert result.metadata == made["metadata"] and result.status == 200


def test_result_turns_into_json_values(server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    result = run(server, "/rich", "links")
    plain = result.to_dict()
    assert plain["success"] is True and plain["render"]["decided"] is False
    assert plain["formats"]["links"][0]["text"] == "Home"


def test_challenge_page_is_a_failure_with_its_code(server: MisbehavingServer) -> None:
    page_route(server, "/check", CHALLENGE)
    failure = run(server, "/check", "markdown")
    assert isinstance(failure, ScrapeFailure) and failure.code == "ACCESS_BARRIER"
    assert "Cloudflare" in failure.message and failure.status == 200


def test_consent_wall_is_a_failure_with_its_code(server: MisbehavingServer) -> None:
    page_route(server, "/consent", CONSENT)
    failure = run(server, "/consent", "markdown")
    assert isinstance(failure, ScrapeFailure) and failure.code == "CONSENT_WALL"
    assert "Google consent wall" in failure.message


def test_a_redirect_to_a_consent_service_is_a_consent_wall(server: MisbehavingServer) -> None:
    port = server.url("/").split(":")[2].split("/")[0]
    wall = f"http://consent.google.com:{port}/ml?continue=/article"
    page_route(server, "/ml", "<html><body><p>Sign in or accept.</p></body></html>")
    server.route("/article", lambda request, query: request.answer(302, b"", {"Location": wall}))
    policy = loopback_policy(max_redirects=3, resolver=lambda host: ["127.0.0.1"])
    failure = scrape_sync(server.url("/article"), identity=TEST_IDENTITY, policy=policy)
    assert isinstance(failure, ScrapeFailure) and failure.code == "CONSENT_WALL", failure
    assert server.hits("/ml") == 1


def test_soft_404_is_a_failure_with_its_code(server: MisbehavingServer) -> None:
    page_route(server, "/gone", SOFT_404)
    failure = run(server, "/gone", "markdown")
    assert isinstance(failure, ScrapeFailure) and failure.code == "NOT_FOUND"


def test_an_error_status_page_is_a_result_with_its_status(server: MisbehavingServer) -> None:
    page_route(server, "/missing", "<html><body><p>Nothing here.</p></body></html>", status=404)
    result = run(server, "/missing", "text")
    assert isinstance(result, ScrapeResult) and result.status == 404
    assert result.formats["text"] == "Nothing here."


def test_fetch_refusals_are_failures_with_their_codes(server: MisbehavingServer) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /private")
    robots = scrape_sync(
        server.url("/private"), identity=TEST_IDENTITY, policy=loopback_policy(robots=True)
    )
    assert isinstance(robots, ScrapeFailure) and robots.code == "ROBOTS_DISALLOWED"
    private = scrape_sync(server.url("/ok"), identity=TEST_IDENTITY)
    assert isinstance(private, ScrapeFailure) and private.code == "SSRF_BLOCKED"
    assert "127.0.0.1" in private.message


def test_a_host_name_no_address_can_carry_is_refused_not_an_upstream_error() -> None:
    failure = scrape_sync("http://\u00b3\u00beS/", identity=TEST_IDENTITY, policy=loopback_policy())
    assert isinstance(failure, ScrapeFailure) and failure.code == "SSRF_BLOCKED", failure
    assert "malformed URL" in failure.message


def test_a_host_that_does_not_resolve_is_a_network_error() -> None:
    def nowhere(host: str) -> list[str]:
        raise OSError("Name or service not known")

    failure = scrape_sync(
        "http://nowhere.invalid/", identity=TEST_IDENTITY, policy=loopback_policy(resolver=nowhere)
    )
    assert isinstance(failure, ScrapeFailure) and failure.code == "NETWORK_ERROR", failure
    assert "cannot resolve nowhere.invalid" in failure.message


def test_a_fetch_past_its_deadline_is_a_timeout(server: MisbehavingServer) -> None:
    failure = scrape_sync(
        server.url("/slow?delay=3"), identity=TEST_IDENTITY, policy=loopback_policy(deadline=0.5)
    )
    assert isinstance(failure, ScrapeFailure) and failure.code == "TIMEOUT"


def test_include_and_exclude_tags_narrow_what_is_read(server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    result = run(
        server, "/rich", "text", "blocks", "raw_html",
        include_tags=["article"], exclude_tags=[".ad"], only_main_content=False,
    )  # fmt: skip
    text = result.formats["text"]
    assert "The river rises" in text and "Buy shoes" not in text and "Home" not in text
    assert result.formats["raw_html"] == RICH  # the page as received stays whole
    assert len(result.snapshot_ids) == 2  # the page fetched, and the narrowed page read
    whole = run(server, "/rich", "text", only_main_content=False)
    assert "Buy shoes" in whole.formats["text"] and "Home" in whole.formats["text"]


def test_spans_of_a_narrowed_page_refer_to_the_html_read(server: MisbehavingServer) -> None:
    page_route(server, "/rich", RICH)
    result = run(server, "/rich", "blocks", "html", include_tags=["p.lead"])
    blocks = result.formats["blocks"]
    assert [b["text"][:15] for b in blocks] == ["The river rises"]
    assert result.metadata["title"] == "River notes"  # the head is kept
    read = narrowed(RICH, ["p.lead"], [])  # made again from the page, byte for byte
    assert hashlib.sha256(read.encode()).hexdigest() == result.snapshot_ids[-1]
    for block in blocks:
        assert block["text"][:15] in read[block["source_start"] : block["source_end"]]


def test_a_narrowed_page_is_kept_with_its_selectors_so_its_passages_are_traced(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    page_route(server, "/rich", RICH)
    store = SQLiteStore(tmp_path / "store.db")
    narrowing = {"include_tags": ["article"], "exclude_tags": [".ad"]}
    result = run(server, "/rich", "passages", store=store, **narrowing)
    page_id, narrowed_id = result.snapshot_ids
    kept = snapshots_in(store)
    page, part = kept.get(page_id), kept.get(narrowed_id)
    assert page is not None and part is not None and page.body == RICH.encode()
    assert part.header("x-citesift-derived") == "narrowed"
    assert part.header("x-citesift-derived-from") == page_id
    assert json.loads(part.header("x-citesift-narrowing") or "") == narrowing
    html = part.body.decode("utf-8")
    assert html == narrowed(RICH, ["article"], [".ad"])  # made again from the page kept
    assert result.formats["passages"]
    for passage in result.formats["passages"]:  # each cites bytes the store keeps
        assert passage["snapshot_id"] == narrowed_id
        markup = html[passage["source_start"] : passage["source_end"]]
        assert passage["content"] in " ".join(strip_tags(markup).split())
    assert "Buy shoes" not in html
    for later in ({"max_age": 3600}, {"offline": True}):  # the part never stands for the page
        whole = run(server, "/rich", "text", store=store, only_main_content=False, **later)
        assert "Buy shoes" in whole.formats["text"] and whole.snapshot_ids == (page_id,)
    assert server.hits("/rich") == 1
    store.close()


def test_max_age_answers_from_the_store_without_sending(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    page_route(server, "/rich", RICH)
    store = SQLiteStore(tmp_path / "store.db")
    first = run(server, "/rich", "text", store=store)
    server.pages["/rich"] = RICH.replace("river", "canal")  # type: ignore[attr-defined]
    again = run(server, "/rich", "text", store=store, max_age=3600)
    assert server.hits("/rich") == 1
    assert again.formats["text"] == first.formats["text"]
    assert again.snapshot_ids == first.snapshot_ids
    fresh = run(server, "/rich", "text", store=store, max_age=0)
    assert server.hits("/rich") == 2 and "canal" in fresh.formats["text"]
    store.close()


def test_a_page_asked_with_headers_is_neither_kept_nor_answered_from_the_store(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    page_route(server, "/rich", RICH.replace("river", "members' river"))
    store = SQLiteStore(tmp_path / "store.db")
    mine = run(server, "/rich", "text", store=store, headers={"Cookie": "session=tide"})
    assert "members' river" in mine.formats["text"]
    assert list(snapshots_in(store).every()) == []  # the logged-in page is not kept
    server.pages["/rich"] = RICH  # type: ignore[attr-defined]
    theirs = run(server, "/rich", "text", store=store, max_age=3600)  # another caller, no headers
    assert server.hits("/rich") == 2 and "members'" not in theirs.formats["text"]
    again = run(server, "/rich", "text", store=store, max_age=3600, headers={"Cookie": "b=c"})
    assert (
        server.hits("/rich") == 3 and "members" not in again.formats["text"]
    )  # not answered from the store
    store.close()


@pytest.mark.parametrize(
    ("changes", "name"),
    [
        ({"formats": ("pdf",)}, "formats"),
        ({"formats": ()}, "formats"),
        ({"render": "sometimes"}, "render"),
        ({"wait_for": -1}, "wait_for"),
        ({"wait_for": "[[["}, "wait_for"),
        ({"wait_for": "60001"}, "wait_for"),
        ({"wait_for": "9" * 5000}, "wait_for"),
        ({"timeout": 0}, "timeout"),
        ({"viewport": (0, 10)}, "viewport"),
        ({"block_resources": ("scripts",)}, "block_resources"),
        ({"headers": {"X-A": "b\r\nc"}}, "headers"),
        ({"headers": {"User-Agent": "Mozilla/5.0"}}, "headers"),
        ({"headers": {"accept-encoding": "identity"}}, "headers"),
        ({"include_tags": ("div[",)}, "include_tags"),
        ({"max_age": -1}, "max_age"),
        ({"formats": ("screenshot",), "render": "never"}, "formats"),
    ],
)
def test_bad_options_are_refused_by_name(changes: dict[str, Any], name: str) -> None:
    with pytest.raises(InvalidArgument, match=name):
        ScrapeOptions(**changes)


def test_unknown_keyword_and_bad_url_are_refused(server: MisbehavingServer) -> None:
    with pytest.raises(TypeError):
        run(server, "/ok", colour="blue")
    with pytest.raises(InvalidArgument, match="url"):
        scrape_sync("ftp://example.org/", identity=TEST_IDENTITY)


def test_wait_for_reads_milliseconds_or_a_selector() -> None:
    assert ScrapeOptions(wait_for="250").wait_for == 250
    assert ScrapeOptions(wait_for="#done").wait_for == "#done"
