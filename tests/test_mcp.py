"""``citesift mcp`` as a host runs it: a real subprocess over stdio (and one over streamable
HTTP), driven by the official ``mcp`` client, reading a local site and the Wikipedia
stand-in on 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult
from typer.testing import CliRunner

import citesift
from chromium import JS_PAGE, browsers_seen, chromium_pids, left_behind
from citesift.checks import LONE_SURROGATE
from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.index.rag import create_rag
from citesift.model import Document, SourceHit
from citesift.scrape.crawl import NO_BROWSER, crawl_results
from citesift.settings import Settings, source_setup
from citesift.sources import PAGE_PATH
from citesift.store import open_store
from citesift.store.jobs import JobStore
from citesift.store.runs import runs_in
from local_site import page, serve_bytes, serve_page, urlset
from made_documents import pdf
from servers import MisbehavingServer, serve
from test_agent_render import BUS_PAGE
from test_check_citations import LIMIT, assert_cut_short, slow_document
from test_scrape import page_route
from wikipedia_server import Answer, WikipediaStandIn

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

CONTACT = "https://example.org/contact"
SOURCE = str(Path(citesift.__file__).resolve().parents[1])
TOOLS = {
    "search_passages", "wiki_search", "wiki_passages", "scrape", "map", "crawl",
    "crawl_status", "verify_claim", "check_citations", "research",
}  # fmt: skip
PAGE_CHARS = 1500
LONG = " ".join(
    f"Paragraph {n} says that the river Quill floods every {n} springs near the mill."
    for n in range(1, 80)
)
CITED = "The river Quill floods every spring. The mill by the river was built in 1820."
CITING = "The mill was built in 1820 [source]({url}). The moon is made of cheese [moon]({url})."


@dataclass
class World:
    """The local site, the Wikipedia stand-in and the store the server is started with."""

    site: MisbehavingServer
    wiki: WikipediaStandIn
    store: Path
    named: str = ""
    """The store the server is given when not the file ``store`` (a PostgreSQL URL)."""

    def args(self, *more: str) -> list[str]:
        return [
            "-m", "citesift", "mcp", "--allow-private", "--contact", CONTACT,
            "--store", self.named or str(self.store), "--wiki-origin", self.wiki.origin,
            "--page-chars", str(PAGE_CHARS), *more,
        ]  # fmt: skip

    def env(self) -> dict[str, str]:
        return {
            "PYTHONPATH": SOURCE,
            "CITESIFT_HOME": str(self.store.parent / "home"),
            "CITESIFT_BROWSER": "/nonexistent/chromium",
        }


@pytest.fixture
def world(wikipedia_fixtures: Path, tmp_path: Path) -> Iterator[World]:
    with serve() as site, WikipediaStandIn(wikipedia_fixtures) as wiki:
        serve_page(site, "/", page("Home", ["/long", "/cited", "/b"]))
        serve_page(site, "/long", page("Long", ["/"], LONG))
        serve_page(site, "/cited", page("Cited", ["/"], CITED))
        serve_page(site, "/b", page("B", ["/"]))
        yield World(site, wiki, tmp_path / "store.db")


def stdio(
    world: World, scenario: Callable[[Client], Awaitable[None]], env: dict[str, str] | None = None
) -> None:
    """Run ``scenario`` against ``citesift mcp`` started as a subprocess over stdio (with
    ``env`` instead of the world's)."""
    params = StdioServerParameters(
        command=sys.executable, args=world.args(), env=env or world.env()
    )

    async def run() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            await scenario(client)

    asyncio.run(run())


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured answer; the test fails on an error result."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, _text(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def _text(result: CallToolResult) -> str:
    return " ".join(getattr(part, "text", "") for part in result.content)


def assert_cited(item: dict[str, Any], link: str = "link") -> None:
    """A passage carries its URL, title, licence (key) and a text-fragment link (under
    ``link``: a citation's verdict calls it ``evidence_url``)."""
    assert item["url"].startswith("http://127.0.0.1:")
    assert item["title"]
    assert "licence" in item
    assert item[link].startswith(item["url"].split("#")[0] + "#:~:text=")


def test_lists_every_tool_with_its_schema(world: World) -> None:
    async def scenario(client: Client) -> None:
        listed = await client.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        for tool in listed.tools:
            assert tool.description and tool.input_schema["type"] == "object"

    stdio(world, scenario)


def test_scrape_pages_through_a_long_page_by_its_cursor(world: World) -> None:
    url = world.site.url("/long")

    async def scenario(client: Client) -> None:
        first = await call(client, "scrape", url=url, format="passages", render="never")
        seen, answer = list(first["items"]), first
        while answer["next_cursor"]:
            assert len(json.dumps(answer["items"])) <= PAGE_CHARS
            answer = await call(client, "scrape", url=url, cursor=answer["next_cursor"])
            seen += answer["items"]
        assert len(seen) == first["total"] > 5
        assert [s["text"] for s in seen if "Paragraph 79" in s["text"]]
        for item in seen:
            assert_cited(item)
        markdown = await call(client, "scrape", url=url, render="never")
        assert markdown["title"] == "Long" and markdown["next_cursor"]
        whole = [piece["markdown"] for piece in markdown["items"]]
        cursor = markdown["next_cursor"]
        while cursor:
            more = await call(client, "scrape", url=url, cursor=cursor)
            assert more["title"] == "Long"  # what the result says is on every page
            whole += [piece["markdown"] for piece in more["items"]]
            cursor = more["next_cursor"]
        assert "Paragraph 1 says" in "".join(whole) and "Paragraph 79 says" in "".join(whole)
        stale = await client.call_tool("map", {"url": url, "cursor": first["next_cursor"]})
        assert stale.is_error and "cursor" in _text(stale)

    stdio(world, scenario)


def test_scrapes_and_crawls_render_in_one_browser_that_ends_with_the_server(
    world: World,
    own_tmp: str,
) -> None:
    page_route(world.site, "/ferry", JS_PAGE)
    page_route(world.site, "/bus", BUS_PAGE)
    env = {k: v for k, v in world.env().items() if k != "CITESIFT_BROWSER"} | {"TMPDIR": own_tmp}

    async def scenario(client: Client) -> None:
        for path, said in (("/ferry", "the ferry left at noon"), ("/bus", "the bus left at dusk")):
            read = await call(client, "scrape", url=world.site.url(path))
            assert said in "".join(piece["markdown"] for piece in read["items"])
        assert len(chromium_pids(own_tmp)) == 1  # still up, for the next page
        crawled = await call(client, "crawl", url=world.site.url("/bus"), limit=1, render="auto")
        crawled = await until_ended(client, crawled)
        assert "the bus left at dusk" in crawled["items"][0]["markdown"]  # the same browser

    with browsers_seen(own_tmp) as seen:
        stdio(world, scenario, env)
    assert len(seen) == 1 and left_behind(own_tmp) == []


def test_a_crawl_asked_to_render_when_no_browser_starts_warns_in_its_status(
    world: World,
) -> None:
    page_route(world.site, "/ferry", JS_PAGE)  # the world's browser names no Chromium

    async def scenario(client: Client) -> None:
        crawled = await call(client, "crawl", url=world.site.url("/ferry"), limit=1, render="auto")
        crawled = await until_ended(client, crawled)
        assert crawled["status"] == "completed" and crawled["done"] == 1
        assert "left at noon" not in crawled["items"][0]["markdown"]  # read as served
        assert NO_BROWSER in crawled["warning"] and "/nonexistent/chromium" in crawled["warning"]
        plain = await call(client, "crawl", url=world.site.url("/b"), limit=1)
        assert (await until_ended(client, plain))["warning"] is None

    stdio(world, scenario)


def test_wikipedia_tools_give_attributed_passages(world: World) -> None:
    async def scenario(client: Client) -> None:
        hits = await call(client, "wiki_search", query="Rust programming language", limit=3)
        assert hits["items"][0]["key"] == "Rust_(programming_language)"
        read = await call(client, "wiki_passages", key="Dog")
        assert read["title"] == "Dog" and read["next_cursor"]
        for item in read["items"]:
            assert_cited(item)
            assert item["licence"]["name"].startswith("CC BY-SA")
        more = await call(client, "wiki_passages", key="Dog", cursor=read["next_cursor"])
        assert more["items"] and more["items"][0] != read["items"][0]
        assert "note" not in read
        empty = await call(client, "wiki_passages", key="Empty")
        assert empty["items"] == [] and empty["note"] == "the page holds no text to cite"
        blank = await client.call_tool("search_passages", {"query": " "})
        said = "search_passages: query must be text with something to look for, not ' '"
        assert blank.is_error and _text(blank) == said
        missing = await client.call_tool("wiki_passages", {"key": "No_such_page"})
        said = f"wiki_passages: {world.wiki.origin} has no article 'No_such_page' (HTTP 404): "
        assert missing.is_error and _text(missing) == said + "search for its key"
        redirected = await client.call_tool("wiki_passages", {"key": "dog"})
        said = "wiki_passages: Wikipedia redirects dog to Dog: ask for Dog"
        assert redirected.is_error and _text(redirected) == said

    world.wiki.answer(
        "/api/rest_v1/page/html/Empty", Answer(200, {"Content-Type": "text/html"}, b"<html></html>")
    )
    stdio(world, scenario)


def test_a_map_leaves_out_a_start_page_that_failed_and_what_robots_txt_disallows(
    world: World,
) -> None:
    listed = [world.site.url(p) for p in ("/long", "/b", "/cited")]
    serve_bytes(world.site, "/sitemap.xml", urlset(listed), "application/xml")
    world.site.robots = (200, "User-agent: *\nDisallow: /b\n")

    async def scenario(client: Client) -> None:
        mapped = await call(client, "map", url=world.site.url("/nothere"), limit=2)
        assert [item["url"] for item in mapped["items"]] == [listed[0], listed[2]]
        assert mapped["disallowed"] == 1
        assert any("404" in problem for problem in mapped["problems"])

    stdio(world, scenario)


def test_map_and_a_crawl_job_started_then_read_by_its_status_page_by_page(world: World) -> None:
    started_ids: list[str] = []

    async def scenario(client: Client) -> None:
        mapped = await call(client, "map", url=world.site.url("/"))
        assert {world.site.url(p) for p in ("/", "/long", "/cited")} <= {
            item["url"] for item in mapped["items"]
        }
        started = await call(client, "crawl", url=world.site.url("/"), limit=4, max_depth=1)
        started_ids.append(started["id"])
        status = await until_ended(client, started)
        assert status["status"] == "completed" and status["done"] == 4
        pages, cursor = [], None
        while True:  # a page of items at a time (page-chars), each read on by its cursor
            answer = await call(client, "crawl_status", id=started["id"], cursor=cursor)
            assert answer["items"]
            pages += answer["items"]
            cursor = answer["next_cursor"]
            if not cursor:
                break
        assert len(pages) == 4 and {p["title"] for p in pages} == {"Home", "Long", "Cited", "B"}
        refused = await until_ended(
            client, await call(client, "crawl", url="http://169.254.169.254/", limit=2)
        )
        assert (refused["done"], refused["failed"]) == (0, 1), refused
        assert refused["failures"][0]["url"] == "http://169.254.169.254/"
        unknown = await client.call_tool("crawl_status", {"id": "not-a-crawl"})
        assert unknown.is_error and "the id of a crawl" in _text(unknown)

    stdio(world, scenario)
    with open_store(world.store) as store:  # jobs of the store, as /v2/crawl's are
        kept = JobStore(store).get(started_ids[0])
    assert kept is not None and (kept.kind, kept.status, kept.results) == ("crawl", "completed", 4)


async def until_ended(client: Client, status: dict[str, Any]) -> dict[str, Any]:
    """The crawl's status once it has ended (within a minute)."""
    deadline = time.monotonic() + 60
    while status["status"] == "running" and time.monotonic() < deadline:
        await asyncio.sleep(0.3)
        status = await call(client, "crawl_status", id=status["id"])
    return status


def test_with_a_postgresql_store_crawls_and_research_runs_are_kept_there(
    world: World, postgres_url: str
) -> None:
    async def scenario(client: Client) -> None:
        status = await until_ended(
            client, await call(client, "crawl", url=world.site.url("/"), limit=2, max_depth=1)
        )
        assert (status["status"], status["done"]) == ("completed", 2)
        answer = await call(client, "research", task="Mill", urls=[world.site.url("/cited")])
        assert answer["status"] in ("completed", "failed") and answer["run_id"]
        kept.extend([status["id"], answer["run_id"]])

    kept: list[str] = []
    stdio(replace(world, named=postgres_url), scenario)
    with open_store(postgres_url) as store:
        assert len(list(crawl_results(store, kept[0]))) == 2
        run = runs_in(store).get(kept[1])
    assert run is not None and run.task == "Mill"


def test_a_crawl_the_server_stopped_during_reads_as_failed_and_goes_on_when_resumed(
    world: World,
) -> None:
    slow = [f"/slow/{n}" for n in range(6)]
    for path in slow:
        serve_page(world.site, path, page(path, ["/slow"]), delay=0.5)
    serve_page(world.site, "/slow", page("Slow", slow))
    start = {"url": world.site.url("/slow"), "limit": 7, "max_depth": 1}
    began: dict[str, Any] = {}

    async def first(client: Client) -> None:
        began.update(await call(client, "crawl", **start))
        status = began
        while status["done"] < 2:
            await asyncio.sleep(0.1)
            status = await call(client, "crawl_status", id=began["id"])
        assert status["status"] == "running" and status["done"] < 7
        running = await client.call_tool("crawl", {"resume": began["id"]})
        assert running.is_error and "not running" in _text(running)

    async def second(client: Client) -> None:
        stopped = await call(client, "crawl_status", id=began["id"])
        assert stopped["status"] == "failed" and "server stopped" in stopped["error"]
        assert 2 <= stopped["done"] < 7
        status = await call(client, "crawl", resume=began["id"])
        assert status["id"] == began["id"] and status["status"] == "running"
        status = await until_ended(client, status)
        assert status["status"] == "completed" and status["done"] == 7 and not status["error"]
        pages, cursor = [], None
        while True:
            answer = await call(client, "crawl_status", id=began["id"], cursor=cursor)
            pages += [item["url"] for item in answer["items"]]
            if not (cursor := answer["next_cursor"]):
                break
        assert sorted(pages) == sorted(world.site.url(p) for p in ["/slow", *slow])  # each once

    stdio(world, first)  # the host goes away mid-crawl: the server stops with it
    stdio(world, second)
    # nothing finished is fetched again; only what was in flight at the stop (2 per host)
    assert world.site.hits("/slow") == 1
    assert sum(world.site.hits(path) for path in slow) <= len(slow) + 2


def test_claims_citations_and_research_are_checked_with_links(world: World) -> None:
    cited = world.site.url("/cited")
    report_pdf = world.site.url("/report")
    page_route(world.site, "/report", pdf(["Cover", CITED]), content_type="application/pdf")

    async def scenario(client: Client) -> None:
        verdict = await call(client, "verify_claim", claim="The mill was built in 1820.", url=cited)
        assert verdict["label"] == "supported" and verdict["abstained"] is False
        assert_cited(verdict["items"][0])
        report = await call(client, "check_citations", text=CITING.format(url=cited))
        statuses = [item["status"] for item in report["items"]]
        assert statuses[0] == "supported" and statuses[1] != "supported"
        assert report["passed"] is False
        assert report["items"][0]["evidence"] == "The mill by the river was built in 1820."
        assert_cited(report["items"][0], link="evidence_url")
        assert report["items"][0]["place"] is None  # a web page has no pages
        filed = await call(
            client,
            "check_citations",
            text=f"The mill was built in 1820 [1].\n\n[1] {report_pdf}\n\nIt is red.[^9] "
            "It is old [Hopper 1820].",
        )
        assert (filed["items"][1]["url"], filed["items"][1]["marker"]) == ("", "[^9]")
        assert len(filed["items"]) == 2  # [Hopper 1820], no reference list resolving any: prose
        assert filed["items"][0]["status"] == "supported"
        text = "The mill was built in 1820 [1].\n\n[1]: /cited\n"  # relative in Markdown too
        based = await call(
            client, "check_citations", text=text, base_url=world.site.url("/notes/mill.md")
        )
        assert [(item["url"], item["status"]) for item in based["items"]] == [(cited, "supported")]
        assert filed["items"][0]["evidence_url"] == report_pdf + "#page=2"
        placed = {key: value for key, value in filed["items"][0]["place"].items() if value}
        assert placed == {"page": 2, "paragraph": 1}
        claim = "The mill was built in 1820."
        in_file = await call(client, "verify_claim", claim=claim, url=report_pdf)
        assert in_file["items"][0]["place"] == "page 2, paragraph 1", in_file
        assert verdict["items"][0]["place"] is None
        read = await call(client, "scrape", url=report_pdf, format="passages", render="never")
        places = [item["place"] for item in read["items"]]
        assert places[0] == "page 1, paragraph 1" and places[-1] == "page 2, paragraph 1"
        given = [CITED.split(". ")[0] + ".", "The mill by the river was built in 1820."]
        listed = await call(
            client, "verify_claim", claim="The mill dates from 1820.", sentences=given
        )
        assert listed["label"] != "not_supported"
        assert listed["items"] == [{"index": 1, "text": given[1]}]
        tall = ["It stands 42 metres tall."]
        about = await call(client, "verify_claim", claim="42", about="height", sentences=tall)
        assert about["label"] == "supported" and about["items"] == [{"index": 0, "text": tall[0]}]
        for both in ({"url": cited, "sentences": given}, {}):
            refused = await client.call_tool("verify_claim", {"claim": "The mill.", **both})
            assert refused.is_error and "sentences" in _text(refused)
        answer = await call(client, "research", task="Dog", max_seconds=60)
        items, page = list(answer["items"]), answer
        assert answer["next_cursor"]  # the answer takes more than one page
        while page["next_cursor"]:
            assert len(json.dumps(page["items"], ensure_ascii=False)) <= PAGE_CHARS
            page = await call(client, "research", task="Dog", cursor=page["next_cursor"])
            assert page["status"] == answer["status"]  # what the answer says is on every page
            items += page["items"]
        assert answer["status"] in ("completed", "failed") and len(items) == answer["total"]
        parts = [item["part"] for item in items]
        assert parts == sorted(parts, key=["data", "field", "missing", "evidence", "unread"].index)
        data = json.loads("".join(item["json"] for item in items if item["part"] == "data"))
        evidence = {item["id"]: item for item in items if item["part"] == "evidence"}
        fields = [item for item in items if item["part"] == "field"]
        assert data and fields and evidence
        for field in fields:
            assert resolve(data, field["pointer"]) is not None
            assert set(field["evidence_ids"]) <= set(evidence)
            assert len(field["links"]) == len(field["evidence_ids"])
            for named, link in zip(field["evidence_ids"], field["links"], strict=True):
                assert link.startswith(evidence[named]["url"].split("#")[0] + "#")
        for item in evidence.values():
            assert item["url"] and item["link"].startswith(item["url"].split("#")[0])

    stdio(world, scenario)


def test_a_citation_checks_time_limit_cuts_it_short(world: World) -> None:
    async def scenario(client: Client) -> None:
        cited = CITING.format(url=world.site.url("/cited"))
        warmed = await call(client, "check_citations", text=cited)  # the model loaded first
        assert warmed["cut_short"] is False and warmed["unchecked"] == 0
        text = slow_document(world.site)
        report = await call(client, "check_citations", text=text, max_seconds=LIMIT)
        assert report["cut_short"] is True and report["passed"] is False
        items, page = list(report["items"]), report
        while page["next_cursor"]:
            page = await call(client, "check_citations", text=text, cursor=page["next_cursor"])
            items += page["items"]
        assert_cut_short(items, world.site)
        for max_seconds in (0, 3601):
            refused = await client.call_tool(
                "check_citations", {"text": text, "max_seconds": max_seconds}
            )
            assert refused.is_error and "max_seconds" in _text(refused)

    stdio(world, scenario)


def resolve(data: Any, pointer: str) -> Any:
    """The value a JSON pointer names in ``data``."""
    for step in pointer.split("/")[1:]:
        step = step.replace("~1", "/").replace("~0", "~")
        data = data[int(step)] if isinstance(data, list) else data[step]
    return data


def test_index_passages_carry_their_citation(world: World) -> None:
    settings = Settings(contact=CONTACT, allow_private=True, store=str(world.store))
    with source_setup(settings) as setup:
        read = setup.wikipedia(world.wiki.origin, PAGE_PATH).read_sync(SourceHit("Dog", "Dog"))
    assert isinstance(read, Document)
    create_rag(store=world.store, retrieval="bm25").ingest([read.document])

    async def scenario(client: Client) -> None:
        found = await call(client, "search_passages", query="domesticated wolf", retrieval="bm25")
        assert found["items"]
        for item in found["items"]:
            assert_cited(item)
            assert item["licence"]["name"].startswith("CC BY-SA")

    stdio(world, scenario)


def test_a_research_run_that_read_nothing_says_why_and_lists_the_urls_not_read(
    world: World,
) -> None:
    gone, metadata = world.site.url("/gone"), "http://169.254.169.254/latest"

    async def scenario(client: Client) -> None:
        answer = await call(client, "research", task="Mill", urls=[gone, metadata])
        assert answer["message"] == (
            "nothing was read: none of the 2 URL(s) asked for could be read"
            " (each is listed with why)"
        )
        unread = [item for item in answer["items"] if item["part"] == "unread"]
        assert (unread[0]["url"], unread[0]["reason"]) == (gone, "HTTP 404")
        assert unread[1]["url"] == metadata and "link-local" in unread[1]["reason"]

    stdio(world, scenario)


def test_a_private_address_is_refused_without_allow_private(world: World) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[a for a in world.args() if a != "--allow-private"],
        env=world.env(),
    )

    async def run() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            refused = await client.call_tool("scrape", {"url": world.site.url("/")})
            assert refused.is_error and "SSRF_BLOCKED" in _text(refused)
            assert world.site.hits("/") == 0

    asyncio.run(run())


