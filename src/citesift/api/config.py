"""How the HTTP API listens and guards itself, checked once: a server reachable from other
machines never starts without a key."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from citesift.errors import invalid, unshown
from citesift.jobs import MAX_RUNNING
from citesift.net.address import DEFAULT_PORTS, origin_of
from citesift.numbers import number_in
from citesift.sources.wikipedia import DEFAULT_ORIGIN

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 3002
DEFAULT_RATE = 120
"""Requests a client may make per minute (its burst too) before it is answered 429."""
DEFAULT_MAX_BODY = 1 << 20
"""Bytes a request body may hold; more is answered 413 before any route reads it."""
DEFAULT_BODY_SECONDS = 15.0
"""Seconds a client has to send a request's whole body; a slower one is answered 408
(uvicorn bounds only the wait between requests, not a body sent a byte at a time)."""
DEFAULT_IN_FLIGHT = 8
"""Scrapes and maps run at once (each may start a browser); more wait for a slot."""
DEFAULT_JOBS = MAX_RUNNING
"""Crawls, batch scrapes and research runs run at once; starting more is answered 429."""
SLOT_WAIT = 30.0
"""Seconds a request waits for a slot before it is answered 503 with Retry-After."""
MAX_KEY_CHARS = 512
"""The longest bearer key taken."""
LOOPBACK_NAMES = ("localhost",)
ORIGIN = re.compile(r"https?://[^\s/?#@]+", re.IGNORECASE)


@dataclass(frozen=True)
class ServeConfig:
    """Where the server listens, the bearer keys it takes (none: any caller, loopback only),
    the per-client rate limit, the request body bound, how many scrapes or maps run at
    once, how many jobs (crawls, batch scrapes, research runs), the seconds a client has to
    send a request's body, and the Wikimedia origins
    whose articles ``/citesift/wikipedia/passages`` reads (read without robots.txt and
    labelled CC BY-SA, so a caller may not name any other site)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    api_keys: tuple[str, ...] = field(default=(), repr=False)  # never in a repr or a log
    rate_per_minute: int = DEFAULT_RATE
    max_body_bytes: int = DEFAULT_MAX_BODY
    max_in_flight: int = DEFAULT_IN_FLIGHT
    max_jobs: int = DEFAULT_JOBS
    wiki_origins: tuple[str, ...] = (DEFAULT_ORIGIN,)
    body_seconds: float = DEFAULT_BODY_SECONDS

    def __post_init__(self) -> None:
        if not isinstance(self.host, str) or not self.host.strip():
            raise invalid("host", self.host, "a host name or address to listen on")
        number_in("port", self.port, 0, 65_535, whole=True)
        number_in("rate_per_minute", self.rate_per_minute, 1, 1_000_000, whole=True)
        number_in("max_body_bytes", self.max_body_bytes, 1024, 1 << 30, whole=True)
        number_in("max_in_flight", self.max_in_flight, 1, 1000, whole=True)
        number_in("max_jobs", self.max_jobs, 1, 1000, whole=True)
        number_in("body_seconds", self.body_seconds, 0.01, 3600)
        keys = (self.api_keys,) if isinstance(self.api_keys, str) else self.api_keys
        if not isinstance(keys, tuple | list):
            raise unshown("api_keys", "a list of keys")
        for at, key in enumerate(keys, 1):
            problem = _key_problem(key)
            if problem:
                raise unshown(
                    "api_keys",
                    f"printable ASCII keys without spaces: key {at} of {len(keys)} {problem}",
                )
        object.__setattr__(self, "api_keys", tuple(keys))
        object.__setattr__(self, "wiki_origins", _origins(self.wiki_origins))
        if not keys and not is_loopback(self.host):
            raise unshown(
                "api_keys",
                f"at least one key when listening on {self.host!r}, which is not loopback",
            )


LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""Names a keyless server answers to besides its listen host: a page of another site that
rebinds its own name to 127.0.0.1 is refused by its Host (and by its Origin)."""


def local_hosts(listen: str) -> tuple[str, ...]:
    """The host names (no port, IPv6 in brackets) a keyless server listening on ``listen``
    accepts in Host and Origin headers."""
    return tuple(dict.fromkeys((*LOCAL_HOSTS, host_name(listen))))


def host_name(text: str) -> str:
    """The host of a Host header or listen address without its port, lower-cased, an IPv6
    address in brackets (``[::1]:3002`` and ``::1`` are both ``[::1]``)."""
    text = text.strip().lower()
    if text.startswith("["):
        return text[: text.find("]") + 1] if "]" in text else text
    if text.count(":") > 1:
        return f"[{text}]"
    name, colon, port = text.rpartition(":")
    return name if colon and port.isdigit() else text


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address) is reachable from this machine alone."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _origins(value: object) -> tuple[str, ...]:
    """``value`` as origins (scheme, host and port, no path), each in its one spelling."""
    found = (value,) if isinstance(value, str) else value
    if not isinstance(found, tuple | list) or not found:
        raise invalid("wiki_origins", value, "one or more http(s) origins")
    origins = tuple(origin_text(origin) for origin in found)
    if not all(origins):
        raise invalid("wiki_origins", value, "http(s) origins such as https://en.wikipedia.org")
    return tuple(dict.fromkeys(origins))


def origin_text(value: object) -> str:
    """``value`` as an origin alone, in the one spelling ``origin_of`` gives it
    (``https://en.wikipedia.org``, its default port left out), or "" when it is none: two
    spellings of one origin compare equal."""
    text = value.strip().rstrip("/") if isinstance(value, str) else ""
    origin = origin_of(text) if ORIGIN.fullmatch(text) else None
    if origin is None:
        return ""
    scheme, host, port = origin
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" + ("" if port == DEFAULT_PORTS[scheme] else f":{port}")


def _key_problem(key: object) -> str:
    """What makes ``key`` no usable bearer key, in words that do not show it ("" if none)."""
    if not isinstance(key, str):
        return "is not text"
    if not key:
        return "is empty"
    if len(key) > MAX_KEY_CHARS:
        return f"is longer than {MAX_KEY_CHARS} characters"
    if not key.isascii():
        return "has a non-ASCII character"
    if not key.isprintable() or " " in key:
        return "has a space or a control character"
    return ""
