"""A scrape's outcome in Firecrawl's words: a result as a ``Document`` (provenance in
``metadata.citesift``), a failure as the HTTP status and code Firecrawl's clients expect."""

from __future__ import annotations

import base64
from typing import Any

from fastapi.responses import JSONResponse

from citesift.api.replies import failure
from citesift.scrape import result as codes
from citesift.scrape.result import ScrapeFailure, ScrapeResult, plain

TEXT_FORMATS = {"markdown": "markdown", "html": "html", "raw_html": "rawHtml"}
"""The library's text formats and Firecrawl's keys for them."""
PAGE_METADATA = ("title", "description", "language")
"""Metadata Firecrawl names as the library does; the rest goes under ``citesift``."""
FAILURE_STATUS = {
    codes.SSRF_BLOCKED: 403,
    codes.ROBOTS_DISALLOWED: 403,
    codes.ACCESS_BARRIER: 403,
    codes.CONSENT_WALL: 403,
    codes.TIMEOUT: 408,
    codes.RATE_LIMITED: 429,
    codes.HOST_COOLDOWN: 429,
}
"""HTTP statuses of failures that are not the server's own (500 for the rest)."""


def document(result: ScrapeResult) -> dict[str, Any]:
    """The result as a Firecrawl ``Document``: only the formats asked, and metadata."""
    made = result.formats
    doc: dict[str, Any] = {
        key: made[name] for name, key in TEXT_FORMATS.items() if made.get(name) is not None
    }
    if made.get("links") is not None:
        doc["links"] = [link["url"] for link in made["links"]]
    if isinstance(made.get("screenshot"), bytes):
        doc["screenshot"] = "data:image/png;base64," + base64.b64encode(made["screenshot"]).decode(
            "ascii"
        )
    if result.warnings:
        doc["warning"] = "; ".join(result.warnings)
    doc["metadata"] = _metadata(result)
    return doc


def _metadata(result: ScrapeResult) -> dict[str, Any]:
    """Firecrawl's metadata keys, and citesift's provenance: the snapshots read, the render
    decision, each block's span, the passages and what the page says of itself."""
    own = result.metadata
    shown = {key: own[key] for key in PAGE_METADATA if own.get(key)}
    provenance = {key: value for key, value in own.items() if key not in PAGE_METADATA}
    provenance |= {
        "snapshot_ids": list(result.snapshot_ids),
        "render": plain(result.render),
        "timings": result.timings,
        "blocks": result.formats.get("blocks"),
        "passages": result.formats.get("passages"),
    }
    return shown | {
        "sourceURL": result.url,
        "url": result.final_url,
        "statusCode": result.status,
        "scrapeId": result.snapshot_ids[0] if result.snapshot_ids else None,
        "proxyUsed": "basic",
        "creditsUsed": 0,
        "citesift": provenance,
    }


def failed(outcome: ScrapeFailure, prefix: str = "SCRAPE") -> JSONResponse:
    """The failure with the status its code means and Firecrawl's code for it."""
    status = FAILURE_STATUS.get(outcome.code, 500)
    code = f"{prefix}_{outcome.code}"
    reason = outcome.message.lower()
    if outcome.code == codes.NETWORK_ERROR and "resolve" in reason:
        code = "SCRAPE_DNS_RESOLUTION_ERROR"
    elif outcome.code == codes.NETWORK_ERROR and ("certificate" in reason or "ssl" in reason):
        code = "SCRAPE_SSL_ERROR"
    headers = None
    if outcome.retry_after is not None:
        headers = {"Retry-After": str(max(1, round(outcome.retry_after)))}
    details = {"url": outcome.url, "status": outcome.status, "citesiftCode": outcome.code}
    return failure(status, f"{outcome.code}: {outcome.message}", code, details, headers)


def crawl_document(record: dict[str, Any]) -> dict[str, Any]:
    """A crawled page's record (``citesift.scrape.crawl``) as a Firecrawl ``Document``."""
    doc: dict[str, Any] = {}
    if record.get("markdown") is not None:
        doc["markdown"] = record["markdown"]
    if record.get("links") is not None:
        doc["links"] = [link["url"] for link in record["links"]]
    own = record.get("metadata") or {}
    shown = {key: own[key] for key in PAGE_METADATA if own.get(key)}
    provenance = {key: value for key, value in own.items() if key not in PAGE_METADATA}
    provenance |= {"depth": record.get("depth"), "snapshot_ids": [record.get("snapshot_id")]}
    doc["metadata"] = shown | {
        "sourceURL": record["url"],
        "url": record["url"],
        "statusCode": record.get("status"),
        "scrapeId": record.get("snapshot_id"),
        "proxyUsed": "basic",
        "creditsUsed": 0,
        "citesift": provenance,
    }
    return doc


def failure_item(outcome: ScrapeFailure) -> dict[str, Any]:
    """A page of a job that failed, as an item of Firecrawl's errors list."""
    return {"url": outcome.url, "error": outcome.message, "code": outcome.code}
