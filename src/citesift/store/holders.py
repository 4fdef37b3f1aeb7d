"""Names for the processes that hold work in a shared store (a crawl's claims, a server's
jobs), whether the process a name stands for has ended: its work may then be taken back, and
a worker process that ends with the process that started it."""

from __future__ import annotations

import multiprocessing
import os
import secrets
import signal
import socket
import sys
import threading
import time
from multiprocessing.process import BaseProcess

from citesift.numbers import is_decimal

WATCH_S = 0.5
"""Seconds between a worker's looks at whether the process that started it is still there."""
ORPHANED = 70
"""The exit status of a worker that ended because the process that started it had ended."""
_PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal this process gets when its parent ends."""


def holder_name() -> str:
    """A name for one process: this machine's, this process's id and a random part (two
    processes never share one, even when an id is used again)."""
    return f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(4)}"


def is_holder_name(name: str) -> bool:
    """Whether ``name`` has the form ``holder_name`` gives (machine, process id, random part)."""
    parts = name.rsplit("/", 2)
    return len(parts) == 3 and all(parts) and is_decimal(parts[1])


def holder_gone(holder: str) -> bool:
    """Whether ``holder`` was a process of this machine that has ended (the work of another
    machine's processes, or of a name that is not a holder's, is left alone)."""
    if not is_holder_name(holder):
        return False
    machine, pid, _ = holder.rsplit("/", 2)
    if machine != socket.gethostname():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


def end_with_parent() -> None:
    """Make this worker process end as soon as the process that started it ends (one killed
    by SIGKILL cannot stop its workers itself, which would go on, then wait for ever): on
    Linux the kernel kills it when its parent ends, and everywhere a thread ends it once its
    parent has changed or its starter's pipe has closed (under ``forkserver`` the parent is
    the fork server, which lives on while its children do). Its leases then run out and
    other runs take its work back."""
    parent = os.getppid()
    _killed_with_parent()
    starter = multiprocessing.parent_process()
    if not _there(parent, starter):  # it ended before the kernel was asked
        os._exit(ORPHANED)
    watch = threading.Thread(target=_watch, args=(parent, starter), name="end-with-parent")
    watch.daemon = True
    watch.start()


def _killed_with_parent() -> None:
    """Ask Linux to send this process SIGKILL when its parent ends (elsewhere, when the call
    is refused, or in a Python built without ``ctypes``, the watching thread alone ends it)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (ImportError, OSError, AttributeError):
        return


def _there(parent: int, starter: BaseProcess | None) -> bool:
    """Whether this process's parent is still ``parent`` and its ``starter`` (the process
    that asked for it, when ``multiprocessing`` started it) has not ended."""
    return os.getppid() == parent and (starter is None or starter.is_alive())


def _watch(parent: int, starter: BaseProcess | None) -> None:
    """End this process once ``parent`` or ``starter`` has ended."""
    while _there(parent, starter):
        time.sleep(WATCH_S)
    os._exit(ORPHANED)
