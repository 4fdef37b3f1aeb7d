"""Redirects: none by default, a bounded number when allowed, every hop checked again."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import pytest

from citesift.model import Skipped, Snapshot
from citesift.net import fetch, fetch_sync
from servers import MisbehavingServer, loopback_policy, serve

pytestmark = pytest.mark.timeout(30)


def stub_resolver(host: str) -> list[str]:
    """Names for redirect targets; none of them is ever connected to."""
    return {"metadata.internal": ["169.254.169.254"], "intranet.internal": ["10.0.0.8"]}[host]


def follow(server: MisbehavingServer, path: str, **changes: Any) -> object:
    return fetch_sync(server.url(path), loopback_policy(resolver=stub_resolver, **changes))


def test_a_redirect_is_not_followed_by_default_and_its_target_never_asked(
    server: MisbehavingServer,
) -> None:
    outcome = follow(server, "/redirect?to=/ok&code=307")
    assert outcome == Skipped(307, f"redirect to {server.url('/ok')} not followed")
    assert isinstance(outcome, Skipped) and outcome.location == server.url("/ok")
    assert server.hits("/ok") == 0


def test_an_allowed_redirect_is_followed_and_the_final_url_recorded(
    server: MisbehavingServer,
) -> None:
    outcome = follow(server, "/redirect?to=/ok", max_redirects=2)
    assert isinstance(outcome, Snapshot)
    assert outcome.url == server.url("/redirect?to=/ok")
    assert outcome.final_url == server.url("/ok")


def test_a_redirect_into_a_path_robots_txt_disallows_is_refused_unsent(
    server: MisbehavingServer,
) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /private\n")
    outcome = follow(server, "/redirect?to=/private/page", max_redirects=2, robots=True)
    assert outcome == Skipped(None, "disallowed by robots.txt")
    assert server.hits("/redirect") == 1 and server.hits("/private/page") == 0


def test_a_redirect_loop_ends_in_skipped_after_one_turn(server: MisbehavingServer) -> None:
    outcome = follow(server, "/loop", max_redirects=20)
    assert outcome == Skipped(302, f"redirect loop back to {server.url('/loop')}")
    assert server.hits("/loop") == 1


def test_a_chain_longer_than_allowed_is_cut_at_the_bound(server: MisbehavingServer) -> None:
    chain = "/redirect?to=/redirect%3Fto%3D/redirect%253Fto%253D/ok"
    outcome = follow(server, chain, max_redirects=1)
    assert isinstance(outcome, Skipped)
    assert outcome.status == 302 and "not followed" in outcome.reason
    assert server.hits("/ok") == 0
    assert isinstance(follow(server, chain, max_redirects=3), Snapshot)


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("http://metadata.internal/latest/meta-data/", "link-local"),
        ("http://intranet.internal/admin", "private"),
        ("http://169.254.169.254/", "link-local"),
        ("http://[::ffff:10.0.0.1]/", "private"),
        ("file:///etc/passwd", "scheme"),
    ],
)
def test_a_redirect_to_a_non_public_address_or_other_scheme_is_refused_unsent(
    server: MisbehavingServer, location: str, why: str
) -> None:
    outcome = follow(server, f"/redirect?to={location}", max_redirects=5)
    assert isinstance(outcome, Skipped)
    assert outcome.status is None and why in outcome.reason
    assert len(server.seen) == 1


def test_a_redirect_without_location_is_skipped_with_its_status(
    server: MisbehavingServer,
) -> None:
    server.route("/nowhere", lambda request, query: request.answer(301, b""))
    assert follow(server, "/nowhere", max_redirects=3) == Skipped(
        301, "redirect without a location"
    )


def test_on_send_runs_before_every_hop_sent(server: MisbehavingServer) -> None:
    calls: list[int] = []
    chosen = loopback_policy(max_redirects=2)
    outcome = asyncio.run(
        fetch(
            server.url("/redirect?to=/ok"), chosen, on_send=lambda: calls.append(len(server.seen))
        )
    )
    assert isinstance(outcome, Snapshot)
    assert calls == [0, 1]


def test_the_callers_headers_go_to_the_origin_asked_only_never_elsewhere_nor_to_robots_txt(
    server: MisbehavingServer,
) -> None:
    secrets = {"Authorization": "Bearer harbour-key", "Cookie": "session=tide"}
    with serve() as other:
        other.robots = server.robots = (200, "User-agent: *\nAllow: /\n")
        elsewhere = f"http://localhost:{other.port}/ok"  # another host and port: another origin
        hops = f"/redirect?to=/redirect%3Fto%3D{quote(elsewhere, safe='')}"
        outcome = fetch_sync(
            server.url(hops),
            loopback_policy(
                resolver=lambda _: ["127.0.0.1"], max_redirects=3, robots=True, headers=secrets
            ),
        )
    assert isinstance(outcome, Snapshot) and outcome.final_url == elsewhere
    asked = [seen for seen in server.seen if seen.path.startswith("/redirect")]
    assert len(asked) == 2  # both hops on the origin asked for carry the headers
    assert all(seen.headers.get("Authorization") == "Bearer harbour-key" for seen in asked)
    assert all(seen.headers.get("Cookie") == "session=tide" for seen in asked)
    robots = [seen for seen in [*server.seen, *other.seen] if seen.path == "/robots.txt"]
    assert len(robots) == 2 and all(
        "Authorization" not in s.headers and "Cookie" not in s.headers for s in robots
    )
    assert [seen.path for seen in other.seen if seen.path != "/robots.txt"] == ["/ok"]
    assert "Authorization" not in other.seen[-1].headers
    assert "Cookie" not in other.seen[-1].headers


def test_once_a_redirect_leaves_the_origin_the_headers_are_not_restored_on_coming_back(
    server: MisbehavingServer,
) -> None:
    secrets = {"Authorization": "Bearer harbour-key"}
    with serve() as other:
        back = server.url("/ok")
        elsewhere = f"http://localhost:{other.port}/redirect?to={quote(back, safe='')}"
        outcome = fetch_sync(
            server.url(f"/redirect?to={quote(elsewhere, safe='')}"),
            loopback_policy(resolver=lambda _: ["127.0.0.1"], max_redirects=3, headers=secrets),
        )
    assert isinstance(outcome, Snapshot) and outcome.final_url == back
    assert [seen.path.split("?")[0] for seen in server.seen] == ["/redirect", "/ok"]
    assert server.seen[0].headers.get("Authorization") == "Bearer harbour-key"
    assert "Authorization" not in server.seen[1].headers  # A -> B -> A: B chose this hop
    assert all("Authorization" not in seen.headers for seen in other.seen)
