"""``citesift research`` and ``citesift trace`` against a scripted model and local pages."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.extract.document import extract_document
from citesift.text.fragments import fragment_url, has_word
from conftest import FIXTURES
from local_site import serve_page
from openai_server import ScriptedServer, chat_reply, serve_openai
from servers import MisbehavingServer

PAGE = (
    b"<html><head><title>Lighthouse</title></head><body><main><h1>Lighthouse</h1>"
    b"<p>The lighthouse was first lit in 1874 and stands 42 metres tall.</p></main></body></html>"
)
CONTACT = ["--contact", "https://example.org/contact", "--allow-private"]


@pytest.fixture
def api() -> Iterator[ScriptedServer]:
    with serve_openai() as running:
        yield running


def test_research_prints_the_answer_its_sources_and_a_run_that_trace_follows(
    server: MisbehavingServer, api: ScriptedServer, tmp_path: Path
) -> None:
    serve_page(server, "/light", PAGE)
    page = server.url("/light")
    api.script(
        "/v1/chat/completions",
        chat_reply(json.dumps({"action": "scrape", "urls": [page], "query": "first lit"})),
        chat_reply(
            json.dumps(
                {
                    "action": "finish",
                    "data": {"lit": 1874, "height": 40},
                    "sources": {"/lit": ["E1"], "/height": ["E1"]},
                    "missing": ["keeper"],
                }
            )
        ),
    )
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "required": ["lit"]}), encoding="utf-8")
    out, store = tmp_path / "answer.json", tmp_path / "store.db"
    result = CliRunner().invoke(
        app,
        [
            "research", "When was the lighthouse first lit?", "--urls", page,
            "--schema", str(schema), "--search", "none", "--model", "scripted",
            "--base-url", api.base_url, "--out", str(out), "--store", str(store), *CONTACT,
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"reading: {page}" in result.stderr
    assert '"lit": 1874' in result.stdout
    # each field linked at the sentence holding its value, never across the <h1> and <p>
    said = fragment_url(page, "The lighthouse was first lit in 1874 and stands 42 metres tall.")
    assert f"/lit: E1 {said}\n" in result.stdout
    unsaid = said  # 40 is said nowhere: the first sentence of the article (its title left out)
    assert f"/height: E1 {unsaid}  (unverified)" in result.stdout
    assert "Missing:\n  keeper" in result.stdout
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["data"] == {"lit": 1874, "height": 40} and saved["status"] == "completed"
    run_id = saved["run_id"]
    assert f"Run: {run_id}" in result.stdout
    traced = CliRunner().invoke(app, ["trace", run_id, "/lit", "--store", str(store)])
    assert traced.exit_code == 0, traced.output
    assert "/lit = 1874 (verified)" in traced.stdout
    assert "⟦" in traced.stdout and "first lit in 1874" in traced.stdout
    assert re.search(r"snapshot \w+, characters \d+:\d+ of its decoded text:", traced.stdout)
    as_json = CliRunner().invoke(
        app, ["trace", run_id[:8], "--store", str(store), "--format", "json"]
    )
    fields = json.loads(as_json.stdout)["fields"]
    assert [f["pointer"] for f in fields] == ["/lit", "/height"]
    assert [f["evidence"][0]["link"] for f in fields] == [said, unsaid]  # as research linked
    missing = CliRunner().invoke(app, ["trace", "ffffffffffffffff", "--store", str(store)])
    assert missing.exit_code == 1 and "a stored run" in missing.stderr


def test_research_without_a_model_answers_with_cited_passages_as_json(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/light", PAGE)
    result = CliRunner().invoke(
        app,
        ["research", "how tall is the lighthouse", "--urls", server.url("/light"),
         "--search", "none", "--format", "json", "--store", str(tmp_path / "s.db"), *CONTACT],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["stop_reason"] == "extractive"
    assert "42 metres tall" in answer["data"][0]["text"]
    assert answer["fields"][0]["evidence_ids"] == ["E1"]


def test_a_run_that_read_nothing_says_why_and_lists_the_urls_not_read(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    gone = server.url("/gone")
    args = ["research", "how tall is the lighthouse", "--urls", gone, "--search", "none",
            "--store", str(tmp_path / "s.db"), *CONTACT]  # fmt: skip
    shown = CliRunner().invoke(app, args)
    assert f"Not read:\n  {gone}: HTTP 404\n" in shown.stdout
    assert "Message: nothing was read: none of the 1 URL(s) asked for" in shown.stdout
    answer = json.loads(CliRunner().invoke(app, [*args, "--format", "json"]).stdout)
    assert answer["unread"] == [{"url": gone, "reason": "HTTP 404"}]  # as HTTP and MCP give it
    assert answer["message"].startswith("nothing was read")


RECORDED = (
    FIXTURES / "pages" / ("08f793762792bd252c75fb57544cdf506ffcc04785136cb87503f02364b82b56.html")
)
"""A recorded news article (cbssports.com) whose page has menus, a byline and a reading
list around the article, and a quotation broken by an ellipsis."""


def test_an_extractive_run_on_a_recorded_page_cites_its_article_and_grades_as_it_verified(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    body = RECORDED.read_bytes()
    serve_page(server, "/a", body)
    page, store, out = server.url("/a"), str(tmp_path / "s.db"), tmp_path / "answer.json"
    task = "What did Sheldon Richardson say about Rudolph?"
    result = CliRunner().invoke(
        app,
        ["research", task, "--urls", page, "--search", "none", "--out", str(out),
         "--store", store, *CONTACT],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    answer = json.loads(out.read_text(encoding="utf-8"))
    assert answer["stop_reason"] == "extractive" and len(answer["fields"]) >= 2
    # evidence comes from the article, as extract reads it, never from the page's menus
    article = " ".join(" ".join(b.text for b in extract_document(body, page).blocks).split())
    for item in answer["evidence"]:
        assert " ".join(item["text"].split()) in article, item["text"]
        assert "Log Out" not in item["text"]
    # each link finds words: never a fragment of an ellipsis alone
    links = [line.split()[-1] for line in result.stdout.splitlines() if line.startswith("  /")]
    assert len(links) == len(answer["fields"])
    for link in links:
        assert has_word(unquote(link.partition("#:~:text=")[2])), link
    # a field that is its evidence's own text grades supported in full, as the run verified it
    run_id = answer["run_id"]
    for command in (["trace", run_id, "--verify"], ["replay", run_id]):
        graded = CliRunner().invoke(app, [*command, "--store", store, "--format", "json"])
        assert graded.exit_code == 0, graded.output
        body_json = json.loads(graded.stdout)
        fields = body_json.get("verification", body_json)["fields"]
        assert len(fields) == len(answer["fields"])
        assert all(f["verified"] and f["status"] == "supported" for f in fields), fields
        assert all(f["score"] == 1.0 for f in fields), [f["reason"] for f in fields]


def test_a_schema_that_cannot_be_read_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(app, ["research", "x", "--schema", str(bad), *CONTACT])
    assert result.exit_code == 64 and "cannot read the schema" in result.stderr
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"type": "banana"}', encoding="utf-8")
    result = CliRunner().invoke(
        app, ["research", "x", "--schema", str(wrong), "--search", "none", *CONTACT]
    )
    assert result.exit_code == 64 and "schema must be a valid JSON Schema" in result.stderr


def test_the_budget_flags_reach_the_run(
    server: MisbehavingServer, api: ScriptedServer, tmp_path: Path
) -> None:
    serve_page(server, "/light", PAGE)
    result = CliRunner().invoke(
        app,
        ["research", "lighthouse", "--urls", server.url("/light"), "--search", "none",
         "--model", "scripted", "--base-url", api.base_url, "--context-tokens", "600",
         "--max-tokens-in", "5", "--max-tokens-out", "5", "--store", str(tmp_path / "s.db"),
         *CONTACT],
    )  # fmt: skip
    assert result.exit_code == 3, result.output
    assert "Status: failed (prompt.too_small)" in result.stdout
    assert api.received("/v1/chat/completions") == []


def test_a_url_run_does_not_search_and_tokens_per_minute_size_and_pace_the_turns(
    server: MisbehavingServer, api: ScriptedServer, tmp_path: Path
) -> None:
    serve_page(server, "/light", PAGE)
    page = server.url("/light")
    heavy = chat_reply(json.dumps({"action": "scrape", "urls": [page]}))
    heavy.json["usage"] = {"prompt_tokens": 3900, "completion_tokens": 50, "total_tokens": 3950}
    finish = {"action": "finish", "data": {"lit": 1874}, "sources": {"/lit": ["E1"]}}
    api.script("/v1/chat/completions", heavy, chat_reply(json.dumps(finish)))
    started = time.monotonic()
    result = CliRunner().invoke(
        app,
        ["research", "When was the lighthouse first lit?", "--urls", page, "--model", "scripted",
         "--base-url", api.base_url, "--tokens-per-minute", "4000", "--max-seconds", "4",
         "--store", str(tmp_path / "s.db"), *CONTACT],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    sent = api.received("/v1/chat/completions")
    assert [r.json["max_tokens"] for r in sent] == [1900, 1900]  # half of 95 % of 4000
    assert '"action":"search"' not in sent[0].json["messages"][0]["content"]
    assert "pacing: " in result.stderr  # 3950 tokens in the last minute leave no room
    assert 3.0 <= time.monotonic() - started < 8.0  # paced, but not into the final reserve
    assert '"lit": 1874' in result.stdout
