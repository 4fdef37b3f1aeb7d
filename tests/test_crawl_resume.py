"""``citesift crawl`` in a real process: killed with SIGKILL mid-crawl and run again, it
goes on from its stored frontier; no page is lost and none finished is fetched again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from local_site import page, serve_page
from servers import MisbehavingServer

PAGES = [f"/p{i}" for i in range(16)]
CONTACT = "https://example.org/contact"


def command(server: MisbehavingServer, store: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        "from citesift.cli import main; main()",
        "crawl",
        server.url("/"),
        "--allow-private",
        "--contact",
        CONTACT,
        "--store",
        str(store),
        "--out",
        str(out),
        "--max-depth",
        "1",
        "--concurrency",
        "2",
    ]


def lines(out: Path) -> list[str]:
    return [json.loads(line)["url"] for line in out.read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_crawl_killed_with_sigkill_resumes_with_no_page_lost_or_fetched_twice(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", PAGES))
    for path in PAGES:
        serve_page(server, path, page(path, []), delay=0.3)
    store, out = tmp_path / "crawl.db", tmp_path / "pages.jsonl"
    process = subprocess.Popen(
        command(server, store, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    give_up = time.monotonic() + 60
    while not (out.exists() and len(lines(out)) >= 5) and time.monotonic() < give_up:
        assert process.poll() is None, "the crawl ended before it was killed"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    first_run = set(lines(out))
    assert 5 <= len(first_run) < len(PAGES)
    hits_before = Counter(seen.path for seen in server.seen)

    done = subprocess.run(command(server, store, out), capture_output=True, timeout=90)
    assert done.returncode == 0, done.stderr
    urls = lines(out)
    assert sorted(urls) == sorted(server.url(path) for path in ["/", *PAGES])  # each once
    hits_after = Counter(seen.path for seen in server.seen) - hits_before
    assert not {server.url(path) for path in hits_after} & first_run  # none done fetched again
    twice = [path for path in PAGES if hits_before[path] + hits_after[path] > 1]
    assert len(twice) <= 2  # only pages in flight at the kill (two at a time) are fetched again
    assert all(hits_before[path] + hits_after[path] <= 2 for path in ["/", *PAGES])
    assert b"done" in done.stderr and b"0 queued" in done.stderr.splitlines()[-1]


def test_the_crawl_command_streams_pages_and_says_its_progress(
    server: MisbehavingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    serve_page(server, "/", page("Home\x1b]0;x", ["/a", "/b"]))
    serve_page(server, "/a", page("A", []))
    serve_page(server, "/b", page("B", []))
    args = ["crawl", server.url("/"), "--allow-private", "--contact", CONTACT]
    result = CliRunner().invoke(app, [*args, "--formats", "text", "--formats", "links"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(r["url"] for r in records) == [server.url(p) for p in ("/", "/a", "/b")]
    assert records[0]["title"] == "Home\x1b]0;x" and "\x1b" not in result.stdout
    assert "page about Home" in records[0]["text"] and "markdown" not in records[0]
    assert "3 done, 0 queued, 0 failed" in result.stderr
    again = CliRunner().invoke(app, [*args, "--formats", "text", "--formats", "links"])
    assert again.stdout == result.stdout  # the stored crawl, fetched no more
    assert len(server.seen) == 4  # robots.txt and three pages
    refused = CliRunner().invoke(app, [*args, "--include-paths", "("])
    assert refused.exit_code == 64 and "include_paths" in refused.stderr
    unknown = CliRunner().invoke(app, ["crawl", "--resume", "nope", "--contact", CONTACT])
    assert unknown.exit_code == 64 and "resume" in unknown.stderr
