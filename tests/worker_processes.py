"""The worker processes a command started, read from ``/proc``: which they are, and whether
they still run (a zombie, ended but not yet reaped, does not)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

ENDED_WITHIN_S = 5.0
"""Seconds the workers of a killed command may take to end."""


def workers_of(parent: int) -> list[int]:
    """The process ids of the worker processes ``parent`` started (spawned by
    ``multiprocessing``)."""
    return [pid for pid in children(parent) if b"spawn_main" in command_line(pid)]


def children(parent: int) -> list[int]:
    """The processes whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        fields = _stat(entry)
        if entry.name.isdigit() and len(fields) > 1 and int(fields[1]) == parent:
            found.append(int(entry.name))
    return found


def command_line(pid: int) -> bytes:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return b""


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (a zombie has)."""
    fields = _stat(Path("/proc") / str(pid))
    return bool(fields) and fields[0] != "Z"


def still_running(pids: Iterable[int], within: float = ENDED_WITHIN_S) -> list[int]:
    """Those of ``pids`` still running once ``within`` seconds have passed (sooner when
    they have all ended)."""
    left = list(pids)
    give_up = time.monotonic() + within
    while left and time.monotonic() < give_up:
        time.sleep(0.1)
        left = [pid for pid in left if running(pid)]
    return left


def _stat(entry: Path) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command's name (state first), or none."""
    try:
        return (entry / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []
