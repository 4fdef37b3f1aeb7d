"""What the tools share while the server runs: the source setup (identity, store, one
fetcher with its limiters), one lazy browser, the pager holding long results, and the
runner of the crawl jobs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citesift.errors import ConfigError, invalid
from citesift.jobs import JobRunner
from citesift.mcp_server.config import McpConfig
from citesift.mcp_server.paging import Pager
from citesift.scrape.browser import Browser
from citesift.settings import Settings, SourceSetup
from citesift.sources import PAGE_PATH, WikipediaSourceProvider
from citesift.sources.web import is_web_url
from citesift.store import AnyStore, made_store


@dataclass
class Shared:
    """The server's state; ``setup``, ``browser`` and ``jobs`` are made when the server
    starts and closed when it stops (the fetcher's connections, the browser's driver and
    the jobs' tasks belong to the server's event loop). The browser is lazy: Chromium
    starts on the first page that needs rendering and serves every later one. ``jobs``
    runs the crawls, kept in the store (None when there is no store)."""

    config: McpConfig
    settings: Settings
    pager: Pager
    setup: SourceSetup | None = None
    browser: Browser | None = None
    jobs: JobRunner | None = None

    @property
    def sources(self) -> SourceSetup:
        """The running server's source setup."""
        if self.setup is None:
            raise ConfigError("the MCP server is not running")
        return self.setup

    def wikipedia(self) -> WikipediaSourceProvider:
        """The wiki the Wikipedia tools ask, bounded and allowed as the settings say."""
        return self.sources.wikipedia(self.config.wiki_origin, PAGE_PATH)

    def index_store(self) -> AnyStore | str | Path | None:
        """The index's store: the running server's open one for searches (the store the
        settings name, else the default; see ``SourceSetup.search_store``), so a search opens
        no connection per call; else where it is, None when there is no file there yet
        (nothing was added)."""
        opened = self.setup.search_store() if self.setup is not None else None
        return opened or made_store(self.settings.store)

    def runner(self) -> JobRunner:
        """The runner of the server's crawl jobs."""
        if self.jobs is None:
            self.kept()  # says which store to name
            raise ConfigError("the MCP server is not running")
        return self.jobs

    def kept(self) -> AnyStore:
        """The store crawls and research runs are kept in, SQLite or PostgreSQL."""
        kept = self.sources.store or self.sources.budget
        if kept is None:
            raise ConfigError("crawls and research runs are kept in a store: --store FILE|URL")
        return kept


def web_url(url: str, name: str = "url") -> str:
    """``url`` when it is an http(s) address with a host, else ``InvalidArgument``."""
    if not isinstance(url, str) or not is_web_url(url):
        raise invalid(name, url, "an http(s) URL with a host")
    return url
