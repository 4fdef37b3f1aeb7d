"""Percent-encoding of phrases and keys, and the address of a Wikipedia article."""

from __future__ import annotations

from urllib.parse import quote

_COMPONENT_SAFE = "-_.!~*'()"
_ARTICLE_RESTORED = {"%2C": ",", "%3A": ":", "%2F": "/"}


def encode_component(text: str) -> str | None:
    """``text`` encoded like JavaScript's ``encodeURIComponent``; None when no address can
    carry it (it is not a string, or it holds half of a surrogate pair)."""
    if not isinstance(text, str):
        return None
    try:
        return quote(text, safe=_COMPONENT_SAFE)
    except UnicodeEncodeError:
        return None


def carriable(text: str) -> bool:
    """Whether ``text`` can be put in an address (UTF-8 encodable)."""
    return encode_component(text) is not None


def article_url(origin: str, key: str) -> str:
    """The article's address for attribution: ``origin/wiki/<key>``, keeping ``, : /`` and
    brackets readable as Wikipedia writes them."""
    encoded = encode_component(key) or ""
    for code, char in _ARTICLE_RESTORED.items():
        encoded = encoded.replace(code, char)
    return origin.rstrip("/") + "/wiki/" + encoded
