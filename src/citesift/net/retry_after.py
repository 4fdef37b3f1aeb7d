"""How long a host asked us to wait: the Retry-After header read as seconds or an HTTP date."""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from citesift.checks import text_arg

DEFAULT_RETRY_AFTER_MS = 5_000
MAX_RETRY_AFTER_MS = 3_600_000


def retry_after_ms(header: str | None, now_ms: float) -> int:
    """Milliseconds to wait: digits are seconds, otherwise an HTTP date minus ``now_ms``.

    A missing, unparsable or past value waits 5 s; any value is capped at one hour.
    """
    value = ("" if header is None else text_arg(header, "header")).strip()
    if value.isascii() and value.isdigit():
        return min(int(value) * 1000, MAX_RETRY_AFTER_MS)
    wait = _until_date(value, now_ms)
    if wait is None or wait < 0:
        return DEFAULT_RETRY_AFTER_MS
    return min(wait, MAX_RETRY_AFTER_MS)


def _until_date(value: str, now_ms: float) -> int | None:
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        return None
    return round(when.timestamp() * 1000 - now_ms)
