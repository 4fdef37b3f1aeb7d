"""A Markdown document's wrapped blocks read as one line each: a reference list entry, a
footnote or a list item whose text runs over several lines (soft-wrapped, or its address on
the next line, indented or not) is one entry, whose address is found however it is wrapped.
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
_ENDS_BLOCK = re.compile(r"[ \t]*(?:#|\||`{3}|~{3}|<)|.*://")
"""A line after which nothing continues: a heading, a table row, a fence, HTML, or a line
holding an address (an entry's address closes it; the line after is the next entry's)."""


def joined_lines(lined: str) -> str:
    """``lined`` (its line breaks as newlines, its code blanked) with each line break that
    continues a paragraph, a list item or a definition made a space; its length, hence
    every offset, stays the same."""
    lines = lined.split("\n")
    pieces = []
    for line, following in pairwise(lines):
        goes_on = line.strip() and not _ENDS_BLOCK.match(line) and not _OPENS.match(following)
        pieces += [line, " " if goes_on else "\n"]
    return "".join(pieces) + lines[-1]
