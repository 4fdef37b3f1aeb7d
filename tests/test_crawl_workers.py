"""Many workers on one crawl: ``citesift crawl --workers 4`` against a real PostgreSQL with
one worker killed by SIGKILL mid-page reads every page once (a page the killed worker held is
asked for again only after its lease ran out), the per-host spacing holds across workers,
and the SQLite store serves several workers of one machine too; the workers of a command
killed by SIGKILL end with it, and ``--out`` holds every page once however often the crawl
is run again or resumed."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from citesift.errors import InvalidArgument
from citesift.scrape.crawl import CrawlOptions, crawl, marked_results
from citesift.scrape.crawl_workers import crawl_with_workers
from citesift.store import open_store
from citesift.store.frontier import frontier_in
from local_site import page, serve_page
from servers import MisbehavingServer, loopback_fetcher, loopback_policy
from worker_processes import still_running, workers_of

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]  # worker processes import the library
SRC = str(Path(__file__).resolve().parent.parent / "src")
CONTACT = "https://example.org/contact"
SECTIONS = [f"/s{i}" for i in range(4)]
PAGES = {section: [f"{section}/p{j}" for j in range(4)] for section in SECTIONS}
EVERY = ["/", *SECTIONS, *(p for pages in PAGES.values() for p in pages)]
SPACING_S = 0.25
"""The default limiter's spacing between two starts on one host."""


def build_site(server: MisbehavingServer, delay: float) -> None:
    """A home page, four sections of four slow pages each, every page linking home too."""
    serve_page(server, "/", page("Home", SECTIONS))
    for section, pages in PAGES.items():
        serve_page(server, section, page(section, [*pages, "/"]), delay=delay)
        for path in pages:
            serve_page(server, path, page(path, ["/", section]), delay=delay)


def page_hits(server: MisbehavingServer) -> Counter[str]:
    return Counter(seen.path for seen in server.seen if seen.path != "/robots.txt")


