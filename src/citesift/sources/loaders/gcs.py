"""Google Cloud Storage (its JSON API): the objects under a prefix, listed page by page
(``pageToken``; a token met twice is an error), chosen by pattern, each downloaded with
``alt=media``. The access token is text or a function (plain or async) asked afresh for
each request, so a token that expires mid-load is renewed; without one,
``GOOGLE_OAUTH_ACCESS_TOKEN``."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import quote, urlencode

import pathspec

from citesift.clients import Endpoint
from citesift.errors import LOAD_FAILED, LoadError, invalid, unshown
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import SourceDocument
from citesift.net import run_sync
from citesift.sources.loaders.documents import loaded_document
from citesift.sources.loaders.limits import LoadLimits, file_count, token_from
from citesift.sources.loaders.pages import PageTrail
from citesift.sources.loaders.results import Loaded, Progress, answer_json, download_each, fetched

LABEL = "gcs"
API = "https://storage.googleapis.com"
TOKEN_VARIABLE = "GOOGLE_OAUTH_ACCESS_TOKEN"
_BUCKET = re.compile(r"[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]")
Token = str | Callable[[], str] | Callable[[], Awaitable[str]]


def parse_gcs(spec: str) -> tuple[str, str]:
    """``gs://bucket/prefix`` as its bucket and prefix."""
    match = re.fullmatch(r"gs://([^/]+)/?(.*)", spec, re.DOTALL)
    if match is None or not _BUCKET.fullmatch(match.group(1)):
        raise invalid("source", spec, "gs://bucket/prefix")
    return match.group(1), match.group(2)


async def load_gcs(
    bucket: str,
    prefix: str = "",
    token: Token | None = None,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    api: str = API,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """The objects of ``bucket`` under ``prefix`` whose names ``patterns`` choose, the
    first ``max_files``, each a document named ``gs://bucket/name`` at its generation,
    its text held to ``budget`` characters."""
    if not isinstance(bucket, str) or not _BUCKET.fullmatch(bucket):
        raise invalid("bucket", bucket, "a Cloud Storage bucket name")
    if not isinstance(prefix, str):
        raise invalid("prefix", prefix, "text")
    count, budget = file_count(max_files), checked_budget(budget)
    limits = limits or LoadLimits()
    chosen = pathspec.GitIgnoreSpec.from_lines(list(patterns)) if patterns else None
    if count == 0:
        return Loaded()
    given = token if callable(token) else token_from(token, TOKEN_VARIABLE)
    endpoint = limits.endpoint(api, LABEL)
    base = f"storage/v1/b/{quote(bucket, safe='')}/o"
    objects = await _objects(endpoint, base, prefix, given, chosen, count)

    async def download(item: tuple[str, str | None]) -> SourceDocument:
        name, generation = item
        target = f"{base}/{quote(name, safe='')}?alt=media"
        answer = await fetched(endpoint, target, await _auth(given))
        uri = f"gs://{bucket}/{name}"
        meta = {"bucket": bucket, "name": name}
        short = name.rsplit("/", 1)[-1]
        kind = answer.headers.get("content-type")
        return loaded_document(
            answer.body, uri, short, site="gcs", revision=generation, content_type=kind,
            metadata=meta, budget=budget,
        )  # fmt: skip

    return await download_each(LABEL, objects, download, lambda o: f"gs://{bucket}/{o[0]}",
                               progress)  # fmt: skip


async def _objects(
    endpoint: Endpoint, base: str, prefix: str, token: Token | None,
    chosen: pathspec.GitIgnoreSpec | None, count: int,
) -> list[tuple[str, str | None]]:  # fmt: skip
    """The first ``count`` chosen objects (name, generation), pages followed."""
    found: list[tuple[str, str | None]] = []
    trail = PageTrail(LABEL)
    query = {"prefix": prefix}
    while True:
        answer = await fetched(endpoint, f"{base}?{urlencode(query)}", await _auth(token))
        page = answer_json(answer, LABEL)
        items = page.get("items", []) if isinstance(page, dict) else None
        if not isinstance(page, dict) or not isinstance(items, list):
            raise LoadError(LOAD_FAILED, f"{LABEL}: failed to read/parse response body")
        for item in items:
            name = item.get("name") if isinstance(item, dict) else None
            if (
                isinstance(name, str)
                and not name.endswith("/")
                and (chosen is None or chosen.match_file(name))
            ):
                generation = item.get("generation")
                found.append((name, str(generation) if generation is not None else None))
        if len(found) >= count or not page.get("nextPageToken"):
            return found[:count]
        query["pageToken"] = trail.next(page.get("nextPageToken"))


async def _auth(token: Token | None) -> dict[str, str]:
    """The Authorization header, the token asked for now when it is a function."""
    value = token() if callable(token) else token
    if inspect.isawaitable(value):
        value = await value
    if value is None:
        return {}
    if not isinstance(value, str) or not value:
        raise unshown("token", "text, or a function giving text (it is not shown)")
    return {"Authorization": f"Bearer {value}"}


def load_gcs_sync(
    bucket: str,
    prefix: str = "",
    token: Token | None = None,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    api: str = API,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """``load_gcs`` from synchronous code."""
    return run_sync(
        load_gcs(bucket, prefix, token, patterns, max_files, limits, api, progress, budget)
    )
