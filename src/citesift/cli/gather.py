"""What ``index add`` was given, read into documents: each file, folder or URL gives its
documents, and each that cannot be read a ``Refusal`` saying why, so one bad source among
many never stops the rest."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from citesift.cli.options import EXIT_USAGE
from citesift.cli.reading import EXIT_FAILED, describe, exit_status
from citesift.errors import PEER_MISSING, InvalidArgument, LoadError
from citesift.extract.rules import Mode
from citesift.model import Document, SourceDocument, SourceHit
from citesift.net import run_sync
from citesift.settings import SourceSetup
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
from citesift.sources.web import is_web_url

REMOTE_PREFIXES = ("s3://", "gs://", "github:", "notion:")


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
class LoadOptions:
    """How folders and remote sources are loaded: which names to read (none: a folder's
    indexable suffixes, every file of a remote tree), the indexed ids and their revisions
    (to skip unchanged files), who hears ``(files done, files in all)``, the bounds of
    each remote request and how many files a remote tree gives at most."""

    patterns: Sequence[str] = ()
    known: Mapping[str, str | None] = field(default_factory=dict)
    progress: Callable[[int, int], None] | None = None
    limits: LoadLimits = field(default_factory=LoadLimits)
    max_files: float = DEFAULT_MAX_FILES


def gather(
    source: str, setup: SourceSetup | None, mode: Mode, files: LoadOptions | None = None
) -> Iterator[Any | Refusal | Unchanged]:
    """The documents of ``source`` (a web page read with ``setup``, a file, or the files of a
    folder), a ``Refusal`` for each part that cannot be read, and ``Unchanged`` for each
    file ``files.known`` holds at its present revision."""
    files = files or LoadOptions()
    if is_remote(source):
        yield from _remote(source, files)
        return
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


@dataclass(frozen=True, slots=True)
class Item:
    """One piece of what ``gather`` reads, for workers to share: a source as given, or a
    file ``listed`` in a folder (read whatever its name when patterns chose it)."""

    source: str
    listed: bool = False


def items_of(source: str, files: LoadOptions) -> list[Item] | Refusal:
    """``source`` cut into items: a folder's files one by one, anything else whole; the
    ``Refusal`` of a folder that holds no file to index."""
    kind = None if is_remote(source) or is_web_url(source) else _kind(Path(source))
    if kind is None or not stat.S_ISDIR(kind):
        return [Item(source)]
    paths = _listing(Path(source), files)
    if isinstance(paths, Refusal):
        return paths
    return [Item(str(path), listed=True) for path in paths]


def gather_item(
    item: Item, setup: SourceSetup | None, mode: Mode, files: LoadOptions
) -> Iterator[Any | Refusal | Unchanged]:
    """What ``gather`` reads of one item."""
    if item.listed:
        yield _file(Path(item.source), mode, files, any_name=bool(files.patterns))
    else:
        yield from gather(item.source, setup, mode, files)


def _listing(folder: Path, files: LoadOptions) -> list[Path] | Refusal:
    """The files of ``folder`` to read, or a ``Refusal`` when there is none."""
    paths = list(folder_files(folder, files.patterns))
    if not paths:
        kinds = ", ".join(files.patterns or INDEXABLE_SUFFIXES)
        return Refusal(str(folder), f"holds no file to index ({kinds})", EXIT_USAGE)
    return paths


def _folder(folder: Path, mode: Mode, files: LoadOptions) -> Iterator[Any | Refusal | Unchanged]:
    paths = _listing(folder, files)
    if isinstance(paths, Refusal):
        yield paths
        return
    for done, path in enumerate(paths, 1):
        yield _file(path, mode, files, any_name=bool(files.patterns))
        if files.progress is not None:
            files.progress(done, len(paths))


def _file(
    path: Path, mode: Mode, files: LoadOptions, any_name: bool = False
) -> Any | Refusal | Unchanged:
    loaded: LoadedFile = load_file(path, files.known, mode, any_name)
    if loaded.refused is not None:
        return Refusal(str(path), loaded.refused, EXIT_USAGE)
    return Unchanged(loaded.id) if loaded.unchanged else loaded.document


def is_remote(source: str) -> bool:
    """Whether ``source`` names a remote service's documents (``s3://``, ``gs://``,
    ``github:``, ``notion:``)."""
    return source.startswith(REMOTE_PREFIXES)


def _remote(source: str, files: LoadOptions) -> Iterator[Any | Refusal]:
    """The documents a remote loader brings from ``source``, and a ``Refusal`` for each
    download that failed (or for the whole source)."""
    try:
        documents, failures = _load_remote(source, files)
    except InvalidArgument as error:
        yield Refusal(source, str(error), EXIT_USAGE)
        return
    except LoadError as error:
        yield Refusal(source, str(error), EXIT_USAGE if error.code == PEER_MISSING else EXIT_FAILED)
        return
    yield from documents
    yield from (Refusal(f.source, f.reason, EXIT_FAILED) for f in failures)


def _load_remote(
    source: str, files: LoadOptions
) -> tuple[tuple[SourceDocument, ...], tuple[LoadFailure, ...]]:
    """What the loader for ``source``'s service reads (its address from the environment
    when set: ``GITHUB_API_URL``, ``CITESIFT_GITHUB_RAW_URL``, ``CITESIFT_NOTION_API_URL``,
    ``CITESIFT_GCS_API_URL``, ``AWS_ENDPOINT_URL``)."""
    if source.startswith("notion:"):
        api = os.environ.get("CITESIFT_NOTION_API_URL") or NOTION_API
        page = load_notion_page_sync(source.removeprefix("notion:"), None, files.limits, api=api)
        return (page,), ()
    if source.startswith("github:"):
        repo = replace(
            parse_github(source),
            api=os.environ.get("GITHUB_API_URL") or GITHUB_API,
            raw=os.environ.get("CITESIFT_GITHUB_RAW_URL") or GITHUB_RAW,
        )
        loaded = load_github_tree_sync(
            repo, files.patterns, files.max_files, files.limits, files.progress
        )
    elif source.startswith("gs://"):
        bucket, prefix = parse_gcs(source)
        api = os.environ.get("CITESIFT_GCS_API_URL") or GCS_API
        loaded = run_sync(
            load_gcs(bucket, prefix, None, files.patterns, files.max_files, files.limits, api,
                     files.progress)
        )  # fmt: skip
    else:
        loaded = load_s3_sync(
            parse_s3(source), files.patterns, files.max_files, files.limits,
            endpoint_url=os.environ.get("AWS_ENDPOINT_URL") or None, progress=files.progress,
        )  # fmt: skip
    return loaded.documents, loaded.failures


def _web_page(url: str, setup: SourceSetup, mode: Mode) -> Any | Refusal:
    """The page at ``url`` read politely (robots.txt, limits), or why it was not."""
    outcome = setup.web_pages(mode).read_sync(SourceHit(url, url))
    if isinstance(outcome, Document):
        return outcome.document
    return Refusal(url, describe(outcome), exit_status(outcome))
