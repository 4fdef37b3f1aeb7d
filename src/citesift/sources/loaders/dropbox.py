"""Dropbox: the files of a folder and everything under it (``files/list_folder`` with
``recursive``, then ``list_folder/continue`` while ``has_more``; a cursor met twice is an
error), each downloaded through ``files/download``. The token comes from
``DROPBOX_ACCESS_TOKEN`` unless given."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pathspec

from citesift.clients import Endpoint
from citesift.errors import LOAD_FAILED, LoadError, invalid
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import SourceDocument
from citesift.net import run_sync
from citesift.sources.loaders.documents import loaded_document
from citesift.sources.loaders.limits import LoadLimits, file_count, token_from
from citesift.sources.loaders.pages import PageTrail
from citesift.sources.loaders.results import Loaded, Progress, answer_json, download_each, fetched

LABEL = "dropbox"
API = "https://api.dropboxapi.com"
CONTENT = "https://content.dropboxapi.com"
TOKEN_VARIABLE = "DROPBOX_ACCESS_TOKEN"


@dataclass(frozen=True, slots=True)
class _Entry:
    path: str
    shown: str
    rev: str | None


async def load_dropbox(
    path: str = "",
    token: str | None = None,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    api: str = API,
    content: str = CONTENT,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """The files under the folder ``path`` ("" for the whole Dropbox) whose paths
    ``patterns`` choose, the first ``max_files``, each named ``dropbox:{path}`` (as
    displayed, else in lower case) at its revision, its text held to ``budget``
    characters."""
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise invalid("path", path, "'' or a folder path starting with /")
    count, budget = file_count(max_files), checked_budget(budget)
    limits = limits or LoadLimits()
    chosen = pathspec.GitIgnoreSpec.from_lines(list(patterns)) if patterns else None
    if count == 0:
        return Loaded()
    secret = token_from(token, TOKEN_VARIABLE)
    entries = await _entries(limits.endpoint(api, LABEL, secret), path, chosen, count)
    downloads = limits.endpoint(content, LABEL, secret)

    async def download(entry: _Entry) -> SourceDocument:
        argument = json.dumps({"path": entry.path})  # ASCII: \\u escapes, as the header needs
        answer = await fetched(downloads, "2/files/download", {"Dropbox-API-Arg": argument},
                               method="POST")  # fmt: skip
        name = entry.shown.rsplit("/", 1)[-1]
        meta = {"path": entry.shown}
        return loaded_document(answer.body, f"dropbox:{entry.shown}", name, site="dropbox",
                               revision=entry.rev, metadata=meta, budget=budget)  # fmt: skip

    return await download_each(LABEL, entries, download, lambda e: f"dropbox:{e.shown}",
                               progress)  # fmt: skip


async def _entries(
    endpoint: Endpoint, path: str, chosen: pathspec.GitIgnoreSpec | None, count: int
) -> list[_Entry]:
    """The first ``count`` chosen files of the listing, its pages followed."""
    found: list[_Entry] = []
    trail = PageTrail(LABEL)
    target, payload = "2/files/list_folder", {"path": path, "recursive": True}
    while True:
        answer = await fetched(endpoint, target, method="POST", payload=payload)
        page = answer_json(answer, LABEL)
        entries = page.get("entries") if isinstance(page, dict) else None
        if not isinstance(page, dict) or not isinstance(entries, list):
            raise LoadError(LOAD_FAILED, f"{LABEL}: failed to read/parse response body")
        for entry in map(_entry, entries):
            if entry is not None and (chosen is None or chosen.match_file(entry.shown.lstrip("/"))):
                found.append(entry)
        if len(found) >= count or not page.get("has_more"):
            return found[:count]
        target = "2/files/list_folder/continue"
        payload = {"cursor": trail.next(page.get("cursor"))}


def _entry(item: Any) -> _Entry | None:
    """A file entry (not a folder or a deleted one), else None."""
    if not isinstance(item, dict) or item.get(".tag") != "file":
        return None
    lower, shown, rev = item.get("path_lower"), item.get("path_display"), item.get("rev")
    path = lower if isinstance(lower, str) else item.get("id")
    if not isinstance(path, str):
        return None
    return _Entry(path, shown if isinstance(shown, str) else path,
                  rev if isinstance(rev, str) else None)  # fmt: skip


def load_dropbox_sync(
    path: str = "",
    token: str | None = None,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    api: str = API,
    content: str = CONTENT,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """``load_dropbox`` from synchronous code."""
    return run_sync(
        load_dropbox(path, token, patterns, max_files, limits, api, content, progress, budget)
    )
