"""Sitemaps read within bounds: XML urlsets and indexes, gzipped ones, and text ones.

``read_sitemap(body)`` reads one sitemap file (sitemaps.org): the page URLs of a
``<urlset>``, the child sitemaps of a ``<sitemapindex>``, or one URL a line of a text
sitemap; a gzip file is decompressed first. XML goes through a streaming parser fed in
slices, and a document type declaration is refused before the parser sees it, so no
entity is ever defined, let alone expanded. Decompressed bytes and URLs are capped: past
a cap the file is read no further and the read says it was ``capped``.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element, ParseError, XMLPullParser

from citesift.numbers import number_in

MAX_SITEMAP_BYTES = 50_000_000
"""A sitemap's bytes after decompression at most (the sitemaps.org limit is 50 MB)."""
MAX_SITEMAP_URLS = 50_000
"""URLs read from one sitemap at most (the sitemaps.org limit)."""
SLICE = 65_536
_GZIP = b"\x1f\x8b"
_DECLARATIONS = (b"<!doctype", b"<!entity")


@dataclass
class SitemapRead:
    """What one sitemap file gave: page URLs, child sitemaps (an index), and whether a cap
    stopped the read (``capped``) or the file was refused or broken (``problem``)."""

    urls: list[str] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    capped: bool = False
    problem: str | None = None


def read_sitemap(
    body: bytes, max_bytes: int = MAX_SITEMAP_BYTES, max_urls: int = MAX_SITEMAP_URLS
) -> SitemapRead:
    """The URLs of one sitemap file (XML, gzipped XML or text), within the caps."""
    number_in("max_bytes", max_bytes, 1, MAX_SITEMAP_BYTES * 20, whole=True)
    number_in("max_urls", max_urls, 1, MAX_SITEMAP_URLS * 20, whole=True)
    read = SitemapRead()
    if body.startswith(_GZIP):
        body, read.capped, read.problem = _gunzipped(body, max_bytes)
    elif len(body) > max_bytes:
        body, read.capped = body[:max_bytes], True
    if body.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        _read_xml(body, read, max_urls)
    else:
        _read_text(body, read, max_urls)
    return read


def _gunzipped(body: bytes, max_bytes: int) -> tuple[bytes, bool, str | None]:
    """The decompressed bytes (at most ``max_bytes``), whether more were left, and why the
    stream could not be read to its end, if so."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, max_bytes)
    except zlib.error as error:
        return b"", False, f"not a gzip stream: {error}"
    return out, len(out) >= max_bytes and not inflater.eof, None


def _read_xml(body: bytes, read: SitemapRead, max_urls: int) -> None:
    """Fill ``read`` from an XML sitemap, one slice at a time."""
    parser: XMLPullParser[Element] = XMLPullParser(events=("start", "end"))
    root: list[Element] = []
    tail = b""
    for start in range(0, len(body), SLICE):
        piece = body[start : start + SLICE]
        if any(mark in (tail + piece).lower() for mark in _DECLARATIONS):
            read.problem = "a document type declaration, refused (entities are never defined)"
            return
        tail = piece[-16:]
        try:
            parser.feed(piece)
            for event in parser.read_events():
                if not _event(event[0], event[-1], root, read, max_urls):
                    return
        except ParseError as error:
            read.problem = read.problem or (None if read.capped else f"broken XML: {error}")
            return


def _event(
    event: str, element: object, root: list[Element], read: SitemapRead, max_urls: int
) -> bool:
    """Take one parser event into ``read``; False once ``max_urls`` are read. Each ``<url>``
    or ``<sitemap>`` is dropped from the tree once closed, so memory stays flat."""
    if not isinstance(element, Element):
        return True
    if not root:
        root.append(element)
        return True
    if event != "end":
        return True
    name = _local(element.tag)
    if name == "loc":
        return _keep(element, root[0], read, max_urls)
    if name in ("url", "sitemap"):
        root[0].clear()
    return True


def _keep(loc: Element, root: Element, read: SitemapRead, max_urls: int) -> bool:
    """Add the address of ``loc``; False once ``max_urls`` are read."""
    address = (loc.text or "").strip()
    if not address:
        return True
    if len(read.urls) + len(read.sitemaps) >= max_urls:
        read.capped = True
        return False
    (read.sitemaps if _local(root.tag) == "sitemapindex" else read.urls).append(address)
    return True


def _read_text(body: bytes, read: SitemapRead, max_urls: int) -> None:
    """Fill ``read`` from a text sitemap: one absolute http(s) URL a line."""
    for line in body.decode("utf-8", errors="replace").splitlines():
        address = line.strip()
        if not address.lower().startswith(("http://", "https://")):
            continue
        if len(read.urls) >= max_urls:
            read.capped = True
            return
        read.urls.append(address)


def _local(tag: str) -> str:
    """An element's name without its namespace."""
    return tag.rpartition("}")[2]
