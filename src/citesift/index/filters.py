"""Metadata filters: ``{key: value}``, ``{key: {"$eq": value}}``, ``$ne``, ``$in``, ``$nin``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from citesift.errors import InvalidArgument

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda have, want: have == want,
    "$ne": lambda have, want: have != want,
    "$in": lambda have, want: have in want,
    "$nin": lambda have, want: have not in want,
}
_MISSING = object()


def matches(metadata: Mapping[str, Any], filter: Mapping[str, Any]) -> bool:
    """True when ``metadata`` passes every condition of ``filter`` (a missing key fails all
    but ``$ne``/``$nin``)."""
    return all(_condition(metadata.get(k, _MISSING), c) for k, c in filter.items())


def check_filter(filter: object) -> dict[str, Any] | None:
    """``filter`` as a dict, or ``ValueError`` naming what is wrong with it."""
    if filter is None:
        return None
    if not isinstance(filter, Mapping):
        raise InvalidArgument(
            f"a filter is a mapping of metadata keys to conditions, got {filter!r}"
        )
    for condition in filter.values():
        if isinstance(condition, Mapping):
            unknown = set(condition) - set(_OPERATORS)
            if unknown:
                raise InvalidArgument(
                    f"unknown filter operator(s) {sorted(unknown)}; use {list(_OPERATORS)}"
                )
    return dict(filter)


def _condition(have: Any, condition: Any) -> bool:
    if not isinstance(condition, Mapping):
        return have is not _MISSING and have == condition
    return all(_test(op, have, want) for op, want in condition.items())


def _test(op: str, have: Any, want: Any) -> bool:
    if have is _MISSING:
        return op in ("$ne", "$nin")
    if op in ("$in", "$nin") and not isinstance(want, list | tuple | set | frozenset):
        return False
    return _OPERATORS[op](have, want)
