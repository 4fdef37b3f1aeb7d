"""WikipediaSourceProvider against the local stand-in: URLs, headers, caps, outcomes."""

from __future__ import annotations

import asyncio
import gzip
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from citesift import WIKIPEDIA_LICENCE, Document, Failed, Hits, Limited, Skipped, SourceHit
from citesift.errors import InvalidArgument
from citesift.net import ClientIdentity, Fetcher, LimiterRefused, LimiterRegistry, SourceLimiter
from citesift.sources import (
    CORE_PAGE_PATH,
    Aborted,
    PublicSourceProvider,
    WikipediaLimits,
    WikipediaSourceProvider,
    article_url,
)
from citesift.sources.reasons import read_note
from citesift.store import SQLiteStore
from servers import seconds_to_cancel
from wikipedia_server import SEARCH_PATH, Answer, WikipediaStandIn

IDENTITY = ClientIdentity("TestClient", "1.0", "https://example.org/contact")
PAGE = "/api/rest_v1/page/html/Dog"
HTML = {"Content-Type": "text/html; charset=utf-8"}
REDIRECT_PAGE = (
    b'<html><head><link rel="mw:PageProp/redirect" href="./Dog"/></head><body></body></html>'
)
DISAMBIGUATION_PAGE = (
    b'<html><head><meta property="mw:PageProp/disambiguation"/></head><body><section>'
    b"<p>Mercury may refer to:</p><ul><li>Mercury (planet), the closest planet to the Sun</li>"
    b"<li>Mercury (element), a chemical element</li></ul></section></body></html>"
)


@pytest.fixture
def stand_in(wikipedia_fixtures: Path) -> Iterator[WikipediaStandIn]:
    with WikipediaStandIn(wikipedia_fixtures) as server:
        yield server


def provider(
    stand_in: WikipediaStandIn, limiter: SourceLimiter | None = None, **limits: float
) -> WikipediaSourceProvider:
    """A provider on the stand-in with a limiter registry of its own."""
    registry = LimiterRegistry(lambda: limiter) if limiter else LimiterRegistry()
    return WikipediaSourceProvider(
        IDENTITY, stand_in.origin + "/", limits=WikipediaLimits(**limits), allow_private=True,
        fetcher=Fetcher(registry),
    )  # fmt: skip


def pages_answer(pages: object, **headers: str) -> Answer:
    body = json.dumps({"pages": pages}).encode()
    return Answer(200, {"Content-Type": "application/json", **headers}, body)


def test_provider_satisfies_the_protocol(stand_in: WikipediaStandIn) -> None:
    assert isinstance(provider(stand_in), PublicSourceProvider)
    assert provider(stand_in).site == "Wikipedia"


def test_search_sends_the_exact_url_identity_and_no_cookie(stand_in: WikipediaStandIn) -> None:
    calls: list[int] = []
    outcome = asyncio.run(
        provider(stand_in).search("Treaty of Versailles", on_send=lambda: calls.append(1))
    )
    assert outcome == Hits(())
    (request,) = stand_in.requests
    assert request.path == SEARCH_PATH + "?q=Treaty%20of%20Versailles&limit=2"
    assert request.headers["user-agent"] == "TestClient/1.0 (https://example.org/contact)"
    assert request.headers["accept"] == "application/json"
    assert "gzip" in request.headers["accept-encoding"]
    assert "cookie" not in request.headers
    assert calls == [1]


def test_search_reads_the_recorded_answer_up_to_the_limit(stand_in: WikipediaStandIn) -> None:
    outcome = provider(stand_in).search_sync("Rust programming language", limit=3)
    assert isinstance(outcome, Hits)
    assert [hit.key for hit in outcome.hits][:1] == ["Rust_(programming_language)"]
    assert len(outcome.hits) == 3
    assert outcome.hits[0].excerpt is not None and "<span" not in outcome.hits[0].excerpt


