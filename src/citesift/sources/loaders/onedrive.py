"""OneDrive (Microsoft Graph): the files of a drive's folder and of the folders in it (each
folder listed once), following ``@odata.nextLink`` (a link met twice is an error), each
downloaded from its ``@microsoft.graph.downloadUrl``, a pre-authenticated link to which
the token is not sent. A token comes from ``ONEDRIVE_ACCESS_TOKEN`` unless given."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import pathspec

from citesift.errors import LOAD_FAILED, LoadError, invalid
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import SourceDocument
from citesift.net import run_sync
from citesift.sources.loaders.documents import loaded_document
from citesift.sources.loaders.limits import LoadLimits, file_count, token_from
from citesift.sources.loaders.pages import PageTrail
from citesift.sources.loaders.results import Loaded, Progress, answer_json, download_each, fetched

LABEL = "onedrive"
API = "https://graph.microsoft.com"
TOKEN_VARIABLE = "ONEDRIVE_ACCESS_TOKEN"


@dataclass(frozen=True, slots=True)
class _File:
    id: str
    name: str
    path: str
    link: str
    mime_type: str | None
    etag: str | None


async def load_onedrive(
    token: str | None = None,
    drive_id: str | None = None,
    folder_item_id: str | None = None,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    api: str = API,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """The files under a folder (``folder_item_id``; none: the drive's root) of a drive
    (``drive_id``; none: the signed-in user's) whose paths ``patterns`` name, the first
    ``max_files``, each a document named ``onedrive:{id}`` with its name and type, its
    text held to ``budget`` characters."""
    for name, value in (("drive_id", drive_id), ("folder_item_id", folder_item_id)):
        if value is not None and (not isinstance(value, str) or not value or "/" in value):
            raise invalid(name, value, "an item or drive id")
    count, budget = file_count(max_files), checked_budget(budget)
    limits = limits or LoadLimits()
    chosen = pathspec.GitIgnoreSpec.from_lines(list(patterns)) if patterns else None
    if count == 0:
        return Loaded()
    endpoint = limits.endpoint(api, LABEL, token_from(token, TOKEN_VARIABLE))
    drive = f"v1.0/drives/{quote(drive_id, safe='')}" if drive_id else "v1.0/me/drive"
    files = await _files(endpoint, drive, folder_item_id, chosen, count)

    async def download(item: _File) -> SourceDocument:
        link = limits.endpoint(item.link, LABEL)  # no token: the link carries its own grant
        answer = await fetched(link, item.link)
        meta = {"id": item.id, "name": item.name, "mimeType": item.mime_type}
        uri = f"onedrive:{item.id}"
        return loaded_document(
            answer.body, uri, item.name, site="onedrive", revision=item.etag,
            content_type=item.mime_type, metadata=meta, budget=budget,
        )  # fmt: skip

    return await download_each(LABEL, files, download, lambda f: f"onedrive:{f.id}", progress)


async def _files(
    endpoint: Any, drive: str, folder: str | None, chosen: pathspec.GitIgnoreSpec | None,
    count: int,
) -> list[_File]:  # fmt: skip
    """The first ``count`` chosen files, folders walked breadth first, each once."""
    start = f"{drive}/items/{quote(folder, safe='')}" if folder else f"{drive}/root"
    folders: deque[tuple[str, str]] = deque([(start, "")])
    listed: set[str] = {start}
    trail = PageTrail(LABEL)
    found: list[_File] = []
    while folders and len(found) < count:
        place, path = folders.popleft()
        target: str | None = f"{place}/children"
        while target is not None and len(found) < count:
            page = answer_json(await fetched(endpoint, target), LABEL)
            for item in _items(page):
                name = str(item.get("name", ""))
                if isinstance(item.get("folder"), dict):
                    inner = f"{drive}/items/{quote(str(item.get('id')), safe='')}"
                    if inner not in listed:
                        listed.add(inner)
                        folders.append((inner, f"{path}{name}/"))
                elif (file := _file(item, path + name)) and (
                    chosen is None or chosen.match_file(file.path)
                ):
                    found.append(file)
            link = page.get("@odata.nextLink") if isinstance(page, dict) else None
            target = None if link is None else _same_origin(trail.next(link), endpoint.base_url)
    return found[:count]


def _items(page: object) -> list[dict[str, Any]]:
    values = page.get("value") if isinstance(page, dict) else None
    if not isinstance(values, list):
        raise LoadError(LOAD_FAILED, f"{LABEL}: failed to read/parse response body")
    return [v for v in values if isinstance(v, dict)]


def _file(item: dict[str, Any], path: str) -> _File | None:
    """A file item with a download link, else None (a note, a package, a link-less file)."""
    link = item.get("@microsoft.graph.downloadUrl")
    details = item.get("file")
    if (
        not isinstance(details, dict)
        or not isinstance(link, str)
        or not isinstance(item.get("id"), str)
    ):
        return None
    parts = urlsplit(link)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return None
    mime = details.get("mimeType")
    etag = item.get("eTag")
    return _File(
        item["id"], str(item.get("name", "")), path, link,
        mime if isinstance(mime, str) else None, etag if isinstance(etag, str) else None,
    )  # fmt: skip


def _same_origin(link: str, base: str) -> str:
    """``link`` when it is on the API's own origin: the token is never sent elsewhere."""
    here, there = urlsplit(link), urlsplit(base)
    if (here.scheme, here.netloc) != (there.scheme, there.netloc):
        raise LoadError(LOAD_FAILED, f"{LABEL}: a next page on another origin: {here.netloc}")
    return link


def load_onedrive_sync(
    token: str | None = None,
    drive_id: str | None = None,
    folder_item_id: str | None = None,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    api: str = API,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """``load_onedrive`` from synchronous code."""
    return run_sync(
        load_onedrive(
            token, drive_id, folder_item_id, patterns, max_files, limits, api, progress, budget
        )
    )
