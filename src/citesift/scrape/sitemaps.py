"""Sitemaps read within bounds: XML urlsets and indexes, gzipped ones, and text ones.

``read_sitemap(body)`` reads one sitemap file (sitemaps.org): the page URLs of a
``<urlset>``, the child sitemaps of a ``<sitemapindex>`` (each the ``<loc>`` of a ``<url>``
or ``<sitemap>``), or one URL a line of a text sitemap; a gzip file is decompressed first.
XML goes through a streaming parser fed in slices that builds no tree (only the ``<loc>``
being read is kept), reads UTF-8 whatever encoding the file declares (sitemaps.org allows
no other), with its elements and their depth capped, and a document type
declaration is refused before the parser sees it, so no entity is ever defined, let alone
expanded. Decompressed bytes, elements and URLs are capped: past a cap the file is read no
further and the read says it was ``capped``. An address longer than ``MAX_URL_CHARS`` is
passed over.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from xml.parsers import expat

from citesift.numbers import number_in
from citesift.scrape.urls import MAX_URL_CHARS

MAX_SITEMAP_BYTES = 50_000_000
"""A sitemap's bytes after decompression at most (the sitemaps.org limit is 50 MB)."""
MAX_SITEMAP_URLS = 50_000
"""URLs read from one sitemap at most (the sitemaps.org limit)."""
MAX_SITEMAP_ELEMENTS = 1_000_000
"""XML elements read from one sitemap at most: 50,000 URLs with a score of elements each
(dates, images, news). Parsing costs time by the element, and ``<x/>`` is four bytes."""
MAX_SITEMAP_DEPTH = 16
"""How deep a sitemap's elements may nest: a ``<loc>`` is three deep, extensions a few more."""
SLICE = 65_536
_GZIP = b"\x1f\x8b"
_DECLARATIONS = (b"<!doctype", b"<!entity")
_URL_LINE = re.compile(rb"(?:^|(?<=\r))[ \t\f\v]*(https?://[^\r\n]*)", re.IGNORECASE | re.MULTILINE)
"""A line of a text sitemap holding an address (lines end in LF, CRLF or a lone CR)."""
_ENTRIES = ("url", "sitemap")


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
    parser = expat.ParserCreate("utf-8", namespace_separator="}")
    entries = _Entries(read, max_urls)
    parser.StartElementHandler = entries.start
    parser.EndElementHandler = entries.end
    parser.CharacterDataHandler = entries.text
    parser.buffer_text = True
    tail = b""
    for start in range(0, len(body), SLICE):
        piece = body[start : start + SLICE]
        if any(mark in (tail + piece).lower() for mark in _DECLARATIONS):
            read.problem = "a document type declaration, refused (entities are never defined)"
            return
        tail = piece[-16:]
        try:
            parser.Parse(piece, False)
        except _Stop:
            return
        except expat.ExpatError as error:
            read.problem = read.problem or (None if read.capped else f"broken XML: {error}")
            return


class _Stop(Exception):
    """Raised by a handler to stop the parse; the read says why."""


class _Entries:
    """The parser's handlers: the names of the open elements, and the text of the ``<loc>``
    of a ``<url>`` or ``<sitemap>`` while it is read; nothing else is kept."""

    def __init__(self, read: SitemapRead, max_urls: int) -> None:
        self.read = read
        self.max_urls = max_urls
        self.open: list[str] = []
        self.elements = 0
        self.loc: list[str] | None = None
        self.loc_chars = 0

    def start(self, tag: str, _: object) -> None:
        self.elements += 1
        if self.elements > MAX_SITEMAP_ELEMENTS:
            self.read.capped = True
            raise _Stop
        if len(self.open) >= MAX_SITEMAP_DEPTH:
            self.read.problem = f"elements nested over {MAX_SITEMAP_DEPTH} deep: read no further"
            raise _Stop
        name = _local(tag)
        if name == "loc" and len(self.open) == 2 and self.open[1] in _ENTRIES:
            self.loc, self.loc_chars = [], 0
        self.open.append(name)

    def text(self, data: str) -> None:
        if self.loc is not None:
            self.loc_chars += len(data)
            if self.loc_chars <= MAX_URL_CHARS:
                self.loc.append(data)

    def end(self, _: str) -> None:
        self.open.pop()
        if self.loc is None:
            return
        address = "".join(self.loc).strip() if self.loc_chars <= MAX_URL_CHARS else ""
        self.loc = None
        if not address:
            return
        if len(self.read.urls) + len(self.read.sitemaps) >= self.max_urls:
            self.read.capped = True
            raise _Stop
        index = self.open[0] == "sitemapindex"
        (self.read.sitemaps if index else self.read.urls).append(address)


def _read_text(body: bytes, read: SitemapRead, max_urls: int) -> None:
    """Fill ``read`` from a text sitemap: one absolute http(s) URL a line (lines are found
    by one scan, not split into a list: a file of short lines is a flood of them)."""
    for line in _URL_LINE.finditer(body):
        address = line.group(1).decode("utf-8", errors="replace").strip()
        if len(address) > MAX_URL_CHARS:
            continue
        if len(read.urls) >= max_urls:
            read.capped = True
            return
        read.urls.append(address)


def _local(tag: str) -> str:
    """An element's name without its namespace."""
    return tag.rpartition("}")[2]
