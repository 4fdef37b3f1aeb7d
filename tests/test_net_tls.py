"""HTTPS to the checked address: the name goes in Host and SNI, the certificate is checked on it.

The host name resolves (through a stubbed resolver) to 127.0.0.1; the request connects to
that checked address, and TLS still verifies the certificate against the name, so pinning
the address costs no security.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citesift.model import Skipped, Snapshot
from citesift.net import fetch_sync
from servers import MisbehavingServer, loopback_policy, serve

pytestmark = pytest.mark.timeout(30)
HOST = "citesift.test"


@pytest.fixture
def server() -> Iterator[MisbehavingServer]:
    with serve(tls_host=HOST) as running:
        yield running


def resolve(host: str) -> list[str]:
    return {HOST: ["127.0.0.1"], "other.test": ["127.0.0.1"]}[host]


def test_https_connects_to_the_checked_address_naming_the_host(
    server: MisbehavingServer,
) -> None:
    outcome = fetch_sync(
        server.url("/ok"), loopback_policy(resolver=resolve, tls=server.client_tls)
    )
    assert isinstance(outcome, Snapshot)
    assert outcome.final_url == f"https://{HOST}:{server.port}/ok"
    assert server.sni == [HOST]
    assert server.seen[0].headers["Host"] == f"{HOST}:{server.port}"


def test_a_certificate_for_another_name_is_refused(server: MisbehavingServer) -> None:
    url = f"https://other.test:{server.port}/ok"
    outcome = fetch_sync(url, loopback_policy(resolver=resolve, tls=server.client_tls))
    assert isinstance(outcome, Skipped)
    assert outcome.status is None and "certificate" in outcome.reason.lower()
    assert server.seen == []


def test_an_untrusted_certificate_is_refused_by_default(server: MisbehavingServer) -> None:
    outcome = fetch_sync(server.url("/ok"), loopback_policy(resolver=resolve))
    assert isinstance(outcome, Skipped)
    assert outcome.status is None and "certificate" in outcome.reason.lower()
