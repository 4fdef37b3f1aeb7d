"""Names for the processes that hold work in a shared store (a crawl's claims, a server's
jobs), and whether the process a name stands for has ended: its work may then be taken back."""

from __future__ import annotations

import os
import secrets
import socket

from citesift.numbers import is_decimal


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
