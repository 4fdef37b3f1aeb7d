"""Firecrawl's extract route answered by citesift's research run kept to the pages given,
through the unmodified firecrawl-py SDK against ``citesift serve`` on loopback: a scripted
OpenAI-compatible model plans it, its answer is held to the schema (a reply that does not
match is sent back to be corrected), a page the pages given only link to is never read, each
field names its sources, a cancelled extract reads no further page and shows the evidence
it had read, and without a model the route says what to set."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from firecrawl import Firecrawl
from firecrawl.v2.utils.error_handler import BadRequestError, FirecrawlError

from citesift.store import SQLiteStore
from citesift.store.jobs import JobStore
from citesift.store.runs import runs_in
from citesift.store.snapshots import snapshots_in
from local_site import page, serve_page
from openai_server import ScriptedServer, serve_openai
from servers import MisbehavingServer
from serving import client, running, with_model
from test_agent_run import CHAT, MUSEUM, act, site

pytestmark = pytest.mark.timeout(60)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"opened": {"type": "integer"}, "floors": {"type": "integer"}},
    "required": ["opened", "floors"],
    "additionalProperties": False,
}


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    with serve_openai() as scripted:
        yield scripted


def extract(fc: Firecrawl, urls: list[str], **options: Any) -> Any:
    """The SDK's extract, waited for (it warns that Firecrawl keeps the route in maintenance)."""
    with pytest.warns(DeprecationWarning, match="maintenance"):
        return fc.extract(urls, poll_interval=1, timeout=30, **options)


def test_an_extract_keeps_to_the_pages_given_and_answers_json_its_schema_holds(
    server: MisbehavingServer, model: ScriptedServer, tmp_path: Path
) -> None:
    site(server)
    home, museum, hours = server.url("/"), server.url("/museum"), server.url("/hours")
    model.script(
        CHAT,
        act(action="scrape", urls=[museum], query="opened floors"),
        act(action="scrape", urls=[home, hours], query="opened floors"),
        act(action="finish", data={"opened": "1998", "floors": 12}, sources={"/opened": ["E1"]}),
        act(
            action="finish",
            data={"opened": 1998, "floors": 12},
            sources={"/opened": ["E1"], "/floors": ["E1"]},
        ),
    )
    with running(settings=with_model(model, tmp_path)) as base:
        done = extract(
            client(base),
            [museum, home],  # the home page links to the hours: not given
            prompt="When did the museum open, and how many floors has it?",
            schema=SCHEMA,
            show_sources=True,
        )
        raw = httpx.get(f"{base}/v2/extract/{done.id}").json()
    assert done.status == "completed" and done.data == {"opened": 1998, "floors": 12}
    jsonschema.validate(done.data, SCHEMA)
    assert server.hits("/hours") == 0  # linked from a page given, never read
    sent = [str(request.json) for request in model.received(CHAT)]
    assert server.hits("/") == 1 and "outside the pages this run is confined to" in sent[2]
    assert "/opened does not match the schema" in sent[3]  # sent back to be corrected
    assert done.sources == {"/opened": [museum], "/floors": [museum]}
    fields = {field["pointer"]: field for field in raw["citesift"]["fields"]}
    quoted = fields["/opened"]["evidence"][0]
    assert fields["/opened"]["verified"] and "opened in 1998" in quoted["quote"]
    assert "opened in 1998" in MUSEUM.decode()[quoted["sourceStart"] : quoted["sourceEnd"]]
    assert raw["tokensUsed"] > 0 and raw["expiresAt"]


