"""What the RAG facade ingests: dicts, ``SourceDocument``s or ``Passage``s, as one plain form."""

from __future__ import annotations

import bisect
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from citesift.errors import InvalidArgument, invalid
from citesift.index.texts import clean_text, whole_text
from citesift.model import Block, Passage, Place, Provenance, SourceDocument
from citesift.numbers import non_finite_at
from citesift.text.chunking import Chunk
from citesift.text.passages import place_link

BLOCK_SEPARATOR = "\n\n"
FILE_LEAD_CHARS = 40
"""How much of a passage of a PDF or Office file is looked for in the block it starts in, to
find where in that block it begins."""


@dataclass(frozen=True, slots=True)
class IngestDoc:
    """A document to ingest: its id, text, the caller's metadata (a JSON-safe copy) and, for
    a read document or a passage, where it came from (and the text offset of each block, to
    locate chunks in the source). ``title`` is the source's, or a mapping's ``metadata["title"]``
    when that is a string."""

    id: str
    content: str
    metadata: dict[str, Any]
    source: SourceDocument | Passage | None = field(default=None, repr=False)
    block_starts: tuple[int, ...] = ()
    title: str = ""


def as_ingest_doc(doc: object) -> IngestDoc:
    """``doc`` (a ``{id, content, metadata}`` mapping, a ``SourceDocument`` or a ``Passage``)
    copied at the boundary: later changes by the caller have no effect."""
    if isinstance(doc, IngestDoc):
        return doc
    if isinstance(doc, SourceDocument):
        return _from_source(doc)
    if isinstance(doc, Passage):
        return _from_passage(doc)
    if isinstance(doc, Mapping):
        return _from_mapping(doc)
    raise TypeError(f"cannot ingest {type(doc).__name__}: give a dict, SourceDocument or Passage")


def chunk_provenance(doc: IngestDoc, chunk: Chunk, seq: int) -> Provenance:
    """Where chunk ``seq`` of ``doc`` comes from: the document and span, and for a read
    document or a passage its attribution, snapshot, block and span in the source."""
    here = Provenance(doc.id, seq, chunk.start, chunk.end)
    item = doc.source
    if item is None:
        return here
    credit = replace(
        here, title=item.title, url=item.url, site=item.site, key=item.key,
        revision=item.revision, read_at=item.read_at, licence=item.licence,
        snapshot_id=item.snapshot_id,
    )  # fmt: skip
    if isinstance(item, Passage):
        return replace(
            credit, block=item.block, source_start=item.source_start,
            source_end=item.source_end, fragment_url=item.fragment_url, place=item.place,
        )  # fmt: skip
    if not doc.block_starts:
        return credit
    return replace(
        _source_span(credit, item, doc.block_starts, chunk), section=_section(doc, chunk.start)
    )


def chunk_context(doc: IngestDoc, chunk: Chunk) -> str:
    """What a chunk of ``doc`` sits under, scored with it: the document's title and, for a
    read document, the section path of the block the chunk starts in (a heading block heads
    its own section), one a line; a heading that repeats the title is left out."""
    title = " ".join(doc.title.split())
    path = [" ".join(h.split()) for h in _section(doc, chunk.start)]
    path = [h for h in path if h][1 if path[:1] == [title] else 0 :]
    return "\n".join(line for line in (title, " > ".join(path)) if line)


def place_breaks(doc: IngestDoc) -> tuple[int, ...]:
    """Where each page, slide or sheet of a read PDF or Office file begins in ``doc``'s text
    (after the first): no chunk runs across one, so a chunk's place and link are its own."""
    if not isinstance(doc.source, SourceDocument) or not doc.block_starts:
        return ()
    units = [_unit(block.place) for block in doc.source.blocks]
    return tuple(doc.block_starts[i] for i in range(1, len(units)) if units[i] != units[i - 1])


def _unit(place: Place | None) -> tuple[int | None, int | None, str | None] | None:
    """The page, slide or sheet of a place (None for a block of no file)."""
    return None if place is None else (place.page, place.slide, place.sheet)


def _section(doc: IngestDoc, at: int) -> tuple[str, ...]:
    """The section path at text offset ``at`` of a read document (none for other inputs)."""
    if not isinstance(doc.source, SourceDocument) or not doc.block_starts:
        return ()
    block = doc.source.blocks[max(bisect.bisect_right(doc.block_starts, at) - 1, 0)]
    return (*block.section, block.text) if block.kind == "heading" else block.section


