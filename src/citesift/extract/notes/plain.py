"""Markdown text as words to compare and show: ``normalize`` for matching (no case, no
accents), ``plain`` for reading (no link brackets, bold, code ticks or ``*emphasis*``)."""

from __future__ import annotations

import re
import unicodedata

from citesift.extract.notes.wikilinks import strip_wikilinks

_STRONG_OR_CODE = re.compile(r"\*\*|__|`")
_EMPHASIS = re.compile(r"\*([^*\s](?:[^*]*[^*\s])?)\*")


def normalize(value: object) -> str:
    """``value`` as text to compare: accents dropped (NFD, combining marks out), lower
    case, trimmed; None is the empty string."""
    if value is None:
        return ""
    decomposed = unicodedata.normalize("NFD", str(value))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower().strip()


def plain(value: object) -> str:
    """``value`` as a reader sees it: wikilinks as their words, ``**``, ``__`` and backticks
    gone, ``*x*`` as ``x`` (``_x_`` stays: underscores join words in names); trimmed."""
    if value is None:
        return ""
    text = _STRONG_OR_CODE.sub("", strip_wikilinks(str(value)))
    return _EMPHASIS.sub(r"\1", text).strip()
