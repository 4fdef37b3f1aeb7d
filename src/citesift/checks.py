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
    if not _encodable(text):
        raise ValueError(f"{name} holds a lone surrogate, which no address can carry")
    return text


LONE_SURROGATE = (
    "holds a lone surrogate (half of a UTF-16 pair, such as \\ud800), which UTF-8 cannot carry"
)
"""What is wrong with a string ``lone_surrogate_at`` finds, after the name of its field."""


def lone_surrogate_at(value: object) -> list[str | int] | None:
    """Where the first string holding a lone surrogate is in ``value`` (JSON: dicts, lists,
    strings, numbers), as the keys and indices leading to it (a key holding one is named
    with its surrogate escaped); None when there is none. A ``\\ud800`` escape reads as
    one, yet UTF-8 cannot carry it: it breaks whatever writes the text later."""
    pending: list[tuple[list[str | int], object]] = [([], value)]
    while pending:
        path, item = pending.pop()
        if isinstance(item, str) and not _encodable(item):
            return path
        if isinstance(item, dict):
            for key in item:
                if not _encodable(key):
                    return [*path, key.encode("utf-8", "backslashreplace").decode()]
            entries: list[tuple[str | int, object]] = list(item.items())
        else:
            entries = list(enumerate(item)) if isinstance(item, list) else []
        pending.extend(([*path, at], inner) for at, inner in reversed(entries))
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
