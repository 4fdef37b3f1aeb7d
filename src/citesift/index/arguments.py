"""Counts callers pass to retrieval (top k, batch sizes, token limits): whole numbers in a
range, or an ``InvalidArgument`` naming the argument; never swapped for a default."""

from __future__ import annotations

from citesift.numbers import number_in

MAX_COUNT = 1_000_000
"""The largest candidate pool accepted."""
MAX_TOP_K = 1_000
"""The most chunks one search answers, the same on every surface (Python, CLI, HTTP, MCP)."""


def count(name: str, value: object, low: int = 1, high: int = MAX_COUNT) -> int:
    """``value`` when it is a whole number in ``[low, high]``, else ``InvalidArgument``."""
    return int(number_in(name, value, low, high, whole=True))


def count_or(name: str, value: object, default: int, low: int = 1, high: int = MAX_COUNT) -> int:
    """``default`` for None, else ``count(name, value, low, high)``."""
    return default if value is None else count(name, value, low, high)
