"""What the RAG facade ingests: dicts, ``SourceDocument``s or ``Passage``s, as one plain form."""

from __future__ import annotations

import bisect
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from citesift.index.embed import clean_text
from citesift.model import Passage, SourceDocument
from citesift.text.addresses import wikipedia_history, wikipedia_revision
from citesift.text.chunking import Chunk

BLOCK_SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class IngestDoc:
    """A document to ingest: its id, text, metadata (a JSON-safe copy) and, for a read
    document, the text offset of each block (to locate chunks in the source)."""

    id: str
    content: str
    metadata: dict[str, Any]
    source: SourceDocument | None = field(default=None, repr=False)
    block_starts: tuple[int, ...] = ()


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


def chunk_metadata(doc: IngestDoc, chunk: Chunk, seq: int) -> dict[str, Any]:
    """A chunk's metadata: the document's, then where the chunk sits in it (and its source)."""
    meta = {**doc.metadata, "document_id": doc.id, "chunk_index": seq}
    meta.update(start=chunk.start, end=chunk.end)
    if doc.source is not None and doc.block_starts:
        meta.update(_source_span(doc, chunk))
    return meta


def _from_mapping(doc: Mapping[str, Any]) -> IngestDoc:
    content = doc.get("content")
    if content is not None and not isinstance(content, str):
        raise TypeError(f"document content must be a string, got {type(content).__name__}")
    raw_id = doc.get("id")
    doc_id = str(raw_id) if raw_id not in (None, "") else f"doc_{uuid.uuid4().hex}"
    metadata = doc.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise TypeError("document metadata must be a mapping")
    return IngestDoc(clean_text(doc_id), clean_text(content or ""), json_copy(metadata))


def _from_source(doc: SourceDocument) -> IngestDoc:
    starts, at = [], 0
    for block in doc.blocks:
        starts.append(at)
        at += len(block.text) + len(BLOCK_SEPARATOR)
    content = BLOCK_SEPARATOR.join(b.text for b in doc.blocks)
    meta = _attribution(doc) | {"publisher": doc.publisher, "language": doc.language}
    doc_id = f"{doc.site}:{doc.key}"
    return IngestDoc(doc_id, clean_text(content), json_copy(meta), doc, tuple(starts))


def _from_passage(p: Passage) -> IngestDoc:
    meta = _attribution(p) | {
        "fragment_url": p.fragment_url,
        "block": p.block,
        "block_start": p.start,
        "block_end": p.end,
        "source_start": p.source_start,
        "source_end": p.source_end,
    }
    doc_id = f"{p.site}:{p.key}#{p.block}:{p.start}-{p.end}"
    return IngestDoc(doc_id, clean_text(p.content), json_copy(meta))


def _attribution(item: SourceDocument | Passage) -> dict[str, Any]:
    """Who to credit and where to point: title, url, site, key, revision, licence, and a
    Wikipedia article's page history (which names its contributors) and revision address."""
    licence = item.licence
    return {
        "title": item.title,
        "url": item.url,
        "history_url": wikipedia_history(item.site, item.url, item.key),
        "revision_url": wikipedia_revision(item.site, item.url, item.key, item.revision),
        "site": item.site,
        "key": item.key,
        "revision": item.revision,
        "read_at": item.read_at,
        "licence": licence.name if licence else None,
        "licence_url": licence.url if licence else None,
    }


def _source_span(doc: IngestDoc, chunk: Chunk) -> dict[str, int]:
    """The block the chunk starts in and the chunk's span in the decoded source."""
    blocks, starts = doc.source.blocks, doc.block_starts  # type: ignore[union-attr]
    first = max(bisect.bisect_right(starts, chunk.start) - 1, 0)
    last = max(bisect.bisect_right(starts, max(chunk.end - 1, chunk.start)) - 1, first)
    end_in_block = min(chunk.end - starts[last], len(blocks[last].text))
    return {
        "block": first,
        "source_start": blocks[first].to_source(chunk.start - starts[first]),
        "source_end": blocks[last].to_source(end_in_block),
    }


def json_copy(value: Mapping[str, Any]) -> dict[str, Any]:
    """A deep, JSON-safe copy (non-JSON values become strings, lone surrogates escaped)."""
    return json.loads(clean_text(json.dumps(dict(value), ensure_ascii=False, default=str)))
