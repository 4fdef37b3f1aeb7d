"""Address safety, client identity and policy sanitising: refusals proven with a stubbed resolver.

Nothing here connects anywhere: refused addresses are refused before any connection, and
the only allowed addresses checked are checked without fetching.
"""

from __future__ import annotations

import asyncio
import math
import time

import pytest

from citesift.errors import CitesiftError, InvalidArgument
from citesift.model import Skipped
from citesift.net import (
    AddressRefused,
    ClientIdentity,
    FetchPolicy,
    IdentityError,
    Target,
    check_target,
    fetch_sync,
)
from servers import TEST_IDENTITY

PUBLIC = "93.184.216.34"
STUB = {
    "public.example": [PUBLIC],
    "metadata.example": ["169.254.169.254"],
    "intranet.example": ["10.1.2.3"],
    "shared.example": ["100.64.0.7"],
    "mixed.example": [PUBLIC, "192.168.1.1"],
    "v6-loopback.example": ["::1"],
    "v6-link-local.example": ["fe80::1%eth0"],
    "v6-unique-local.example": ["fd00::5"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "sixtofour.example": ["2002:a00:1::1"],
    "nat64.example": ["64:ff9b::a9fe:a9fe"],
    "multicast.example": ["224.0.0.251"],
    "reserved.example": ["240.0.0.1"],
    "unspecified.example": ["0.0.0.0"],
    "nothing.example": [],
    "compatible.example": ["::7f00:1"],
    "compatible-metadata.example": ["::a9fe:a9fe"],
    "translated.example": ["::ffff:0:7f00:1"],
    "nat64-local.example": ["64:ff9b:1::808:808"],
    "nat64-local-loopback.example": ["64:ff9b:1::7f00:1"],
    "site-local.example": ["fec0::1"],
    "teredo.example": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
}


def stub_resolver(host: str) -> list[str]:
    if host not in STUB:
        raise OSError(f"no such host {host}")
    return STUB[host]


def check(url: str, allow_private: bool = False, allowed: tuple[str, ...] = ()) -> Target:
    policy = FetchPolicy(
        TEST_IDENTITY, allow_private=allow_private, allow_networks=allowed, resolver=stub_resolver
    )
    return asyncio.run(policy.check(url))


def refusal(url: str, **kw: object) -> str:
    with pytest.raises(AddressRefused) as refused:
        check(url, **kw)  # type: ignore[arg-type]
    return str(refused.value)


def test_a_public_address_is_allowed_and_becomes_the_address_to_connect_to() -> None:
    target = check("https://public.example/wiki/Page?x=1")
    assert (target.host, target.address) == ("public.example", PUBLIC)


@pytest.mark.parametrize(
    ("host", "kind"),
    [
        ("metadata.example", "link-local"),
        ("intranet.example", "private"),
        ("shared.example", "non-public"),
        ("mixed.example", "192.168.1.1"),
        ("v6-loopback.example", "loopback"),
        ("v6-link-local.example", "link-local"),
        ("v6-unique-local.example", "private"),
        ("mapped.example", "loopback"),
        ("sixtofour.example", "private"),
        ("nat64.example", "link-local"),
        ("multicast.example", "multicast"),
        ("reserved.example", "non-public"),
        ("unspecified.example", "unspecified"),
        ("nothing.example", "no address"),
        ("unknown.example", "cannot resolve"),
        ("compatible.example", "loopback"),
        ("compatible-metadata.example", "link-local"),
        ("translated.example", "loopback"),
        ("nat64-local.example", "local-use NAT64"),
        ("nat64-local-loopback.example", "loopback"),
        ("site-local.example", "site-local"),
        ("teredo.example", "non-public"),
    ],
)
def test_hosts_resolving_to_non_public_addresses_are_refused(host: str, kind: str) -> None:
    assert kind in refusal(f"http://{host}/")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://0x7f000001/",
        "http://127.1/",
        "http://[::1]:8080/",
        "http://[::ffff:169.254.169.254]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://0/",
    ],
)
def test_numeric_hosts_in_every_form_are_read_as_the_address_they_mean(url: str) -> None:
    assert "resolves to" in refusal(url)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://public.example/",
        "gopher://public.example/",
        "javascript:alert(1)",
        "http:///nohost",
        "http://bad\ud800.example/",
        "http://public.example/\udfff",
        "http://0177.0.0.1.1/",
        "http://256.256.256.256/",
        "not a url at all",
    ],
)
def test_other_schemes_and_malformed_urls_are_refused(url: str) -> None:
    assert refusal(url)


def test_allow_private_lets_loopback_and_private_through_but_never_multicast() -> None:
    assert check("http://intranet.example/", allow_private=True).address == "10.1.2.3"
    assert check("http://[::1]/", allow_private=True).address == "::1"
    assert "multicast" in refusal("http://multicast.example/", allow_private=True)
    assert "unspecified" in refusal("http://unspecified.example/", allow_private=True)


def test_allowed_networks_let_through_exactly_what_they_name() -> None:
    assert check("http://127.0.0.1:9/", allowed=("127.0.0.1/32",)).address == "127.0.0.1"
    assert "link-local" in refusal("http://metadata.example/", allowed=("127.0.0.1/32",))