PARSE_ERROR = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
INVALID = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}  # fmt: skip


@contextmanager
def stdio_session(
    world: World,
) -> Iterator[tuple[subprocess.Popen[str], IO[str], Callable[[str], dict[str, Any]]]]:
    """The MCP server over stdio for ``world``: its process, its standard input, and what it
    answers a line written there."""
    command = [sys.executable, *world.args()]
    env = {**os.environ, **world.env()}
    pipe = subprocess.PIPE
    with subprocess.Popen(command, env=env, stdin=pipe, stdout=pipe, text=True) as process:
        sent, said = process.stdin, process.stdout
        assert sent is not None and said is not None
        yield process, sent, replier(sent, said)


def replier(sent: IO[str], said: IO[str]) -> Callable[[str], dict[str, Any]]:
    """What the stdio server answers a line: ``line`` written to ``sent``, its reply (the
    next line of ``said``) read within a minute."""

    def answer(line: str) -> dict[str, Any]:
        sent.write(line + "\n")
        sent.flush()
        assert select.select([said], [], [], 60)[0], f"no reply to {line!r}"
        reply: dict[str, Any] = json.loads(said.readline())
        return reply

    return answer


def test_a_line_that_is_no_json_rpc_message_gets_its_error_and_serving_goes_on(
    world: World,
) -> None:
    with stdio_session(world) as (process, sent, answer):
        sent.write("\n  \n")  # blank lines are no message: nothing is said of them
        assert answer("not json") == PARSE_ERROR
        assert answer('{"jsonrpc": "2.0", "id": 3, "method": "tools/list"') == PARSE_ERROR
        assert answer(json.dumps({"hello": "there"})) == INVALID
        assert answer(json.dumps({"jsonrpc": "2.0", "id": 7, "method": 5})) == {**INVALID, "id": 7}
        assert answer('{"id": "a", "result": 1, "error": 2}') == {**INVALID, "id": "a"}
        assert answer('{"jsonrpc": "2.0", "id": true, "method": 5}') == INVALID  # no id
        assert answer('{"jsonrpc": "2.0", "id": 1.5, "method": 5}') == INVALID
        assert answer("[]") == INVALID
        assert answer(json.dumps(INITIALIZE))["result"]["serverInfo"]["name"] == "citesift"
        sent.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        assert answer("\n{broken") == PARSE_ERROR  # a notification has no reply
        listed = answer(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        assert listed["id"] == 2 and {tool["name"] for tool in listed["result"]["tools"]} == TOOLS
        sent.close()
        assert process.wait(30) == 0


NO_ID = {**INVALID, "error": {**INVALID["error"], "data": "id must be a string or an integer"}}


def test_an_id_that_is_no_id_or_a_lone_surrogate_is_answered_not_left_waiting(
    world: World,
) -> None:
    """The SDK reads a request whose id is NaN as a notification (never answered) and one
    holding "\\ud800" as no JSON (its id never answered): each gets its error."""
    with stdio_session(world) as (process, sent, answer):
        assert answer(json.dumps(INITIALIZE))["result"]["serverInfo"]["name"] == "citesift"
        sent.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        for ident in ("NaN", "Infinity", "-Infinity", "1e400", "1.5", "null", "true"):
            line = f'{{"jsonrpc": "2.0", "id": {ident}, "method": "tools/list"}}'
            assert answer(line) == NO_ID, ident

        def call(name: str, arguments: str) -> str:
            params = f'{{"name": "{name}", "arguments": {arguments}}}'
            return f'{{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {params}}}'

        for line, code, field in [
            (call("verify_claim", '{"claim": "a\\ud800", "sentences": ["b"]}'), -32602,
             "params.arguments.claim"),
            (call("scrape", '{"url": "http://127.0.0.1:9/\\udfff"}'), -32602,
             "params.arguments.url"),
            (call("crawl", '{"url": "http://a.test/", "include_paths": ["\\ud800"]}'), -32602,
             "params.arguments.include_paths.0"),
            (call("\\ud800", "{}"), -32602, "params.name"),
            ('{"jsonrpc": "2.0", "id": 5, "method": "\\ud800"}', -32600, "method"),
        ]:  # fmt: skip
            words = "Invalid params" if code == -32602 else "Invalid Request"
            error = {"code": code, "message": words, "data": f"{field} {LONE_SURROGATE}"}
            assert answer(line) == {"jsonrpc": "2.0", "id": 5, "error": error}
        unreadable = answer('{"jsonrpc": "2.0", "id": "\\ud800", "method": "tools/list"}')
        assert unreadable["id"] is None and unreadable["error"]["code"] == -32600
        listed = answer(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        assert listed["id"] == 2 and {tool["name"] for tool in listed["result"]["tools"]} == TOOLS
        sent.close()
        assert process.wait(30) == 0


DROPPED = f"a line longer than {1 << 20} bytes: dropped"
LINE_TOO_LONG = {**INVALID, "error": {**INVALID["error"], "data": DROPPED}}
LONG_LINE_MB = 100


def peak_memory(pid: int) -> int:
    """The most memory process ``pid`` has held so far, in bytes (its peak resident set)."""
    status = Path(f"/proc/{pid}/status").read_text()
    kilobytes = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))
    return int(kilobytes) * 1024


