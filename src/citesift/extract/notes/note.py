"""A Markdown note read whole: its title, front matter, body and the notes it links to."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from citesift.extract.notes.frontmatter import split_frontmatter
from citesift.extract.notes.sections import headings
from citesift.extract.notes.wikilinks import extract_wikilinks

NAMED_SUFFIX = re.compile(
    r"\.(?:md|markdown|mdown|mkd|txt|html?|pdf|docx|pptx|xlsx)$", re.IGNORECASE
)
"""The suffixes a file's title leaves out: those of the files citesift reads."""


@dataclass(frozen=True, slots=True)
class Note:
    """A parsed note: ``path`` as given, ``title``, ``frontmatter`` (its YAML mapping),
    ``body`` (the text after it), ``links`` (wikilink targets, front matter included) and
    ``frontmatter_error`` (why the front matter could not be read, else None)."""

    path: str
    title: str
    frontmatter: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    links: tuple[str, ...] = ()
    frontmatter_error: str | None = None


def parse_note(path: str, raw: str) -> Note:
    """``raw`` read as the note at ``path``; never raises on what the text holds."""
    if not isinstance(path, str):
        raise TypeError(f"path must be a str, not {type(path).__name__}")
    split = split_frontmatter(raw)
    return Note(
        path=path,
        title=note_title(path, split.body, split.frontmatter),
        frontmatter=split.frontmatter,
        body=split.body,
        links=tuple(extract_wikilinks(raw)),
        frontmatter_error=split.error,
    )


def note_title(path: str, body: str, frontmatter: dict[str, Any]) -> str:
    """The first level-1 heading outside fenced code, else the front matter's ``title``
    (when it is text), else the file name (after the last ``/`` or ``\\``) without its
    Markdown or text suffix, in any case."""
    first = next((h.text for h in headings(body) if h.level == 1), None)
    if first:
        return first
    stated = frontmatter.get("title")
    if isinstance(stated, str | int | float) and not isinstance(stated, bool) and str(stated):
        return str(stated).strip() or file_title(path)
    return file_title(path)


def file_title(path: str) -> str:
    """The file name of ``path`` (either separator) without the suffix of a file citesift
    reads (``report.pdf`` and ``notes.md`` are titled ``report`` and ``notes``)."""
    name = re.split(r"[/\\]", path)[-1]
    return NAMED_SUFFIX.sub("", name) or name
