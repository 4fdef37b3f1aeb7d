"""One options object for a fetch: identity, bounds, redirects, robots.txt, addresses, store.

Defaults are the limits table of the design (web pages); ``for_wikipedia`` gives the
tighter Wikipedia bounds. Absurd values (NaN, negative, huge) are replaced by the default
or clamped, never trusted.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field, replace
from typing import Any

from citesift.net.address import IPNetwork, Resolver, networks, system_resolver
from citesift.net.identity import ClientIdentity
from citesift.net.limiter import LIMITERS, LimiterRegistry
from citesift.net.robots import ROBOTS, RobotsCache
from citesift.numbers import clamped
from citesift.store.snapshots import Snapshots
from citesift.store.sqlite import SQLiteStore

PAGE_DEADLINE = 15.0
WIKIPEDIA_DEADLINE = 3.0
MAX_DEADLINE = 600.0
DECLARED_BYTES = 1_500_000
BODY_BYTES = 6_000_000
MAX_BODY_BYTES = 1 << 30
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
    allow_private: bool = False  # allow loopback, private and link-local addresses
    allow_networks: tuple[IPNetwork | str, ...] = ()  # allowed anyway: ("127.0.0.1/32",)
    accept: str = DEFAULT_ACCEPT
    robots: bool = True  # honour robots.txt (Disallow, Crawl-delay)
    offline: bool = False  # answer from stored snapshots only
    error_pages: bool = False  # keep a non-2xx, non-3xx answer as a Snapshot
    save: bool = False  # keep every Snapshot in ``store``
    store: SQLiteStore | Snapshots | None = field(default=None, compare=False)
    resolver: Resolver = field(default=system_resolver, compare=False)
    tls: ssl.SSLContext | None = field(default=None, compare=False)  # None: certifi's roots
    limiters: LimiterRegistry = field(default=LIMITERS, compare=False)
    robots_cache: RobotsCache = field(default=ROBOTS, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.identity, ClientIdentity):
            raise TypeError("FetchPolicy needs a ClientIdentity")
        _set(self, "deadline", _seconds(self.deadline, PAGE_DEADLINE))
        _set(self, "max_declared_bytes", _count(self.max_declared_bytes, DECLARED_BYTES))
        _set(self, "max_body_bytes", _count(self.max_body_bytes, BODY_BYTES))
        _set(self, "max_redirects", int(clamped(self.max_redirects, 0, 0, MAX_REDIRECTS)))
        _set(self, "accept", _header_value(self.accept, DEFAULT_ACCEPT))
        _set(self, "allow_networks", networks(self.allow_networks))
        if self.save and self.store is None:
            raise ValueError("save=True needs a store")

    @classmethod
    def for_pages(cls, identity: ClientIdentity, **changes: Any) -> FetchPolicy:
        """Any web page: 15 s, up to 5 redirects, robots.txt honoured."""
        return cls(identity, **{"max_redirects": PAGE_REDIRECTS, **changes})

    @classmethod
    def for_wikipedia(cls, identity: ClientIdentity, **changes: Any) -> FetchPolicy:
        """The Wikimedia APIs: 3 s, no redirects; their API etiquette, not robots.txt, applies."""
        return cls(identity, **{"deadline": WIKIPEDIA_DEADLINE, "robots": False, **changes})

    def with_(self, **changes: Any) -> FetchPolicy:
        """A copy with some fields changed (and sanitised again)."""
        return replace(self, **changes)


def _set(policy: FetchPolicy, name: str, value: object) -> None:
    object.__setattr__(policy, name, value)


def _seconds(value: object, default: float) -> float:
    """A positive number of seconds, at most ``MAX_DEADLINE``; the default otherwise."""
    seconds = clamped(value, default, 0, MAX_DEADLINE)
    return seconds if seconds > 0 else default


def _count(value: object, default: int) -> int:
    """A positive byte count, at most ``MAX_BODY_BYTES``; the default otherwise."""
    count = int(clamped(value, default, 0, MAX_BODY_BYTES))
    return count if count > 0 else default


def _header_value(value: object, default: str) -> str:
    """A header value that cannot inject another header, else the default."""
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        return default
    return value.strip() if value.isascii() else default