def test_a_line_past_the_bound_is_dropped_as_it_comes_and_serving_goes_on(world: World) -> None:
    command = [sys.executable, *world.args()]
    env = {**os.environ, **world.env()}
    pipe = subprocess.PIPE
    with subprocess.Popen(command, env=env, stdin=pipe, stdout=pipe) as process:
        sent, said = process.stdin, process.stdout
        assert sent is not None and said is not None

        def answer(line: bytes) -> dict[str, Any]:
            sent.write(line + b"\n")
            sent.flush()
            assert select.select([said], [], [], 60)[0], "no reply"
            reply: dict[str, Any] = json.loads(said.readline())
            return reply

        assert answer(json.dumps(INITIALIZE).encode())["result"]["serverInfo"]
        sent.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
        sent.write(b"\n")
        before = peak_memory(process.pid)
        started = time.perf_counter()
        for _ in range(LONG_LINE_MB):  # 100 MB of one line, with no newline until its end
            sent.write(b"x" * (1 << 20))
        assert answer(b"") == LINE_TOO_LONG
        elapsed = time.perf_counter() - started
        listed = answer(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode())
        assert listed["id"] == 2 and {tool["name"] for tool in listed["result"]["tools"]} == TOOLS
        grown = peak_memory(process.pid) - before
        print(f"{LONG_LINE_MB} MB line dropped in {elapsed:.2f} s; peak memory grew {grown} bytes")
        assert grown < 16 << 20
        sent.close()
        assert process.wait(30) == 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_streamable_http_serves_the_same_tools(world: World) -> None:
    port = free_port()
    env = {**os.environ, **world.env()}
    process = subprocess.Popen(
        [sys.executable, *world.args("--transport", "http", "--port", str(port))],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 90  # a server starting on a busy machine
        while not listening(port):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)

        async def run() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                listed = await client.list_tools()
                assert {tool.name for tool in listed.tools} == TOOLS
                answer = await call(client, "scrape", url=world.site.url("/b"), render="never")
                assert "page about B" in answer["items"][0]["markdown"]

        asyncio.run(run())
        ask = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        accept = {"Accept": "application/json, text/event-stream"}
        for foreign, status in (
            ({"Host": "evil.example"}, 421),
            ({"Origin": "http://evil.example"}, 403),
        ):
            refused = httpx.post(
                f"http://127.0.0.1:{port}/mcp", json=ask, headers={**accept, **foreign}
            )
            assert refused.status_code == status, foreign  # a page of another site: no tools
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--host", "0.0.0.0", "--contact", CONTACT], "--host must be a loopback"),
        (["--page-chars", "10", "--contact", CONTACT], "--page-chars must be"),  # as typed
        ([], "contact"),
    ],
)
def test_a_bad_setting_is_a_usage_error_before_serving(args: list[str], said: str) -> None:
    done = CliRunner().invoke(app, ["mcp", *args], env={"CITESIFT_CONTACT": ""})
    assert done.exit_code == EXIT_USAGE and said in done.stderr


