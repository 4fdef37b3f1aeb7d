"""A fetch that gave no page, or a page standing in for the one asked, read as a scrape
failure with its code."""

from __future__ import annotations

from citesift.model import Limited, Skipped
from citesift.net.exchange import BLOCKING_STATUSES
from citesift.scrape import result as codes
from citesift.scrape.result import ScrapeFailure

REASON_CODES = (
    ("cannot resolve", codes.NETWORK_ERROR),
    ("resolves to no address", codes.NETWORK_ERROR),
    ("robots.txt", codes.ROBOTS_DISALLOWED),
    ("deadline", codes.TIMEOUT),
    ("resolves to", codes.SSRF_BLOCKED),
    ("scheme", codes.SSRF_BLOCKED),
    ("numeric host", codes.SSRF_BLOCKED),
    ("malformed url", codes.SSRF_BLOCKED),  # the address policy refused it, as any it refuses
    ("declared length", codes.TOO_LARGE),
    ("over the cap", codes.TOO_LARGE),
    ("host unreachable", codes.NETWORK_ERROR),
    ("transport error", codes.NETWORK_ERROR),
    ("not in the store", codes.NOT_STORED),
    ("no store", codes.NOT_STORED),
)
"""Words of a fetch's reason and the code they mean, first match winning."""
STAND_IN_CODES = (("not found", codes.NOT_FOUND), ("consent wall", codes.CONSENT_WALL))
"""Words of a stand-in's reason and the code they mean; any other stand-in is a barrier."""


def failure_of(url: str, outcome: Skipped | Limited) -> ScrapeFailure:
    """The failure a fetch that gave no page means, with the code of its reason."""
    if isinstance(outcome, Limited):
        code = codes.HOST_COOLDOWN if outcome.retry_in is not None else codes.RATE_LIMITED
        why = f"the rate limit refused: {outcome.reason}"
        return ScrapeFailure(url, code, why, retry_after=outcome.retry_in)
    if outcome.status in BLOCKING_STATUSES:
        return ScrapeFailure(url, codes.RATE_LIMITED, outcome.reason, outcome.status)
    return ScrapeFailure(url, reason_code(outcome.reason), outcome.reason, outcome.status)


def reason_code(reason: str) -> str:
    """The failure code a fetch's ``reason`` (in words) means."""
    lowered = reason.lower()
    return next((code for words, code in REASON_CODES if words in lowered), codes.UPSTREAM_ERROR)


def stand_in_failure(url: str, why: str, status: int) -> ScrapeFailure:
    """The failure a page standing in for the one asked means (``why``: the check's reason)."""
    code = next((code for words, code in STAND_IN_CODES if words in why), codes.ACCESS_BARRIER)
    return ScrapeFailure(url, code, why, status)