def test_search_skips_entries_without_key_and_stops_at_limit(stand_in: WikipediaStandIn) -> None:
    pages = [{"title": "No key"}, {"key": "Half\ud800", "title": "Half"}, {"key": "", "title": "E"}]
    pages += [{"key": k, "title": k} for k in ("A", "B", "C")]
    stand_in.answer(SEARCH_PATH, pages_answer(pages))
    outcome = provider(stand_in).search_sync("x")
    assert outcome == Hits((SourceHit("A", "A"), SourceHit("B", "B")))


def test_search_429_blocks_then_answers_limited_with_no_request(stand_in: WikipediaStandIn) -> None:
    stand_in.answer(SEARCH_PATH, Answer(429, {"Retry-After": "30"}))
    source = provider(stand_in)
    first = source.search_sync("x")
    assert isinstance(first, Failed) and first.status == 429
    assert isinstance(source.search_sync("Treaty"), Limited)
    assert len(stand_in.requests) == 1


def test_search_503_fails_with_its_status_and_blocks_the_host(stand_in: WikipediaStandIn) -> None:
    stand_in.answer(SEARCH_PATH, Answer(503, {"Retry-After": "5"}))
    source = provider(stand_in)
    first = source.search_sync("x")
    assert isinstance(first, Failed) and first.status == 503
    assert isinstance(source.read_sync(SourceHit("Dog", "Dog")), Limited)
    assert len(stand_in.requests) == 1


def test_on_send_refusal_is_limited_and_spends_nothing(stand_in: WikipediaStandIn) -> None:
    source = provider(stand_in, SourceLimiter(per_minute=1))

    def refuse() -> None:
        raise LimiterRefused("caller")

    assert isinstance(asyncio.run(source.search("x", on_send=refuse)), Limited)
    assert stand_in.requests == []
    assert isinstance(source.search_sync("x"), Hits)


@pytest.mark.timeout(10)
def test_a_slow_on_send_keeps_sends_spaced(stand_in: WikipediaStandIn) -> None:
    source = provider(stand_in, SourceLimiter())

    async def slow() -> None:
        await asyncio.sleep(0.1)

    async def both() -> list[object]:
        return await asyncio.gather(source.search("a", on_send=slow), source.search("b"))

    assert all(isinstance(o, Hits) for o in asyncio.run(both()))
    first, second = sorted(request.at for request in stand_in.requests)
    assert second - first >= 0.2  # 250 ms between starts, less the first connection's setup


@pytest.mark.parametrize(
    "answer",
    [
        Answer(200, HTML, b"<html><body>Not JSON</body></html>"),
        Answer(200, {"Content-Type": "application/json"}, b'{"other": []}'),
        Answer(200, {"Content-Type": "application/json"}, b'{"pages": {}}'),
        Answer(200, {"Content-Type": "application/json"}, b'{"pages": [' + b" " * 70_000 + b"]}"),
        Answer(200, {"Content-Type": "application/json"}, b"[" * 100_000),
    ],
    ids=["html", "no-pages", "pages-not-list", "70000-bytes", "deep-nesting"],
)
def test_search_unusable_answers_fail_with_200(stand_in: WikipediaStandIn, answer: Answer) -> None:
    stand_in.answer(SEARCH_PATH, answer)
    outcome = provider(stand_in).search_sync("x")
    assert isinstance(outcome, Failed) and outcome.status == 200


def test_search_non_200_fails_with_its_status(stand_in: WikipediaStandIn) -> None:
    stand_in.answer(SEARCH_PATH, Answer(500, {}, b"oops"))
    assert provider(stand_in).search_sync("x").status == 500  # type: ignore[union-attr]


def test_search_transport_error_fails_with_none(stand_in: WikipediaStandIn) -> None:
    stand_in.answer(SEARCH_PATH, Answer(drop=True))
    outcome = provider(stand_in).search_sync("x")
    assert isinstance(outcome, Failed) and outcome.status is None


def test_search_reads_a_gzipped_answer(stand_in: WikipediaStandIn) -> None:
    body = gzip.compress(json.dumps({"pages": [{"key": "Dog", "title": "Dog"}]}).encode())
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    stand_in.answer(SEARCH_PATH, Answer(200, headers, body))
    assert provider(stand_in).search_sync("dog") == Hits((SourceHit("Dog", "Dog"),))


