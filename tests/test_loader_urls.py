"""URL list loader over HTTPS on loopback (a host name resolved by a stubbed resolver to
127.0.0.1, a certificate of its own): allowed origins required, HTTPS only, no redirect,
a 500, an answer past the cap and one slower than the deadline reported, the rest read."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from citesift.errors import LOAD_FAILED, InvalidArgument, LoadError
from citesift.sources.loaders.limits import LoadLimits
from citesift.sources.loaders.results import Loaded
from citesift.sources.loaders.urls import load_urls_sync, origin_of
from loader_servers import text_answer
from servers import MisbehavingServer, loopback_policy, serve

HOST = "docs.citesift.test"


def resolve(host: str) -> list[str]:
    return {HOST: ["127.0.0.1"]}[host]


@pytest.fixture
def site() -> Iterator[MisbehavingServer]:
    with serve(tls_host=HOST) as server:
        page = "<html><head><title>Guide</title></head><body><h1>Guide</h1><p>Read me.</p>"
        server.route("/guide", text_answer(page, content_type="text/html", etag="g1"))
        server.route("/big", text_answer("<p>" + "big " * 2000 + "</p>", content_type="text/html"))
        yield server


def load(server: MisbehavingServer, paths: list[str], **limits: int) -> Loaded:
    policy = loopback_policy(resolver=resolve, tls=server.client_tls)
    origin = f"https://{HOST}:{server.port}"
    bounds = LoadLimits(**{"timeout_ms": 700, "max_response_bytes": 2000, **limits})
    return load_urls_sync([server.url(p) for p in paths], [origin], policy, bounds)


def test_pages_load_and_each_failure_is_reported(site: MisbehavingServer) -> None:
    started = time.monotonic()
    loaded = load(site, ["/guide", "/status?code=500", "/big", "/slowloris", "/redirect?to=/guide"])
    assert time.monotonic() - started < 8
    [guide] = loaded.documents
    assert guide.title == "Guide" and guide.revision == '"g1"'
    assert guide.metadata["url"] == site.url("/guide")
    reasons = [f.reason for f in loaded.failures]
    assert reasons[0] == f"url 500: {site.url('/status?code=500')}"
    assert "/big" in reasons[1] and "/slowloris" in reasons[2]
    assert reasons[3].startswith("url 302: ")
    assert site.hits("/guide") == 1  # the redirect was not followed


def test_a_failure_names_its_address_as_given_and_says_why_with_its_secrets_masked(
    site: MisbehavingServer,
) -> None:
    """``source`` matches the failure back to the caller's address; ``reason`` is shown."""
    asked = site.url("/status?code=500&api_key=sk-live-4f9Qz7&page=2")
    [failure] = load(site, ["/guide", asked.removeprefix(site.url(""))]).failures
    assert failure.source == asked
    assert failure.reason == f"url 500: {site.url('/status?code=500&api_key=***&page=2')}"


def test_every_page_failing_is_an_error(site: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match="url: all eligible downloads failed") as caught:
        load(site, ["/status?code=500"])
    assert caught.value.code == LOAD_FAILED


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://docs.citesift.test/guide", "not an https address"),
        ("https://other.test/guide", "origin not allowed: https://other.test"),
        ("not a url", "not an https address"),
    ],
)
def test_a_bad_address_stops_the_load_before_any_fetch(
    site: MisbehavingServer, url: str, message: str
) -> None:
    policy = loopback_policy(resolver=resolve, tls=site.client_tls)
    origin = f"https://{HOST}:{site.port}"
    with pytest.raises(LoadError, match=message):
        load_urls_sync([site.url("/guide"), url], [origin], policy)
    assert site.seen == []


@pytest.mark.parametrize("origins", [[], "https://x.test", ["http://x.test"], ["https://x.test/p"]])
def test_allowed_origins_are_required_and_checked(site: MisbehavingServer, origins: object) -> None:
    policy = loopback_policy(resolver=resolve, tls=site.client_tls)
    with pytest.raises(InvalidArgument, match="allowed_origins"):
        load_urls_sync([site.url("/guide")], origins, policy)  # type: ignore[arg-type]


def test_origins_are_compared_without_case_or_default_port() -> None:
    assert origin_of("https://Docs.Example.org:443/a?b") == "https://docs.example.org"
    assert origin_of("https://[::1]:8443/") == "https://[::1]:8443"
    assert origin_of("https://x.test:99999/") is None
