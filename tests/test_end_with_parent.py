"""A worker process calling ``end_with_parent`` ends within seconds of the process that
started it being killed by SIGKILL, whichever way ``multiprocessing`` started it, and in a
Python without ``ctypes`` (the kernel then not asked, its watching thread ends it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from worker_processes import still_running

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]  # the processes import the library
SRC = str(Path(__file__).resolve().parent.parent / "src")
STARTER = """
import multiprocessing, sys, time
from citesift.store.holders import end_with_parent

def work(ready, without_ctypes):
    if without_ctypes:
        sys.modules["ctypes"] = None  # as a Python built without it: importing it fails
    end_with_parent()
    ready.set()
    time.sleep(60)

if __name__ == "__main__":
    context = multiprocessing.get_context(sys.argv[1])
    ready = context.Event()
    worker = context.Process(target=work, args=(ready, sys.argv[2] == "without-ctypes"))
    worker.start()
    ready.wait(30)
    print(worker.pid, flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize(
    ("method", "ctypes"),
    [("spawn", "with-ctypes"), ("forkserver", "with-ctypes"), ("spawn", "without-ctypes")],
)
def test_a_worker_ends_when_the_process_that_started_it_is_killed(
    method: str, ctypes: str, tmp_path: Path
) -> None:
    script = tmp_path / "starter.py"
    script.write_text(STARTER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": SRC}
    with subprocess.Popen([sys.executable, str(script), method, ctypes], stdout=subprocess.PIPE,
                          env=env) as starter:  # fmt: skip
        assert starter.stdout is not None
        worker = int(starter.stdout.readline())
        assert still_running([worker], 1.0) == [worker]  # it lives while its starter does
        starter.kill()
    left = still_running([worker])
    for pid in left:  # not left behind when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []
