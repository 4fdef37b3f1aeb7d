"""What a scrape answers: the page in the formats asked, or a failure with its code.

Outcomes are values: a page that could not be had, or that was a stand-in (a bot check, a
block page, a soft 404), is a ``ScrapeFailure`` whose ``code`` a program can branch on;
only the caller's own cancellation raises. A 4xx/5xx page is a result with its status.
"""

from __future__ import annotations

import base64
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from citesift.model import SourceDocument
from citesift.scrape.decision import RenderRecord

ROBOTS_DISALLOWED = "ROBOTS_DISALLOWED"
ACCESS_BARRIER = "ACCESS_BARRIER"  # a bot check, captcha or block page stood in for the page
CONSENT_WALL = "CONSENT_WALL"  # a consent service's page stood in for the page
NOT_FOUND = "NOT_FOUND"  # a page saying it was not found, answered with a success status
RATE_LIMITED = "RATE_LIMITED"
HOST_COOLDOWN = "HOST_COOLDOWN"
TIMEOUT = "TIMEOUT"
SSRF_BLOCKED = "SSRF_BLOCKED"
TOO_LARGE = "TOO_LARGE"
NETWORK_ERROR = "NETWORK_ERROR"
UPSTREAM_ERROR = "UPSTREAM_ERROR"
NOT_STORED = "NOT_STORED"  # offline, and the store holds no snapshot of the page
RENDER_UNAVAILABLE = "RENDER_UNAVAILABLE"  # rendering was required and no browser could run
RENDER_FAILED = "RENDER_FAILED"
UNSUPPORTED_CONTENT = "UNSUPPORTED_CONTENT"  # a body that is not a page extraction can read
UNREADABLE_DOCUMENT = "UNREADABLE_DOCUMENT"  # a PDF or Office file encrypted, corrupt or too big
CODES = (
    ACCESS_BARRIER, CONSENT_WALL, HOST_COOLDOWN, NETWORK_ERROR, NOT_FOUND, NOT_STORED, RATE_LIMITED,
    RENDER_FAILED, RENDER_UNAVAILABLE, ROBOTS_DISALLOWED, SSRF_BLOCKED, TIMEOUT, TOO_LARGE,
    UNREADABLE_DOCUMENT, UNSUPPORTED_CONTENT, UPSTREAM_ERROR,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScrapeResult:
    """One page scraped: where it was asked and where it ended, its HTTP status, each format
    asked for and its value, what the page says about itself, the snapshots read (the
    network one first, then the rendered one and the one narrowed by ``include_tags`` or
    ``exclude_tags`` when there are such; each kept when a store is given), the render decision,
    anything worth knowing that did not stop the scrape, and the milliseconds each step
    took (``fetch``, ``decide`` and ``render`` when a render was decided, ``extract``,
    ``total``). ``document`` is what the formats were made from, for a caller that reads
    the page's passages itself; it is not part of ``to_dict``."""

    url: str
    final_url: str
    status: int
    formats: dict[str, Any]
    metadata: dict[str, Any]
    snapshot_ids: tuple[str, ...]
    render: RenderRecord
    warnings: tuple[str, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    document: SourceDocument | None = field(
        default=None, repr=False, compare=False, metadata={"plain": False}
    )
    success: bool = field(default=True, init=False)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values (a screenshot as base64 PNG)."""
        return dict(plain(self))


@dataclass(frozen=True, slots=True)
class ScrapeFailure:
    """A page not scraped: its ``code`` (one of ``CODES``), why in words, the HTTP status when
    one came, and the render decision when one was made."""

    url: str
    code: str
    message: str
    status: int | None = None
    render: RenderRecord | None = None
    retry_after: float | None = None
    success: bool = field(default=False, init=False)

    def to_dict(self) -> dict[str, Any]:
        """The failure as plain JSON values."""
        return dict(plain(self))


ScrapeOutcome = ScrapeResult | ScrapeFailure


def plain(value: Any) -> Any:
    """``value`` as JSON values: dataclasses as objects (without the fields marked
    ``plain: False``), tuples as lists, bytes as base64."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.metadata.get("plain", True)
        }
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value
