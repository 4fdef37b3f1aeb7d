"""A Markdown note as a ``SourceDocument``: a block per heading, paragraph, list item,
quote, table row and code fence, each with its section path and its span in the raw note
(markup such as ``#``, ``- ``, ``**`` and a wikilink's brackets and target left out of the
text, not out of the span), and the note's title, path, tags, links and front matter as
metadata, so a vault of notes becomes citable passage by passage."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from citesift.extract.html import DEFAULT_BUDGET, MAX_SOURCE_CHARS
from citesift.extract.notes.fences import Line, lines
from citesift.extract.notes.note import Note, parse_note
from citesift.extract.notes.sections import heading_of
from citesift.extract.notes.wikilinks import wikilinks
from citesift.extract.textmap import build
from citesift.model import Block, BlockKind, SourceDocument

_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?=\S)")
_QUOTE = re.compile(r" {0,3}>[ \t]?")
_BREAK = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_DELIMITER_ROW = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_MARKERS = re.compile(r"\*\*|__|`+|(?<![\w*])\*(?=[^*\s])|(?<=[^*\s])\*(?![\w*])")
_MARKED = re.compile(r"[*_`]")
_TAG = re.compile(r"(?:^|(?<=\s))#([^\W\d][\w/-]*|\d+[^\W\d][\w/-]*)")
MAX_NOTE_CHARS = 1_000_000
"""The most of a note read (cut after a line break): its title, tags, links and blocks come
from this much, and a longer note is truncated. Reading costs by the line, and a note of
empty lines, fences or headings is a million lines in a few megabytes; the text budget is
spent long before this much prose is read."""


@dataclass
class _Run:
    """The block being gathered: its kind and the source spans of its text."""

    kind: BlockKind
    pieces: list[tuple[int, int]] = field(default_factory=list)
    fences: int = 0
    """Fence lines met (code: 1 while open, 2 once closed)."""
    chars: int = 0
    """Characters its spans cover, line breaks included."""


def note_document(
    raw: str,
    url: str,
    path: str,
    read_at: int,
    site: str = "file",
    key: str | None = None,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """The note ``raw`` (read from ``path``, named by ``url``) as a document whose blocks
    index ``raw`` itself, their text at most ``budget`` characters as a page's;
    its metadata holds ``path``, ``tags``, ``links`` and ``frontmatter`` (and
    ``frontmatter_error`` when the YAML could not be read)."""
    read = _head(raw, budget)
    note = parse_note(path, read)
    blocks, budget_cut = note_blocks(read, len(read) - len(note.body), budget)
    headed = len(read) < len(raw)  # by the budget when it asked for more than a note's bound
    return SourceDocument(
        site=site,
        key=key if key is not None else url,
        title=note.title,
        url=url,
        revision=None,
        read_at=read_at,
        licence=None,
        blocks=tuple(blocks),
        metadata=note_metadata(note),
        truncated=budget_cut or headed,
        budget_cut=budget_cut or (headed and MAX_NOTE_CHARS < budget < MAX_SOURCE_CHARS),
    )


def _head(raw: str, budget: int) -> str:
    """The first ``MAX_NOTE_CHARS`` of ``raw`` (or ``budget`` when it asks for more, up to
    a page's ``MAX_SOURCE_CHARS``), cut after its last line break there."""
    return raw[: line_cut(raw, min(max(MAX_NOTE_CHARS, budget), MAX_SOURCE_CHARS))]


def line_cut(raw: str, limit: int) -> int:
    """Where reading at most ``limit`` characters of ``raw`` ends: after the last line
    break among them (at ``limit`` when there is none), or at the end of a shorter text."""
    if len(raw) <= limit:
        return len(raw)
    cut = max(raw.rfind("\n", 0, limit), raw.rfind("\r", 0, limit))
    return cut + 1 if cut > 0 else limit


def note_metadata(note: Note) -> dict[str, Any]:
    """What a note says about itself, kept with each of its passages."""
    meta: dict[str, Any] = {
        "path": note.path,
        "tags": note_tags(note),
        "links": list(note.links),
        "frontmatter": note.frontmatter,
    }
    if note.frontmatter_error:
        meta["frontmatter_error"] = note.frontmatter_error
    return meta


def note_tags(note: Note) -> list[str]:
    """The note's tags: its front matter's ``tags`` (a list, or text parted by commas or
    spaces), then each ``#tag`` in its text outside code, each once, without the ``#``."""
    stated = note.frontmatter.get("tags")
    if isinstance(stated, str):
        stated = re.split(r"[,\s]+", stated)
    named = [str(t).strip().lstrip("#") for t in stated] if isinstance(stated, list) else []
    inline = [
        tag.group(1)
        for line in (lines(note.body) if "#" in note.body else ())
        if "#" in line.text and not line.fenced and heading_of(line.text) is None
        for tag in _TAG.finditer(re.sub(r"`[^`]*`", " ", line.text))
    ]
    return list(dict.fromkeys(t for t in (*named, *inline) if t))


def note_blocks(raw: str, offset: int, budget: int = DEFAULT_BUDGET) -> tuple[list[Block], bool]:
    """The blocks of the note body starting at ``offset`` of ``raw`` (spans in ``raw``),
    at most ``budget`` characters of text, and whether the budget cut the note short."""
    path: list[tuple[int, str]] = []
    blocks: list[Block] = []
    used = 0
    for kind, pieces, heading in _runs(raw, offset, budget):
        if used >= budget:  # a budget of 0: there is a block, and nothing of it is kept
            return blocks, True
        if heading:
            while path and path[-1][0] >= heading:
                path.pop()
        spans = pieces if kind == "code" else [p for s in pieces for p in _inline(raw, *s)]
        text, anchors, start, end = build(raw, spans, plaintext=0, limit=budget - used)
        if not text:
            continue
        block = Block(text, kind, tuple(t for _, t in path), start, end, anchors)
        if used + len(text) >= budget:  # cut to the budget, its span with it
            keep = len(text[: budget - used].rstrip())
            kept = tuple(a for a in anchors if a[0] < keep)
            end = block.to_source(keep)
            blocks.append(Block(text[:keep], kind, block.section, start, end, kept))
            return blocks, True
        blocks.append(block)
        if heading:
            path.append((heading, text))
        used += len(text)
    return blocks, False


def _runs(
    raw: str, offset: int, budget: int
) -> Iterator[tuple[BlockKind, list[tuple[int, int]], int]]:
    """Each block's kind, source spans and heading level (0 when not a heading); a block
    whose spans pass ``budget`` characters is given then, the rest of it as another."""
    run: _Run | None = None
    for line in lines(raw[offset:]):
        at = line._replace(start=line.start + offset)
        kind, start = _line_kind(at)
        if run is not None and not _continues(run, kind, at):
            yield run.kind, run.pieces, 0
            run = None
        heading = heading_of(at.text) if kind == "heading" else None
        if heading is not None:
            level, start, end = heading
            yield "heading", [(at.start + start, at.start + end)], level
        elif kind is not None:
            run = run or _Run(kind)
            run.fences += at.fence
            if start >= 0:
                if run.pieces:  # the line break parts it from the line before
                    run.pieces.append((at.start - 1, at.start))
                run.pieces.append((at.start + start, at.end))
                run.chars += at.end - at.start - start + 1
            if run.chars > budget:  # no more of it could be kept: its spans stop here
                yield run.kind, run.pieces, 0
                run = _Run(run.kind, fences=run.fences)
    if run is not None:
        yield run.kind, run.pieces, 0


def _continues(run: _Run, kind: BlockKind | None, line: Line) -> bool:
    """Whether ``line`` (of ``kind``) belongs to the block being gathered: a code line to
    its fence, a quote line to a quote, and a plain line to the paragraph, list item or
    quote above it; a new list item, a heading or a break ends the block."""
    if kind == "code":
        return run.kind == "code" and run.fences < 2
    if kind == "paragraph":
        return run.kind in ("paragraph", "list_item", "quote")
    return kind == "quote" and run.kind == "quote"


def _line_kind(line: Line) -> tuple[BlockKind | None, int]:
    """What the line adds to (its block's kind, None for a break) and where its text
    starts in the line (-1 when it has none, as a fence line)."""
    text = line.text
    if line.fenced:
        return "code", -1 if line.fence else 0
    if not text.strip() or _BREAK.match(text) or ("-" in text and _DELIMITER_ROW.match(text)):
        return None, -1
    if heading_of(text) is not None:
        return "heading", 0
    if item := _LIST_ITEM.match(text):
        return "list_item", item.end()
    if quote := _QUOTE.match(text):
        return "quote", quote.end()
    return "paragraph", 0


def _inline(raw: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The spans of ``raw[start:end]`` a reader sees: wikilinks as the words they show,
    emphasis and code markers left out."""
    segment = raw[start:end]
    if "[[" not in segment:
        yield from _unmarked(raw, start, end)
        return
    cut = 0
    for link in wikilinks(segment):
        yield from _unmarked(raw, start + cut, start + link.start)
        yield start + link.shown_start, start + link.shown_end
        cut = link.end
    yield from _unmarked(raw, start + cut, end)


def _unmarked(raw: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    if not _MARKED.search(raw, start, end):
        yield start, end
        return
    cut = start
    for marker in _MARKERS.finditer(raw, start, end):
        if marker.start() > cut:
            yield cut, marker.start()
        cut = marker.end()
    if cut < end:
        yield cut, end
