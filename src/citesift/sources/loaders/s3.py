"""S3 (and any S3-compatible store): the objects under a prefix, listed page by page
(``ListObjectsV2``: ``IsTruncated`` and ``NextContinuationToken``; a token met twice is an
error), chosen by pattern, read one at a time under the byte cap and the deadline, with
boto3 (the ``citesift[s3]`` extra). Credentials come from boto3's usual chain (the
environment, its files); ``AWS_ENDPOINT_URL`` or ``endpoint_url`` names another server."""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import pathspec

from citesift.errors import LOAD_FAILED, PEER_MISSING, LoadError, invalid
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import SourceDocument
from citesift.net import run_sync
from citesift.sources.loaders.documents import loaded_document
from citesift.sources.loaders.limits import LoadLimits, file_count
from citesift.sources.loaders.pages import PageTrail
from citesift.sources.loaders.results import Loaded, Progress, download_each

LABEL = "s3"
READ_STEP = 64 * 1024
CREDENTIALS_HELP = (
    "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary"
    " ones), or AWS_PROFILE naming a profile of ~/.aws/credentials or ~/.aws/config"
)
"""Where boto3's chain looks for credentials, said when it found none."""
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class S3Prefix:
    """A bucket and the prefix of the keys to load (empty: the whole bucket)."""

    bucket: str
    prefix: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.bucket, str) or not _BUCKET.fullmatch(self.bucket):
            raise invalid("bucket", self.bucket, "an S3 bucket name")
        if not isinstance(self.prefix, str) or len(self.prefix) > 1024:
            raise invalid("prefix", self.prefix, "a key prefix of at most 1024 characters")

    def uri(self, key: str) -> str:
        return f"s3://{self.bucket}/{key}"


def parse_s3(spec: str) -> S3Prefix:
    """``s3://bucket/prefix`` as the prefix it names."""
    match = re.fullmatch(r"s3://([^/]+)/?(.*)", spec, re.DOTALL)
    if match is None:
        raise invalid("source", spec, "s3://bucket/prefix")
    return S3Prefix(match.group(1), match.group(2))


def s3_client(limits: LoadLimits, endpoint_url: str | None = None) -> Any:
    """A boto3 S3 client whose connections and reads wait no longer than the deadline and
    which does not try a failed call again; ``LoadError`` PEER_MISSING without boto3."""
    try:
        import boto3  # type: ignore[import-untyped]
        from botocore.config import Config  # type: ignore[import-untyped]
    except ImportError as error:
        message = f"{LABEL}: boto3 is not installed (pip install 'citesift[s3]')"
        raise LoadError(PEER_MISSING, message) from error
    seconds = limits.timeout_ms / 1000
    config = Config(
        connect_timeout=seconds,
        read_timeout=seconds,
        retries={"max_attempts": 1, "mode": "standard"},
        s3={"addressing_style": "path"} if endpoint_url else None,
    )
    return boto3.client("s3", endpoint_url=endpoint_url, config=config)


