"""The bounds of a loader's calls: a deadline on each request and its body read, a cap on
each answer's bytes, and how many files a tree or list loader downloads. Each is checked
before any request is sent."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from citesift.clients import NO_RETRY, Endpoint
from citesift.errors import invalid, unshown

DEFAULT_TIMEOUT_MS = 15_000
MAX_TIMEOUT_MS = 2**31 - 1
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_FILES = 100


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class LoadLimits:
    """``timeout_ms``: the deadline of each request, body read included (a whole number of
    milliseconds from 1 to 2^31 - 1); ``max_response_bytes``: the most one answer may hold
    (a positive whole number)."""

    timeout_ms: int = DEFAULT_TIMEOUT_MS
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    def __post_init__(self) -> None:
        if not _whole(self.timeout_ms) or not 1 <= self.timeout_ms <= MAX_TIMEOUT_MS:
            expected = f"a whole number of milliseconds from 1 to {MAX_TIMEOUT_MS}"
            raise invalid("timeout_ms", self.timeout_ms, expected)
        if not _whole(self.max_response_bytes) or self.max_response_bytes < 1:
            raise invalid("max_response_bytes", self.max_response_bytes, "a positive whole number")

    def endpoint(self, base_url: str, label: str, token: str | None = None) -> Endpoint:
        """The service at ``base_url`` called within these bounds, once per request (a
        failed download is reported, not tried again)."""
        timeout = self.timeout_ms / 1000
        return Endpoint(base_url, label, token, timeout, self.max_response_bytes, NO_RETRY)


def file_count(max_files: object) -> int:
    """How many files a tree or list loader may download: ``max_files`` rounded down, and
    0 when it is not finite or not above 0 (then nothing is requested at all)."""
    if isinstance(max_files, bool) or not isinstance(max_files, int | float):
        raise invalid("max_files", max_files, "a number")
    if not math.isfinite(max_files):
        return 0
    return max(0, math.floor(max_files))


def token_from(given: str | None, variable: str) -> str | None:
    """The credential given, else the environment's ``variable`` (None when neither)."""
    if given is not None and not isinstance(given, str):
        raise unshown("token", "a string (it is not shown)")
    return given or os.environ.get(variable) or None
