"""Numbers from callers: the one test that a value is a usable number, and one clamp."""

from __future__ import annotations

import math


def is_finite_number(value: object) -> bool:
    """True for an int or float (not bool) that is finite as a float: an int too big for a
    float is not, so that callers may read it with ``float()``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def clamped(value: object, default: float, low: float, high: float) -> float:
    """``value`` read as a float and clamped to ``[low, high]``; ``default`` when it is not
    a finite number (or too big for a float)."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return default
    return min(max(number, low), high) if math.isfinite(number) else default
