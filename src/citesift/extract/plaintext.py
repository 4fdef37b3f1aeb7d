"""A plain text file as a ``SourceDocument``: a block per run of lines between blank
lines, each block's text the raw slice it spans, nothing read as markup (no front matter,
headings, code or links), so a quote of it is the file's own words."""

from __future__ import annotations

import re

from citesift.extract.notes.note import file_title
from citesift.model import Block, SourceDocument

_PARAGRAPH = re.compile(r"\S[^\r\n]*(?:(?:\r\n|\r|\n)[^\S\r\n]*\S[^\r\n]*)*")
"""Lines that are not blank, one after another, from the first character that is not white
space (blank lines part paragraphs)."""


def text_document(
    raw: str, url: str, path: str, read_at: int, site: str = "file", key: str | None = None
) -> SourceDocument:
    """The plain text ``raw`` (read from ``path``, named by ``url``) as a document titled
    by its file name, its blocks the paragraphs of ``raw`` whole, each with its span in it;
    its metadata holds ``path``, as a note's does."""
    return SourceDocument(
        site=site,
        key=key if key is not None else url,
        title=file_title(path),
        url=url,
        revision=None,
        read_at=read_at,
        licence=None,
        blocks=tuple(text_blocks(raw)),
        metadata={"path": path},
    )


def text_blocks(raw: str) -> list[Block]:
    """A paragraph block per run of non-blank lines of ``raw``, its text ``raw[start:end]``
    (trailing white space left out)."""
    blocks = []
    for found in _PARAGRAPH.finditer(raw):
        text = found.group().rstrip()
        start = found.start()
        blocks.append(Block(text, "paragraph", (), start, start + len(text)))
    return blocks
