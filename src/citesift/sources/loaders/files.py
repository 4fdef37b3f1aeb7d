"""Local files and folders loaded for the index, again and again: a file whose bytes have
not changed since it was indexed (its content hash, tagged by the reader that reads it as
``file_revision`` says: ``:text`` for plain text, ``:headers`` for an Excel file, is the
revision it was indexed at) is not read again, a changed one is read anew, and the indexed
files of a folder that are gone can be listed for removal."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.extract.rules import Mode
from citesift.model import SourceDocument
from citesift.sources.files import (
    INDEXABLE_SUFFIXES,
    FileRefused,
    body_document,
    file_bytes,
    file_revision,
    file_uri,
    only_indexable,
    why_empty,
)
from citesift.sources.loaders.folder import folder_files
from citesift.store.location import uri_path


@dataclass(frozen=True, slots=True)
class LoadedFile:
    """One file's outcome: its path and id, and either its ``document`` (read anew; with
    ``empty`` saying why, when it holds no text), or ``unchanged`` (indexed at this
    revision already), or why it was ``refused``."""

    path: Path
    id: str
    document: SourceDocument | None = None
    unchanged: bool = False
    refused: str | None = None
    empty: str | None = None


def load_file(
    path: Path,
    known: Mapping[str, str | None] | None = None,
    mode: Mode = "article",
    any_name: bool = False,
    budget: int = DEFAULT_BUDGET,
) -> LoadedFile:
    """The file at ``path`` read into a document (held to ``budget`` characters of text)
    unless ``known`` (indexed ids to their revisions) holds it at the revision its bytes
    have now, read under this budget when it cut it short (a document cut at another
    budget is read again). Unless ``any_name`` (a file a pattern chose), its name must
    have an indexable suffix."""
    uri = file_uri(path)
    try:
        if not any_name and path.suffix.lower() not in INDEXABLE_SUFFIXES:
            raise FileRefused(only_indexable())
        body = file_bytes(path)
        revision = file_revision(path, body)
        if known is not None and known.get(uri) in (revision, revision + cut_at(budget)):
            return LoadedFile(path, uri, unchanged=True)
        document = body_document(path, body, mode, budget)
    except FileRefused as refusal:
        return LoadedFile(path, uri, refused=str(refusal))
    if not document.blocks:  # a bound that left nothing is no emptiness of the file's
        why = f"no text within the bounds (budget {budget:,})" if document.truncated else None
        return LoadedFile(path, uri, document, empty=why or why_empty(body))
    document = replace(document, revision=read_under(document.revision, document, budget))
    return LoadedFile(path, uri, document)


_BUDGET_TAG = "@budget="


def cut_at(budget: int) -> str:
    """What the revision of a document cut short at ``budget`` ends with: the same bytes
    read under another budget give another document."""
    return f"{_BUDGET_TAG}{budget}"


def read_under(revision: str | None, document: SourceDocument, budget: int) -> str | None:
    """The revision of ``document`` read at ``revision`` under ``budget``: ending
    ``cut_at(budget)`` when the budget cut it short."""
    return f"{revision or ''}{cut_at(budget)}" if document.budget_cut else revision


def cut_by_budget(revision: str | None) -> bool:
    """Whether a document of this ``revision`` was cut short by the text budget (``cut_at``),
    so a larger budget reads more of it."""
    return revision is not None and _BUDGET_TAG in revision


def load_folder(
    root: Path,
    patterns: Sequence[str] = (),
    known: Mapping[str, str | None] | None = None,
    mode: Mode = "article",
    budget: int = DEFAULT_BUDGET,
) -> Iterator[LoadedFile]:
    """Each file of ``folder_files(root, patterns)`` loaded by ``load_file`` (whatever its
    name when ``patterns`` chose it), held to ``budget`` characters of text (checked, and
    the folder listed, before any file is read)."""
    checked_budget(budget)
    files = folder_files(root, patterns)
    return (load_file(path, known, mode, bool(patterns), budget) for path in files)


def gone(root: Path, indexed: Sequence[str], seen: set[str]) -> list[str]:
    """The ids in ``indexed`` of files under ``root`` that were not ``seen`` in this load
    and no longer exist as regular files: what a prune removes."""
    prefix = file_uri(root).rstrip("/") + "/"
    return [i for i in indexed if i.startswith(prefix) and i not in seen and not _exists(i)]


def _exists(uri: str) -> bool:
    """Whether the ``file://`` URI names a regular file now."""
    try:
        return stat.S_ISREG(os.stat(uri_path(uri)).st_mode)
    except (OSError, ValueError):
        return False
