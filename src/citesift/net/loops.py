"""Running a coroutine to completion from synchronous code, inside a running loop or not.

``asyncio.run`` refuses to start while the calling thread already runs a loop (a Jupyter
cell, an async web handler calling a sync helper); there the coroutine runs on a worker
thread's own loop instead, and the caller's thread waits for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(call: Coroutine[Any, Any, T]) -> T:
    """``call``'s result: on a fresh event loop here, or on a worker thread's loop when this
    thread is already running one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(call)
    with ThreadPoolExecutor(1, thread_name_prefix="citesift-sync") as worker:
        return worker.submit(asyncio.run, call).result()