def test_neither_the_package_nor_the_command_line_loads_the_sdk_until_served() -> None:
    code = "import sys, citesift, citesift.cli; print('mcp' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_two_servers_on_one_store_each_own_their_jobs_and_fail_only_those_of_the_dead(
    world: World,
) -> None:
    slow = [f"/slow/{n}" for n in range(6)]
    for path in slow:
        serve_page(world.site, path, page(path, []), delay=2.5)  # 7.5 s in all
    serve_page(world.site, "/slow", page("Slow", slow))
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    dead = f"{socket.gethostname()}/{ended.stdout.strip()}/0badcafe"  # a process that ended
    with open_store(world.store) as store:
        orphan = JobStore(store, owner=dead).create("crawl", {"url": world.site.url("/b")})
        elsewhere = JobStore(store, owner="other-machine/1/00").create("crawl", {"url": "x"})
    params = StdioServerParameters(command=sys.executable, args=world.args(), env=world.env())
    ids: dict[str, str] = {}

    async def run() -> None:
        async with Client(params, read_timeout_seconds=120) as first:
            began = await call(first, "crawl", url=world.site.url("/slow"), limit=7, max_depth=1)
            ids["first"] = began["id"]
            async with Client(params, read_timeout_seconds=120) as second:  # starts mid-crawl
                beside = await call(second, "crawl_status", id=began["id"])
                assert beside["status"] == "running", beside  # a live server's job is its own
                left = await call(second, "crawl_status", id=orphan.id)
                assert left["status"] == "failed" and "server stopped" in left["error"]
                ids["second"] = (await call(second, "crawl", url=world.site.url("/b")))["id"]
                await until_ended(second, await call(second, "crawl_status", id=ids["second"]))
            done = await until_ended(first, began)
            assert done["status"] == "completed" and done["done"] == 7, done

    asyncio.run(run())
    with open_store(world.store) as store:
        jobs = JobStore(store)
        owners = [jobs.get(ids[name]) for name in ("first", "second")]
        other = jobs.get(elsewhere.id)
    assert owners[0] is not None and owners[1] is not None
    assert owners[0].owner != owners[1].owner  # host, process and a random part each
    assert all(o.owner.startswith(socket.gethostname() + "/") for o in owners)  # type: ignore[union-attr]
    assert other is not None and other.status == "running"  # another machine's: left to it
