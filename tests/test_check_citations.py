"""Checking a document's citations against the pages they cite, served on 127.0.0.1: a real
recorded Wikipedia page, a 404, a bot check, a document with 50 citations, and one whose
slow pages outlast the check's time limit."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from typer.testing import CliRunner

from citesift import PageLimits, WebPageSource, check_citations, find_citations
from citesift.cli import app
from citesift.errors import InvalidArgument
from citesift.index.embedders import shared_embedder
from citesift.net import ClientIdentity
from citesift.store import SQLiteStore
from citesift.store.snapshots import snapshots_in
from citesift.verify.check_json import citation_json
from servers import MisbehavingServer
from test_rag_helpers import HashEmbedder
from wikipedia_server import Answer, WikipediaStandIn

IDENTITY = ClientIdentity("TestClient", "1.0", "https://example.org/contact")
HTML = {"Content-Type": "text/html; charset=utf-8"}
RUST = "Rust_(programming_language).html"
BRIDGE = (
    b"<html><body><p>The bridge opened in 1932. It carries six lanes of traffic.</p>"
    b"<p>Its main span is 503 metres long.</p></body></html>"
)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[WikipediaStandIn]:
    from conftest import WIKIPEDIA_FIXTURES

    recorded = (WIKIPEDIA_FIXTURES / "pages" / RUST).read_bytes()
    with WikipediaStandIn(tmp_path) as server:
        server.answer("/rust", Answer(200, HTML, recorded))
        server.answer("/missing", Answer(404, HTML, b"<h1>Not here</h1>"))
        challenge = {**HTML, "cf-mitigated": "challenge"}
        server.answer("/check", Answer(403, challenge, b"<title>Just a moment...</title>"))
        server.answer("/verified", Answer(200, challenge, b"<title>Just a moment...</title>"))
        yield server


def document(origin: str) -> str:
    return (
        "# Notes on Rust\n\n"
        "Rust 0.1, the first public release, came out on January 20, 2012.[^1] "
        "In August 2020, Mozilla laid off 350 of its 1,000 employees worldwide [2]. "
        f"Rust needs a [garbage collector]({origin}/missing) to run. "
        "Hoare named Rust after a group of fungi [3]. "
        f"It runs on [toasters]({origin}/verified).\n\n"
        f"[^1]: The Rust article, {origin}/rust\n"
        f"[2] {origin}/rust\n"
        f"[3]: {origin}/check\n"
    )


def reader() -> WebPageSource:
    return WebPageSource(IDENTITY, allow_private=True)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_each_citation_gets_its_verdict_and_best_sentence(site: WikipediaStandIn) -> None:
    report = check_citations(document(site.origin), reader())
    first, altered, missing, blocked, challenged = report.citations
    assert first.status == "supported"
    assert first.evidence is not None and first.evidence.startswith("The first public release")
    assert first.evidence_url is not None and "#:~:text=" in first.evidence_url
    assert first.snapshot_id is not None
    assert altered.status != "supported" and "350" in altered.reason
    assert (missing.status, blocked.status, challenged.status) == ("source unavailable",) * 3
    assert "404" in missing.reason and missing.evidence is None
    assert (report.supported, report.unavailable, report.passed) == (1, 3, False)
    assert site.paths().count("/rust") == 1  # one read per cited page


def test_markdown_citations_are_found_with_their_sentences() -> None:
    found = find_citations(document("https://example.org"))
    assert [(c.sentence, c.url.rsplit("/", 1)[-1], c.marker) for c in found] == [
        ("Rust 0.1, the first public release, came out on January 20, 2012.", "rust", "[^1]"),
        ("In August 2020, Mozilla laid off 350 of its 1,000 employees worldwide.", "rust", "[2]"),
        ("Rust needs a garbage collector to run.", "missing", "garbage collector"),
        ("Hoare named Rust after a group of fungi.", "check", "[3]"),
        ("It runs on toasters.", "verified", "toasters"),
    ]


def test_html_links_notes_and_cite_are_found() -> None:
    html = (
        "<p>Rust began in 2006.<sup><a href='#n1'>[1]</a></sup> Mozilla backed it in 2009."
        '<sup><a href="https://b.example/m">[2]</a></sup></p>'
        "<p>It was <a href=/fungi>named</a> after fungi. <cite>https://c.example/f</cite></p>"
        "<ol><li id=n1>Hoare, <a href='https://a.example/h'>an interview</a></li></ol>"
    )
    found = find_citations(html, "html", "https://page.example/doc")
    assert [(c.sentence, c.url) for c in found] == [
        ("Rust began in 2006.", "https://a.example/h"),
        ("Mozilla backed it in 2009.", "https://b.example/m"),
        ("It was named after fungi.", "https://page.example/fungi"),
        ("It was named after fungi.", "https://c.example/f"),
    ]


@pytest.mark.slow
def test_the_command_gates_on_unsupported_citations(site: WikipediaStandIn, tmp_path: Path) -> None:
    site.answer("/bridge", Answer(200, HTML, BRIDGE))
    good = tmp_path / "good.md"
    good.write_text(f"The bridge opened in 1932 [1].\n\n[1] {site.origin}/bridge\n", "utf-8")
    runner = CliRunner()
    passed = runner.invoke(app, ["check", str(good), "--allow-private", "--contact", "a@b.c"])
    assert passed.exit_code == 0, passed.output
    assert passed.stdout.startswith("supported: The bridge opened in 1932.")
    assert "1 citations: 1 supported" in passed.stdout
    bad = tmp_path / "bad.md"
    bad.write_text(
        f"The bridge opened in 1931 [1]. It cost a fortune [2].\n\n"
        f"[1] {site.origin}/bridge\n[2] {site.origin}/missing\n",
        encoding="utf-8",
    )
    failed = runner.invoke(
        app, ["check", str(bad), "--allow-private", "--contact", "a@b.c", "--format", "json"]
    )
    assert failed.exit_code == 1
    report = json.loads(failed.stdout)
    assert report["passed"] is False and report["unavailable"] == 1
    assert report["citations"][0]["marker"] == "[1]"
    assert report["citations"][0]["status"] != "supported"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_fifty_citations_are_read_one_at_a_time_within_the_host_limits(
    site: WikipediaStandIn,
) -> None:
    lines = []
    for n in range(50):
        page = f"<html><body><p>Station {n} opened in {1900 + n}. It has {n + 2} platforms.</p>"
        site.answer(f"/station/{n}", Answer(200, HTML, page.encode() + b"</body></html>"))
        lines.append(f"Station {n} opened in {1900 + n} [{n}].")
    refs = [f"[{n}] {site.origin}/station/{n}" for n in range(50)]
    report = check_citations(" ".join(lines) + "\n\n" + "\n".join(refs), reader())
    assert len(report.citations) == 50 and report.passed
    times = [r.at for r in site.requests if r.path.startswith("/station/")]
    assert len(times) == 50
    # The host's spacing (250 ms) holds between reads. Arrival times at the server carry the
    # machine's scheduling jitter, so spacing is checked over runs of five reads, and whole.
    windows = [later - earlier for earlier, later in zip(times, times[4:], strict=False)]
    assert min(windows) >= 4 * 0.25 - 0.15
    assert times[-1] - times[0] >= 49 * 0.25 - 0.15


@pytest.mark.slow
@pytest.mark.parametrize("named", [True, False], ids=["named-store", "default-store"])
def test_a_checked_document_is_checked_again_offline_from_its_snapshots(
    tmp_path: Path, named: bool
) -> None:
    """With a store named, or none (the default one keeps the pages, and ``--offline``
    answers from it): the second check reads what the first kept, and nothing else."""
    page = BRIDGE
    store = tmp_path / "store.db" if named else tmp_path / "citesift-home" / "citesift.db"
    kept = ["--store", str(store)] if named else []
    runner = CliRunner()
    with WikipediaStandIn(tmp_path) as server:
        server.answer("/bridge", Answer(200, HTML, page))
        doc = tmp_path / "doc.md"
        doc.write_text(
            f"The bridge opened in 1932 [1]. Its main span is 603 metres long [1].\n\n"
            f"[1] {server.origin}/bridge\n",
            encoding="utf-8",
        )
        flags = ["--allow-private", "--contact", "a@b.c", *kept, "--format", "json"]
        online = runner.invoke(app, ["check", str(doc), *flags])
    offline = runner.invoke(app, ["check", str(doc), *flags, "--offline"])
    assert online.exit_code == offline.exit_code == 1, (online.output, offline.output)
    first, second = json.loads(online.stdout), json.loads(offline.stdout)
    assert first == second
    supported, altered = first["citations"]
    assert supported["status"] == "supported" and supported["snapshot_id"]
    assert altered["status"] != "supported" and "603" in altered["reason"]
    with SQLiteStore(store) as opened:  # the snapshot the report names is the one kept
        assert snapshots_in(opened).get(supported["snapshot_id"]) is not None


SLOW = 0.8
"""Seconds each slow page takes to answer: two of them outlast ``LIMIT``."""
LIMIT = 1.5
CITED_SLOWLY = 8
"""Citations of the slow document: read to the end, they would take 6.4 s."""
BAD_LIMITS: list[Any] = [0, -1.0, math.nan, math.inf, 86_401, True, "5"]


def slow_document(server: MisbehavingServer) -> str:
    """A document citing ``CITED_SLOWLY`` distinct pages of ``server``, each answering after
    ``SLOW`` seconds and stating what its citing sentence says."""
    lines, refs = [], []
    for n in range(CITED_SLOWLY):
        fact = f"Station {n} opened in {1900 + n}."
        body = f"<html><body><p>{fact} It has {n + 2} platforms.</p></body></html>"
        lines.append(f"{fact[:-1]} [{n}].")
        refs.append(
            f"[{n}] {server.url('/slow')}?{urlencode({'delay': SLOW, 'n': n, 'body': body})}"
        )
    return " ".join(lines) + "\n\n" + "\n".join(refs) + "\n"


def assert_cut_short(citations: list[dict[str, Any]], server: MisbehavingServer) -> None:
    """The first citation graded, every one from the third on unavailable for want of time,
    and none of their pages asked for (two slow reads outlast the time limit)."""
    assert citations[0]["status"] == "supported", citations[0]
    for late in citations[2:]:
        assert (late["status"], late["reason"]) == ("unavailable", "time limit reached")
        assert late["evidence"] is None
    assert 1 <= server.hits("/slow") <= 2


def test_a_time_limit_ends_the_check_and_leaves_the_rest_unavailable(
    server: MisbehavingServer,
) -> None:
    shared_embedder()  # loaded before the clock starts: only the reads are timed
    started = time.monotonic()
    report = check_citations(slow_document(server), reader(), max_seconds=LIMIT)
    took = time.monotonic() - started
    assert took < LIMIT + SLOW + 2.5 < CITED_SLOWLY * SLOW
    assert report.cut_short and not report.passed and len(report.citations) == CITED_SLOWLY
    assert_cut_short([citation_json(c) for c in report.citations], server)
    assert report.unavailable >= CITED_SLOWLY - 2 and report.citations[0].snapshot_id


def test_a_check_within_its_time_limit_is_not_cut_short(site: WikipediaStandIn) -> None:
    site.answer("/bridge", Answer(200, HTML, BRIDGE))
    text = f"The bridge opened in 1932 [1].\n\n[1] {site.origin}/bridge\n"
    report = check_citations(text, reader(), max_seconds=60)
    assert report.passed and not report.cut_short


@pytest.mark.parametrize("max_seconds", BAD_LIMITS)
def test_a_time_limit_that_makes_no_sense_is_refused_by_name(max_seconds: Any) -> None:
    with pytest.raises(InvalidArgument, match="max_seconds must be a number over 0"):
        check_citations("Text [1].\n\n[1] http://127.0.0.1:9/", reader(), max_seconds=max_seconds)


def test_the_commands_time_limit_cuts_the_check_short_and_fails_it(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    shared_embedder()
    doc = tmp_path / "slow.md"
    doc.write_text(slow_document(server), "utf-8")
    flags = ["--allow-private", "--contact", "a@b.c", "--max-seconds", str(LIMIT)]
    runner = CliRunner()
    json_run = runner.invoke(app, ["check", str(doc), *flags, "--format", "json"])
    assert json_run.exit_code == 1, json_run.output
    report = json.loads(json_run.stdout)
    assert report["cut_short"] is True and report["passed"] is False
    assert_cut_short(report["citations"], server)
    text_run = runner.invoke(app, ["check", str(doc), *flags])
    assert text_run.exit_code == 1 and "time limit reached" in text_run.stdout
    assert text_run.stdout.rstrip().endswith(
        "cut short: the time limit passed before every citation was read"
    )
    refused = runner.invoke(app, ["check", str(doc), "--contact", "a@b.c", "--max-seconds", "0"])
    assert refused.exit_code == 64 and "max_seconds must be a number over 0" in refused.stderr


def test_the_commands_deadline_bounds_each_fetch(server: MisbehavingServer, tmp_path: Path) -> None:
    doc = tmp_path / "slow.md"
    doc.write_text(slow_document(server), "utf-8")
    flags = ["--allow-private", "--contact", "a@b.c", "--format", "json", "--deadline", "0.2"]
    run = CliRunner().invoke(app, ["check", str(doc), *flags])
    assert run.exit_code == 1, run.output
    report = json.loads(run.stdout)
    assert report["cut_short"] is False and report["unavailable"] == CITED_SLOWLY
    for late in report["citations"]:
        assert late["status"] == "unavailable"
        assert "within the 0.2 s deadline" in late["reason"] and late["evidence"] is None


def dripping_document(server: MisbehavingServer) -> str:
    """A document whose first cited page sends its body one byte every 0.2 s, forever, and
    whose second is quick: only the check's time limit can end the first read."""
    return (
        f"The first page never ends [1]. The second page is quick [2].\n\n"
        f"[1] {server.url('/slowloris')}?every=0.2\n[2] {server.url('/ok')}\n"
    )


