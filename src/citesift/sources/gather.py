"""Sources as ``index add`` names them (files, folders, web pages, remote trees) read into
documents. A folder is cut into its files (``items_of``) so that workers can share them;
each item read (``read_item``) gives its documents, ``Unchanged`` for a file indexed already
at its present bytes, and a ``SourceRefusal`` for each part that cannot be read, so one bad
source among many never stops the rest."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from citesift.errors import PEER_MISSING, InvalidArgument, LoadError
from citesift.extract.html import DEFAULT_BUDGET
from citesift.extract.rules import Mode
from citesift.model import Document, SourceDocument, SourceHit
from citesift.net import run_sync
from citesift.sources.files import INDEXABLE_SUFFIXES, NOT_REGULAR
from citesift.sources.loaders import LoadedFile, folder_files, load_file
from citesift.sources.loaders.gcs import API as GCS_API
from citesift.sources.loaders.gcs import load_gcs, parse_gcs
from citesift.sources.loaders.github import API as GITHUB_API
from citesift.sources.loaders.github import RAW as GITHUB_RAW
from citesift.sources.loaders.github import load_github_tree_sync, parse_github
from citesift.sources.loaders.limits import DEFAULT_MAX_FILES, LoadLimits
from citesift.sources.loaders.notion import API as NOTION_API
from citesift.sources.loaders.notion import load_notion_page_sync
from citesift.sources.loaders.results import LoadFailure
from citesift.sources.loaders.s3 import load_s3_sync, parse_s3
from citesift.sources.reasons import asks_to_wait, describe
from citesift.sources.web import WebPageSource, is_web_url, page_address

REMOTE_PREFIXES = ("s3://", "gs://", "github:", "notion:")
RefusalKind = Literal["invalid", "failed", "limited"]


@dataclass(frozen=True, slots=True)
class SourceRefusal:
    """A source (or a part of one) that gave no document: its name, why, and the kind of
    refusal: ``invalid`` (nothing readable there: missing, not a regular file, no format
    read, a malformed address, a missing optional package), ``failed`` (reading it failed)
    or ``limited`` (a limit or the host said "not now": try again later)."""

    name: str
    reason: str
    kind: RefusalKind


@dataclass(frozen=True, slots=True)
class Unchanged:
    """A file indexed already at the revision its bytes have now: nothing to do."""

    name: str


@dataclass(frozen=True, slots=True)
class Blank:
    """A file read that holds no text, and why (an empty file, a scan without a text
    layer): its document is indexed as nothing, so an earlier version of it goes."""

    document: SourceDocument
    reason: str


Found = SourceDocument | Blank | SourceRefusal | Unchanged
"""What reading an item gives: a document, or why none came."""


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """How folders and remote sources are loaded: which names to read (none: a folder's
    indexable suffixes, every file of a remote tree), the indexed ids and their revisions
    (to skip unchanged files), who hears ``(files done, files in all)`` of a remote tree,
    the bounds of each remote request, how many files a remote tree gives at most and the
    most characters of text kept of each file, local or remote (``budget``)."""

    patterns: Sequence[str] = ()
    known: Mapping[str, str | None] = field(default_factory=dict)
    progress: Callable[[int, int], None] | None = None
    limits: LoadLimits = field(default_factory=LoadLimits)
    max_files: float = DEFAULT_MAX_FILES
    budget: int = DEFAULT_BUDGET


@dataclass(frozen=True, slots=True)
class Item:
    """One piece of what a source holds, for workers to share: a source as given, or a
    file ``listed`` in a folder (read whatever its name when patterns chose it)."""

    source: str
    listed: bool = False


def items_of(source: str, files: LoadOptions) -> list[Item] | SourceRefusal:
    """``source`` cut into items: a folder's files one by one, a page by its address without
    its ``#fragment`` (one document however it is linked to), anything else whole; the
    ``SourceRefusal`` of a folder that holds no file to index."""
    if is_web_url(source):
        return [Item(page_address(source))]
    kind = None if is_remote(source) else _kind(Path(source))
    if kind is None or not stat.S_ISDIR(kind):
        return [Item(source)]
    paths = list(folder_files(Path(source), files.patterns))
    if not paths:
        kinds = ", ".join(files.patterns or INDEXABLE_SUFFIXES)
        return SourceRefusal(source, f"holds no file to index ({kinds})", "invalid")
    return [Item(str(path), listed=True) for path in paths]


def read_item(
    item: Item, pages: WebPageSource | None, mode: Mode, files: LoadOptions
) -> Iterator[Found]:
    """The documents of ``item`` (a web page read by ``pages``, a file, or what a remote
    loader brings), a ``SourceRefusal`` for each part that cannot be read, and ``Unchanged``
    for each file ``files.known`` holds at its present revision."""
    source = item.source
    if item.listed:
        yield _file(Path(source), mode, files, any_name=bool(files.patterns))
    elif is_remote(source):
        yield from _remote(source, files)
    elif is_web_url(source):
        assert pages is not None, "a page source is made whenever a source is a URL"
        yield _web_page(source, pages)
    else:
        kind = _kind(Path(source))
        if kind is None:
            yield SourceRefusal(source, "no such file, folder or URL", "invalid")
        elif not stat.S_ISREG(kind):
            yield SourceRefusal(source, NOT_REGULAR, "invalid")
        else:
            yield _file(Path(source), mode, files)


def _kind(path: Path) -> int | None:
    """The file type bits of what ``path`` names (a link followed), None when nothing is there."""
    try:
        return stat.S_IFMT(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def _file(path: Path, mode: Mode, files: LoadOptions, any_name: bool = False) -> Found:
    loaded: LoadedFile = load_file(path, files.known, mode, any_name, files.budget)
    if loaded.refused is not None:
        return SourceRefusal(str(path), loaded.refused, "invalid")
    if loaded.unchanged:
        return Unchanged(loaded.id)
    assert loaded.document is not None, "a file neither refused nor unchanged was read"
    return loaded.document if loaded.empty is None else Blank(loaded.document, loaded.empty)


def is_remote(source: str) -> bool:
    """Whether ``source`` names a remote service's documents (``s3://``, ``gs://``,
    ``github:``, ``notion:``)."""
    return source.startswith(REMOTE_PREFIXES)


def _remote(source: str, files: LoadOptions) -> Iterator[Found]:
    """The documents a remote loader brings from ``source``, and a ``SourceRefusal`` for
    each download that failed (or for the whole source)."""
    try:
        documents, failures = _load_remote(source, files)
    except InvalidArgument as error:
        yield SourceRefusal(source, str(error), "invalid")
        return
    except LoadError as error:
        yield SourceRefusal(
            source, str(error), "invalid" if error.code == PEER_MISSING else "failed"
        )
        return
    yield from documents
    yield from (SourceRefusal(f.source, f.reason, "failed") for f in failures)


def _load_remote(
    source: str, files: LoadOptions
) -> tuple[tuple[SourceDocument, ...], tuple[LoadFailure, ...]]:
    """What the loader for ``source``'s service reads (its address from the environment
    when set: ``GITHUB_API_URL``, ``CITESIFT_GITHUB_RAW_URL``, ``CITESIFT_NOTION_API_URL``,
    ``CITESIFT_GCS_API_URL``, ``AWS_ENDPOINT_URL``)."""
    if source.startswith("notion:"):
        api = os.environ.get("CITESIFT_NOTION_API_URL") or NOTION_API
        page = load_notion_page_sync(
            source.removeprefix("notion:"), None, files.limits, api=api, budget=files.budget
        )
        return (page,), ()
    if source.startswith("github:"):
        repo = replace(
            parse_github(source),
            api=os.environ.get("GITHUB_API_URL") or GITHUB_API,
            raw=os.environ.get("CITESIFT_GITHUB_RAW_URL") or GITHUB_RAW,
        )
        loaded = load_github_tree_sync(
            repo, files.patterns, files.max_files, files.limits, files.progress, files.budget
        )
    elif source.startswith("gs://"):
        bucket, prefix = parse_gcs(source)
        api = os.environ.get("CITESIFT_GCS_API_URL") or GCS_API
        loaded = run_sync(
            load_gcs(bucket, prefix, None, files.patterns, files.max_files, files.limits, api,
                     files.progress, files.budget)
        )  # fmt: skip
    else:
        loaded = load_s3_sync(
            parse_s3(source), files.patterns, files.max_files, files.limits,
            endpoint_url=os.environ.get("AWS_ENDPOINT_URL") or None, progress=files.progress,
            budget=files.budget,
        )  # fmt: skip
    return loaded.documents, loaded.failures


def _web_page(url: str, pages: WebPageSource) -> Found:
    """The page at ``url`` read politely (robots.txt, limits), or why it was not."""
    outcome = pages.read_sync(SourceHit(url, url))
    if isinstance(outcome, Document):
        return outcome.document
    return SourceRefusal(url, describe(outcome), "limited" if asks_to_wait(outcome) else "failed")
