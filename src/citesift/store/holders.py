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
    Linux the kernel kills it, and everywhere a thread ends it once its parent has changed
    (under ``forkserver`` its parent, the fork server, ends with the starter). Its leases
    then run out and other runs take its work back."""
    parent = os.getppid()
    _killed_with_parent()
    starter = multiprocessing.parent_process()
    if starter is not None and not starter.is_alive():  # ended before the kernel was asked
        os._exit(ORPHANED)
    threading.Thread(target=_watch, args=(parent,), name="end-with-parent", daemon=True).start()


def _killed_with_parent() -> None:
    """Ask Linux to send this process SIGKILL when its parent ends (elsewhere, or when the
    call is refused, the watching thread alone ends it)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return


def _watch(parent: int) -> None:
    """End this process once its parent is no longer ``parent`` (it ended: this process was
    given to another)."""
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os._exit(ORPHANED)
