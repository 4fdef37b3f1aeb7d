"""The look at a browser's renderers reads only the process that still carries its launch's
marker: once that process has ended (its pid free for another program), nothing is read."""

from __future__ import annotations

import os
import subprocess
import sys

from citesift.scrape.renderers import renderer_memory

MARKER = "--citesift-browser=0123456789abcdef"


def test_a_process_carrying_the_marker_is_read_and_one_ended_is_not() -> None:
    waits = "import time; print('ready', flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", waits, MARKER], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        assert renderer_memory(child.pid, MARKER) == {}  # carries it, runs no renderer
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    assert renderer_memory(child.pid, MARKER) is None


def test_a_process_not_carrying_the_marker_is_not_read() -> None:
    assert renderer_memory(os.getpid(), MARKER) is None
