"""Search excerpts as plain text: match highlighting and other markup removed."""

from __future__ import annotations

import html
import re

_TAG = re.compile(r"<[^>]*>")
MAX_EXCERPT = 1_000


def plain_excerpt(excerpt: str) -> str | None:
    """``excerpt`` without tags, entities decoded, white space collapsed; None when empty."""
    text = " ".join(html.unescape(_TAG.sub("", excerpt[: MAX_EXCERPT * 4])).split())
    return text[:MAX_EXCERPT] or None
