"""Fetchers composed over a store: one that replays stored snapshots, one that saves them.

Both keep the ``citesift.net.Fetches`` shape, so a source holds either as it holds a plain
``Fetcher``; ``net`` itself knows no store. A replay sends nothing: it answers the latest
snapshot fetched from the URL (asked for, or reached by redirect), or ``Skipped``; a page
narrowed by selectors is kept too, but only a part of the page: the page it was narrowed
from answers for it. A save
keeps each ``Snapshot`` the inner fetcher answers (only whole bodies become snapshots: a
body cut short is a ``Skipped`` and never stored); a store that cannot keep it turns the
answer into ``Skipped``, so nothing is cited that cannot be replayed. The robots.txt rules
a map asks for are read from the file a save fetches through itself (so it is kept) and a
replay answers from the store, so a replayed map leaves out what the saved one did. A save
asks the inner fetcher for the rules its fetches already hold (robots.txt is fetched once per
origin) and keeps the file they were read from.
"""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import Executor

from citesift.errors import StoreError
from citesift.model import FetchOutcome, Skipped, Snapshot
from citesift.net import Fetcher, Fetches, FetchPolicy, LimiterRegistry
from citesift.net.limiter import OnSend
from citesift.net.robots import RobotsRules, read_robots, robots_address
from citesift.store import AnyStore
from citesift.store.limits import budget_in
from citesift.store.snapshots import Snapshots, snapshots_in

DERIVED_HEADER = "x-citesift-derived"
"""Marks a snapshot made here rather than fetched: ``rendered`` or ``narrowed``."""
SOURCE_HEADER = "x-citesift-derived-from"
"""On a snapshot made here: the id of the snapshot it was made from."""
RENDERED, NARROWED = "rendered", "narrowed"


def latest_page(snapshots: Snapshots, url: str) -> Snapshot | None:
    """The latest snapshot of the page at ``url``: a narrowed one (a part of the page)
    stands for the snapshot it was narrowed from."""
    found = snapshots.latest(url)
    if found is None or found.header(DERIVED_HEADER) != NARROWED:
        return found
    source = found.header(SOURCE_HEADER)
    return snapshots.get(source) if source else None


class ReplayingFetcher:
    """Answers every fetch from the snapshots of ``store`` (none when it is None); nothing
    is sent."""

    def __init__(self, store: AnyStore | Snapshots | None) -> None:
        self.snapshots = None if store is None else snapshots_in(store)

    async def fetch(
        self, url: str, policy: FetchPolicy, *, on_send: OnSend | None = None
    ) -> FetchOutcome:
        """The latest stored snapshot of ``url``, or ``Skipped(None)`` saying why not."""
        if self.snapshots is None:
            return Skipped(None, "offline, and no store to answer from")
        try:
            found = latest_page(self.snapshots, url)
        except (sqlite3.Error, StoreError) as error:
            return Skipped(None, f"the store cannot answer: {error}")
        return found if found is not None else Skipped(None, "not in the store")

    async def robots_rules(self, url: str, policy: FetchPolicy) -> RobotsRules | None:
        """The rules of the robots.txt of ``url``'s origin kept in the store (a save keeps
        it), or None when it holds none."""
        address = robots_address(url)
        found = await self.fetch(address, policy) if address is not None else None
        return read_robots(found) if isinstance(found, Snapshot) else None


class SavingFetcher:
    """Fetches through ``inner`` and keeps every snapshot it answers in ``store``, each save
    run off the event loop by ``calls`` (the loop's default executor when None)."""

    def __init__(
        self, inner: Fetches, store: AnyStore | Snapshots, calls: Executor | None = None
    ) -> None:
        self.inner = inner
        self.snapshots = snapshots_in(store)
        self.calls = calls
        self._kept_files: set[tuple[str, str]] = set()  # robots.txt files kept: URL, id

    async def fetch(
        self, url: str, policy: FetchPolicy, *, on_send: OnSend | None = None
    ) -> FetchOutcome:
        """``inner``'s answer, its snapshot saved (off the loop: a store call is a round trip
        other fetches need not wait for); ``Skipped`` when the store cannot keep it."""
        outcome = await self.inner.fetch(url, policy, on_send=on_send)
        if not isinstance(outcome, Snapshot):
            return outcome
        try:
            await self.keep(outcome)
        except (sqlite3.Error, StoreError) as error:
            return Skipped(outcome.status, f"fetched but not kept: {error}")
        return outcome

    async def keep(self, snapshot: Snapshot) -> None:
        """Save ``snapshot`` in the store, off the event loop (by ``calls``)."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self.calls, self.snapshots.save, snapshot)

    async def robots_rules(self, url: str, policy: FetchPolicy) -> RobotsRules | None:
        """The rules of the robots.txt of ``url``'s origin as ``inner`` holds them (fetched
        once per origin, for its fetches and this alike), the file they were read from kept
        in the store for a replay (once per file); None when it is no URL or the limiter
        refused the file."""
        rules = await self.inner.robots_rules(url, policy)
        file = rules.file if rules is not None else None
        if file is not None and (file.url, file.id) not in self._kept_files:
            try:
                await self.keep(file)
            except (sqlite3.Error, StoreError):
                return rules  # the rules hold all the same; a replay then finds no file
            self._kept_files.add((file.url, file.id))
        return rules


def fetching(fetcher: Fetcher, store: AnyStore | None, offline: bool) -> Fetches:
    """What a source fetches through: ``fetcher``; saving to ``store`` when one is given;
    replaying from it alone when ``offline`` (with no store, offline answers nothing)."""
    if offline:
        return ReplayingFetcher(store)
    return SavingFetcher(fetcher, store) if store is not None else fetcher


def shared_fetcher(store: AnyStore) -> Fetcher:
    """A ``Fetcher`` whose limiters share spacing, the minute budget and 429/503 blocks with
    every process using ``store`` (so a host's block outlives the process told of it)."""
    return Fetcher(LimiterRegistry(budget=budget_in(store)))
