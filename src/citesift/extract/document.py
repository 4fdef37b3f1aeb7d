"""A whole page to a SourceDocument: its blocks, what it says about itself, where it came from."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from citesift.checks import address_arg
from citesift.encoding import decode_html
from citesift.extract.html import DEFAULT_BUDGET, html_to_blocks
from citesift.extract.metadata import extract_metadata
from citesift.extract.rules import Mode
from citesift.model import Snapshot, SourceDocument


def extract_document(
    source: Snapshot | str | bytes,
    url: str | None = None,
    mode: Mode = "article",
    budget: int = DEFAULT_BUDGET,
    site: str | None = None,
    key: str | None = None,
) -> SourceDocument:
    """Read ``source`` (a snapshot, decoded HTML, or raw bytes) into a SourceDocument.

    ``url`` defaults to the snapshot's final URL, then to the page's canonical URL; ``site``
    to that URL's host and ``key`` to the URL. ``title`` is the page's stated title, else its
    first heading, else the URL. ``read_at`` is the snapshot's fetch time, else now.
    ``truncated`` says whether ``budget`` cut the text short. An unknown ``mode`` or a
    budget that is not a non-negative integer raises ``InvalidArgument`` (a ``ValueError``).
    """
    if url is not None:
        address_arg(url, "url")
    html = _decoded(source)
    snapshot = source if isinstance(source, Snapshot) else None
    blocks = html_to_blocks(html, mode=mode, budget=budget)
    address = url or (snapshot.final_url or snapshot.url if snapshot else None)
    meta = extract_metadata(html, address)
    address = address or meta.canonical_url or ""
    heading = next((block.text for block in blocks if block.kind == "heading"), None)
    header_language = snapshot.header("content-language") if snapshot else None
    return SourceDocument(
        site=site if site is not None else page_host(address),
        key=key if key is not None else address,
        title=meta.title or heading or address,
        url=address,
        revision=None,
        read_at=snapshot.fetched_at if snapshot else now_ms(),
        licence=meta.licence,
        blocks=tuple(blocks),
        publisher=meta.publisher,
        page_date=meta.page_date,
        language=meta.language or header_language,
        description=meta.description,
        canonical_url=meta.canonical_url,
        snapshot_id=snapshot.id if snapshot else None,
        truncated=blocks.truncated,
    )


def page_host(url: str) -> str:
    """The host of ``url`` (lowercase), or the empty string when it has none."""
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def now_ms() -> int:
    """The current time in epoch milliseconds."""
    return time.time_ns() // 1_000_000


def _decoded(source: Snapshot | str | bytes) -> str:
    if isinstance(source, Snapshot):
        try:
            return source.text()
        except LookupError:  # a charset label no codec knows: sniff as a browser would
            return decode_html(source.body)[0]
    if isinstance(source, bytes | bytearray | memoryview):
        return decode_html(bytes(source))[0]
    if isinstance(source, str):
        return source
    raise TypeError(f"source must be a Snapshot, str or bytes, not {type(source).__name__}")
