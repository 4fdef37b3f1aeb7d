"""Requests drawn from the HTTP API's own OpenAPI schema (schemathesis: bodies it allows and
bodies it does not) against the running API: no answer is a 500 (but Firecrawl's for a host
that cannot be reached), none takes long, and each Firecrawl route answers Firecrawl's JSON
shape. Half the bodies that name a page name the local site's, so pages are read too. The
same examples are drawn on every run. Nothing leaves this machine: a connection anywhere but
127.0.0.1 is refused and no host name but localhost resolves."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error

from citesift.api.config import ServeConfig
from citesift.api.run import create_app
from local_site import page, serve_page
from servers import MisbehavingServer, serve
from serving import LOCAL, running

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]

CONFIG = ServeConfig(port=0, rate_per_minute=1_000_000)
"""No 429s: every drawn request reaches its route."""
LOOPBACK = ("127.0.0.1", "::1", "localhost")
LOCAL_PAGE = "http://127.0.0.1:9/local-page"
"""Stands for the local site's page in a drawn body; swapped for its address when sent."""
schema = schemathesis.openapi.from_dict(create_app(CONFIG, LOCAL).openapi())


@schema.hook("flatmap_body")
def local_pages(_: Any, body: Any) -> st.SearchStrategy[Any]:
    """The drawn body, or the same body naming the local page where it names one."""
    if isinstance(body, dict) and isinstance(body.get("url"), str):
        return st.sampled_from([body, {**body, "url": LOCAL_PAGE}])
    if isinstance(body, dict) and isinstance(body.get("urls"), list) and body["urls"]:
        return st.sampled_from([body, {**body, "urls": [LOCAL_PAGE]}])
    return st.just(body)


@pytest.fixture(scope="module")
def api() -> Iterator[tuple[str, MisbehavingServer]]:
    """The API on loopback, with the machine's network out of reach of this process."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", _loopback_only(socket.socket.connect))
        patch.setattr(socket.socket, "connect_ex", _loopback_only(socket.socket.connect_ex))
        patch.setattr(socket, "getaddrinfo", _loopback_names(socket.getaddrinfo))
        with serve() as site, running(CONFIG) as base:
            serve_page(site, "/", page("Home", ["/a", "/b"]))
            yield base, site


def _loopback_only(connect: Any) -> Any:
    def guarded(sock: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and address[0] not in LOOPBACK:
            raise ConnectionRefusedError(f"not on this machine: {address[0]}")
        return connect(sock, address)

    return guarded


def _loopback_names(resolve: Any) -> Any:
    def stubbed(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name not in LOOPBACK:
            raise socket.gaierror(socket.EAI_NONAME, f"{name!r} is not resolved in tests")
        return resolve(host, *args, **kwargs)

    return stubbed


@schema.parametrize()
@settings(
    max_examples=30,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_no_request_the_schema_allows_is_a_server_error_or_hangs(
    case: schemathesis.Case, api: tuple[str, MisbehavingServer]
) -> None:
    base, site = api
    if isinstance(case.body, dict):
        case.body = _local(case.body, site.url("/"))
    started = time.monotonic()
    response = case.call(base_url=base, timeout=30)
    assert time.monotonic() - started < 30
    if (
        response.status_code >= 500
        and not _unreachable(response.text)
        and not _not_offered(response)
    ):
        case.validate_response(response, checks=[not_a_server_error])
    if case.path.startswith("/v2/"):
        reply = response.json()
        assert isinstance(reply, dict) and isinstance(reply.get("success"), bool), response.text


def _not_offered(response: Any) -> bool:
    """Whether a 5xx is 501, a service this server was not set up to offer (a search without
    a configured search source): declared, not a failure."""
    return bool(response.status_code == 501)


def _unreachable(text: str) -> bool:
    """Whether a 5xx says a page's host could not be reached or read (here: any host but this
    machine): Firecrawl answers 500 by design, citesift's own routes 502 (a gateway's failure)."""
    try:
        reply = json.loads(text)
    except ValueError:
        return False
    if not isinstance(reply, dict):
        return False
    details = reply.get("details")
    network = isinstance(details, dict) and details.get("citesiftCode") == "NETWORK_ERROR"
    return network or reply.get("code") == "READ_FAILED"


def _local(body: dict[str, Any], page: str) -> dict[str, Any]:
    """``body`` naming the local site's page where it names ``LOCAL_PAGE``."""
    if body.get("url") == LOCAL_PAGE:
        return {**body, "url": page}
    if body.get("urls") == [LOCAL_PAGE]:
        return {**body, "urls": [page]}
    return body
