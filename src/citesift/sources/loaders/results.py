"""What a loader brings back: the documents read, and each download that failed and why;
a tree or list loader fails as a whole only when every download failed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from citesift.clients import Answer, ClientError, Endpoint, request
from citesift.errors import LOAD_FAILED, InvalidArgument, LoadError, masked
from citesift.model import SourceDocument

T = TypeVar("T")
Progress = Callable[[int, int], None]
"""Hears ``(downloads done, downloads in all)``."""


@dataclass(frozen=True, slots=True)
class LoadFailure:
    """One download that failed: what it was (its URI, an address as the caller gave it, to
    match it back) and why (any secret of a URL said in it ``masked``)."""

    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class Loaded:
    """The documents a loader read, in its order, and the downloads that failed."""

    documents: tuple[SourceDocument, ...] = ()
    failures: tuple[LoadFailure, ...] = ()


async def download_each(
    label: str,
    items: Sequence[T],
    download: Callable[[T], Awaitable[SourceDocument]],
    name: Callable[[T], str],
    progress: Progress | None = None,
) -> Loaded:
    """``download`` each item in turn (``progress`` hears ``(done, total)`` after each): a
    failure is kept and the next item tried; when every one failed, ``LoadError``. The
    caller's cancellation goes through untouched."""
    documents: list[SourceDocument] = []
    failures: list[LoadFailure] = []
    for done, item in enumerate(items, 1):
        try:
            documents.append(await download(item))
        except (LoadError, InvalidArgument) as error:  # an item the service named oddly too
            failures.append(LoadFailure(name(item), str(error)))
        if progress is not None:
            progress(done, len(items))
    if items and not documents:
        raise LoadError(LOAD_FAILED, f"{label}: all eligible downloads failed")
    return Loaded(tuple(documents), tuple(failures))


async def fetched(
    endpoint: Endpoint,
    target: str,
    headers: dict[str, str] | None = None,
    method: str = "GET",
    payload: object = None,
) -> Answer:
    """A 2xx answer from ``target``: a ``LoadError`` for any other status (``{label}
    {status}: {address}``), a timeout, a body past the cap or a network failure."""
    try:
        answer = await request(endpoint, method, target, headers=headers, payload=payload)
    except ClientError as error:
        raise LoadError(LOAD_FAILED, str(error)) from error
    if not answer.ok:
        whole = target if target.startswith(("https://", "http://")) else endpoint.url(target)
        address = whole.split("?")[0]
        raise LoadError(LOAD_FAILED, f"{endpoint.label} {answer.status}: {masked(address)}")
    return answer


def answer_json(answer: Answer, label: str) -> object:
    """The answer's body as JSON, or ``LoadError`` saying it could not be parsed."""
    try:
        return answer.json(label)
    except ClientError as error:
        raise LoadError(LOAD_FAILED, f"{label}: failed to read/parse response body") from error
