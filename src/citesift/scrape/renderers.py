"""The memory a browser's renderer processes hold, as the operating system counts it.

A page's DOM, canvases, image data and array buffers live outside its script heap (which a
V8 switch bounds), so only the process's resident memory measures all a page holds. Read
from Linux's ``/proc`` (a process's children and its resident pages); where there is none,
nothing is found and nothing is bounded.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

PROC = Path("/proc")
RENDERER = b"--type=renderer"
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def find_descendant(marker: str) -> int | None:
    """The process started (at any depth) by this one whose command line holds ``marker``
    as one of its arguments; None when there is none (or no ``/proc``)."""
    wanted = marker.encode()
    for pid in _descendants(os.getpid()):
        if wanted in _arguments(pid):
            return pid
    return None


def renderer_memory(root: int, marker: str) -> dict[int, int] | None:
    """Each renderer process under ``root`` (a browser's main process): its resident bytes;
    None once ``root`` no longer carries ``marker`` (ended, its pid perhaps another's now)."""
    if marker.encode() not in _arguments(root):
        return None
    found = {}
    for pid in _descendants(root):
        if RENDERER in _arguments(pid):
            fields = _read(PROC / str(pid) / "statm").split()
            if len(fields) > 1:
                found[pid] = int(fields[1]) * PAGE_SIZE
    return found


def _descendants(root: int) -> Iterator[int]:
    """The processes started by ``root``, their children, and so on (``root`` excluded)."""
    waiting = [root]
    while waiting:
        pid = waiting.pop()
        for task in _tasks(pid):
            for child in _read(task / "children").split():
                yield int(child)
                waiting.append(int(child))


def _arguments(pid: int) -> list[bytes]:
    """The command line of ``pid``, word by word: Chromium's child processes rewrite theirs
    as one string of words."""
    return _read(PROC / str(pid) / "cmdline").replace(b"\0", b" ").split()


def _tasks(pid: int) -> list[Path]:
    """The threads of ``pid`` (each lists the children it started); none once it has ended."""
    try:
        return list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return []


def _read(path: Path) -> bytes:
    """A ``/proc`` file's bytes; empty once its process has ended."""
    try:
        return path.read_bytes()
    except OSError:
        return b""