def test_lone_surrogates_send_nothing(stand_in: WikipediaStandIn) -> None:
    source = provider(stand_in)
    searched = source.search_sync("Half\ud800")
    assert isinstance(searched, Failed) and searched.status is None
    read = source.read_sync(SourceHit("Half\ud800", "Half"))
    assert isinstance(read, Skipped) and read.status is None
    assert stand_in.requests == []


@pytest.mark.parametrize("limit", [0, -3, float("nan"), float("inf"), 10**9, "7", True, 2.5])
def test_absurd_hit_limits_are_refused_unsent(stand_in: WikipediaStandIn, limit: object) -> None:
    with pytest.raises(InvalidArgument, match=r"^limit must be"):
        provider(stand_in).search_sync("Dog", limit)  # type: ignore[arg-type]
    assert stand_in.requests == []


def test_read_gives_the_article_with_attribution(stand_in: WikipediaStandIn) -> None:
    before = int(time.time() * 1000)
    outcome = provider(stand_in).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(outcome, Document)
    document = outcome.document
    assert (document.site, document.key, document.title) == ("Wikipedia", "Dog", "Dog")
    assert document.url == stand_in.origin + "/wiki/Dog"
    assert document.revision == "845493773"
    assert document.licence == WIKIPEDIA_LICENCE
    assert before <= document.read_at <= int(time.time() * 1000)
    assert document.blocks[0].text.startswith("The domestic dog")
    (request,) = stand_in.requests
    assert request.path == PAGE and request.headers["accept"] == "text/html"


def test_read_through_the_core_page_path(stand_in: WikipediaStandIn) -> None:
    source = WikipediaSourceProvider(IDENTITY, stand_in.origin, CORE_PAGE_PATH, allow_private=True)
    outcome = source.read_sync(SourceHit("User_talk:Koavf", "User talk:Koavf"))
    assert isinstance(outcome, Document) and outcome.document.revision == "921725316"
    assert stand_in.paths() == ["/w/rest.php/v1/page/User_talk%3AKoavf/html"]
    assert outcome.document.url.endswith("/wiki/User_talk:Koavf")


def test_both_page_paths_give_the_same_blocks(stand_in: WikipediaStandIn) -> None:
    hit = SourceHit("Rust_(programming_language)", "Rust (programming language)")
    core = WikipediaSourceProvider(IDENTITY, stand_in.origin, CORE_PAGE_PATH, allow_private=True)
    first, second = provider(stand_in).read_sync(hit), core.read_sync(hit)
    assert isinstance(first, Document) and isinstance(second, Document)
    assert first.document.blocks == second.document.blocks
    assert stand_in.paths()[0] == "/api/rest_v1/page/html/Rust_(programming_language)"


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        (Answer(404, {"Content-Type": "application/problem+json"}, b"{}"), 404),
        (Answer(200, {"Content-Type": "application/json"}, b'{"html": "<p>x</p>"}'), 200),
        (Answer(200, {**HTML, "Content-Length": "1500001"}, b"<p>short</p>"), 200),
        (Answer(200, HTML, b"<p>" + b"a " * 600_000 + b"</p>"), 200),
        (Answer(307, {"Location": "https://en.wikipedia.org/api/rest_v1/page/html/Rust"}), None),
        (Answer(drop=True), None),
    ],
    ids=["404", "json", "declared-over-cap", "body-over-cap", "redirect", "dropped"],
)
def test_read_skips_unusable_answers(
    stand_in: WikipediaStandIn, answer: Answer, status: int | None
) -> None:
    stand_in.answer(PAGE, answer)
    outcome = provider(stand_in, page_max_bytes=1_000_000).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(outcome, Skipped) and outcome.status == status
    assert stand_in.paths() == [PAGE]


def test_read_missing_page_skips_404(stand_in: WikipediaStandIn) -> None:
    outcome = provider(stand_in).read_sync(SourceHit("No_such_page", "No such page"))
    assert isinstance(outcome, Skipped) and outcome.status == 404


