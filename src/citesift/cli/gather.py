"""What ``index add`` was given, read into documents: each file, folder or URL gives its
documents, and each that cannot be read a ``Refusal`` saying why, so one bad source among
many never stops the rest."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citesift.cli.options import EXIT_USAGE
from citesift.cli.reading import describe, exit_status
from citesift.extract.rules import Mode
from citesift.model import Document, SourceHit
from citesift.settings import SourceSetup
from citesift.sources.files import INDEXABLE_SUFFIXES, NOT_REGULAR
from citesift.sources.loaders import LoadedFile, folder_files, load_file
from citesift.sources.web import is_web_url


@dataclass(frozen=True, slots=True)
class Refusal:
    """A source that gave no document: its name, why, and the exit status that fits."""

    name: str
    reason: str
    status: int


@dataclass(frozen=True, slots=True)
class Unchanged:
    """A file indexed already at the revision its bytes have now: nothing to do."""

    name: str


@dataclass(frozen=True, slots=True)
class Files:
    """How files and folders are loaded: which names in a folder (none: the indexable
    suffixes), the indexed ids and their revisions (to skip unchanged files), and who hears
    ``(files done, files in all)`` while a folder is read."""

    patterns: Sequence[str] = ()
    known: Mapping[str, str | None] = field(default_factory=dict)
    progress: Callable[[int, int], None] | None = None


def gather(
    source: str, setup: SourceSetup | None, mode: Mode, files: Files | None = None
) -> Iterator[Any | Refusal | Unchanged]:
    """The documents of ``source`` (a web page read with ``setup``, a file, or the files of a
    folder), a ``Refusal`` for each part that cannot be read, and ``Unchanged`` for each
    file ``files.known`` holds at its present revision."""
    files = files or Files()
    if is_web_url(source):
        assert setup is not None, "a setup is made for every command given a URL"
        yield _web_page(source, setup, mode)
        return
    kind = _kind(Path(source))
    if kind is None:
        yield Refusal(source, "no such file, folder or URL", EXIT_USAGE)
    elif stat.S_ISDIR(kind):
        yield from _folder(Path(source), mode, files)
    elif not stat.S_ISREG(kind):
        yield Refusal(source, NOT_REGULAR, EXIT_USAGE)
    else:
        yield _file(Path(source), mode, files)


def _kind(path: Path) -> int | None:
    """The file type bits of what ``path`` names (a link followed), None when nothing is there."""
    try:
        return stat.S_IFMT(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def _folder(folder: Path, mode: Mode, files: Files) -> Iterator[Any | Refusal | Unchanged]:
    paths = list(folder_files(folder, files.patterns))
    if not paths:
        kinds = ", ".join(files.patterns or INDEXABLE_SUFFIXES)
        yield Refusal(str(folder), f"holds no file to index ({kinds})", EXIT_USAGE)
    for done, path in enumerate(paths, 1):
        yield _file(path, mode, files, any_name=bool(files.patterns))
        if files.progress is not None:
            files.progress(done, len(paths))


def _file(
    path: Path, mode: Mode, files: Files, any_name: bool = False
) -> Any | Refusal | Unchanged:
    loaded: LoadedFile = load_file(path, files.known, mode, any_name)
    if loaded.refused is not None:
        return Refusal(str(path), loaded.refused, EXIT_USAGE)
    return Unchanged(loaded.id) if loaded.unchanged else loaded.document


def _web_page(url: str, setup: SourceSetup, mode: Mode) -> Any | Refusal:
    """The page at ``url`` read politely (robots.txt, limits), or why it was not."""
    outcome = setup.web_pages(mode).read_sync(SourceHit(url, url))
    if isinstance(outcome, Document):
        return outcome.document
    return Refusal(url, describe(outcome), exit_status(outcome))
