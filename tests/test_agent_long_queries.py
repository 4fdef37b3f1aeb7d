"""A run's queries as long as a task or a model makes them: a task or a scrape query over
the index's 2,000 characters is searched by its first words, a query the index cannot take
and a search the engine cannot take are told to the model as failed steps, never a crash."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citesift.agent.research import research
from citesift.agent.run import Answer
from citesift.index.query import MAX_QUERY_CHARS, bounded_query
from openai_server import ScriptedServer, chat_reply, serve_openai
from servers import TEST_IDENTITY, MisbehavingServer, loopback_fetcher
from wikipedia_server import WikipediaStandIn

LONG_TASK = "Who invented the MOSFET? " + "transistor history " * 160  # about 3,000


@pytest.fixture
def api() -> Iterator[ScriptedServer]:
    with serve_openai() as running:
        yield running


def researched(task: str, wiki: WikipediaStandIn, **options: Any) -> Answer:
    """A run reading the local Wikipedia's MOSFET article, searching that wiki."""
    return research(
        task,
        identity=TEST_IDENTITY,
        urls=[f"{wiki.origin}/wiki/MOSFET"],
        search="wikipedia",
        search_url=wiki.origin,
        allow_private=True,
        fetcher=loopback_fetcher(),
        **options,
    )


def prompts(api: ScriptedServer) -> list[str]:
    return [r.json["messages"][1]["content"] for r in api.received("/v1/chat/completions")]


def finish() -> bytes:
    return chat_reply(json.dumps({"action": "finish", "data": None, "missing": ["all"]}))


def test_a_long_query_is_cut_at_a_word_end() -> None:
    assert len(LONG_TASK) > 3_000
    cut = bounded_query(LONG_TASK)
    assert len(cut) <= MAX_QUERY_CHARS and LONG_TASK.startswith(cut)
    assert LONG_TASK[len(cut)].isspace() and not cut[-1].isspace()
    assert bounded_query("x" * 3_000) == "x" * MAX_QUERY_CHARS  # one word: cut inside it
    assert bounded_query("short one") == "short one"


def test_a_word_end_far_before_the_bound_is_not_where_a_query_is_cut() -> None:
    """One short word then a long one keeps the bound's worth of text, not the short word."""
    assert bounded_query("a " + "x" * 2_999) == ("a " + "x" * 2_999)[:MAX_QUERY_CHARS]
    near = "y" * 1_850 + " " + "z" * 1_000  # a word end 150 characters before the bound
    assert bounded_query(near) == "y" * 1_850


def test_a_task_over_the_query_bound_is_answered_without_a_model(
    wikipedia_fixtures: Path,
) -> None:
    with WikipediaStandIn(wikipedia_fixtures) as wiki:
        answer = researched(LONG_TASK, wiki)
    assert answer.status == "completed" and answer.evidence
    assert answer.evidence[0].title == "MOSFET"


def test_a_long_task_and_a_long_scrape_query_of_the_model_are_searched_by_their_first_words(
    wikipedia_fixtures: Path, api: ScriptedServer
) -> None:
    with WikipediaStandIn(wikipedia_fixtures) as wiki:
        article = f"{wiki.origin}/wiki/MOSFET"
        long_query = "invented transistor " * 250  # 5,000 characters
        api.script(
            "/v1/chat/completions",
            chat_reply(json.dumps({"action": "scrape", "urls": [article], "query": long_query})),
            chat_reply(json.dumps({"action": "scrape", "urls": [article]})),  # the task's
            finish(),
        )
        answer = researched(LONG_TASK, wiki, model="scripted", base_url=api.base_url)
    seen = prompts(api)
    assert "New evidence: E1" in seen[1], seen[1]
    assert answer.stop_reason != "error" and answer.evidence


def test_a_query_the_index_cannot_take_is_a_failed_step_told_to_the_model(
    wikipedia_fixtures: Path, api: ScriptedServer
) -> None:
    with WikipediaStandIn(wikipedia_fixtures) as wiki:
        article = f"{wiki.origin}/wiki/MOSFET"
        api.script(
            "/v1/chat/completions",
            chat_reply(json.dumps({"action": "scrape", "urls": [article], "query": "\u200b"})),
            finish(),
        )
        researched("Who invented the MOSFET?", wiki, model="scripted", base_url=api.base_url)
    seen = prompts(api)
    assert "the pages cannot be searched for the query" in seen[1], seen[1]
    assert "New evidence: none" in seen[1]


def test_a_web_search_the_engine_cannot_take_is_told_to_the_model_unsent(
    server: MisbehavingServer, api: ScriptedServer
) -> None:
    api.script(
        "/v1/chat/completions",
        chat_reply(json.dumps({"action": "search", "query": "tides " * 80})),  # 480
        finish(),
    )
    research(
        "Why do tides rise?",
        identity=TEST_IDENTITY,
        model="scripted",
        base_url=api.base_url,
        search="searxng",
        search_url=server.url("/"),
        allow_private=True,
        fetcher=loopback_fetcher(),
    )
    seen = prompts(api)
    assert "the search failed" in seen[1] and "400 characters" in seen[1], seen[1]
    assert server.hits("/search") == 0
