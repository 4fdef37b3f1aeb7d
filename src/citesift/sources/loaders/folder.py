"""The files of a folder to index: those its patterns name (by default, the names of text,
HTML, PDF and Office files), less what its ``.gitignore`` files ignore and the ``.git``
folder; symbolic links to folders are not followed, so a link cycle ends."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pathspec

from citesift.errors import invalid
from citesift.sources.files import INDEXABLE_SUFFIXES

MAX_GITIGNORE_BYTES = 1024 * 1024
"""The most of one ``.gitignore`` read."""


@dataclass(frozen=True, slots=True)
class _Ignore:
    """The rules of one ``.gitignore``, and the folder (relative to the root) they hold in."""

    base: PurePosixPath
    spec: pathspec.GitIgnoreSpec

    def decides(self, relative: PurePosixPath, folder: bool) -> bool | None:
        """True when these rules ignore the path, False when they re-include it, None when
        they say nothing about it."""
        try:
            inner = relative.relative_to(self.base)
        except ValueError:
            return None
        return self.spec.check_file(str(inner) + ("/" if folder else "")).include


def folder_files(root: Path, patterns: Sequence[str] = ()) -> Iterator[Path]:
    """The files under ``root`` named by ``patterns`` (``.gitignore`` wildcards against the
    path relative to ``root``: ``*.md`` at any depth, ``docs/**/*.pdf`` under ``docs``),
    or by the indexable suffixes when there are none; each not ignored, sorted by path."""
    return iter(sorted(_walk(root, _patterns(patterns))))


def _walk(root: Path, wanted: pathspec.GitIgnoreSpec | None) -> Iterator[Path]:
    ignores: list[_Ignore] = []
    for folder, dirs, files in os.walk(root, topdown=True, followlinks=False):
        here = PurePosixPath(Path(folder).relative_to(root).as_posix())
        rules = _gitignore(Path(folder) / ".gitignore", here)
        if rules is not None:
            ignores.append(rules)
        dirs[:] = sorted(
            d for d in dirs if d != ".git" and not _ignored(ignores, here / d, folder=True)
        )
        for name in sorted(files):
            relative = here / name
            if name == ".gitignore" or _ignored(ignores, relative, folder=False):
                continue
            if _named(wanted, relative):
                yield Path(folder) / name


def _named(wanted: pathspec.GitIgnoreSpec | None, relative: PurePosixPath) -> bool:
    """Whether the patterns (else the indexable suffixes) name the file."""
    if wanted is None:
        return relative.suffix.lower() in INDEXABLE_SUFFIXES
    return wanted.match_file(str(relative))


def _patterns(patterns: Sequence[str]) -> pathspec.GitIgnoreSpec | None:
    if isinstance(patterns, str) or not all(isinstance(p, str) and p for p in patterns):
        raise invalid("patterns", patterns, "a list of non-empty glob patterns")
    return pathspec.GitIgnoreSpec.from_lines(patterns) if patterns else None


def _gitignore(path: Path, base: PurePosixPath) -> _Ignore | None:
    """The rules of the ``.gitignore`` at ``path`` (its first ``MAX_GITIGNORE_BYTES``)."""
    try:
        with open(path, "rb") as file:
            text = file.read(MAX_GITIGNORE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    return _Ignore(base, pathspec.GitIgnoreSpec.from_lines(text.splitlines()))


def _ignored(ignores: list[_Ignore], relative: PurePosixPath, folder: bool) -> bool:
    """Whether the deepest ``.gitignore`` with a say about ``relative`` ignores it."""
    decision = False
    for rules in ignores:
        said = rules.decides(relative, folder)
        if said is not None:
            decision = said
    return decision
