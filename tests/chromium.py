"""Watching the headless Chromium the tests start: its main processes, the launches seen
while a block runs, every process a test left behind; and pages only a script writes."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

JS_PAGE = """<!doctype html><html><head><title>Written by script</title></head>
<body><div id="root"></div><script>
const root = document.getElementById("root");
root.innerHTML = "<h1>Harbour log</h1><p>Only the script wrote that the ferry left at noon.</p>"
  + "<a href='/next'>The next entry</a>";
setTimeout(() => { const late = document.createElement("p"); late.id = "late";
  late.textContent = "A late line arrived after the load."; root.appendChild(late); }, 400);
</script></body></html>"""
BUSY = """<!doctype html><html><body><div id="root"></div><script>while (true) {}</script>
</body></html>"""
PROFILE = b"--user-data-dir="


def chromium_pids(marker: str) -> list[int]:
    """The browsers started for this test: Chromium's main processes (not its renderers,
    which name a ``--type``) whose command line names ``marker``, the test's own temporary
    folder where the browser keeps its profile."""
    return [
        pid
        for pid, line, _ in processes()
        if marker.encode() in line and b"chrom" in line and b"--type=" not in line
    ]


@contextmanager
def polling(look: Callable[[], None]) -> Iterator[None]:
    """Call ``look`` every 50 ms, in a thread, while the block runs."""
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            look()
            done.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


@contextmanager
def browsers_seen(marker: str) -> Iterator[set[bytes]]:
    """The browsers launched while the block runs, each known by the profile folder made for
    it (a launch's own ``--user-data-dir``, shared by all its processes, forks included),
    looked for every 50 ms: a browser launched for one page lives far longer."""
    seen: set[bytes] = set()

    def look() -> None:
        for _, line, _ in processes():
            for argument in line.split(b"\0"):
                if argument.startswith(PROFILE) and marker.encode() in argument:
                    seen.add(argument)

    with polling(look):
        yield seen


def left_behind(marker: str) -> list[int]:
    """Every process this test started and left running, Playwright's driver included: its
    command line or its environment names ``marker``."""
    return [
        pid
        for pid, line, environ in processes()
        if pid != os.getpid() and (marker.encode() in line or marker.encode() in environ)
    ]


def processes() -> list[tuple[int, bytes, bytes]]:
    """Each live process: its id, command line and environment (zombies have neither)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line, environ = (entry / "cmdline").read_bytes(), (entry / "environ").read_bytes()
                found.append((int(entry.name), line, environ))
            except OSError:
                continue
    return found
