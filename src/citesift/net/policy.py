"""One frozen value of bounds and switches for a fetch: identity, deadline, caps, redirects,
robots.txt, addresses.

Defaults are the limits table of the design (web pages); ``for_wikipedia`` gives the
tighter Wikipedia bounds. A value that makes no sense (NaN, negative, over the bound, a
header value that could inject another header) is an ``InvalidArgument`` naming the
field, never replaced by the default. The state fetching keeps (connections, limiters,
robots.txt files) belongs to a ``Fetcher``, not to the policy.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field, replace
from typing import Any, cast

from citesift.errors import invalid
from citesift.model import MAX_BODY_BYTES
from citesift.net.address import (
    RESOLVE_TIMEOUT,
    IPNetwork,
    Resolver,
    Target,
    check_target,
    networks,
    system_resolver,
)
from citesift.net.headers import header_pairs, header_value
from citesift.net.identity import ClientIdentity
from citesift.numbers import number_in

PAGE_DEADLINE = 15.0
WIKIPEDIA_DEADLINE = 3.0
MAX_DEADLINE = 600.0
DECLARED_BYTES = 1_500_000
BODY_BYTES = 6_000_000
PAGE_REDIRECTS = 5
MAX_REDIRECTS = 20
DEFAULT_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"


@dataclass(frozen=True)
class FetchPolicy:
    """How to fetch: every bound and switch in one frozen value (see the field comments)."""

    identity: ClientIdentity
    deadline: float = PAGE_DEADLINE  # seconds from sending to the last body byte
    max_declared_bytes: int = DECLARED_BYTES  # refuse a larger Content-Length unread
    max_body_bytes: int = BODY_BYTES  # cap on the body after decompression
    truncate: bool = False  # keep the first max_body_bytes of a longer body, not refuse it
    max_redirects: int = 0  # each hop re-checked: scheme, address, robots.txt
    allow_private: bool = False  # allow loopback and private addresses (not link-local)
    allow_networks: tuple[IPNetwork | str, ...] = ()  # allowed anyway: ("169.254.0.0/16",)
    accept: str = DEFAULT_ACCEPT
    # more request headers: (("Accept-Language", "fr"),); never in a repr, they may hold a key
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    robots: bool = True  # honour robots.txt (Disallow, Crawl-delay)
    error_pages: bool = False  # keep a non-2xx, non-3xx answer as a Snapshot
    resolver: Resolver = field(default=system_resolver, compare=False)
    tls: ssl.SSLContext | None = field(default=None, compare=False)  # None: certifi's roots

    def __post_init__(self) -> None:
        if not isinstance(self.identity, ClientIdentity):
            raise invalid("identity", self.identity, "a ClientIdentity")
        deadline = number_in("deadline", self.deadline, 0, MAX_DEADLINE, above=True)
        number_in("max_declared_bytes", self.max_declared_bytes, 1, MAX_BODY_BYTES, whole=True)
        number_in("max_body_bytes", self.max_body_bytes, 1, MAX_BODY_BYTES, whole=True)
        number_in("max_redirects", self.max_redirects, 0, MAX_REDIRECTS, whole=True)
        for name in ("truncate", "allow_private", "robots", "error_pages"):
            if not isinstance(getattr(self, name), bool):
                raise invalid(name, getattr(self, name), "True or False")
        if not header_value(self.accept):
            raise invalid("accept", self.accept, "printable ASCII header text")
        object.__setattr__(self, "headers", request_headers(self.headers))
        if not callable(self.resolver):
            raise invalid("resolver", self.resolver, "a function from a host name to addresses")
        if self.tls is not None and not isinstance(self.tls, ssl.SSLContext):
            raise invalid("tls", self.tls, "an ssl.SSLContext or None")
        object.__setattr__(self, "deadline", deadline)
        object.__setattr__(self, "accept", self.accept.strip())
        object.__setattr__(self, "allow_networks", networks(self.allow_networks))

    @classmethod
    def for_pages(cls, identity: ClientIdentity, **changes: Any) -> FetchPolicy:
        """Any web page: 15 s, up to 5 redirects, robots.txt honoured."""
        return cls(identity, **{"max_redirects": PAGE_REDIRECTS, **changes})

    @classmethod
    def for_wikipedia(cls, identity: ClientIdentity, **changes: Any) -> FetchPolicy:
        """The Wikimedia APIs: 3 s, no redirects; their API etiquette, not robots.txt, applies."""
        return cls(identity, **{"deadline": WIKIPEDIA_DEADLINE, "robots": False, **changes})

    def with_(self, **changes: Any) -> FetchPolicy:
        """A copy with some fields changed (and checked again)."""
        return replace(self, **changes)

    async def check(self, url: str, timeout: float = RESOLVE_TIMEOUT) -> Target:
        """``url`` parsed, resolved with this policy's resolver (within ``timeout`` s) and
        checked with its address rules: ``AddressRefused`` says why not. The one check a
        fetch, the browser's route handler and its egress proxy all make."""
        allowed = cast(tuple[IPNetwork, ...], self.allow_networks)  # networks once made
        return await check_target(url, self.resolver, self.allow_private, allowed, timeout)


OWN_HEADERS = ("host", "user-agent", "from", "accept", "accept-encoding")
"""Headers a fetch sets itself: the URL, the identity, ``accept`` and the decoders say these."""


def request_headers(value: object) -> tuple[tuple[str, str], ...]:
    """``value`` as (name, value) pairs of header text, none of them one a fetch sets itself
    (``header_pairs`` says what is wrong without showing a value)."""
    pairs = header_pairs("headers", value)
    for name, _ in pairs:
        if name.lower() in OWN_HEADERS:
            raise invalid("headers", name, f"a header other than {', '.join(OWN_HEADERS)}")
    return pairs
