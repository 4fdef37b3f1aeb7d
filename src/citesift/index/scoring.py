"""The scoring contract every retrieval result list obeys, and the sanitisers of its options."""

from __future__ import annotations

import math
from collections.abc import Sequence

from citesift.model import Match
from citesift.numbers import is_finite_number


class RerankError(RuntimeError):
    """A reranker failed or answered with something that breaks the result contract."""


def check_scores(hits: Sequence[Match]) -> list[Match]:
    """Apply the scoring contract to ``hits``.

    Unscored results keep their order. When any result has a score, every result must have a
    finite one, and the list comes back sorted by descending score (stable for ties). Mixed
    or non-finite scores raise ``TypeError``: a score is never made up.
    """
    scored = [h.score is not None for h in hits]
    if not any(scored):
        return list(hits)
    if not all(scored):
        raise TypeError("mixed scored and unscored results: every result needs a score")
    for hit in hits:
        if not is_finite_number(hit.score):
            raise TypeError(
                f"result {hit.id!r} has a non-finite or non-numeric score {hit.score!r}"
            )
    return sorted(hits, key=lambda h: -float(h.score))  # type: ignore[arg-type]


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
