"""Firecrawl's agent route answered by citesift's research run, through the unmodified
firecrawl-py SDK against ``citesift serve`` on loopback: extractive without a model, planned
by a scripted OpenAI-compatible model with one, each field of the answer with its evidence
(URL, quote, the span of the stored snapshot), and a 400 naming what cannot be honoured."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from firecrawl.v2.utils.error_handler import BadRequestError

from citesift.text.fragments import fragment_url
from local_site import serve_bytes
from openai_server import ScriptedServer, serve_openai
from servers import MisbehavingServer
from serving import client, running, with_model
from test_agent_run import CHAT, MUSEUM, act, site
from test_verify_runs_documents import PAGED

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    with serve_openai() as scripted:
        yield scripted


def test_without_a_model_the_agent_answers_extractively_with_cited_passages(
    server: MisbehavingServer,
) -> None:
    site(server)
    with running() as base:
        done = client(base).agent(
            urls=[server.url("/museum"), server.url("/hours")],
            prompt="how many floors has the museum",
            poll_interval=1,
            timeout=30,
        )
        raw = httpx.get(f"{base}/v2/agent/{done.id}").json()
    assert done.status == "completed" and done.stop_reason == "extractive"
    assert "12 floors" in done.data[0]["text"]
    cited = raw["citesift"]["fields"][0]
    assert cited["pointer"] == "/0/text" and cited["verified"]
    quoted = cited["evidence"][0]
    assert quoted["url"] == server.url("/museum") and "12 floors" in quoted["quote"]
    spanned = MUSEUM.decode()[quoted["sourceStart"] : quoted["sourceEnd"]]
    assert "312 rooms on 12 floors" in spanned and quoted["snapshotId"]


def test_a_scripted_model_plans_the_run_and_each_field_cites_its_span(
    server: MisbehavingServer, model: ScriptedServer, tmp_path: Path
) -> None:
    site(server)
    museum = server.url("/museum")
    model.script(
        CHAT,
        act(action="scrape", urls=[museum], query="opened floors"),
        act(
            action="finish",
            data={"opened": 1998, "floors": 12},
            sources={"/opened": ["E1"], "/floors": ["E1"]},
        ),
    )
    planned = with_model(model, tmp_path)
    schema = {"type": "object", "properties": {"opened": {"type": "integer"}}}
    with running(settings=planned) as base:
        done = client(base).agent(
            urls=[museum], prompt="When did the museum open?", schema=schema, poll_interval=1
        )
        raw = httpx.get(f"{base}/v2/agent/{done.id}").json()
        run = raw["citesift"]["runId"]
        traced = httpx.get(f"{base}/citesift/runs/{run}", params={"pointer": "/opened"}).json()
        unknown = httpx.get(f"{base}/citesift/runs/ffffffffffffffff")
        bad_pointer = httpx.get(f"{base}/citesift/runs/{run}", params={"pointer": "/rooms"})
    assert unknown.status_code == 404 and unknown.json()["code"] == "NOT_FOUND"
    assert "the id of a stored run" in unknown.json()["error"]
    assert bad_pointer.status_code == 400  # the run is there: the pointer is what is wrong
    assert done.status == "completed" and done.data == {"opened": 1998, "floors": 12}
    assert traced["task"] == "When did the museum open?" and len(traced["fields"]) == 1
    span = traced["fields"][0]["evidence"][0]
    assert span["url"] == museum and "opened in 1998" in span["span"]
    fields = {field["pointer"]: field for field in raw["citesift"]["fields"]}
    assert fields["/opened"]["verified"] and fields["/floors"]["verified"]
    evidence = fields["/opened"]["evidence"][0]
    assert evidence["url"] == museum and "opened in 1998" in evidence["quote"]
    assert "opened in 1998" in MUSEUM.decode()[evidence["sourceStart"] : evidence["sourceEnd"]]
    opened = fragment_url(museum, "The City Museum opened in 1998.")
    assert evidence["link"] == opened and evidence["place"] is None  # the value's sentence
    assert fields["/floors"]["evidence"][0]["link"] == fragment_url(
        museum, "It has 312 rooms on 12 floors."
    )
    assert span["link"] == opened  # the trace links it as the answer does


def test_the_agent_s_evidence_from_a_pdf_names_its_page_and_links_to_it(
    server: MisbehavingServer, model: ScriptedServer, tmp_path: Path
) -> None:
    serve_bytes(server, "/paged", PAGED, "application/pdf")
    report = server.url("/paged")
    model.script(
        CHAT,
        act(action="scrape", urls=[report], query="opened floors"),
        act(action="finish", data={"floors": 12}, sources={"/floors": ["E1"]}),
    )
    with running(settings=with_model(model, tmp_path)) as base:
        done = client(base).agent(urls=[report], prompt="How many floors?", poll_interval=1)
        raw = httpx.get(f"{base}/v2/agent/{done.id}").json()
    assert done.status == "completed" and done.data == {"floors": 12}
    (quoted,) = raw["citesift"]["fields"][0]["evidence"]
    assert "12 floors" in quoted["quote"] and quoted["place"] == "page 2, paragraph 1"
    assert quoted["link"] == f"{report}#page=2", quoted


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"model": "spark-2"}, "model"),
        ({"max_credits": 10}, "maxCredits"),
        ({"webhook": "https://hooks.example/x"}, "webhook"),
    ],
)
def test_an_agent_option_citesift_cannot_honour_is_a_400_naming_it(
    server: MisbehavingServer, options: dict[str, object], named: str
) -> None:
    with running() as base, pytest.raises(BadRequestError) as raised:
        client(base).start_agent([server.url("/museum")], prompt="p", **options)  # type: ignore[arg-type]
    assert named in str(raised.value) and "not supported by citesift" in str(raised.value)


def test_an_agent_without_pages_or_a_search_source_is_a_400_naming_urls() -> None:
    with running() as base:
        answer = httpx.post(f"{base}/v2/agent", json={"prompt": "anything"})
    assert answer.status_code == 400 and answer.json()["details"][0]["path"] == ["urls"]


def test_an_agent_run_that_read_nothing_says_why_and_lists_the_urls_not_read(
    server: MisbehavingServer,
) -> None:
    """Every URL refused or giving nothing: the answer says so and names each with why, in
    the shape the command line's JSON gives (``message``, ``unread`` of ``{url, reason}``)."""
    site(server)
    gone, metadata = server.url("/gone"), "http://169.254.169.254/latest"
    with running() as base:
        done = client(base).agent(
            urls=[gone, metadata], prompt="how many floors", poll_interval=1, timeout=30
        )
        raw = httpx.get(f"{base}/v2/agent/{done.id}").json()
    shown = raw["citesift"]
    assert shown["message"] == (
        "nothing was read: none of the 2 URL(s) asked for could be read (each is listed with why)"
    )
    reasons = {u["url"]: u["reason"] for u in shown["unread"]}
    assert list(reasons) == [gone, metadata]
    assert reasons[gone] == "HTTP 404" and "link-local" in reasons[metadata]
    assert server.hits("/gone") == 1
