"""Names for the processes that hold work in a shared store (a crawl's claims, a server's
jobs), and whether the process a name stands for has ended: its work may then be taken back."""

from __future__ import annotations

import os
import secrets
import socket


def holder_name() -> str:
    """A name for one process: this machine's, this process's id and a random part (two
    processes never share one, even when an id is used again)."""
    return f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(4)}"


def holder_gone(holder: str) -> bool:
    """Whether ``holder`` was a process of this machine that has ended (the work of another
    machine's processes, or of a name that is not a holder's, is left alone)."""
    parts = holder.rsplit("/", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    try:
        os.kill(int(parts[1]), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False
