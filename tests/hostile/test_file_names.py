"""File names a filesystem allows but text does not: bytes that are not UTF-8, escapes, and
names of things that are not files (a FIFO, a device). Each file keeps an id of its own, the
rest of a folder is indexed, and nothing blocks or prints a control character."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citesift.cli.options import EXIT_USAGE

CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
pytestmark = pytest.mark.timeout(120)


def citesift(*args: str | bytes, cwd: Path) -> tuple[int, str, str]:
    """The real command in a process of its own; arguments may be bytes (a raw file name)."""
    command = [sys.executable, "-c", "from citesift.cli import main; main()", *args]
    done = subprocess.run(command, capture_output=True, cwd=cwd, timeout=100)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert "Traceback" not in err and not CONTROLS.search(out + err)
    return done.returncode, out, err


@pytest.fixture
def latin1(tmp_path: Path) -> Path:
    """A folder with ``né.md`` and ``nè.md`` named in Latin-1, a name holding an escape
    sequence, and a plain one."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in [
        (b"n\xe9.md", b"Acute accents mark the stressed vowel."),
        (b"n\xe8.md", b"Grave accents open the vowel instead."),
        (b"t\x1b]0;owned\x07.md", b"Escape sequences hide in names too."),
        (b"plain.md", b"Plain names are the common case."),
    ]:
        Path(os.fsdecode(os.fsencode(folder) + b"/" + name)).write_bytes(text)
    return folder


@pytest.mark.slow  # six processes of the real command
def test_names_that_are_not_utf8_are_one_document_each(latin1: Path, tmp_path: Path) -> None:
    code, out, err = citesift("index", "add", str(latin1), "--store", "i.db",
                              "--retrieval", "bm25", cwd=tmp_path)  # fmt: skip
    assert code == 0, err
    assert out == "indexed 4 document(s) as 4 chunk(s)\n"
    code, out, _ = citesift("index", "ls", "--store", "i.db", "--format", "json", cwd=tmp_path)
    ids = sorted(d["id"] for d in json.loads(out))
    base = "file://" + str(latin1.resolve())
    assert ids == sorted(
        [f"{base}/n%E8.md", f"{base}/n%E9.md", f"{base}/plain.md", f"{base}/t%1B%5D0%3Bowned%07.md"]
    )
    for query, expected in [("acute stressed", "n%E9.md"), ("grave open", "n%E8.md")]:
        code, out, _ = citesift("search", query, "--store", "i.db", "--retrieval", "bm25",
                                "--top-k", "1", "--format", "json", cwd=tmp_path)  # fmt: skip
        assert json.loads(out)[0]["provenance"]["document_id"].endswith(expected)
    code, out, _ = citesift("index", "ls", "--store", "i.db", cwd=tmp_path)
    assert "t\\x1b]0;owned\\x07" in out and "\x1b" not in out  # the title shown, escaped
    titles = [line.split("\t")[-1] for line in out.splitlines()]
    assert "n%E8" in titles and "n%E9" in titles  # each name whole, its odd byte escaped

    raw = os.fsencode(latin1) + b"/n\xe9.md"
    code, out, err = citesift("index", "rm", raw, "--store", "i.db", cwd=tmp_path)
    assert (code, out) == (0, "removed 1 chunk(s)\n"), err
    code, out, _ = citesift("index", "ls", "--store", "i.db", cwd=tmp_path)
    assert "n%E9.md" not in out and "n%E8.md" in out


def test_a_fifo_or_device_is_refused_without_blocking(latin1: Path, tmp_path: Path) -> None:
    fifo = latin1 / "pipe.md"
    os.mkfifo(fifo)
    started = time.monotonic()
    code, out, err = citesift("index", "add", str(fifo), "/dev/null", str(latin1), "--store",
                              "i.db", "--retrieval", "bm25", cwd=tmp_path)  # fmt: skip
    assert time.monotonic() - started < 60  # no read waits for a writer
    assert code == 0 and "indexed 4 document(s)" in out
    assert f"skipped {fifo}: not a regular file" in err  # named on its own and in the folder
    assert err.count("not a regular file") == 3 and "skipped /dev/null: not a regular file" in err
    code, _, err = citesift("index", "add", str(fifo), "--store", "i.db", cwd=tmp_path)
    assert code == EXIT_USAGE and "not a regular file" in err and "no such file" not in err
