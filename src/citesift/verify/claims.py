"""The claim splitter: an answer's text cut into the sentences worth checking against sources.

Fenced code is left out, a sentence ends at white space after ``.``, ``!`` or ``?``, and
questions, hedges and pleasantries are dropped, for they assert nothing a source could back.
"""

from __future__ import annotations

import re

from citesift.errors import invalid

MIN_CLAIM_CHARS = 16
"""Pieces of 15 characters or fewer are too short to be a claim."""
HEDGES = ("I think", "Maybe", "Perhaps", "I hope", "Let me know", "Feel free")
"""Openings of sentences that assert nothing (kept as written: the match is case-sensitive)."""

_FENCED = re.compile(r"```.*?```", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def extract_claims(text: str) -> list[str]:
    """The claims of ``text``, in order: its sentences longer than 15 characters, minus
    fenced code blocks, questions and sentences opening with a hedge."""
    if not isinstance(text, str):
        raise invalid("text", text, "a string")
    pieces = (piece.strip() for piece in _SENTENCE_END.split(_FENCED.sub("", text)))
    return [
        piece
        for piece in pieces
        if len(piece) >= MIN_CLAIM_CHARS
        and not piece.startswith(HEDGES)
        and not piece.endswith("?")
    ]
