"""What every public source offers: a search by phrase and a read of one hit."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypedDict, TypeVar, runtime_checkable

from citesift.errors import CitesiftError, DocumentError
from citesift.extract.html import checked_budget
from citesift.model import (
    MAX_BODY_BYTES,
    Document,
    FetchOutcome,
    ReadOutcome,
    SearchOutcome,
    Skipped,
    Snapshot,
    SourceDocument,
    SourceHit,
)
from citesift.net import ClientIdentity, Fetcher, FetchPolicy, run_sync
from citesift.net.limiter import OnSend
from citesift.net.policy import MAX_DEADLINE
from citesift.numbers import number_in
from citesift.sources.snapshots import fetching
from citesift.store import AnyStore
from citesift.text.addresses import carriable

DEFAULT_LIMIT = 2
MAX_LIMIT = 100
TEXT_BUDGET = 300_000
T = TypeVar("T")
Signal = asyncio.Event
"""The caller's abort signal: once set, a call in flight is abandoned and raises ``Aborted``."""


class Aborted(CitesiftError):
    """The caller's signal was set: the call was abandoned (nothing more is sent or read)."""


@runtime_checkable
class PublicSourceProvider(Protocol):
    """A public source: ``search`` answers hits, ``read`` answers a document.

    An argument that makes no sense (``limit=0``) is an ``InvalidArgument`` up front; after
    that, neither raises for a refusal or a failure: ``search`` answers ``Hits | Limited |
    Failed`` and ``read`` answers ``Document | Limited | Skipped``. Only the caller's own
    abort propagates: ``Aborted`` when its ``signal`` is set, or the task's cancellation.
    """

    site: str

    async def search(
        self,
        phrase: str,
        limit: int = DEFAULT_LIMIT,
        *,
        signal: Signal | None = None,
        on_send: OnSend | None = None,
    ) -> SearchOutcome: ...

    async def read(self, hit: SourceHit, *, signal: Signal | None = None) -> ReadOutcome: ...


