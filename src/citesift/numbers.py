"""The one test that a value from a caller is a usable number: finite, and not a bool."""

from __future__ import annotations

import math


def is_finite_number(value: object) -> bool:
    """True for an int or float (not bool) that is finite."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value)