def test_read_revision_from_the_etag(stand_in: WikipediaStandIn) -> None:
    headers = {**HTML, "ETag": 'W/"1366357557/abc/view"', "Content-Revision-Id": ""}
    stand_in.answer(PAGE, Answer(200, headers, b"<p>Dogs bark.</p>"))
    outcome = provider(stand_in).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(outcome, Document) and outcome.document.revision == "1366357557"


def test_read_revision_header_wins_and_html_link_is_the_fallback(
    stand_in: WikipediaStandIn,
) -> None:
    page = b'<html about="https://en.wikipedia.org/wiki/Special:Redirect/revision/42"><p>Hi.</p>'
    stand_in.answer(PAGE, Answer(200, {**HTML, "Content-Revision-Id": "7", "ETag": '"9/x"'}, page))
    assert provider(stand_in).read_sync(SourceHit("Dog", "Dog")).document.revision == "7"  # type: ignore[union-attr]
    stand_in.answer(PAGE, Answer(200, {**HTML, "ETag": "opaque"}, page))
    assert provider(stand_in).read_sync(SourceHit("Dog", "Dog")).document.revision == "42"  # type: ignore[union-attr]


def test_read_a_gzipped_chunked_page_without_length(stand_in: WikipediaStandIn) -> None:
    body = (stand_in.fixtures / "pages" / "Dog.html").read_bytes()
    headers = {**HTML, "Content-Encoding": "gzip"}
    stand_in.answer(PAGE, Answer(200, headers, gzip.compress(body), chunked=True))
    chunked = provider(stand_in).read_sync(SourceHit("Dog", "Dog"))
    stand_in.answers.clear()
    whole = provider(stand_in).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(chunked, Document) and isinstance(whole, Document)
    assert chunked.document.blocks == whole.document.blocks
    assert len(chunked.document.blocks) > 100


@pytest.mark.timeout(10)
def test_read_redirect_is_skipped_and_its_target_never_requested(
    stand_in: WikipediaStandIn,
) -> None:
    target = "/w/rest.php/v1/page/Rust_(programming_language)/html?redirect=no"
    stand_in.answer("/w/rest.php/v1/page/Rust/html", Answer(307, {"Location": target}))
    source = WikipediaSourceProvider(IDENTITY, stand_in.origin, CORE_PAGE_PATH, allow_private=True)
    outcome = source.read_sync(SourceHit("Rust", "Rust"))
    assert isinstance(outcome, Skipped) and outcome.status is None  # a transport failure
    assert outcome.location == stand_in.origin + target
    assert stand_in.paths() == ["/w/rest.php/v1/page/Rust/html"]


@pytest.mark.timeout(10)
def test_read_past_the_deadline_is_skipped_quickly(stand_in: WikipediaStandIn) -> None:
    stand_in.answer(PAGE, Answer(200, HTML, b"<p>late</p>", delay=10.0))
    started = time.monotonic()
    outcome = provider(stand_in, deadline=0.2).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(outcome, Skipped) and outcome.status is None
    assert time.monotonic() - started < 5


@pytest.mark.timeout(10)
def test_read_a_slow_body_past_the_deadline_is_skipped(stand_in: WikipediaStandIn) -> None:
    stand_in.answer(
        PAGE, Answer(200, HTML, b"<p>x</p>" * 20_000, chunked=True, chunk_delay=0.1, compress=False)
    )
    outcome = provider(stand_in, deadline=0.3).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(outcome, Skipped) and outcome.status is None


@pytest.mark.timeout(20)
def test_read_a_gzip_bomb_over_the_cap_is_skipped(stand_in: WikipediaStandIn) -> None:
    bomb = gzip.compress(b"<p>" + b"a" * 2_000_000 + b"</p>")
    headers = {**HTML, "Content-Encoding": "gzip"}
    stand_in.answer(PAGE, Answer(200, headers, bomb, chunked=True))
    outcome = provider(stand_in, page_max_bytes=1_000_000).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(outcome, Skipped) and outcome.status == 200


