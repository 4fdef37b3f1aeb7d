"""A configured outbound API: where it is, its key, and the bounds of one call to it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from citesift.errors import invalid, unshown, written_number
from citesift.net.headers import header_fault, header_pairs

DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 3600.0
"""The longest wait a retry policy takes."""
MAX_DEADLINE = (2**31 - 1) / 1000
"""The longest deadline of a call: 2^31 - 1 ms, the most a timer can count in 32 bits."""
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
MAX_ATTEMPTS = 10
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
"""Answers worth another try: rate limited, or the server (or a gateway) failed."""


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _web_address(value: object) -> bool:
    try:
        parts = urlsplit(value) if isinstance(value, str) else None
        return parts is not None and parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # an address urllib cannot split, such as "http://[::1"
        return False


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How a call is tried again: at most ``attempts`` tries in all, after a 429 or 5xx
    answer or a lost connection, waiting ``backoff`` seconds doubled each time, or what
    ``Retry-After`` asks, never more than ``max_wait`` and never past the call's deadline."""

    attempts: int = 3
    backoff: float = 0.5
    max_wait: float = 20.0

    def __post_init__(self) -> None:
        if not _whole(self.attempts) or not 1 <= self.attempts <= MAX_ATTEMPTS:
            raise invalid(
                "attempts", self.attempts, f"an integer from 1 to {written_number(MAX_ATTEMPTS)}"
            )
        if not _number(self.backoff) or not 0 <= self.backoff <= MAX_TIMEOUT:
            raise invalid(
                "backoff", self.backoff, f"seconds from 0 to {written_number(MAX_TIMEOUT)}"
            )
        if not _number(self.max_wait) or not 0 <= self.max_wait <= MAX_TIMEOUT:
            raise invalid(
                "max_wait", self.max_wait, f"seconds from 0 to {written_number(MAX_TIMEOUT)}"
            )

    def wait(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` counts from 1)."""
        asked = self.backoff * 2 ** (attempt - 1) if retry_after is None else retry_after
        return min(asked, self.max_wait)


DEFAULT_RETRY = RetryPolicy()
NO_RETRY = RetryPolicy(attempts=1)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """An HTTP API at ``base_url``: ``label`` names it in errors, ``api_key`` is sent as a
        bearer token, ``timeout`` bounds a whole call (every try and wait, each body read),
        ``max_response_bytes`` the answer read, ``headers`` are sent with every call (a key
    some API wants in a header of its own). A value that makes no sense is refused here."""

    base_url: str
    label: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    retry: RetryPolicy = DEFAULT_RETRY
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        if not _web_address(self.base_url):
            raise invalid("base_url", self.base_url, "an http(s) address with a host")
        if not _number(self.timeout) or not 0 < self.timeout <= MAX_DEADLINE:
            raise invalid(
                "timeout", self.timeout, f"seconds above 0, at most {written_number(MAX_DEADLINE)}"
            )
        if not _whole(self.max_response_bytes) or self.max_response_bytes < 1:
            raise invalid("max_response_bytes", self.max_response_bytes, "a positive integer")
        if not isinstance(self.retry, RetryPolicy):
            raise invalid("retry", self.retry, "a RetryPolicy")
        if self.api_key is not None and self.api_key != "":  # "" as None: no key
            key = self.api_key.strip() if isinstance(self.api_key, str) else self.api_key
            if header_fault("Authorization", key):
                raise unshown("api_key", "printable ASCII on one line, or None (it is not shown)")
            object.__setattr__(self, "api_key", key)
        object.__setattr__(self, "headers", header_pairs("headers", self.headers))

    def url(self, path: str) -> str:
        """The address of ``path`` under the base URL."""
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")