async def abortable(call: Coroutine[Any, Any, T], signal: Signal | None) -> T:
    """``call``'s result, unless ``signal`` is set first: then ``call`` is cancelled (or
    never started) and ``Aborted`` raised."""
    if signal is None:
        return await call
    if signal.is_set():
        call.close()
        raise Aborted("the caller's signal was set before the call")
    work, stop = asyncio.ensure_future(call), asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait((work, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        work.cancel()  # nothing when it is done
    if work in done:
        return work.result()
    with contextlib.suppress(asyncio.CancelledError):
        await work
    raise Aborted("the caller's signal was set during the call")


class BlockingCalls:
    """``search_sync`` and ``read_sync`` for synchronous callers, also inside a running
    event loop (as in a notebook)."""

    def search_sync(
        self: PublicSourceProvider, phrase: str, limit: int = DEFAULT_LIMIT
    ) -> SearchOutcome:
        """``search`` run to completion."""
        return run_sync(self.search(phrase, limit))

    def read_sync(self: PublicSourceProvider, hit: SourceHit) -> ReadOutcome:
        """``read`` run to completion."""
        return run_sync(self.read(hit))


def checked_limit(limit: object) -> int:
    """``limit`` when it is a whole number of hits from 1 to ``MAX_LIMIT``, else
    ``InvalidArgument``."""
    return int(number_in("limit", limit, 1, MAX_LIMIT, whole=True))


class Bounds(Protocol):
    """What every source's limits have (beside byte caps of their own)."""

    @property
    def deadline(self) -> float: ...

    @property
    def text_budget(self) -> int: ...


def check_bounds(limits: Bounds, byte_caps: tuple[str, ...]) -> None:
    """``InvalidArgument`` naming the first bound of ``limits`` (a source's limits) that makes
    no sense: its ``deadline``, each of its ``byte_caps``, its ``text_budget``."""
    number_in("deadline", limits.deadline, 0, MAX_DEADLINE, above=True)
    for name in byte_caps:
        number_in(name, getattr(limits, name), 1, MAX_BODY_BYTES, whole=True)
    checked_budget(limits.text_budget, "text_budget", least=1)


class Access(TypedDict, total=False):
    """How a source may fetch, as keyword arguments of its constructor."""

    allow_private: bool  # fetch loopback, private and link-local addresses
    robots: bool  # honour robots.txt (each source has its own default)
    fetcher: Fetcher  # connections, limiters, robots.txt to share (default: a fresh one)
    store: AnyStore | None  # keep every snapshot here (or, offline, answer from it)
    offline: bool  # answer from the store alone, send nothing


class FetchingSource(BlockingCalls):
    """A source that reads one page per hit under a base policy: the shared constructor,
    text budget and ``read``; subclasses say where a hit lives and how its page is read."""

    site: str
    page_policy: FetchPolicy
    search_policy: FetchPolicy  # needed when ``search_request`` answers an address
    html_types: tuple[str, ...] = ("text/html",)

    def __init__(
        self,
        policy: Callable[..., FetchPolicy],
        identity: ClientIdentity,
        text_budget: object,
        access: Access,
    ) -> None:
        switches = {k: v for k, v in access.items() if k in ("allow_private", "robots")}
        self.base_policy = policy(identity, **switches)
        self.fetcher = fetching(
            access.get("fetcher") or Fetcher(), access.get("store"), access.get("offline", False)
        )
        self.text_budget = checked_budget(text_budget, "text_budget", least=1)

    async def search(
        self,
        phrase: str,
        limit: int = DEFAULT_LIMIT,
        *,
        signal: Signal | None = None,
        on_send: OnSend | None = None,
    ) -> SearchOutcome:
        """At most ``limit`` hits for ``phrase``."""
        limit = checked_limit(limit)
        request = self.search_request(phrase, limit)
        if not isinstance(request, str):
            return request  # answered without sending
        fetched = self.fetcher.fetch(request, self.search_policy, on_send=on_send)
        outcome = await abortable(fetched, signal)
        return self.search_answer(outcome, limit)

    def search_request(self, phrase: str, limit: int) -> str | SearchOutcome:
        """The search address to fetch, or the answer itself when nothing need be sent."""
        raise NotImplementedError

    def search_answer(self, outcome: FetchOutcome, limit: int) -> SearchOutcome:
        """A fetched search answer read as hits."""
        raise NotImplementedError

    async def read(
        self, hit: SourceHit, *, signal: Signal | None = None, on_send: OnSend | None = None
    ) -> ReadOutcome:
        """The hit's page as a document, or why not (``Skipped`` / ``Limited``)."""
        url = self.read_url(hit)
        if url is None:
            return Skipped(None, unaddressable(hit.key))
        outcome = await abortable(
            self.fetcher.fetch(url, self.page_policy, on_send=on_send), signal
        )
        if not isinstance(outcome, Snapshot):
            return outcome  # Limited, or Skipped with its status (a redirect's included)
        refusal = self.refusal(outcome)
        if refusal is not None:
            return refusal
        try:
            return Document(self.document(hit, outcome))
        except DocumentError as error:  # a PDF or Office file its reader refuses
            return Skipped(outcome.status, str(error))

    def read_url(self, hit: SourceHit) -> str | None:
        """The address of the hit's page, or None when no address can carry it."""
        return hit.key

    def refusal(self, snapshot: Snapshot) -> Skipped | None:
        """Why a fetched page is not read (a content type that is not HTML), or None."""
        if snapshot.content_type.lower().startswith(self.html_types):
            return None
        return Skipped(snapshot.status, f"content type {snapshot.content_type!r} is not HTML")

    def document(self, hit: SourceHit, snapshot: Snapshot) -> SourceDocument:
        """The page's text as a document attributed to ``hit``."""
        raise NotImplementedError


def unaddressable(key: str) -> str:
    """Why no address carries ``key``: it is empty, holds what no address can carry, or
    (else) is too long for one."""
    if not isinstance(key, str) or not key:
        return "the key is empty" if key == "" else "the key is not text"
    if not carriable(key):
        return "the key holds half of a surrogate pair, which no address can carry"
    return f"the key is too long for an address ({len(key):,} characters)"
