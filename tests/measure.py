"""What a call costs: its result, the seconds it took and the peak of what it allocated."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def traced(call: Callable[[], T]) -> tuple[T, float, int]:
    """``call()``'s result, its seconds and its peak allocation (tracing memory slows it)."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        result = call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, time.perf_counter() - started, peak
