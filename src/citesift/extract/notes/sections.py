"""A note cut at its ATX headings (``# Title`` to ``###### Minor``, at most three spaces
before, a space after, closing ``#``s dropped), headings in fenced code not counted."""

from __future__ import annotations

import re
from dataclasses import dataclass

from citesift.extract.notes.fences import lines
from citesift.extract.notes.plain import normalize

_OPENING = re.compile(r" {0,3}(#{1,6})[ \t]+")


@dataclass(frozen=True, slots=True)
class Section:
    """One section: its heading's level (0 and an empty heading for the text before the
    first heading), its heading, its content (trimmed) and the span of that content."""

    level: int
    heading: str
    content: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading line: its level, its text and where the text sits in the note."""

    level: int
    text: str
    start: int
    line_start: int
    line_end: int


def heading_of(line: str) -> tuple[int, int, int] | None:
    """The level of the ATX heading ``line`` is and the span of its text (its closing run
    of ``#`` left out), or None when it is none. One pass from each end: a line of any
    length costs its length."""
    opening = _OPENING.match(line)
    if opening is None:
        return None
    start, end = opening.end(), len(line.rstrip(" \t"))
    closing = end
    while closing > start and line[closing - 1] == "#":
        closing -= 1
    if closing < end and (closing == start or line[closing - 1] in " \t"):
        end = len(line[:closing].rstrip(" \t"))
    return (len(opening.group(1)), start, end) if end > start else None


def headings(body: str) -> list[Heading]:
    """The ATX headings of ``body`` outside fenced code, in order."""
    found: list[Heading] = []
    for line in lines(body):
        heading = None if line.fenced else heading_of(line.text)
        if heading is not None:
            level, start, end = heading
            text = line.text[start:end]
            found.append(Heading(level, text, line.start + start, line.start, line.end))
    return found


def sections(body: str) -> list[Section]:
    """``body`` as its sections: first the text before any heading (level 0), then one
    section per heading holding everything up to the next heading."""
    marks = headings(body)
    bounds = [(0, "", 0, 0), *((h.level, h.text, h.line_start, h.line_end) for h in marks)]
    result: list[Section] = []
    for i, (level, text, _, content_start) in enumerate(bounds):
        end = bounds[i + 1][2] if i + 1 < len(bounds) else len(body)
        raw = body[content_start:end]
        lead = len(raw) - len(raw.lstrip())
        content = raw.strip()
        result.append(Section(level, text, content, content_start + lead,
                              content_start + lead + len(content)))  # fmt: skip
    return result


def find_section(body: str, query: str) -> Section | None:
    """The first section whose heading holds ``query``, ignoring case and accents; None
    when none does or the query is blank."""
    wanted = normalize(query)
    if not wanted:
        return None
    return next(
        (s for s in sections(body) if s.level and wanted in normalize(s.heading)),
        None,
    )
