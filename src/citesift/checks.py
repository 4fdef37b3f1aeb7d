"""Argument checks the public functions share: a clear TypeError or ValueError up front."""

from __future__ import annotations

from collections.abc import Iterator


def text_arg(value: object, name: str) -> str:
    """``value`` when it is a str; a ``TypeError`` naming ``name`` otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return value


def address_arg(value: object, name: str) -> str:
    """``value`` when it is a str an address can carry: a ``TypeError`` for another type, a
    ``ValueError`` for one holding half of a surrogate pair (no encoding can send it)."""
    text = text_arg(value, name)
    if not encodable(text):
        raise ValueError(f"{name} holds a lone surrogate, which no address can carry")
    return text


LONE_SURROGATE = (
    "holds a lone surrogate (half of a UTF-16 pair, such as \\ud800), which UTF-8 cannot carry"
)
"""What is wrong with a string ``lone_surrogate_at`` finds, after the name of its field."""


def lone_surrogate_at(value: object) -> list[str | int] | None:
    """Where the first string holding a lone surrogate is in ``value`` (JSON: dicts, lists,
    strings, numbers; tuples as lists), as the keys and indices leading to it (a key holding
    one is named with its surrogate escaped); None when there is none. A ``\\ud800`` escape
    reads as one, yet UTF-8 cannot carry it: it breaks whatever writes the text later.

    The walk keeps one iterator per open container and builds a path only on a hit, so a
    body of a million items takes time in proportion to its size."""
    if isinstance(value, str):
        return None if encodable(value) else []
    top = _entries(value)
    if top is None:
        return None
    stack: list[tuple[str | int, Iterator[tuple[object, object]]]] = [("", top)]
    while stack:
        for at, item in stack[-1][1]:
            if isinstance(at, str) and not encodable(at):
                return [*_path(stack), at.encode("utf-8", "backslashreplace").decode()]
            key = at if isinstance(at, str | int) else str(at)
            if isinstance(item, str):
                if not encodable(item):
                    return [*_path(stack), key]
                continue
            inner = _entries(item)
            if inner is not None:
                stack.append((key, inner))
                break
        else:
            stack.pop()
    return None


def _entries(item: object) -> Iterator[tuple[object, object]] | None:
    """The (key or index, value) pairs of a dict, list or tuple; None for anything else."""
    if isinstance(item, dict):
        return iter(item.items())
    if isinstance(item, list | tuple):
        return enumerate(item)
    return None


def _path(stack: list[tuple[str | int, Iterator[tuple[object, object]]]]) -> list[str | int]:
    return [key for key, _ in stack[1:]]


def encodable(text: str) -> bool:
    """Whether ``text`` holds no lone surrogate (UTF-8 can carry it)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
