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
