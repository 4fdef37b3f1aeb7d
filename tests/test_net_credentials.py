"""A user name and password in a URL are never sent, and no URL fetching records keeps them:
not a snapshot's ``url`` or ``final_url``, a redirect's target, an outcome's reason, a scrape
result, the store, nor a crawl's results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citesift.model import Skipped, Snapshot
from citesift.net import fetch_sync, without_credentials
from citesift.scrape.crawl import crawl
from citesift.scrape.page import scrape_sync
from citesift.scrape.result import ScrapeResult
from citesift.store import SQLiteStore
from local_site import page, serve_page
from servers import TEST_IDENTITY, MisbehavingServer, loopback_fetcher, loopback_policy

pytestmark = pytest.mark.timeout(60)


def with_secret(url: str) -> str:
    return url.replace("http://", "http://user:secret@", 1)


def sent_no_credentials(server: MisbehavingServer) -> bool:
    return bool(server.seen) and all(
        "authorization" not in (name.lower() for name in seen.headers) for seen in server.seen
    )


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("https://user:secret@example.org/a", "https://example.org/a"),
        ("HTTP://user@example.org:8080/a?b=c@d", "HTTP://example.org:8080/a?b=c@d"),
        ("https://a@b:c@example.org/", "https://example.org/"),  # up to the host's last @
        ("//user:secret@example.org/a", "//example.org/a"),
        ("https://example.org/a@b", "https://example.org/a@b"),
        ("https://example.org?to=x@y#z@w", "https://example.org?to=x@y#z@w"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
        ("not a url @ all", "not a url @ all"),
    ],
)
def test_only_the_user_name_and_password_of_the_authority_go(url: str, kept: str) -> None:
    assert without_credentials(url) == kept


def test_a_fetch_neither_sends_nor_records_credentials(server: MisbehavingServer) -> None:
    outcome = fetch_sync(with_secret(server.url("/ok")), loopback_policy())
    assert isinstance(outcome, Snapshot)
    assert outcome.url == outcome.final_url == server.url("/ok")
    assert sent_no_credentials(server)


def test_a_redirect_to_an_address_with_credentials_is_recorded_without_them(
    server: MisbehavingServer,
) -> None:
    to = with_secret(server.url("/ok"))
    server.route("/away", lambda request, _: request.answer(302, b"", {"Location": to}))
    outcome = fetch_sync(with_secret(server.url("/away")), loopback_policy(max_redirects=2))
    assert isinstance(outcome, Snapshot) and "secret" not in repr(outcome)
    assert (outcome.url, outcome.final_url) == (server.url("/away"), server.url("/ok"))
    assert server.hits("/ok") == 1 and sent_no_credentials(server)


def test_a_redirect_not_followed_names_its_target_without_credentials(
    server: MisbehavingServer,
) -> None:
    outcome = fetch_sync(
        server.url("/redirect?to=" + with_secret(server.url("/ok"))), loopback_policy()
    )
    assert outcome == Skipped(302, f"redirect to {server.url('/ok')} not followed")
    assert isinstance(outcome, Skipped) and outcome.location == server.url("/ok")
    loop = fetch_sync(with_secret(server.url("/loop")), loopback_policy(max_redirects=3))
    assert loop == Skipped(302, f"redirect loop back to {server.url('/loop')}")


def test_a_scrape_shows_and_stores_no_credentials(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/page", page("Page", ["/other"]))
    with SQLiteStore(tmp_path / "s.db") as store:
        result = scrape_sync(
            with_secret(server.url("/page")),
            ("markdown", "links"),
            identity=TEST_IDENTITY,
            policy=loopback_policy(),
            store=store,
            executable="/nonexistent/chromium",
        )
    assert isinstance(result, ScrapeResult)
    assert result.url == result.final_url == server.url("/page")
    assert "secret" not in json.dumps(result.to_dict())
    assert b"secret" not in (tmp_path / "s.db").read_bytes()
    assert sent_no_credentials(server)


def test_a_crawl_from_an_address_with_credentials_records_none(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    serve_page(server, "/", page("Home", ["/a"]))
    serve_page(server, "/a", page("A", ["/"]))
    seen: list[dict[str, Any]] = []
    with SQLiteStore(tmp_path / "s.db") as store:
        crawl(
            with_secret(server.url("/")),
            policy=loopback_policy(),
            store=store,
            fetcher=loopback_fetcher(),
            on_result=seen.append,
            concurrency=1,
        )
    assert [record["url"] for record in seen] == [server.url("/"), server.url("/a")]
    assert "secret" not in json.dumps(seen)
    assert b"secret" not in (tmp_path / "s.db").read_bytes()
    assert sent_no_credentials(server)
