"""The data model: what a fetch got, what was read from it, what can be cited, and outcomes.

Offsets everywhere are counted in Python characters (code points), so that slicing works:
``block.text[start:end] == passage.content`` and ``source[source_start:source_end]`` holds
the markup the passage came from, ``source`` being the page's decoded text (the snapshot
keeps the body's bytes and the charset they are decoded by). No offset counts bytes: a
character past U+007F takes two to four of them in UTF-8.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Literal

BlockKind = Literal[
    "paragraph", "heading", "list_item", "table_cell", "caption", "quote", "code", "note"
]


@dataclass(frozen=True, slots=True)
class Licence:
    """A licence a text is published under: its short name and the address of its terms."""

    name: str
    url: str


WIKIPEDIA_LICENCE = Licence("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/")


MAX_BODY_BYTES = 1 << 30
"""The largest body a ``Snapshot`` holds: the bound of the body cap a fetch policy may set
(``citesift.net``'s), so of any body a store keeps. Defined with the data it bounds, where
the network and the store, which import no other layer, both read it."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What one fetch got: the body bytes, content-addressed by their sha256."""

    id: str
    url: str
    final_url: str
    status: int
    headers: tuple[tuple[str, str], ...]
    content_type: str
    charset: str | None
    fetched_at: int
    body: bytes = field(repr=False)

    def header(self, name: str) -> str | None:
        """The first kept header of that name (case-insensitive), or None."""
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)

    def text(self) -> str:
        """The body decoded with the charset chosen at fetch time (UTF-8 when none, or when the
        snapshot names a codec that cannot decode text)."""
        try:
            return self.body.decode(self.charset or "utf-8", errors="replace")
        except (LookupError, UnicodeError):
            return self.body.decode("utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class Place:
    """Where a block sits in a PDF or Office file, where a character span means nothing:
    its page, slide or sheet, and its paragraph, row and column (each counted from 1)."""

    page: int | None = None
    slide: int | None = None
    sheet: str | None = None
    paragraph: int | None = None
    row: int | None = None
    column: int | None = None

    def label(self) -> str:
        """The place in words, as a citation names it: ``page 3, paragraph 2``, ``slide 2,
        paragraph 1``, ``sheet Sales, row 4, column 2``."""
        return ", ".join(
            f"{name} {getattr(self, name)}"
            for name in ("page", "slide", "sheet", "paragraph", "row", "column")
            if getattr(self, name) is not None
        )


_NUMBERED = ("page", "slide", "paragraph", "row", "column")
"""The fields of a ``Place`` that are numbers (its ``sheet`` is a name)."""


def place_json(place: Place) -> dict[str, Any]:
    """A ``Place`` as JSON keeps it, compactly: only the fields it has (``{"page": 2}``), as
    ``stored_place`` reads it back."""
    return {name: value for name in Place.__slots__ if (value := getattr(place, name)) is not None}


def stored_place(value: object) -> Place | None:
    """A ``Place`` from its JSON object: its numbers counted from 1 and its sheet's name;
    anything else there is left out."""
    if not isinstance(value, dict):
        return None
    kept: dict[str, Any] = {
        name: value[name] for name in _NUMBERED if type(value.get(name)) is int and value[name] >= 1
    }
    if isinstance(value.get("sheet"), str):
        kept["sheet"] = value["sheet"]
    return Place(**kept) if kept else None


@dataclass(frozen=True, slots=True)
class TextPlace:
    """Where part of a passage read from a PDF or Office file lies: its text from position
    ``start`` on comes from the block at ``place`` (until the next ``TextPlace``)."""

    start: int
    place: Place


@dataclass(frozen=True, slots=True)
class Block:
    """One unit of readable text with its place in the decoded source.

    ``offsets`` is a sorted run map of ``(text_pos, source_pos)`` anchors: position ``i`` of
    ``text`` maps to ``source_pos + (i - text_pos)`` of the nearest anchor at or before ``i``
    (clamped to ``source_end``), so collapsed white space, decoded entities and skipped
    markup each cost one anchor instead of one integer per character. A block read from a
    PDF or Office file has no decoded source (its span is ``0:0``): ``place`` says where it is.
    """

    text: str
    kind: BlockKind
    section: tuple[str, ...]
    source_start: int
    """Where the block begins in the decoded source: an offset in characters, not bytes."""
    source_end: int
    """Where the block ends in the decoded source (characters, exclusive)."""
    offsets: tuple[tuple[int, int], ...] = field(default=(), repr=False)
    place: Place | None = None
    value_start: int = 0
    """Where the value begins in ``text``: after the ``Header: `` a sheet's cell is written
    under (its column's name, which Markdown draws once, above), else 0."""

    def to_source(self, pos: int) -> int:
        """The source position of text position ``pos`` (``len(text)`` maps to the end)."""
        if pos >= len(self.text):
            return self.source_end
        if not self.offsets:
            return min(self.source_start + pos, self.source_end)
        i = bisect.bisect_right(self.offsets, (pos, float("inf"))) - 1
        if i < 0:
            return self.source_start
        text_pos, source_pos = self.offsets[i]
        return min(source_pos + (pos - text_pos), self.source_end)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The source span covering ``text[start:end]`` (it may also cover markup around it)."""
        if end <= start:
            at = self.to_source(start)
            return at, at
        return self.to_source(start), self.to_source(end)


@dataclass(frozen=True, slots=True)
class SourceDocument:
    """A read document: attribution, metadata and its blocks in reading order."""

    site: str
    key: str
    title: str
    url: str
    revision: str | None
    read_at: int
    licence: Licence | None
    blocks: tuple[Block, ...]
    publisher: str | None = None
    page_date: int | None = None
    language: str | None = None
    description: str | None = None
    canonical_url: str | None = None
    snapshot_id: str | None = None
    truncated: bool = False
    author: str | None = None
    budget_cut: bool = False
    """Whether the text budget is what cut the text short (a larger one reads more of it),
    as the reader saw it; False when only a bound on size or time did."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)
    """What the source says about itself beyond the fields above (a note's tags, links and
    front matter), kept with each of its passages; JSON-safe values."""


@dataclass(frozen=True, slots=True)
class Passage:
    """A citable sentence or chunk with everything needed to attribute and locate it."""

    content: str
    title: str
    url: str
    site: str
    key: str
    revision: str | None
    read_at: int
    licence: Licence | None
    block: int
    start: int
    end: int
    source_start: int
    """Where the passage begins in the decoded source of its snapshot: an offset in
    characters (code points) of the decoded text, not bytes."""
    source_end: int
    """Where the passage ends in the decoded source (characters, exclusive)."""
    fragment_url: str
    snapshot_id: str | None = None
    place: Place | None = None


@dataclass(frozen=True, slots=True)
class SourceHit:
    """One search result of a source: the key to read it by, its title, maybe an excerpt."""

    key: str
    title: str
    excerpt: str | None = None


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a retrieved chunk comes from: its document and span in the text ingested, and,
    for a read document or a passage, who to credit and where it sits in the fetched source.

    ``start``/``end`` are offsets in the document's text as ingested (blocks joined by a
    blank line); ``block`` is the block the chunk starts in, ``source_start``/``source_end``
    its span in the decoded source of snapshot ``snapshot_id``; for a document read from a
    PDF or Office file, ``place`` is that block's page, slide or sheet (its span means
    nothing there) and ``fragment_url`` links to its page. A document ingested as a plain
    mapping has only the first four.
    """

    document_id: str
    chunk: int
    start: int
    end: int
    title: str | None = None
    url: str | None = None
    site: str | None = None
    key: str | None = None
    revision: str | None = None
    read_at: int | None = None
    licence: Licence | None = None
    snapshot_id: str | None = None
    block: int | None = None
    source_start: int | None = None
    """Where the chunk begins in the decoded source of snapshot ``snapshot_id``: an offset
    in characters (code points) of the decoded text, not bytes."""
    source_end: int | None = None
    """Where the chunk ends in the decoded source (characters, exclusive)."""
    fragment_url: str | None = None
    section: tuple[str, ...] | None = None
    """The heading path over the block the chunk starts in (a heading heads its own)."""
    place: Place | None = None
    """Where the block the chunk starts in sits in a PDF or Office file."""


@dataclass(frozen=True, slots=True)
class Match:
    """One retrieval result: the chunk id, its score (None when unscored), its text, the
    caller's metadata, and its provenance (every match a ``Rag`` answers carries one)."""

    id: str
    score: float | None
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    provenance: Provenance | None = None


# Outcomes are values, not exceptions: only the caller's own cancellation raises.


@dataclass(frozen=True, slots=True)
class Hits:
    """A search that answered."""

    hits: tuple[SourceHit, ...]


@dataclass(frozen=True, slots=True)
class Document:
    """A read that answered with a document."""

    document: SourceDocument


@dataclass(frozen=True, slots=True)
class Limited:
    """Refused by a rate limit before anything was sent (or after the host asked us to wait);
    ``retry_in``: the seconds until a host's block ends, when that is known (not compared)."""

    reason: str = ""
    retry_in: float | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Failed:
    """A search that failed: the HTTP status when there was one."""

    status: int | None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Skipped:
    """A fetch or read that gave nothing usable: the HTTP status when there was one;
    ``location``: where a redirect left unfollowed points (absolute; not compared), so a
    caller can decide for itself whether to go there."""

    status: int | None
    reason: str = ""
    location: str | None = field(default=None, compare=False)


SearchOutcome = Hits | Limited | Failed
ReadOutcome = Document | Limited | Skipped
FetchOutcome = Snapshot | Skipped | Limited
