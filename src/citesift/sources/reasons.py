"""Why a read gave nothing, said in a line, and whether it means "try again later"."""

from __future__ import annotations

from http import HTTPStatus

from citesift.model import Limited, SourceDocument
from citesift.net.exchange import BLOCKING_STATUSES


def describe(outcome: object) -> str:
    """Why an outcome gave nothing: its kind, status and reason."""
    status = getattr(outcome, "status", None)
    reason = getattr(outcome, "reason", "")
    kind = type(outcome).__name__.lower()
    retry_in = getattr(outcome, "retry_in", None)
    wait = f"; the host asked us to wait: try again in {retry_in:.0f} s" if retry_in else ""
    return (
        f"{kind}" + (f" (HTTP {status})" if status else "") + (f": {reason}" if reason else "")
    ) + wait


def asks_to_wait(outcome: object) -> bool:
    """Whether an outcome that gave nothing means "try again later": our own limit, or the
    host answering 429 or 503 (the first such answer too, before the block is recorded)."""
    return isinstance(outcome, Limited) or getattr(outcome, "status", None) in BLOCKING_STATUSES


def status_text(status: int) -> str:
    """An HTTP status with its phrase (``404 Not Found``), the number alone when it has none."""
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def skipped_reason(status: int | None, reason: str) -> str:
    """Why a fetch gave no page, starting with the HTTP status and its phrase when one came
    (``HTTP 404 Not Found``), the reason's own ``HTTP 404`` not said twice."""
    if status is None:
        return reason
    said = reason.removeprefix(f"HTTP {status}").removeprefix(":").strip()
    return f"HTTP {status_text(status)}" + (f": {said}" if said else "")


def read_note(document: SourceDocument) -> str | None:
    """What a reader must know of a document that was read: it holds no text to cite, or
    its page says it is a redirect or a disambiguation page; None for a page of text."""
    notes = []
    target = document.metadata.get("redirect")
    if isinstance(target, str):
        notes.append(f"the page is a redirect to {target!r}: read that title")
    if document.metadata.get("disambiguation"):
        notes.append("the page is a disambiguation page: it lists articles, read one of them")
    if not has_text(document):
        notes.append("the page holds no text to cite")
    return "; ".join(notes) or None


def has_text(document: SourceDocument) -> bool:
    """Whether any block of ``document`` holds text."""
    return any(block.text.strip() for block in document.blocks)
