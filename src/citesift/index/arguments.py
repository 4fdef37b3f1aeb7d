"""Checks of the numbers callers pass to retrieval: counts, sizes, weights, thresholds."""

from __future__ import annotations

import math

from citesift.numbers import is_finite_number


def positive_int(value: object, default: int) -> int:
    """``value`` floored and at least 1; ``default`` when it is not a finite number."""
    if not is_finite_number(value):
        return default
    return max(1, min(math.floor(float(value)), MAX_COUNT))  # type: ignore[arg-type]


MAX_COUNT = 1_000_000
"""The largest top-k or pool size accepted; bigger values are clamped to it."""


def sane_size(value: object, low: int, default: int, most: int) -> int:
    """``value`` floored (at most ``most``) when it is a finite number ≥ ``low``, else
    ``default``."""
    if not is_finite_number(value) or value < low:  # type: ignore[operator]
        return default
    return min(math.floor(value), most)  # type: ignore[arg-type]


def finite_or_none(value: object) -> float | None:
    """``value`` as a float when it is a finite number, else None."""
    return float(value) if is_finite_number(value) else None  # type: ignore[arg-type]


def bounded_int(value: object, low: int, high: int, default: int) -> int:
    """``value`` as an int in ``[low, high]``; ``default`` when it is not a finite number."""
    if not is_finite_number(value):
        return default
    return max(low, min(int(value), high))  # type: ignore[call-overload]
