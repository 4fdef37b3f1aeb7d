"""The search backends against local stand-ins: SearXNG's JSON API and Brave Search (GET),
Tavily (POST), and Wikipedia's own search feeding a run whose article is read through the
Wikipedia source."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citesift.agent.research import research
from citesift.agent.run import Answer
from citesift.clients import BraveSearch, ClientError, SearxngSearch, TavilySearch, WebResult
from citesift.errors import InvalidArgument
from openai_server import Reply, ScriptedServer, chat_reply, serve_json, serve_openai
from servers import TEST_IDENTITY, MisbehavingServer, Query, Request, loopback_fetcher
from wikipedia_server import WikipediaStandIn

RESULTS = [
    {"url": "https://one.example/a", "title": " First  hit ", "content": "about a"},
    {"url": "javascript:alert(1)", "title": "script", "content": ""},
    {"title": "no address"},
    "not an object",
    {"url": "https://two.example/b", "title": None, "content": "about b"},
    {"url": "https://three.example/c", "title": "Third", "content": "about c"},
]
WANTED = [
    WebResult("https://one.example/a", "First hit", "about a"),
    WebResult("https://two.example/b", "", "about b"),
]


def json_route(server: MisbehavingServer, path: str, body: object, seen: list[Any]) -> None:
    def answer(request: Request, query: Query) -> None:
        seen.append((query, dict(request.headers.items())))
        request.answer(200, json.dumps(body).encode(), {"Content-Type": "application/json"})

    server.route(path, answer)


def test_searxng_is_asked_for_json_and_its_results_are_checked(server: MisbehavingServer) -> None:
    seen: list[Any] = []
    json_route(server, "/search", {"results": RESULTS}, seen)
    found = asyncio.run(SearxngSearch(server.url("/")).search("  dogs ", 2))
    assert found == WANTED
    assert seen[0][0] == {"q": "dogs", "format": "json"}
    json_route(server, "/bad/search", ["not", "an", "object"], seen)
    with pytest.raises(ClientError, match="SearXNG sent a malformed answer"):
        asyncio.run(SearxngSearch(server.url("/bad")).search("dogs", 2))


def test_brave_sends_its_key_in_its_own_header(server: MisbehavingServer) -> None:
    seen: list[Any] = []
    json_route(server, "/res/v1/web/search", {"web": {"results": [
        {"url": r.get("url"), "title": r.get("title"), "description": r.get("content")}
        for r in RESULTS if isinstance(r, dict)
    ]}}, seen)  # fmt: skip
    brave = BraveSearch("brave-key", base_url=server.url("/res/v1"))
    assert asyncio.run(brave.search("dogs", 2)) == WANTED
    query, headers = seen[0]
    assert query == {"q": "dogs", "count": "2"}
    assert headers["X-Subscription-Token"] == "brave-key"
    assert "Authorization" not in headers


def test_tavily_posts_the_query_with_a_bearer_key() -> None:
    with serve_json() as api:
        deep = Reply(raw=b'{"results": ' + b"[" * 100_000)  # nested past the parser's stack
        api.script("/search", Reply(["not an object"]), deep, Reply({"results": RESULTS}))
        tavily = TavilySearch("tvly-key", base_url=api.url(""))
        with pytest.raises(ClientError, match="Tavily sent a malformed answer"):
            asyncio.run(tavily.search("dogs", 2))
        with pytest.raises(ClientError, match="invalid JSON"):
            asyncio.run(tavily.search("dogs", 2))
        assert asyncio.run(tavily.search("dogs", 2)) == WANTED
        sent = api.received("/search")[-1]
        assert sent.json == {"query": "dogs", "max_results": 2}
        assert sent.headers["authorization"] == "Bearer tvly-key"


def test_backends_refuse_what_makes_no_sense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(InvalidArgument, match="api_key"):
        BraveSearch()
    with pytest.raises(InvalidArgument, match="api_key"):
        TavilySearch()
    searx = SearxngSearch("http://127.0.0.1:9/")
    with pytest.raises(InvalidArgument, match="query"):
        asyncio.run(searx.search("   ", 3))
    with pytest.raises(InvalidArgument, match="limit"):
        asyncio.run(searx.search("dogs", 0))
    with pytest.raises(InvalidArgument, match="search_url"):
        research("x", identity=TEST_IDENTITY, search="searxng")
    with pytest.raises(InvalidArgument, match="search"):
        research("x", identity=TEST_IDENTITY, search="altavista")


@pytest.fixture
def api() -> Iterator[ScriptedServer]:
    with serve_openai() as running:
        yield running


def researched_on_wikipedia(
    question: str, wiki: WikipediaStandIn, api: ScriptedServer, **options: Any
) -> Answer:
    """A research run the scripted model plans, searching and reading the local Wikipedia."""
    return research(
        question,
        identity=TEST_IDENTITY,
        model="scripted",
        base_url=api.base_url,
        search="wikipedia",
        search_url=wiki.origin,
        allow_private=True,
        fetcher=loopback_fetcher(),
        **options,
    )


def test_wikipedia_search_feeds_a_run_and_articles_are_read_as_wikipedia(
    wikipedia_fixtures: Path, api: ScriptedServer
) -> None:
    with WikipediaStandIn(wikipedia_fixtures) as wiki:
        article = f"{wiki.origin}/wiki/MOSFET"
        api.script(
            "/v1/chat/completions",
            chat_reply(json.dumps({"action": "search", "query": "MOSFET"})),
            chat_reply(json.dumps({"action": "scrape", "urls": [article], "query": "invented"})),
            chat_reply(json.dumps({"action": "finish", "data": None, "missing": ["all"]})),
        )
        answer = researched_on_wikipedia("Who invented the MOSFET?", wiki, api)
        prompts = [r.json["messages"][1]["content"] for r in api.received("/v1/chat/completions")]
        assert f"- {article} | MOSFET |" in prompts[1]
        assert answer.evidence, prompts[2]
        first = answer.evidence[0]
        assert first.url == article and first.title == "MOSFET"
        assert first.licence is not None and first.licence.name == "CC BY-SA 4.0"
        assert any("/api/rest_v1/page/html/MOSFET" in p for p in wiki.paths())


def test_an_article_wikipedia_does_not_have_is_told_to_the_model_once_with_its_status(
    wikipedia_fixtures: Path, api: ScriptedServer
) -> None:
    with WikipediaStandIn(wikipedia_fixtures) as wiki:
        missing = f"{wiki.origin}/wiki/No_such_article"
        api.script(
            "/v1/chat/completions",
            chat_reply(json.dumps({"action": "scrape", "urls": [missing], "query": "anything"})),
            chat_reply(json.dumps({"action": "finish", "data": None, "missing": ["all"]})),
        )
        # given, so the run may read it (a run reads only URLs it has seen)
        researched_on_wikipedia("What is in the article?", wiki, api, urls=[missing])
        prompts = [r.json["messages"][1]["content"] for r in api.received("/v1/chat/completions")]
        assert "HTTP 404 Not Found" in prompts[1] and "HTTP 404: HTTP 404" not in prompts[1]


def test_a_search_wikipedia_cannot_take_is_told_to_the_model_unsent(
    wikipedia_fixtures: Path, api: ScriptedServer
) -> None:
    with WikipediaStandIn(wikipedia_fixtures) as wiki:
        api.script(
            "/v1/chat/completions",
            chat_reply(json.dumps({"action": "search", "query": "tides " * 60})),
            chat_reply(json.dumps({"action": "finish", "data": None, "missing": ["all"]})),
        )
        researched_on_wikipedia("Why do tides rise?", wiki, api)
        prompts = [r.json["messages"][1]["content"] for r in api.received("/v1/chat/completions")]
        assert "the phrase is not text of 1 to 300 characters" in prompts[1]
        assert wiki.requests == []
