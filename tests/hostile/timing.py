"""The time a call takes at its best of a few runs: the measure the linear-time tests of
hostile inputs compare, as a busy machine only ever makes a run slower."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(call: Callable[[], object], rounds: int = 2) -> float:
    """The shortest wall time of ``rounds`` runs of ``call``, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def assert_at_most(
    hostile: Callable[[], object], normal: Callable[[], object], times: float, what: str
) -> None:
    """``hostile`` takes at most ``times`` as long as ``normal``, each at its best; a slow
    first try is measured again beside a new measure of ``normal``."""
    for _ in range(2):
        hostile_s, normal_s = best_time(hostile), best_time(normal)
        if hostile_s <= times * normal_s:
            return
    raise AssertionError(f"{hostile_s:.2f} s against {normal_s:.3f} s {what}")
