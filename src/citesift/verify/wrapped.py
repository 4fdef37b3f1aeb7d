"""A Markdown document's wrapped blocks read as one line each: a sentence soft-wrapped over
lines is one sentence, and a reference list entry, a footnote or a list item whose text runs
over several lines (its address on the next line, indented or not) is one entry, whose
address is found however it is wrapped.
"""

from __future__ import annotations

import re
from itertools import pairwise

_OPENS = re.compile(
    r"[ \t]*(?:$|>|#|\||<|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|`{3}|~{3}"
    r"|\[[^\[\]\n]{1,60}\](?:[: \t]|$))"
)
"""A line opening a block of its own rather than continuing the one above: a blank line, a
quote, a heading, a table row, HTML, a list item, a fence, a label or note (``[3] ...``,
``[^1]: ...``)."""
_ENDS_BLOCK = re.compile(r"[ \t]*(?:#|\||`{3}|~{3}|<)")
"""A line after which nothing continues: a heading, a table row, a fence, HTML."""
_JOINING = (
    "a|an|the|and|or|nor|but|of|to|in|into|at|by|for|from|with|without|as|than|that|which"
    "|who|whose|whom|its|their|our|your|his|her|my|via|per|between"
)
_WRAPS = re.compile(rf"(?:^|\s)(?:(?![^\s]*://)[^\s]*,|(?:{_JOINING}))[ \t]*$")
"""A line ending inside its sentence: on a comma (no address's) or on a word a sentence
cannot end on (``and``, ``of``, ``the``). A line ending on any other word may be a whole
sentence written without its full stop, as an answer writes one a line."""
_ROW = re.compile(r"^[ \t]*\|.*$", re.MULTILINE)
"""A table's row: a reference list may be a table, a row to an entry."""
_NUMBER_CELL = re.compile(r"[ \t]*\|([ \t]*)\[?(\d{1,9})\]?[ \t]*\|")
_ENDS_ENTRY = re.compile(rf"{_ENDS_BLOCK.pattern}|.*://")
"""A line after which no entry continues: one holding an address closes its entry (the
line after it is the next entry's, or prose)."""


def joined_lines(lined: str, *, entries: bool = False) -> str:
    """``lined`` (its line breaks as newlines, its code blanked) with each line break that
    continues a paragraph, a list item or a definition made a space. Its length, hence every
    offset, stays the same. Read for ``entries``, a line goes on unless it holds an address;
    read for sentences, only where the break falls inside a sentence (the line ends on a
    comma or a joining word, ``and``, ``of``, or the next begins in lower case): a line of
    an answer saying one thing without its full stop stays a sentence of its own."""
    ends = _ENDS_ENTRY if entries else _ENDS_BLOCK
    lines = lined.split("\n")
    pieces = []
    for line, following in pairwise(lines):
        goes_on = line.strip() and not ends.match(line) and not _OPENS.match(following)
        if goes_on and not entries:
            goes_on = bool(_WRAPS.search(line)) or following.lstrip()[:1].islower()
        pieces += [line, " " if goes_on else "\n"]
    joined = "".join(pieces) + lines[-1]
    return _ROW.sub(_row_as_entry, joined) if entries else joined


def _row_as_entry(row: re.Match[str]) -> str:
    """A table's row read as an entry: its cells apart by spaces, a first cell holding only
    a number (``| 3 |``, ``| [3] |``) read as a numbered entry's ``3.``."""
    text = row.group(0).replace("|", " ")
    number = _NUMBER_CELL.match(row.group(0))
    if number is None:
        return text
    opening = number.start(2) - (number.group(0)[number.start(2) - 1] == "[")
    label = f"{number.group(2)}."
    return text[:opening] + label.ljust(number.end() - opening) + text[number.end() :]