def test_article_url_keeps_brackets_and_readable_separators() -> None:
    assert article_url("https://en.wikipedia.org/", "Louis_XV_(1768)") == (
        "https://en.wikipedia.org/wiki/Louis_XV_(1768)"
    )
    assert article_url("https://en.wikipedia.org", "AC/DC:Live,_1992") == (
        "https://en.wikipedia.org/wiki/AC/DC:Live,_1992"
    )
    assert article_url("https://en.wikipedia.org", "Café?&#") == (
        "https://en.wikipedia.org/wiki/Caf%C3%A9%3F%26%23"
    )


def test_page_path_must_hold_the_key() -> None:
    with pytest.raises(ValueError, match="key"):
        WikipediaSourceProvider(IDENTITY, page_path="/api/page")


@pytest.mark.parametrize("phrase", ["x" * 301, "", " \t ", None, 42])
def test_unusable_phrases_fail_with_nothing_sent(
    stand_in: WikipediaStandIn, phrase: object
) -> None:
    outcome = provider(stand_in).search_sync(phrase)  # type: ignore[arg-type]
    assert isinstance(outcome, Failed) and outcome.status is None
    assert stand_in.requests == []


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("", "the key is empty"),
        ("k" * 1_001, "the key is too long for an address (1,001 characters)"),
        (None, "the key is not text"),
        ("Half\ud800", "the key holds half of a surrogate pair, which no address can carry"),
    ],
)
def test_unusable_keys_are_skipped_saying_why_with_nothing_sent(
    stand_in: WikipediaStandIn, key: object, why: str
) -> None:
    outcome = provider(stand_in).read_sync(SourceHit(key, "title"))  # type: ignore[arg-type]
    assert outcome == Skipped(None, why)
    assert stand_in.requests == []


def test_a_non_canonical_key_is_skipped_and_the_canonical_never_requested(
    stand_in: WikipediaStandIn,
) -> None:
    source = provider(stand_in)
    outcome = source.read_sync(SourceHit("dog", "dog"))
    assert isinstance(outcome, Skipped) and outcome.status is None
    assert outcome.location == stand_in.origin + PAGE
    assert stand_in.paths() == ["/api/rest_v1/page/html/dog"]
    assert source.redirect_note("dog", outcome) == "Wikipedia redirects dog to Dog: ask for Dog"


def test_a_key_is_sent_as_given_and_its_redirect_names_the_title(
    stand_in: WikipediaStandIn,
) -> None:
    source = provider(stand_in)
    key = "Rust (programming language)"
    outcome = source.read_sync(SourceHit(key, key))
    assert isinstance(outcome, Skipped) and outcome.status is None
    assert stand_in.paths() == ["/api/rest_v1/page/html/Rust%20(programming%20language)"]
    assert source.redirected_key(outcome) == "Rust_(programming_language)"
    assert source.redirect_note(key, outcome) == (
        "Wikipedia redirects Rust (programming language) to Rust_(programming_language): "
        "ask for Rust_(programming_language)"
    )


@pytest.mark.parametrize(
    "location",
    [
        "/api/rest_v1/page/html/Dog/845493773",
        "/api/rest_v1/page/html/Dog?action=raw",
        "/api/rest_v1/page/html/Dog?redirect=no&action=raw",
        "http://127.0.0.2/api/rest_v1/page/html/Dog",
        "/wiki/Dog",
        "/api/rest_v1/page/html/Doggo",
    ],
)
def test_a_redirect_to_anything_but_another_title_of_the_wiki_names_none(
    stand_in: WikipediaStandIn, location: str
) -> None:
    stand_in.answer("/api/rest_v1/page/html/Doggo", Answer(302, {"Location": location}))
    source = provider(stand_in)
    outcome = source.read_sync(SourceHit("Doggo", "Doggo"))
    assert isinstance(outcome, Skipped) and outcome.status is None
    assert source.redirect_note("Doggo", outcome) is None
    assert stand_in.paths() == ["/api/rest_v1/page/html/Doggo"]


def test_the_core_paths_redirect_no_still_names_the_title(stand_in: WikipediaStandIn) -> None:
    target = "/w/rest.php/v1/page/Dog/html?redirect=no"
    stand_in.answer("/w/rest.php/v1/page/dog/html", Answer(307, {"Location": target}))
    source = WikipediaSourceProvider(IDENTITY, stand_in.origin, CORE_PAGE_PATH, allow_private=True)
    outcome = source.read_sync(SourceHit("dog", "dog"))
    assert source.redirect_note("dog", outcome) == "Wikipedia redirects dog to Dog: ask for Dog"
    assert stand_in.paths() == ["/w/rest.php/v1/page/dog/html"]


