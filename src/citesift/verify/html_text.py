"""A page's text read as its blocks, and where its code and its reference list are, so that
the rules a Markdown document's text is read by (addresses written out, author–year and
numbered citations resolved through a reference list) read a page's text too.

The reference list of a page is its list items, and the paragraphs under a heading
``References``, ``Bibliography``, ``Sources`` or ``Works cited`` (a heading element, or a
paragraph saying only that); an ordered list there numbers its entries (``[3]`` cites the
third). Every offset is the page's: the text is the page with its markup blanked.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from citesift.extract import strip_tags
from citesift.extract.rules import BLOCK_TAGS
from citesift.verify.reference_sections import TITLES

_BLOCK = re.compile(rf"</?(?:{'|'.join(sorted(BLOCK_TAGS))})\b|<br\b", re.I)
"""A tag opening or closing a block (those extraction reads as blocks), or a line break:
the text on either side is another line."""
_LINE_BREAKS = re.compile(r"[\r\n\x0b\x0c\x85\u2028\u2029]")
_CODE = re.compile(r"<(pre|code|kbd|samp)\b[^<>]*>(?:[^<]|<(?!/?\1\b))*</\1\s*>", re.I)
"""Code on a page: its addresses and brackets are shown, not cited. Read to its closing
or the next opening of its kind, whichever first: an element left open is no code, and a
page of many of them is read in linear time."""
_HEADING = re.compile(r"<(h[1-6]|p|div|dt)\b[^<>]*>((?:[^<]|<(?!/?\1\b)){1,300})</\1\s*>", re.I)
_SECTION_END = re.compile(r"<h([1-6])\b", re.I)
_LIST_AFTER = re.compile(r"\s*<[ou]l\b", re.I)
"""A list right after a heading paragraph: its entries, to the list's first closing."""
_LIST_CLOSE = re.compile(r"</[ou]l\s*>", re.I)
_PART = re.compile(r"<(/?)(li|[ou]l|p)\b([^<>]*)>|<h[1-6]\b|</(?:div|section|article)\s*>", re.I)
_START = re.compile(r"\bstart\s*=\s*[\"']?(-?\d{1,9})", re.I)


@dataclass(frozen=True, slots=True)
class Entry:
    """A stretch of a page read as a reference list entry (a list item, a paragraph of its
    references), with its number when an ordered list of references numbers it."""

    start: int
    end: int
    number: str | None


def page_text(html: str) -> str:
    """The text of ``html`` (its markup blanked, as ``strip_tags`` gives it) with a line
    break where a block opens or closes and none inside one: a sentence wrapped in the
    page's source is one sentence, and a list item or a paragraph is one line."""
    text = _LINE_BREAKS.sub(" ", strip_tags(html))
    pieces, done = [], 0
    for match in _BLOCK.finditer(html):
        pieces += [text[done : match.start()], "\n"]
        done = match.start() + 1
    return "".join(pieces) + text[done:]


def code_spans(html: str) -> list[tuple[int, int]]:
    """The spans of the code of ``html`` (``<pre>``, ``<code>``, ``<kbd>``, ``<samp>``)."""
    return [m.span() for m in _CODE.finditer(html)]


def reference_sections(html: str) -> list[tuple[int, int]]:
    """The spans of ``html`` under a heading of its reference list, each to the next
    heading as high as its own; a heading paragraph's (``<p>Sources:</p>``) to the end of
    the list right after it, else to the next heading; sorted and apart."""
    spans: list[tuple[int, int]] = []
    closes = [m.end() for m in _LIST_CLOSE.finditer(html)]
    for match in _HEADING.finditer(html):
        said = " ".join(strip_tags(match.group(2)).split()).rstrip(":").casefold()
        if said not in TITLES or (spans and match.start() < spans[-1][1]):
            continue
        spans.append((match.end(), _section_end(html, match, closes)))
    return spans


def _section_end(html: str, heading: re.Match[str], closes: list[int]) -> int:
    """Where the section under ``heading`` ends (``closes``: where the lists close)."""
    level = 6
    if heading.group(1)[0] in "hH":
        level = int(heading.group(1)[1])
    elif _LIST_AFTER.match(html, heading.end()) is not None:
        index = bisect_right(closes, heading.end())
        return closes[index] if index < len(closes) else len(html)
    for match in _SECTION_END.finditer(html, heading.end()):
        if int(match.group(1)) <= level:
            return match.start()
    return len(html)


def entries(html: str, sections: list[tuple[int, int]]) -> list[Entry]:
    """The list items of ``html``, and the paragraphs of its ``sections`` (sorted, apart),
    in page order: each to the next item, paragraph or list's opening or closing. An item
    of an ordered list in a section has its number (from the list's ``start``)."""
    found: list[Entry] = []
    lists: list[list[int]] = []  # each open list's last number, -1 for an unordered one
    opened: tuple[int, str | None] | None = None  # the entry under way: start, number
    section = 0
    for part in _PART.finditer(html):
        closing, name = part.group(1), (part.group(2) or "").lower()
        if opened is not None:
            if name == "p" and not closing and not html[opened[0] : part.start()].strip():
                opened = (part.end(), opened[1])  # an item's paragraph is the item
                continue
            found.append(Entry(opened[0], part.start(), opened[1]))
            opened = None
        while section < len(sections) and sections[section][1] <= part.start():
            section += 1
        inside = section < len(sections) and sections[section][0] <= part.start()
        if name in ("ol", "ul") and closing:
            del lists[-1:]
        elif name in ("ol", "ul"):
            start = _START.search(part.group(3)) if name == "ol" else None
            lists.append([int(start.group(1)) - 1 if start else 0] if name == "ol" else [-1])
        elif name == "li" and not closing:
            number = None
            if lists and lists[-1][0] >= 0:
                lists[-1][0] += 1
                number = str(lists[-1][0]) if inside else None
            opened = (part.end(), number)
        elif name == "p" and not closing and inside:
            opened = (part.end(), None)
    if opened is not None:
        found.append(Entry(opened[0], len(html), opened[1]))
    return found
