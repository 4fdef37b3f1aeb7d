"""Where a Markdown document's reference list is: the part under a heading ``References``,
``Bibliography``, ``Sources`` or ``Works cited``. Its lines holding an address are entries
(whatever their shape: ``Mozilla Foundation. Rust 1.0. 2015. https://...``), no claims of
their own; a line without one is prose still.
"""

from __future__ import annotations

import re

TITLES = ("references", "bibliography", "sources", "works cited", "notes and references")
"""What a heading over a reference list says (in any case)."""
_TITLE = "|".join(TITLES).replace(" ", r"[ \t]+")
_HEADING = re.compile(rf"^[ \t]{{0,3}}(#{{1,6}})[ \t]+(?i:{_TITLE})[ \t]*:?[ \t]*#*[ \t]*$", re.M)
"""A heading (``## References``): its section runs to the next heading as high."""
_LABEL = re.compile(rf"^[ \t]*([*_]{{0,2}})(?i:{_TITLE})[ \t]*:?[ \t]*\1[ \t]*$", re.M)
"""A line saying only the title (``Sources:``, ``**References**``): its section is the
block after it."""
_ADDRESSED = re.compile(r"^[^\n]*://[^\n]*", re.M)
_ATX = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]", re.M)
_BLOCK = re.compile(r"(?:[ \t]*\n)*(?:[ \t]*\S[^\n]*(?:\n|$))+")
"""The block after a line: blank lines, then the lines up to the next blank one."""


def markdown_sections(lined: str) -> list[tuple[int, int]]:
    """The spans of ``lined`` (its line breaks as newlines, its code blanked) that are its
    reference list, sorted and apart, each from the line after its heading."""
    spans: list[tuple[int, int]] = []
    for match in _HEADING.finditer(lined):
        if spans and match.start() < spans[-1][1]:
            continue
        level, end = len(match.group(1)), len(lined)
        for heading in _ATX.finditer(lined, match.end()):
            if len(heading.group(1)) <= level:
                end = heading.start()
                break
        spans.append((match.end(), end))
    reached = 0  # a title line inside a block already read starts no other
    for match in _LABEL.finditer(lined):
        block = _BLOCK.match(lined, match.end() + 1) if match.start() >= reached else None
        if block is not None:
            spans.append((match.end(), block.end()))
            reached = block.end()
    return merged_spans(spans)


def entry_lines(joined: str, sections: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of the lines of ``sections`` in ``joined`` (an entry wrapped over lines
    is one line) that hold an address: the entries of the reference list."""
    found = []
    for start, end in sections:
        for line in _ADDRESSED.finditer(joined, start, end):
            found.append(line.span())
    return found


def merged_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, those that overlap made one."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out
