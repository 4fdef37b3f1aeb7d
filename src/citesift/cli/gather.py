"""What ``index add`` was given, read into documents: each file, folder or URL gives its
documents, and each that cannot be read a ``Refusal`` saying why, so one bad source among
many never stops the rest."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citesift.cli.options import EXIT_USAGE
from citesift.cli.reading import describe, exit_status
from citesift.extract.rules import Mode
from citesift.model import Document, SourceHit
from citesift.settings import SourceSetup
from citesift.sources.files import (
    INDEXABLE_SUFFIXES,
    NOT_REGULAR,
    FileRefused,
    file_document,
    indexable_files,
)
from citesift.sources.web import is_web_url


@dataclass(frozen=True, slots=True)
class Refusal:
    """A source that gave no document: its name, why, and the exit status that fits."""

    name: str
    reason: str
    status: int


def gather(source: str, setup: SourceSetup | None, mode: Mode) -> Iterator[Any | Refusal]:
    """The documents of ``source`` (a web page read with ``setup``, a file, or the files of a
    folder), and a ``Refusal`` for each part that cannot be read."""
    if is_web_url(source):
        assert setup is not None, "a setup is made for every command given a URL"
        yield _web_page(source, setup, mode)
        return
    kind = _kind(Path(source))
    if kind is None:
        yield Refusal(source, "no such file, folder or URL", EXIT_USAGE)
    elif stat.S_ISDIR(kind):
        yield from _folder(Path(source), mode)
    elif not stat.S_ISREG(kind):
        yield Refusal(source, NOT_REGULAR, EXIT_USAGE)
    else:
        yield _file(Path(source), mode)


def _kind(path: Path) -> int | None:
    """The file type bits of what ``path`` names (a link followed), None when nothing is there."""
    try:
        return stat.S_IFMT(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def _folder(folder: Path, mode: Mode) -> Iterator[Any | Refusal]:
    found = False
    for path in indexable_files(folder):
        found = True
        yield _file(path, mode)
    if not found:
        kinds = ", ".join(INDEXABLE_SUFFIXES)
        yield Refusal(str(folder), f"holds no file to index ({kinds})", EXIT_USAGE)


def _file(path: Path, mode: Mode) -> Any | Refusal:
    try:
        return file_document(path, mode)
    except FileRefused as refusal:
        return Refusal(str(path), str(refusal), EXIT_USAGE)


def _web_page(url: str, setup: SourceSetup, mode: Mode) -> Any | Refusal:
    """The page at ``url`` read politely (robots.txt, limits), or why it was not."""
    outcome = setup.web_pages(mode).read_sync(SourceHit(url, url))
    if isinstance(outcome, Document):
        return outcome.document
    return Refusal(url, describe(outcome), exit_status(outcome))
