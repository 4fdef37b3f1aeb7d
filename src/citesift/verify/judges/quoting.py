"""Sentences named in a reason by their first words, not by their place in a list: a
reader sees the sentences, not the indices a judge counts them by."""

from __future__ import annotations

from collections.abc import Sequence

QUOTED_WORDS = 6
"""Words of a sentence a reason quotes: enough to find it on the page, short for a line."""
QUOTED_CHARS = 80
"""Characters a quotation holds at most, its ``…`` included: a page's words can be long."""


def quote(sentence: str) -> str:
    """The first ``QUOTED_WORDS`` words of ``sentence`` in quotation marks, ``…`` when cut
    (at ``QUOTED_CHARS`` characters too). Only printable characters are kept: a page's
    controls and the marks that reorder text (a right-to-left override) are left out, so
    the reason reads as the words do."""
    words = "".join(c if c.isprintable() else " " if c.isspace() else "" for c in sentence).split()
    shown = " ".join(words[:QUOTED_WORDS])
    if len(shown) > QUOTED_CHARS - 1:
        return f"“{shown[: QUOTED_CHARS - 1]}…”"
    return f"“{shown}{'…' if len(words) > QUOTED_WORDS else ''}”"


def quoted(sentences: Sequence[str], indices: Sequence[int], at_most: int = 2) -> str:
    """The sentences at ``indices`` quoted (``at_most`` of them, then how many more)."""
    shown = " and ".join(quote(sentences[i]) for i in indices[:at_most])
    more = len(indices) - at_most
    return f"{shown} and {more} more" if more > 0 else shown
