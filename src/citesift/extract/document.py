"""A whole page or file to a SourceDocument: its blocks, what it says about itself, where it
came from. What the bytes are decides how they are read (``sniff``): a PDF or an Office file
by its own reader, anything else as HTML; a URL's suffix plays no part."""

from __future__ import annotations

import time
from dataclasses import replace
from urllib.parse import urlsplit

from citesift.checks import address_arg
from citesift.encoding import charset_label, decode_html
from citesift.extract.collect import FileText
from citesift.extract.html import DEFAULT_BUDGET, html_to_blocks
from citesift.extract.html import _check as check_options
from citesift.extract.metadata import extract_metadata
from citesift.extract.office import read_office
from citesift.extract.pdf import read_pdf
from citesift.extract.rules import Mode
from citesift.extract.sniff import DocumentKind, document_kind
from citesift.model import Block, Snapshot, SourceDocument


def extract_document(
    source: Snapshot | str | bytes,
    url: str | None = None,
    mode: Mode = "article",
    budget: int = DEFAULT_BUDGET,
    site: str | None = None,
    key: str | None = None,
) -> SourceDocument:
    """Read ``source`` (a snapshot, decoded HTML, or raw bytes) into a SourceDocument.

    Bytes (or a snapshot's body) that are a PDF, Word, PowerPoint or Excel file, by their
    magic bytes or the snapshot's content type, are read as that file (``mode`` does not
    apply): each block then has a ``place``, and the title, author and date are the
    file's own. One that is encrypted, corrupt, has macros or passes the bounds on pages or
    inflated size raises ``DocumentError`` (a ``ValueError``).

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
    if html is None:
        body = snapshot.body if snapshot else bytes(source)  # type: ignore[arg-type]
        kind = document_kind(body, snapshot.content_type if snapshot else None)
        if kind is not None:
            check_options(mode, budget)
            return _file_document(kind, body, snapshot, url, budget, site, key)
        html = snapshot_text(snapshot) if snapshot else decode_html(body)[0]
    blocks = html_to_blocks(html, mode=mode, budget=budget)
    address = url or (snapshot.final_url or snapshot.url if snapshot else None)
    meta = extract_metadata(html, address)
    address = address or meta.canonical_url or ""
    header_language = snapshot.header("content-language") if snapshot else None
    document = _document(snapshot, address, site, key, meta.title, tuple(blocks))
    return replace(
        document,
        licence=meta.licence,
        publisher=meta.publisher,
        page_date=meta.page_date,
        language=meta.language or header_language,
        description=meta.description,
        canonical_url=meta.canonical_url,
        truncated=blocks.truncated,
        budget_cut=blocks.budget_cut,
    )


def _file_document(
    kind: DocumentKind,
    body: bytes,
    snapshot: Snapshot | None,
    url: str | None,
    budget: int,
    site: str | None,
    key: str | None,
) -> SourceDocument:
    """A PDF or Office file read into a SourceDocument."""
    read: FileText = read_pdf(body, budget) if kind == "pdf" else read_office(kind, body, budget)
    address = url or (snapshot.final_url or snapshot.url if snapshot else "")
    document = _document(snapshot, address, site, key, read.title, read.blocks)
    return replace(
        document,
        page_date=read.date,
        language=read.language,
        truncated=read.truncated,
        budget_cut=read.budget_cut,
        author=read.author,
    )


def _document(
    snapshot: Snapshot | None,
    address: str,
    site: str | None,
    key: str | None,
    title: str | None,
    blocks: tuple[Block, ...],
) -> SourceDocument:
    """What every read document has: where it came from, when, its title and its blocks.
    The title is the one stated, else the first heading, else the address."""
    heading = next((block.text for block in blocks if block.kind == "heading"), None)
    return SourceDocument(
        site=site if site is not None else page_host(address),
        key=key if key is not None else address,
        title=title or heading or address,
        url=address,
        revision=None,
        read_at=snapshot.fetched_at if snapshot else now_ms(),
        licence=None,
        blocks=blocks,
        snapshot_id=snapshot.id if snapshot else None,
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


def _decoded(source: Snapshot | str | bytes) -> str | None:
    """``source`` when it is text already, None when it is bytes still to be told apart."""
    if isinstance(source, str):
        return source
    if isinstance(source, Snapshot | bytes | bytearray | memoryview):
        return None
    raise TypeError(f"source must be a Snapshot, str or bytes, not {type(source).__name__}")


def snapshot_text(snapshot: Snapshot) -> str:
    """The snapshot's body decoded with its charset (sniffed, as a browser would, when the
    label names no web encoding)."""
    if snapshot.charset is None:
        return snapshot.text()
    chosen = charset_label(snapshot.charset)
    return snapshot.body.decode(chosen, "replace") if chosen else decode_html(snapshot.body)[0]
