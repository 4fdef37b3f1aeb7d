"""A claim cut into the statements it makes: a sentence often asserts several facts (who,
what, when, joined by commas and conjunctions), and a source may back some of them and not
others, which is what makes a claim partly supported rather than supported or not."""

from __future__ import annotations

import re

from citesift.verify.facts import facts

_BREAK = re.compile(
    r",(?!\d)\s*|\s*[;:()\[\]–—]\s*|\s+-\s+"
    r"|\s+(?=(?:and|but|while|whereas|although|which|who|where|including)\s)",
    re.IGNORECASE,
)
MIN_UNITS = 2
"""A piece with fewer content words, numbers or names than this states no fact of its own
(``and two children``, ``in 2018``): it joins the piece before it."""
MAX_PARTS = 8
"""At most this many statements: a longer claim's tail joins its last one."""


def split_claim(claim: str) -> list[str]:
    """The statements of ``claim``, in order: cut at commas (not inside numbers), semicolons,
    colons, brackets, dashes and before clause words (``and``, ``but``, ``which``, ...);
    pieces too small to state a fact join their neighbour."""
    parts: list[str] = []
    for piece in _BREAK.split(claim):
        if not piece or not piece.strip():
            continue
        if parts and (_size(piece) < MIN_UNITS or len(parts) == MAX_PARTS):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    if len(parts) > 1 and _size(parts[0]) < MIN_UNITS:
        parts[:2] = [f"{parts[0]} {parts[1]}"]
    return parts


def _size(text: str) -> int:
    """How many checkable units (content stems, numbers, dates) ``text`` holds."""
    found = facts(text)
    return len(found.stems) + len(found.numbers) + len(found.months)
