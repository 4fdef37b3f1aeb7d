"""Page dates as pages write them (ISO 8601, RFC 2822, plain days) to epoch milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

EARLIEST_YEAR = 1900
MAX_DATE_CHARS = 64


def parse_date_ms(text: str | None) -> int | None:
    """``text`` as a UTC instant in epoch ms; None for garbage, absurd years or no date.

    A time without a zone is read as UTC; a day without a time as its midnight in UTC.
    """
    if not text or len(text) > MAX_DATE_CHARS:
        return None
    moment = _iso(text.strip()) or _rfc2822(text.strip())
    if moment is None or moment.year < EARLIEST_YEAR:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _iso(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _rfc2822(text: str) -> datetime | None:
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
