"""Text as models, tokenizers and JSON take it: valid Unicode, and no more than a model reads."""

from __future__ import annotations

import re

from citesift.checks import LONE_SURROGATE, encodable
from citesift.errors import InvalidArgument, shown

_SURROGATE = re.compile("[\ud800-\udfff]")
CHARS_PER_TOKEN_BOUND = 32
"""Characters kept per token of a model's input limit: far more than text needs (English
runs about 4-5 per WordPiece token), so the cut only spares the tokenizer megabytes it
would throw away."""


def clean_text(text: object) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, as extraction replaces them
    (offsets are unchanged, and no ``?`` ends a sentence that never ended), so tokenizers
    and JSON accept it; ``TypeError`` when it is not a string."""
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    return text if encodable(text) else _SURROGATE.sub("\ufffd", text)


def whole_text(name: str, text: str) -> str:
    """``text`` when it holds no lone surrogate, else ``InvalidArgument`` naming ``name``:
    for a name (a document id, a partition), which made valid text would be another's
    (``doc\\ud800`` and ``doc\\udc00`` both ``doc\\ufffd``)."""
    if encodable(text):
        return text
    raise InvalidArgument(f"{name} {shown(text)} {LONE_SURROGATE}")


def head_for_tokens(text: str, max_tokens: int) -> str:
    """The start of ``text`` that can hold ``max_tokens`` tokens: bounded tokenizer work."""
    return text[: max_tokens * CHARS_PER_TOKEN_BOUND]
