"""A plain text file as a ``SourceDocument``: a block per run of lines between blank
lines, each block's text the raw slice it spans, nothing read as markup (no front matter,
headings, code or links), so a quote of it is the file's own words. Its text is held to the
budget a page's or a note's is (``DEFAULT_BUDGET`` unless told), and at most
``MAX_SOURCE_CHARS`` characters and ``MAX_TEXT_BLOCKS`` blocks are read (the document is
then truncated), so a hostile file costs bounded memory."""

from __future__ import annotations

import re

from citesift.extract.collect import words_within
from citesift.extract.html import DEFAULT_BUDGET, MAX_SOURCE_CHARS
from citesift.extract.notes.document import line_cut
from citesift.extract.notes.note import file_title
from citesift.model import Block, SourceDocument

_PARAGRAPH = re.compile(r"\S[^\r\n]*(?:(?:\r\n|\r|\n)[^\S\r\n]*\S[^\r\n]*)*")
"""Lines that are not blank, one after another, from the first character that is not white
space (blank lines part paragraphs)."""
MAX_TEXT_BLOCKS = 100_000
"""The most paragraphs read from a text file: a file of one-letter lines between blank
lines would otherwise cost a block (some 160 bytes) for every three bytes it holds."""


def text_document(
    raw: str,
    url: str,
    path: str,
    read_at: int,
    site: str = "file",
    key: str | None = None,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """The plain text ``raw`` (read from ``path``, named by ``url``) as a document titled
    by its file name, its blocks the paragraphs of ``raw`` whole, each with its span in it,
    up to ``budget`` characters of text; its metadata holds ``path``, as a note's does."""
    blocks, truncated, budget_cut = text_blocks(raw, budget)
    return SourceDocument(
        site=site,
        key=key if key is not None else url,
        title=file_title(path),
        url=url,
        revision=None,
        read_at=read_at,
        licence=None,
        blocks=tuple(blocks),
        metadata={"path": path},
        truncated=truncated,
        budget_cut=budget_cut,
    )


def text_blocks(raw: str, budget: int = DEFAULT_BUDGET) -> tuple[list[Block], bool, bool]:
    """A paragraph block per run of non-blank lines of ``raw``, its text ``raw[start:end]``
    (trailing white space left out), from the first ``MAX_SOURCE_CHARS`` characters (cut
    after a line break), at most ``MAX_TEXT_BLOCKS`` of them and ``budget`` characters of
    text together (the paragraph crossing it cut after its last white space that fits, else
    at the budget); whether ``raw`` holds text beyond those bounds, and whether the budget
    is the bound that left it out."""
    end = line_cut(raw, MAX_SOURCE_CHARS)
    blocks: list[Block] = []
    used = 0
    for found in _PARAGRAPH.finditer(raw, 0, end):
        if len(blocks) == MAX_TEXT_BLOCKS:
            return blocks, True, False
        text = found.group().rstrip()
        start = found.start()
        if used + len(text) > budget:
            text = words_within(text, budget - used)
            if text:
                blocks.append(Block(text, "paragraph", (), start, start + len(text)))
            return blocks, True, True
        used += len(text)
        blocks.append(Block(text, "paragraph", (), start, start + len(text)))
    return blocks, end < len(raw), False