@pytest.mark.parametrize(
    "host",
    ["metadata.example", "compatible-metadata.example", "nat64.example", "v6-link-local.example"],
)
def test_allowing_private_networks_still_refuses_link_local_metadata_addresses(host: str) -> None:
    assert "link-local" in refusal(f"http://{host}/", allow_private=True)
    assert "link-local" in refusal("http://169.254.169.254/", allow_private=True)


def test_a_link_local_address_is_reached_only_when_named() -> None:
    named = check("http://metadata.example/", allowed=("169.254.169.254/32",))
    assert named.address == "169.254.169.254"


@pytest.mark.parametrize("host", ["compatible.example", "translated.example", "site-local.example"])
def test_ipv6_forms_carrying_a_private_ipv4_are_allowed_with_private_networks(host: str) -> None:
    assert check(f"http://{host}/", allow_private=True).address


def test_a_refused_fetch_answers_skipped_without_status_and_does_not_raise() -> None:
    policy = FetchPolicy(TEST_IDENTITY, resolver=stub_resolver)
    for url in ("http://metadata.example/", "http://x\ud800y/", "file:///etc/passwd", "::"):
        outcome = fetch_sync(url, policy)
        assert isinstance(outcome, Skipped)
        assert outcome.status is None


def test_client_identity_names_the_caller_and_its_contact() -> None:
    assert TEST_IDENTITY.user_agent == "citesift-test/1.0 (https://example.org/contact)"


@pytest.mark.parametrize(
    ("name", "version", "contact"),
    [
        ("citesift", "1.0", ""),
        ("citesift", "1.0", "   "),
        ("Mozilla", "5.0", "https://example.org"),
        ("citesift", "1.0", "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36"),
        ("cite sift", "1.0", "me@example.org"),
        ("citesift", "1.0\r\nX-Evil: 1", "me@example.org"),
        ("citesift", "1.0", "me@example.org\r\nX-Evil: 1"),
    ],
)
def test_anonymous_browser_like_or_injecting_identities_are_refused(
    name: str, version: str, contact: str
) -> None:
    with pytest.raises(IdentityError):
        ClientIdentity(name, version, contact)


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("deadline", math.nan),
        ("deadline", math.inf),
        ("deadline", 0),
        ("deadline", -1),
        ("deadline", "soon"),
        ("deadline", None),
        ("deadline", 1e12),
        ("max_body_bytes", 10**15),
        ("max_body_bytes", 0),
        ("max_body_bytes", 1.5),
        ("max_declared_bytes", -1),
        ("max_redirects", 10**9),
        ("max_redirects", True),
        ("accept", "text/html\r\nCookie: x"),
        ("accept", ""),
        ("headers", (("X-A", "b\r\nSet-Cookie: c"),)),
        ("headers", (("Bad Name", "x"),)),
        ("headers", (("Host", "elsewhere.example"),)),
        ("headers", (("user-agent", "Mozilla/5.0"),)),
        ("headers", ("X-A",)),
        ("robots", "yes"),
        ("allow_networks", ("not-a-network",)),
        ("identity", "me@example.org"),
    ],
)
def test_absurd_policy_values_are_refused_naming_the_field(field: str, bad: object) -> None:
    with pytest.raises(InvalidArgument, match=f"^{field} must be"):
        FetchPolicy(**{"identity": TEST_IDENTITY, field: bad})  # type: ignore[arg-type]


def test_the_bounds_themselves_are_accepted() -> None:
    policy = FetchPolicy(TEST_IDENTITY, deadline=600, max_body_bytes=1 << 30, max_redirects=20)
    assert (policy.deadline, policy.max_body_bytes, policy.max_redirects) == (600.0, 1 << 30, 20)


def test_every_error_of_the_network_layer_is_a_citesift_error() -> None:
    from citesift.net import DecompressError, LimiterRefused

    for kind in (AddressRefused, IdentityError, DecompressError, LimiterRefused):
        assert issubclass(kind, CitesiftError)


def test_a_resolver_slower_than_the_deadline_ends_in_skipped_in_time() -> None:
    def stalled(host: str) -> list[str]:
        time.sleep(2)
        return ["10.0.0.1"]  # refused before any connection, should the deadline ever fail

    policy = FetchPolicy(TEST_IDENTITY, resolver=stalled, deadline=0.2)
    started = time.monotonic()
    outcome = fetch_sync("http://slow-dns.example/", policy)
    assert outcome == Skipped(None, "cannot resolve slow-dns.example within 0.2 s")
    assert time.monotonic() - started < 1.5


@pytest.mark.parametrize("answer", [None, 42, ["not-an-address"], [object()]])
def test_a_resolver_answering_nonsense_is_a_refusal(answer: object) -> None:
    assert "cannot resolve" in refusal_with(lambda host: answer)


def refusal_with(resolver: object) -> str:
    with pytest.raises(AddressRefused) as refused:
        asyncio.run(check_target("http://odd.example/", resolver, False))  # type: ignore[arg-type]
    return str(refused.value)


def test_an_overlong_url_is_refused() -> None:
    assert "longer than" in refusal("http://public.example/" + "a" * 20_000)