def test_only_a_redirect_names_a_title(stand_in: WikipediaStandIn) -> None:
    source = provider(stand_in)
    missing = source.read_sync(SourceHit("No_such_page", "No such page"))
    assert source.redirect_note("No_such_page", missing) is None
    read = source.read_sync(SourceHit("Dog", "Dog"))
    assert source.redirect_note("Dog", read) is None


def test_cookies_a_server_sets_are_never_sent_back(stand_in: WikipediaStandIn) -> None:
    cookie = {"Set-Cookie": "session=abc; Path=/", "Content-Type": "application/json"}
    stand_in.answer(SEARCH_PATH, Answer(200, cookie, b'{"pages": []}'))
    source = provider(stand_in)
    source.search_sync("one")
    source.search_sync("two")
    source.read_sync(SourceHit("Dog", "Dog"))
    assert len(stand_in.requests) == 3
    assert all("cookie" not in request.headers for request in stand_in.requests)


def test_the_text_budget_cuts_the_article(stand_in: WikipediaStandIn) -> None:
    outcome = provider(stand_in, text_budget=1_000).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(outcome, Document) and outcome.document.truncated
    assert 0 < sum(len(block.text) for block in outcome.document.blocks) <= 1_000


@pytest.mark.parametrize("absurd", [float("nan"), -1, float("inf"), 0])
@pytest.mark.parametrize(
    "field",
    ["deadline", "search_max_bytes", "page_max_sent_bytes", "page_max_bytes", "text_budget"],
)
def test_absurd_provider_limits_are_refused_naming_the_bound(absurd: float, field: str) -> None:
    with pytest.raises(InvalidArgument, match=f"^{field} must be"):
        WikipediaLimits(**{field: absurd})  # type: ignore[arg-type]


def test_a_stored_read_replays_offline(stand_in: WikipediaStandIn, tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "citesift.db")
    hit = SourceHit("Dog", "Dog")
    live = WikipediaSourceProvider(
        IDENTITY, stand_in.origin, allow_private=True, store=store
    ).read_sync(hit)
    replay = WikipediaSourceProvider(
        IDENTITY, stand_in.origin, allow_private=True, store=store, offline=True
    ).read_sync(hit)
    assert isinstance(live, Document) and isinstance(replay, Document)
    assert replay.document == live.document
    assert len(stand_in.requests) == 1


@pytest.mark.timeout(10)
def test_the_callers_cancellation_propagates(stand_in: WikipediaStandIn) -> None:
    stand_in.answer(
        SEARCH_PATH, Answer(200, {"Content-Type": "application/json"}, b"{}", delay=2.0)
    )
    assert seconds_to_cancel(lambda: provider(stand_in).search("slow")) < 1.5


@pytest.mark.timeout(10)
def test_a_signal_set_mid_read_abandons_it_quickly(stand_in: WikipediaStandIn) -> None:
    stand_in.answer(PAGE, Answer(200, HTML, b"<p>late</p>", delay=10.0))

    async def read_then_abort() -> None:
        signal = asyncio.Event()
        asyncio.get_running_loop().call_later(0.2, signal.set)
        await provider(stand_in).read(SourceHit("Dog", "Dog"), signal=signal)

    started = time.monotonic()
    with pytest.raises(Aborted, match="during the call"):
        asyncio.run(read_then_abort())
    assert time.monotonic() - started < 5 and stand_in.paths() == [PAGE]


def test_a_signal_set_before_a_search_sends_nothing(stand_in: WikipediaStandIn) -> None:
    signal = asyncio.Event()
    signal.set()
    with pytest.raises(Aborted, match="before the call"):
        asyncio.run(provider(stand_in).search("Dog", signal=signal))
    assert stand_in.requests == []


