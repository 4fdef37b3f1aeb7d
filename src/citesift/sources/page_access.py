"""How the web pages among many sources are read, as a value a worker process can be handed:
who asks, the bounds of each page, and what is allowed. Opened against a store, which keeps
every snapshot (or, offline, answers from them) and holds the limiters' shared budget."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from citesift.extract.rules import Mode
from citesift.net import ClientIdentity
from citesift.sources.snapshots import shared_fetcher
from citesift.sources.web import PageLimits, WebPageSource
from citesift.store import open_store


@dataclass(frozen=True, slots=True)
class PageAccess:
    """``identity``: who asks (sent to every site); ``limits``: the bounds of each page;
    ``allow_private``: fetch loopback and private addresses; ``robots``: honour robots.txt;
    ``offline``: answer from the store's snapshots alone, send nothing."""

    identity: ClientIdentity
    limits: PageLimits = field(default_factory=PageLimits)
    allow_private: bool = False
    robots: bool = True
    offline: bool = False


@contextmanager
def open_pages(access: PageAccess, store: str | Path, mode: Mode) -> Iterator[WebPageSource]:
    """A web-page source reading as ``access`` says and keeping its snapshots in the store at
    ``store``, whose limiter budget it shares with every process using that store; the
    store is closed after."""
    kept = open_store(store)
    try:
        yield WebPageSource(
            access.identity,
            mode,
            access.limits,
            allow_private=access.allow_private,
            robots=access.robots,
            store=kept,
            offline=access.offline,
            fetcher=shared_fetcher(kept),
        )
    finally:
        kept.close()
