"""Request headers a caller gives (a fetch's, a scrape's, an API's): checked once, by rules
that keep one header from injecting another, and refused in words that never show a value,
which is often a key (Authorization, Cookie, X-Api-Key)."""

from __future__ import annotations

from collections.abc import Mapping

from citesift.errors import unshown


def header_value(value: object) -> bool:
    """Whether ``value`` can be a header's value: not blank, printable ASCII or tabs (which
    HTTP allows in a value), on one line, so it cannot inject another header."""
    return (
        isinstance(value, str)
        and bool(value.strip())
        and value.isascii()
        and value.replace("\t", " ").isprintable()
    )


def header_fault(name: object, value: object) -> str | None:
    """What is wrong with the header ``name: value`` (None: nothing), said without its value
    and without a name that is itself unsound (``'Authorization: Bearer sk-…'`` given as a
    name holds the key): a name is printable ASCII without a space, tab or ``:``."""
    if not header_value(name) or ":" in str(name) or any(c.isspace() for c in str(name).strip()):
        return "its name is not a header name (printable ASCII, no ':' or space)"
    if not header_value(value):
        return f"the value of {str(name).strip()} is blank, not ASCII or not printable"
    return None


def header_pairs(argument: str, value: object) -> tuple[tuple[str, str], ...]:
    """``value`` (a mapping of names to values, or (name, value) pairs) as stripped pairs of
    sound header text; an ``InvalidArgument`` for ``argument`` naming the header at fault by
    its place, never showing a value."""
    pairs = list(value.items()) if isinstance(value, Mapping) else value
    if not isinstance(pairs, tuple | list) or not all(
        isinstance(pair, tuple | list) and len(pair) == 2 for pair in pairs
    ):
        raise unshown(argument, "a mapping of header names to values, or (name, value) pairs")
    for at, (name, text) in enumerate(pairs, 1):
        fault = header_fault(name, text)
        if fault:
            where = f"header {at} of {len(pairs)}"
            raise unshown(argument, f"sound header text: {where}: {fault} (values are not shown)")
    return tuple((name.strip(), text.strip()) for name, text in pairs)
