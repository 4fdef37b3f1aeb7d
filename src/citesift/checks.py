"""Argument checks the public functions share: a clear TypeError or ValueError up front."""

from __future__ import annotations


def text_arg(value: object, name: str) -> str:
    """``value`` when it is a str; a ``TypeError`` naming ``name`` otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return value


def address_arg(value: object, name: str) -> str:
    """``value`` when it is a str an address can carry: a ``TypeError`` for another type, a
    ``ValueError`` for one holding half of a surrogate pair (no encoding can send it)."""
    text = text_arg(value, name)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{name} holds a lone surrogate, which no address can carry") from None
    return text