def test_a_time_limit_ends_a_read_under_way_whatever_its_deadline(
    server: MisbehavingServer,
) -> None:
    pages = WebPageSource(IDENTITY, limits=PageLimits(deadline=30), allow_private=True)
    started = time.monotonic()
    report = check_citations(
        dripping_document(server), pages, embedder=HashEmbedder(), max_seconds=2
    )
    took = time.monotonic() - started
    assert 2 <= took < 8, took  # not the page's 30 s deadline (slack for a busy machine)
    assert report.cut_short and report.unavailable == 2
    assert {c.reason for c in report.citations} == {"time limit reached"}
    assert server.hits("/slowloris") == 1 and server.hits("/ok") == 0


def test_the_commands_time_limit_ends_a_read_under_way(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    shared_embedder()
    doc = tmp_path / "dripping.md"
    doc.write_text(dripping_document(server), "utf-8")
    flags = ["--allow-private", "--contact", "a@b.c", "--format", "json"]
    started = time.monotonic()
    run = CliRunner().invoke(
        app, ["check", str(doc), *flags, "--deadline", "30", "--max-seconds", "2"]
    )
    took = time.monotonic() - started
    assert run.exit_code == 1, run.output
    assert 2 <= took < 8, took  # not the page's 30 s deadline
    report = json.loads(run.stdout)
    assert report["cut_short"] is True and report["unavailable"] == 2


def test_a_pause_asked_for_past_the_time_limit_leaves_the_time_to_other_citations(
    server: MisbehavingServer,
) -> None:
    """The second page's host asks for 30 s of quiet, more than the check has left: the
    page is "rate limited" at once, and the time left goes to the page of another host."""
    busy = f"{server.url('/status')}?code=429&retry-after=30"
    elsewhere = f"{server.url('/ok')}?{urlencode({'body': BRIDGE.decode()})}"
    text = (
        f"The bridge is busy [1]. The bridge is still busy [2]. "
        f"The bridge opened in 1932 [3].\n\n[1] {busy}\n[2] {busy}&again=1\n"
        f"[3] {elsewhere.replace('127.0.0.1', 'localhost')}\n"
    )
    started = time.monotonic()
    report = check_citations(text, reader(), embedder=HashEmbedder(), max_seconds=4)
    assert time.monotonic() - started < 2
    first, second, third = report.citations
    assert first.status == second.status == "source unavailable"
    assert "429" in first.reason and second.reason == "rate limited: blocked"
    assert third.status == "supported" and not report.cut_short


def test_a_judge_that_cannot_be_read_abstains_in_the_report(site: WikipediaStandIn) -> None:
    from citesift import LLMJudge, check_json
    from citesift.cli.check import report_text
    from openai_server import chat_reply, serve_openai

    site.answer("/bridge", Answer(200, HTML, BRIDGE))
    text = f"The bridge opened in 1932 [1].\n\n[1] {site.origin}/bridge\n"
    with serve_openai() as api:
        api.script("/v1/chat/completions", chat_reply("Sure! It is supported."))
        judge = LLMJudge(api.base_url, "judge-1", timeout=10, max_retries=0)
        report = check_citations(text, reader(), judge=judge)
    (check,) = report.citations
    assert (check.status, check.abstained) == ("not_supported", True)
    assert check_json(report)["citations"][0]["abstained"] is True
    assert "\n  abstained: the judge's answer could not be read\n" in report_text(report)
