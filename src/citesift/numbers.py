"""Numbers from callers: the one test that a value is a usable number, and one clamp; the
floats JSON cannot write (NaN, infinities) found or made null; and the one reading of a
whole number written out in text."""

from __future__ import annotations

import math
from typing import Any

from citesift.errors import invalid, written_number


def is_finite_number(value: object) -> bool:
    """True for an int or float (not bool) that is finite as a float: an int too big for a
    float is not, so that callers may read it with ``float()``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def non_finite_at(value: object) -> tuple[str, float] | None:
    """The first float JSON cannot write (NaN or an infinity) in ``value``'s dicts (keys and
    values), lists and tuples at any depth, with where it is (``['a'][0]``); None when there
    is none."""
    pending: list[tuple[str, object]] = [("", value)]
    seen: set[int] = set()
    while pending:
        path, item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return path, item
        if not isinstance(item, dict | list | tuple) or id(item) in seen:
            continue
        seen.add(id(item))
        pairs = list(item.items()) if isinstance(item, dict) else list(enumerate(item))
        pending.extend((f"{path}[{key!r}]", each) for key, each in reversed(pairs))
        if isinstance(item, dict):  # a float key is written as a number too
            pending.extend((f"{path}[{key!r}]", key) for key in item if isinstance(key, float))
    return None


def finite_json(value: Any) -> Any:
    """``value`` with each float JSON cannot write (NaN, an infinity) in its dicts, lists and
    tuples made None, JSON's null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(item) for item in value]
    return value


def clamped(value: object, default: float, low: float, high: float) -> float:
    """``value`` read as a float and clamped to ``[low, high]``; ``default`` when it is not
    a finite number (or too big for a float)."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return default
    return min(max(number, low), high) if math.isfinite(number) else default


def number_in(
    name: str, value: object, low: float, high: float, *, whole: bool = False, above: bool = False
) -> float:
    """``value`` as a float when it is a number in ``[low, high]`` (``(low, high]`` when
    ``above``; an int when ``whole``), else ``InvalidArgument`` naming ``name``: a caller's
    value that makes no sense is refused, never swapped for a default."""
    kind = "a whole number" if whole else "a number"
    low_, high_ = written_number(low), written_number(high)
    span = f"over {low_} and at most {high_}" if above else f"from {low_} to {high_}"
    if not is_finite_number(value) or (whole and not isinstance(value, int)):
        raise invalid(name, value, f"{kind} {span}")
    number = float(value)  # type: ignore[arg-type]
    if number > high or number < low or (above and number == low):
        raise invalid(name, value, f"{kind} {span}")
    return number


def is_decimal(text: str) -> bool:
    """Whether ``text`` is ASCII digits only: ``str.isdigit`` alone takes "²", which ``int``
    refuses."""
    return text.isascii() and text.isdigit()


def written_whole(text: str, otherwise: int) -> int:
    """``text`` as a whole number when it is ASCII digits, seven at most (a number a file
    states: a sheet's row, a cell's style, a heading's level; or a caller's count written
    out), else ``otherwise``: ``int`` refuses 4,301 digits."""
    return int(text) if is_decimal(text) and len(text) < 8 else otherwise