def test_an_unset_signal_changes_nothing(stand_in: WikipediaStandIn) -> None:
    async def search() -> object:
        return await provider(stand_in).search("Dog", signal=asyncio.Event())

    assert isinstance(asyncio.run(search()), Hits)


def test_a_redirect_page_is_a_document_that_says_so_its_target_never_requested(
    stand_in: WikipediaStandIn,
) -> None:
    stand_in.answer("/api/rest_v1/page/html/Doggy", Answer(200, HTML, REDIRECT_PAGE))
    outcome = provider(stand_in).read_sync(SourceHit("Doggy", "Doggy"))
    assert isinstance(outcome, Document) and outcome.document.blocks == ()
    assert outcome.document.metadata == {"redirect": "Dog"}
    assert read_note(outcome.document) == (
        "the page is a redirect to 'Dog': read that title; the page holds no text to cite"
    )
    assert stand_in.paths() == ["/api/rest_v1/page/html/Doggy"]


def test_a_disambiguation_page_is_flagged(stand_in: WikipediaStandIn) -> None:
    stand_in.answer("/api/rest_v1/page/html/Mercury", Answer(200, HTML, DISAMBIGUATION_PAGE))
    outcome = provider(stand_in).read_sync(SourceHit("Mercury", "Mercury"))
    assert isinstance(outcome, Document) and outcome.document.blocks
    assert outcome.document.metadata == {"disambiguation": True}
    assert read_note(outcome.document) == (
        "the page is a disambiguation page: it lists articles, read one of them"
    )


def test_a_marker_in_an_articles_body_is_not_its_kind(stand_in: WikipediaStandIn) -> None:
    quoting = (
        b"<html><head><title>Markers</title></head><body><section><p>Pages carry markers.</p>"
        b'<p property="mw:PageProp/disambiguation">One of them, as an example.</p>'
        b"</section></body></html>"
    )
    stand_in.answer("/api/rest_v1/page/html/Markers", Answer(200, HTML, quoting))
    outcome = provider(stand_in).read_sync(SourceHit("Markers", "Markers"))
    assert isinstance(outcome, Document) and outcome.document.metadata == {}


def test_an_article_read_by_its_key_keeps_the_key_it_was_asked_for(
    stand_in: WikipediaStandIn,
) -> None:
    page = (
        b'<html><head><link rel="dc:isVersionOf" href="//en.wikipedia.org/wiki/Dog"/></head>'
        b"<body><section><p>The dog is a domesticated descendant of the wolf.</p></section>"
        b"</body></html>"
    )
    stand_in.answer("/api/rest_v1/page/html/Doggy", Answer(200, HTML, page))
    outcome = provider(stand_in).read_sync(SourceHit("Doggy", "Doggy"))
    assert isinstance(outcome, Document)
    document = outcome.document
    assert (document.key, document.title) == ("Doggy", "Doggy")
    assert document.url == stand_in.origin + "/wiki/Doggy"


def test_an_article_has_no_note(stand_in: WikipediaStandIn) -> None:
    outcome = provider(stand_in).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(outcome, Document) and outcome.document.metadata == {}
    assert read_note(outcome.document) is None


@pytest.mark.parametrize(
    "page_path",
    ["/w/rest.php/v1/revision/{key}/html", "/api/rest_v1/page/html/Bill_Clinton/{key}"],
)
def test_a_revision_read_by_its_number_is_its_articles(
    stand_in: WikipediaStandIn, page_path: str
) -> None:
    """Both the core REST API's and RESTBase's revision reads are the article's."""
    by_revision = WikipediaSourceProvider(IDENTITY, stand_in.origin, page_path, allow_private=True)
    outcome = by_revision.read_sync(SourceHit("741194725", "741194725"))
    assert isinstance(outcome, Document)
    document = outcome.document
    assert (document.key, document.title) == ("Bill_Clinton", "Bill Clinton")
    assert document.url == stand_in.origin + "/wiki/Bill_Clinton"
    assert document.revision == "741194725" and document.licence == WIKIPEDIA_LICENCE
    named = by_revision.read_sync(SourceHit("741194725", "Clinton in 2016"))
    assert isinstance(named, Document) and named.document.title == "Clinton in 2016"
