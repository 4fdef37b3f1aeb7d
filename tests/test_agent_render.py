"""A research run reads pages through scrape: a page whose text only JavaScript writes is
rendered in the real headless Chromium, its passages become evidence, and the answer is
cited to the rendered page kept in the store; no browser is left running."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from chromium import BUSY, JS_PAGE, browsers_seen, chromium_pids, left_behind
from citesift.agent.research import aresearch
from citesift.agent.trace import trace
from citesift.scrape.browser import find_executable
from citesift.store import SQLiteStore
from openai_server import chat_reply, serve_openai
from servers import TEST_IDENTITY, MisbehavingServer, loopback_fetcher
from test_agent_run import on_pages
from test_scrape import page_route

find_executable()  # no Chromium here fails this test, naming what is missing: never a pass

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
CHAT = "/v1/chat/completions"


def test_a_page_only_javascript_writes_is_rendered_read_and_cited(
    server: MisbehavingServer,
    tmp_path: Path,
    own_tmp: str,
) -> None:
    page_route(server, "/js", JS_PAGE)
    page = server.url("/js")
    store = SQLiteStore(tmp_path / "store.db")
    finish = {"action": "finish", "data": {"left": "noon"}, "sources": {"/left": ["E1"]}}
    with serve_openai() as api:
        api.script(
            CHAT,
            chat_reply(json.dumps({"action": "scrape", "urls": [page], "query": "ferry"})),
            chat_reply(json.dumps(finish)),
        )
        answer = on_pages("When did the ferry leave?", api, [page], store=store)
        shown = api.received(CHAT)[1].json["messages"][1]["content"]
    assert "Only the script wrote that the ferry left at noon." in shown
    assert f"- {server.url('/next')} | The next entry |" in shown  # a link the script wrote
    assert answer.status == "completed" and answer.fields[0].verified
    assert answer.run_id is not None
    (field,) = trace(store, answer.run_id, "/left").fields
    (span,) = field.evidence
    assert span.span is not None and "noon" in span.span  # in the rendered page kept
    assert server.hits("/js") == 1  # the browser was answered from the fetched bytes
    store.close()
    assert left_behind(own_tmp) == []


BUS_PAGE = JS_PAGE.replace("Harbour log", "Depot log").replace(
    "the ferry left at noon", "the bus left at dusk"
)


def test_one_browser_serves_a_run_over_two_pages_only_javascript_writes(
    server: MisbehavingServer,
    own_tmp: str,
) -> None:
    page_route(server, "/ferry", JS_PAGE)
    page_route(server, "/bus", BUS_PAGE)
    pages = [server.url("/ferry"), server.url("/bus")]
    data = {"ferry": "noon", "bus": "dusk"}
    finish = {"action": "finish", "data": data, "sources": {"/ferry": ["E1"], "/bus": ["E2"]}}
    with serve_openai() as api, browsers_seen(own_tmp) as seen:
        api.script(
            CHAT,
            chat_reply(json.dumps({"action": "scrape", "urls": pages, "query": "left"})),
            chat_reply(json.dumps(finish)),
        )
        answer = on_pages("When did the ferry and the bus leave?", api, pages)
    assert answer.status == "completed" and answer.pages == 2
    cited = {f.pointer: (f.verified, f.corrected, f.sources) for f in answer.fields}
    assert cited == {"/ferry": (True, False, (pages[0],)), "/bus": (True, False, (pages[1],))}
    assert len(seen) == 1  # both pages rendered in one browser, launched once
    assert left_behind(own_tmp) == []


def test_a_run_cancelled_mid_render_leaves_no_browser(
    server: MisbehavingServer,
    own_tmp: str,
) -> None:
    page_route(server, "/busy", BUSY)

    async def cancelled() -> None:
        run = asyncio.ensure_future(
            aresearch(
                "What does the page say?",
                identity=TEST_IDENTITY,
                urls=[server.url("/busy")],
                allow_private=True,
                fetcher=loopback_fetcher(),
            )
        )
        deadline = time.monotonic() + 60
        while not chromium_pids(own_tmp) and time.monotonic() < deadline and not run.done():
            await asyncio.sleep(0.1)
        assert chromium_pids(own_tmp) and not run.done(), "the page was never being rendered"
        await asyncio.sleep(0.5)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(cancelled())
    assert left_behind(own_tmp) == []