def _from_mapping(doc: Mapping[str, Any]) -> IngestDoc:
    content = doc.get("content")
    if content is not None and not isinstance(content, str):
        raise TypeError(f"document content must be a string, got {type(content).__name__}")
    raw_id = doc.get("id")
    doc_id = (
        whole_text("id", str(raw_id)) if raw_id not in (None, "") else f"doc_{uuid.uuid4().hex}"
    )
    metadata = doc.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise TypeError("document metadata must be a mapping")
    title = metadata.get("title")
    return IngestDoc(
        doc_id,
        clean_text(content or ""),
        json_copy(metadata),
        title=clean_text(title) if isinstance(title, str) else "",
    )


def block_starts(blocks: Sequence[Block]) -> tuple[int, ...]:
    """Where each block begins in a document's text as ingested (its blocks joined by
    ``BLOCK_SEPARATOR``), the text that evidence of a PDF or Office file has offsets in."""
    starts, at = [], 0
    for block in blocks:
        starts.append(at)
        at += len(block.text) + len(BLOCK_SEPARATOR)
    return tuple(starts)


def file_span(
    blocks: Sequence[Block], starts: Sequence[int], block: object, text: str
) -> tuple[int, int]:
    """The span, in the text as ingested, of a passage of a file: ``text`` (as kept) from
    where it begins in block ``block`` (its start when it begins nowhere there, as after an
    edit); ``0:0`` when ``block`` names none of ``blocks``."""
    if type(block) is not int or not 0 <= block < len(blocks):
        return 0, 0
    lead = text[:FILE_LEAD_CHARS].partition(BLOCK_SEPARATOR)[0]  # it may run into the next block
    begins = max(blocks[block].text.find(lead), 0)
    start = starts[block] + begins
    return start, start + len(text)


def _from_source(doc: SourceDocument) -> IngestDoc:
    starts = block_starts(doc.blocks)
    content = BLOCK_SEPARATOR.join(b.text for b in doc.blocks)
    meta = {**doc.metadata, "publisher": doc.publisher, "language": doc.language}
    doc_id = doc.url or f"{doc.site}:{doc.key}"  # the URI names it, as a file's or a page's
    return IngestDoc(
        doc_id, clean_text(content), json_copy(meta), doc, starts, clean_text(doc.title)
    )


def _from_passage(p: Passage) -> IngestDoc:
    doc_id = f"{p.site}:{p.key}#{p.block}:{p.start}-{p.end}"
    return IngestDoc(doc_id, clean_text(p.content), {}, p, title=clean_text(p.title))


def _source_span(
    here: Provenance, doc: SourceDocument, starts: Sequence[int], chunk: Chunk
) -> Provenance:
    """``here`` with the block the chunk starts in and the chunk's span in the source; for a
    block of a PDF or Office file, its place too, and a link to its page."""
    blocks = doc.blocks
    first = max(bisect.bisect_right(starts, chunk.start) - 1, 0)
    last = max(bisect.bisect_right(starts, max(chunk.end - 1, chunk.start)) - 1, first)
    end_in_block = min(chunk.end - starts[last], len(blocks[last].text))
    place = blocks[first].place
    return replace(
        here,
        block=first,
        source_start=blocks[first].to_source(chunk.start - starts[first]),
        source_end=blocks[last].to_source(end_in_block),
        place=place,
        fragment_url=place_link(doc.url, place) if place is not None and doc.url else None,
    )


def json_copy(value: Mapping[str, Any]) -> dict[str, Any]:
    """A deep, JSON-safe copy (non-JSON values become strings, lone surrogates escaped);
    ``InvalidArgument`` for metadata nested deeper than JSON can be written, holding itself,
    or holding a number JSON has not (NaN, an infinity: named by its key, as no reader of
    strict JSON could read the document back)."""
    try:
        written = json.dumps(dict(value), ensure_ascii=False, default=str, allow_nan=False)
        copied: dict[str, Any] = json.loads(clean_text(written))
    except RecursionError:
        raise InvalidArgument("metadata is nested too deep to be kept as JSON") from None
    except ValueError:
        found = non_finite_at(dict(value))
        if found is None:
            raise InvalidArgument("metadata holds itself, which JSON cannot write") from None
        raise invalid(
            f"metadata{found[0]}", found[1], "a finite number (JSON has no NaN or Infinity)"
        ) from None
    return copied