async def load_s3(
    where: S3Prefix,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    client: Any = None,
    endpoint_url: str | None = None,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """The objects under ``where`` whose keys ``patterns`` name (``.gitignore`` wildcards;
    none: all), the first ``max_files``, each read into a document named ``s3://bucket/key``
    whose revision is its ETag, its text held to ``budget`` characters. ``max_files`` of 0
    or less lists nothing."""
    count, budget = file_count(max_files), checked_budget(budget)
    limits = limits or LoadLimits()
    chosen = pathspec.GitIgnoreSpec.from_lines(list(patterns)) if patterns else None
    if count == 0:
        return Loaded()
    s3 = client if client is not None else s3_client(limits, endpoint_url)
    keys = await _keys(s3, where, chosen, count, limits)

    async def download(key: str) -> SourceDocument:
        uri = where.uri(key)
        body, etag = await _bounded(limits, lambda: _read(s3, where, key, limits), uri)
        meta = {"bucket": where.bucket, "key": key}
        name = key.rsplit("/", 1)[-1]
        return loaded_document(
            body, uri, name, site="s3", revision=etag, metadata=meta, budget=budget
        )

    return await download_each(LABEL, keys, download, where.uri, progress)


async def _keys(
    s3: Any, where: S3Prefix, chosen: pathspec.GitIgnoreSpec | None, count: int,
    limits: LoadLimits,
) -> list[str]:  # fmt: skip
    """The first ``count`` keys under the prefix that the patterns choose (no folders)."""
    keys: list[str] = []
    token: str | None = None
    trail = PageTrail(LABEL)
    while True:
        asked = {"Bucket": where.bucket, "Prefix": where.prefix}
        if token:
            asked["ContinuationToken"] = token
        page = await _bounded(limits, _listing(s3, asked), where.uri(where.prefix))
        keys.extend(key for key in _page_keys(page) if chosen is None or chosen.match_file(key))
        if len(keys) >= count or not page.get("IsTruncated"):
            return keys[:count]
        token = trail.next(page.get("NextContinuationToken"))


def _listing(s3: Any, asked: dict[str, str]) -> Callable[[], Any]:
    """One ``ListObjectsV2`` call, to run on a worker thread."""
    return lambda: s3.list_objects_v2(**asked)


def _page_keys(page: Any) -> list[str]:
    """The object keys of a listing page (not the folder markers ending in ``/``)."""
    items = page.get("Contents") if isinstance(page, dict) else None
    keys = [item.get("Key") for item in items or [] if isinstance(item, dict)]
    return [key for key in keys if isinstance(key, str) and not key.endswith("/")]


async def _bounded(limits: LoadLimits, call: Callable[[], T], uri: str) -> T:
    """``call`` (a blocking SDK call) on a thread of its own within the deadline; its errors
    as ``LoadError``."""
    try:
        return await asyncio.wait_for(_on_thread(call), limits.timeout_ms / 1000)
    except TimeoutError as error:
        raise LoadError(LOAD_FAILED, f"{LABEL}: timed out after {limits.timeout_ms}ms") from error
    except LoadError:
        raise
    except Exception as error:  # botocore's errors and the network's, named by the SDK
        raise LoadError(LOAD_FAILED, _failure(error, uri)) from error


async def _on_thread(call: Callable[[], T]) -> T:
    """``call`` on a daemon thread: a call the deadline gave up on (a body trickling in
    byte by byte never ends a read) neither holds up the caller's event loop closing nor
    the interpreter's exit; it ends with its connection."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():  # cancelled: the deadline or the caller gave up
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        try:
            outcome: tuple[T | None, BaseException | None] = (call(), None)
        except BaseException as error:  # handed to the awaiting task, raised there
            outcome = (None, error)
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=work, name="citesift-s3", daemon=True).start()
    return await future


def _read(s3: Any, where: S3Prefix, key: str, limits: LoadLimits) -> tuple[bytes, str | None]:
    """An object's bytes and ETag: ``LoadError`` past the cap or the deadline (the read
    stops there, so the worker thread ends too)."""
    stop = time.monotonic() + limits.timeout_ms / 1000
    cap = limits.max_response_bytes
    answer = s3.get_object(Bucket=where.bucket, Key=key)
    stream = answer.get("Body")
    if stream is None or not hasattr(stream, "read"):
        raise LoadError(LOAD_FAILED, f"{LABEL}: failed to read/parse response body")
    too_large = LoadError(LOAD_FAILED, f"{LABEL}: response exceeds {cap} bytes")
    try:
        if int(answer.get("ContentLength") or 0) > cap:
            raise too_large
        body = bytearray()
        while piece := stream.read(READ_STEP):
            body += piece
            if len(body) > cap:
                raise too_large
            if time.monotonic() > stop:
                raise LoadError(LOAD_FAILED, f"{LABEL}: timed out after {limits.timeout_ms}ms")
    finally:
        stream.close()
    etag = answer.get("ETag")
    return bytes(body), etag.strip('"') if isinstance(etag, str) else None


def _failure(error: Exception, uri: str) -> str:
    """What went wrong, in the words ``{label} {status}: {uri}`` when S3 answered; missing
    credentials named with where boto3 looks for them (nothing was sent)."""
    response = getattr(error, "response", None)
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode") if response else None
    if isinstance(status, int):
        return f"{LABEL} {status}: {uri}"
    if _no_credentials(error):
        return f"{LABEL}: no AWS credentials for {uri}: {CREDENTIALS_HELP}"
    return f"{LABEL}: network error for {uri} ({type(error).__name__})"


def _no_credentials(error: Exception) -> bool:
    """Whether boto3 found no credentials, or only part of them, before sending anything."""
    try:
        from botocore.exceptions import (  # type: ignore[import-untyped]
            NoCredentialsError,
            PartialCredentialsError,
        )
    except ImportError:  # a client handed in without botocore: not its error
        return False
    return isinstance(error, NoCredentialsError | PartialCredentialsError)


def load_s3_sync(
    where: S3Prefix,
    patterns: Sequence[str] = (),
    max_files: float = 100,
    limits: LoadLimits | None = None,
    client: Any = None,
    endpoint_url: str | None = None,
    progress: Progress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """``load_s3`` from synchronous code."""
    return run_sync(
        load_s3(where, patterns, max_files, limits, client, endpoint_url, progress, budget)
    )