def test_four_workers_with_one_killed_read_every_page_once(
    server: MisbehavingServer, postgres_url: str, tmp_path: Path
) -> None:
    build_site(server, delay=0.4)
    out = tmp_path / "pages.jsonl"
    command = [sys.executable, "-c", "from citesift.cli import main; main()", "crawl",
               server.url("/"), "--allow-private", "--contact", CONTACT, "--store", postgres_url,
               "--out", str(out), "--workers", "4", "--lease", "5",
               "--concurrency", "4"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": SRC}
    crawling = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    with open_store(postgres_url) as store:
        frontier = frontier_in(store)
        victim, held = _holder_mid_page(store, crawling)
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        stdout, stderr = crawling.communicate(timeout=150)
        assert crawling.returncode == 0, stderr.decode()
        crawl_id = stderr.decode().split()[1]
        assert frontier.counts(crawl_id) == {
            "queued": 0, "claimed": 0, "done": len(EVERY), "failed": 0, "moved": 0,
            "disallowed": 0,
        }  # fmt: skip
    urls = [json.loads(line)["url"] for line in out.read_text().splitlines()]
    assert sorted(urls) == sorted(server.url(path) for path in EVERY)  # each page once
    hits = page_hits(server)
    assert set(hits) == set(EVERY)
    again = {path for path, n in hits.items() if n > 1}
    assert again <= held and max(hits.values()) <= 2  # only what the killed worker held
    for path in again:  # asked for again only once its lease had run out
        second = [seen.at for seen in server.seen if seen.path == path][1]
        assert second >= killed_at + 1.0
    assert stdout == b""  # the pages went to --out
    again = subprocess.run(command, capture_output=True, env=env, timeout=150, check=False)
    assert again.returncode == 0, again.stderr.decode()
    urls = [json.loads(line)["url"] for line in out.read_text().splitlines()]
    assert sorted(urls) == sorted(server.url(path) for path in EVERY)  # still each page once


def test_the_workers_of_a_killed_crawl_end_with_it_and_out_holds_each_page_once_after(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    build_site(server, delay=1.5)  # slow enough that the workers could not finish in time
    out = tmp_path / "pages.jsonl"
    store = str(tmp_path / "crawl.db")
    command = [sys.executable, "-c", "from citesift.cli import main; main()", "crawl",
               server.url("/"), "--allow-private", "--contact", CONTACT, "--store", store,
               "--out", str(out), "--workers", "2"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": SRC}
    crawling = subprocess.Popen(command, stderr=subprocess.PIPE, env=env)
    assert crawling.stderr is not None
    with crawling.stderr as said, open_store(store) as opened:
        crawl_id = said.readline().decode().split()[1]  # said before the workers start
        frontier = frontier_in(opened)
        while len(workers := workers_of(crawling.pid)) < 2 or frontier_done(frontier) < 4:
            assert crawling.poll() is None, "the crawl ended before it was killed"
            time.sleep(0.05)
        crawling.kill()
        crawling.wait(timeout=30)
        assert len(workers) == 2 and still_running(workers) == []
        asked = len(server.seen)
        time.sleep(1.0)
        assert len(server.seen) == asked  # no worker goes on crawling
        assert frontier.counts(crawl_id)["queued"] > 0
    build_site(server, delay=0.0)  # slow pages were for the kill: the runs after need none
    expected = sorted(server.url(path) for path in EVERY)
    for again in (command, command, [*command[:4], "--resume", crawl_id, *command[5:]]):
        run = subprocess.run(again, capture_output=True, env=env, timeout=150, check=False)
        assert run.returncode == 0, run.stderr.decode()
        urls = [json.loads(line)["url"] for line in out.read_text().splitlines()]
        assert sorted(urls) == expected  # each page once, on every run
    assert max(page_hits(server).values()) <= 2  # only pages held at the kill read again


def frontier_done(frontier: object) -> int:
    """How many pages the one crawl of the store has done (none before it is made)."""
    with frontier.store.reading() as conn:  # type: ignore[attr-defined]
        row = conn.execute("SELECT count(*) FROM crawl_frontier WHERE state = 'done'").fetchone()
    return int(row[0])


def _holder_mid_page(store: object, crawling: subprocess.Popen[bytes]) -> tuple[int, set[str]]:
    """A worker's process id, once one holds pages and a few are done, and the paths it held."""
    give_up = time.monotonic() + 90
    while time.monotonic() < give_up:
        assert crawling.poll() is None, "the crawl ended before a worker was killed"
        with store.reading() as conn:  # type: ignore[attr-defined]
            done = conn.execute(
                "SELECT count(*) FROM crawl_frontier WHERE state = 'done'"
            ).fetchone()[0]
            rows = conn.execute(
                "SELECT holder, url FROM crawl_frontier WHERE state = 'claimed'"
            ).fetchall()
        if done >= 4 and rows:
            holder = rows[0][0]
            paths = {url.split(":", 2)[2].split("/", 1)[1] for h, url in rows if h == holder}
            return int(holder.split("/")[-2]), {"/" + path for path in paths}
        time.sleep(0.05)
    raise AssertionError("no worker held a page")


def test_the_per_host_spacing_holds_across_workers(
    server: MisbehavingServer, postgres_url: str
) -> None:
    build_site(server, delay=0.0)
    with open_store(postgres_url) as store:
        ended = crawl(server.url("/"), limit=15, policy=loopback_policy(), store=store, workers=3)
    assert ended.done == 15
    starts = sorted(seen.at for seen in server.seen if seen.path != "/robots.txt")
    assert len(starts) == 15
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    assert min(gaps) >= SPACING_S - 0.05  # one host's starts, whichever worker made them


def test_workers_share_a_sqlite_frontier_on_one_machine(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    build_site(server, delay=0.1)
    results: list[str] = []
    with open_store(tmp_path / "crawl.db") as store:
        ended = crawl(
            server.url("/"),
            policy=loopback_policy(),
            store=store,
            workers=2,
            on_result=lambda record: results.append(record["url"]),
        )
    assert ended.done == len(EVERY) and ended.queued == 0
    assert sorted(results) == sorted(server.url(path) for path in EVERY)
    assert set(page_hits(server).values()) == {1}


def test_workers_pass_on_every_result_stored_after_the_callers_mark(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """A caller that wrote the stored results up to a mark (``crawl --out``) hears every
    result stored after it, those stored before the workers started included."""
    build_site(server, delay=0.0)
    with open_store(tmp_path / "crawl.db") as store:
        ended = crawl(server.url("/"), limit=4, policy=loopback_policy(), store=store,
                      fetcher=loopback_fetcher())  # fmt: skip
        stored = list(marked_results(store, ended.crawl))
        heard: list[str] = []
        crawl_with_workers(None, CrawlOptions(), 2, policy=loopback_policy(), store=store,
                           resume=ended.crawl, on_result=lambda r: heard.append(r["url"]),
                           after=stored[1][0])  # fmt: skip
    assert len(stored) == 4
    assert heard == [record["url"] for _, record in stored[2:]]  # stored after the mark


def test_workers_need_a_store_other_processes_open_and_their_own_fetchers(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    with open_store(":memory:") as memory, pytest.raises(InvalidArgument, match="store"):
        crawl(server.url("/"), policy=loopback_policy(), store=memory, workers=2)
    with open_store(tmp_path / "crawl.db") as store:
        with pytest.raises(InvalidArgument, match="fetcher"):
            crawl(server.url("/"), policy=loopback_policy(), store=store, workers=2,
                  fetcher=loopback_fetcher())  # fmt: skip
        with pytest.raises(InvalidArgument, match="workers"):
            crawl(server.url("/"), policy=loopback_policy(), store=store, workers=0)
    assert server.seen == []