def test_without_a_model_an_extract_is_a_501_saying_what_to_set(
    server: MisbehavingServer,
) -> None:
    site(server)
    with running() as base:
        answer = httpx.post(
            f"{base}/v2/extract", json={"urls": [server.url("/museum")], "prompt": "opened?"}
        )
        with pytest.warns(DeprecationWarning), pytest.raises(FirecrawlError) as raised:
            client(base).start_extract([server.url("/museum")], prompt="opened?")
        unknown = httpx.get(f"{base}/v2/extract/00000000-0000-0000-0000-000000000000")
    assert answer.status_code == 501 and answer.json()["code"] == "EXTRACT_NOT_CONFIGURED"
    assert "model" in answer.json()["error"] and "model" in str(raised.value)
    assert unknown.status_code == 404 and unknown.json()["error"] == "Job not found"
    assert server.hits("/museum") == 0


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"urls": ["http://a.example/"]}, ["prompt"]),
        ({"urls": ["http://a.example/*"], "prompt": "p"}, ["urls", 0]),
        ({"urls": ["http://a.example/"], "prompt": "p", "enableWebSearch": True},
         ["enableWebSearch"]),
        ({"urls": ["http://a.example/"], "prompt": "p", "systemPrompt": "s"}, ["systemPrompt"]),
        ({"urls": ["http://a.example/"], "prompt": "p", "allowExternalLinks": True},
         ["allowExternalLinks"]),
        ({"urls": [], "prompt": "p"}, ["urls"]),
    ],
)  # fmt: skip
def test_an_extract_citesift_cannot_honour_is_a_400_naming_it(
    model: ScriptedServer, tmp_path: Path, body: dict[str, Any], named: list[Any]
) -> None:
    with running(settings=with_model(model, tmp_path)) as base:
        answer = httpx.post(f"{base}/v2/extract", json=body)
        with pytest.warns(DeprecationWarning), pytest.raises(BadRequestError):
            client(base).start_extract(["http://a.example/*"], prompt="p")
    assert answer.status_code == 400 and answer.json()["details"][0]["path"] == named
    assert model.received(CHAT) == []


def test_a_cancelled_extract_reads_no_further_page_and_shows_what_it_read(
    server: MisbehavingServer, model: ScriptedServer, tmp_path: Path
) -> None:
    site(server)
    serve_page(server, "/slow", page("Ferry", [], "The ferry leaves at noon."), delay=3)
    museum, slow, hours = server.url("/museum"), server.url("/slow"), server.url("/hours")
    model.script(
        CHAT,
        act(action="scrape", urls=[museum], query="opened floors"),
        act(action="scrape", urls=[slow], query="opened floors"),
        act(action="scrape", urls=[hours], query="opened floors"),
        act(action="finish", data={"opened": 1998, "floors": 12}, sources={"/opened": ["E1"]}),
    )
    settings = with_model(model, tmp_path)
    with running(settings=settings) as base:
        body = {"urls": [museum, slow, hours], "prompt": "When did it open?", "schema": SCHEMA}
        job = httpx.post(f"{base}/v2/extract", json=body).json()["id"]
        waited = time.monotonic() + 20
        while server.hits("/slow") == 0 and time.monotonic() < waited:
            time.sleep(0.05)
        assert server.hits("/slow") == 1  # the second page is being read
        cancelled = httpx.delete(f"{base}/v2/extract/{job}")
        time.sleep(3.5)  # the slow page has answered by now: no step follows it
        status = httpx.get(f"{base}/v2/extract/{job}").json()
        again = httpx.delete(f"{base}/v2/extract/{job}")
        unknown = httpx.delete(f"{base}/v2/extract/00000000-0000-0000-0000-000000000000")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert status["status"] == "cancelled" and "data" not in status
    assert (status["partial"], status["stopReason"]) == (None, "cancelled")
    read = status["citesift"]["evidence"]  # what the first page gave, before the cancel
    assert {item["url"] for item in read} == {museum}
    opened = next(item for item in read if "opened in 1998" in item["quote"])
    assert "opened in 1998" in MUSEUM.decode()[opened["sourceStart"] : opened["sourceEnd"]]
    assert again.status_code == 409 and again.json()["code"] == "JOB_ENDED"
    assert unknown.status_code == 404
    assert server.hits("/hours") == 0 and len(model.received(CHAT)) == 2
    with SQLiteStore(Path(str(settings.store))) as store:
        kept = snapshots_in(store).latest(museum)  # what was read before the cancel stays
        run = runs_in(store).get(status["citesift"]["runId"])  # and the run, for trace
        refused = JobStore(store).add(job, "result", {"late": True})
        refused_again = JobStore(store).keep_partial(job, {"late": True})
    assert kept is not None and b"opened in 1998" in kept.body
    assert run is not None and run.answer["stop_reason"] == "cancelled"
    assert len(run.answer["evidence"]) == len(read)
    assert not refused and not refused_again  # nothing is kept after the cancel's partial
