"""One build of an embedder's HNSW index at a time per store file, across the store objects
and processes of this machine: an advisory lock (``flock``) on a file beside the store, held
for the build. The lock file is left in place (removing it would let a waiting process lock
a file no longer there). Where ``flock`` is missing (not a POSIX system), the lock file
cannot be made (a read-only folder) or the file system refuses locks, builds are not kept
apart: each is still right, only wasted."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

POLL_SECONDS = 0.2
"""How often a waiting build tries the lock again (and sees that it was stopped)."""


@contextmanager
def held(path: Path, stop: threading.Event) -> Iterator[bool]:
    """Hold the lock at ``path`` for the block, waiting for another holder to let it go;
    yields whether the block may build: False when ``stop`` was set while waiting."""
    try:
        import fcntl  # POSIX only
    except ImportError:
        yield True
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield True
        return
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if stop.wait(POLL_SECONDS):
                    yield False
                    return
            except OSError:  # a file system without locks: builds are not kept apart
                break
        yield True
    finally:
        os.close(fd)  # lets the lock go
