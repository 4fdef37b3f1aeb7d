"""Settings from a TOML file, ``CITESIFT_*`` environment variables and flags, in that order,
and the setup (identity, store, sources) a face that reads public sources builds from them.

Each setting is a field of ``Settings``; its environment variable is ``CITESIFT_`` and the
field name in capitals, and its key in the config file (``$CITESIFT_CONFIG``, else
``./citesift.toml`` when present) is the field name. A later source wins; a value of the
wrong kind is a ``ConfigError`` that names where it came from. New settings slot in as
new fields. The command line and the HTTP API share this module, so a setting reads the
same from either.
"""

from __future__ import annotations

import os
import threading
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypedDict, TypeVar

from citesift.agent.research import search_backend
from citesift.clients import WebSearch
from citesift.errors import ConfigError, StoreError, shown
from citesift.extract.rules import Mode
from citesift.net import ClientIdentity, Fetcher, FetchPolicy, IdentityError
from citesift.scrape.browser import Browser, BrowserUnavailable, find_executable
from citesift.sources import (
    DEFAULT_ORIGIN,
    PageLimits,
    WebPageSource,
    WikipediaLimits,
    WikipediaSourceProvider,
)
from citesift.sources.base import Access
from citesift.sources.page_access import PageAccess
from citesift.sources.snapshots import shared_fetcher
from citesift.sources.wikipedia import PAGE_PATH
from citesift.store import AnyStore, SQLiteStore, open_store
from citesift.store.sqlite import MEMORY

ENV_PREFIX = "CITESIFT_"
CONFIG_ENV = "CITESIFT_CONFIG"
CONFIG_FILE = "citesift.toml"
CLIENT_NAME = "citesift"
OFFLINE_CONTACT = "none: offline, nothing is sent"
"""The contact of an offline run without one: a replay sends no request, so names no one."""
POLICY_SETTINGS = ("allow_private", "robots", "deadline", "max_body_bytes", "max_redirects")
SECRET_SETTINGS = ("api_key", "search_key")
"""Settings holding a key: never in a message, nor in a repr."""
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
DEFAULT_MODE: Mode = "article"
"""How a page is read unless a caller says otherwise: its article prose (``page`` keeps all
the page shows)."""
L = TypeVar("L")


@dataclass(frozen=True)
class Settings:
    """Every setting; None means "the library's default"."""

    contact: str | None = None  # URL or e-mail of the operator, sent in the User-Agent
    allow_private: bool = False  # fetch loopback and private addresses (not link-local)
    robots: bool = True  # honour robots.txt
    deadline: float | None = None  # seconds, send to last body byte
    max_body_bytes: int | None = None  # cap on a body after decompression
    max_redirects: int | None = None  # redirects followed, each hop re-checked
    store: str | None = field(default=None, repr=False)  # a SQLite file, or a URL: its password
    offline: bool = False  # answer from stored snapshots only, send nothing
    browser: str | None = None  # the Chromium executable that renders pages
    model: str | None = None  # the chat model that plans research (none: extractive)
    base_url: str | None = None  # its OpenAI-compatible endpoint
    api_key: str | None = field(default=None, repr=False)  # its key (else $OPENAI_API_KEY)
    search: str | None = None  # web search: wikipedia, searxng, brave or tavily (none: off)
    search_url: str | None = None  # the search service's address (SearXNG's is required)
    search_key: str | None = field(default=None, repr=False)  # Brave's or Tavily's key

    def identity(self) -> ClientIdentity:
        """The client identity to send; a contact is required unless the run is offline, and
        one that would not let a site reach the caller is a ``ConfigError`` too."""
        if not self.contact and self.offline:
            return ClientIdentity(CLIENT_NAME, version_text(), OFFLINE_CONTACT)
        if not self.contact:
            raise ConfigError(
                "a contact is required so sites can reach you: pass --contact, "
                f'set {ENV_PREFIX}CONTACT, or put contact = "..." in {CONFIG_FILE}'
            )
        try:
            return ClientIdentity(CLIENT_NAME, version_text(), self.contact)
        except IdentityError as error:
            raise ConfigError(str(error)) from None

    def fetch_policy(self, **changes: Any) -> FetchPolicy:
        """A web-page ``FetchPolicy`` with these settings applied."""
        chosen = {name: getattr(self, name) for name in POLICY_SETTINGS}
        given = {name: value for name, value in chosen.items() if value is not None}
        return FetchPolicy.for_pages(self.identity(), **{**given, **changes})

    def open_store(self) -> AnyStore:
        """The store these settings name: a PostgreSQL URL or a SQLite file's path (the
        default file when none)."""
        return open_store(self.store)

    def browser_path(self) -> str | None:
        """The Chromium ``browser`` names, checked now (None when it names none: then
        ``chromium`` on the PATH is looked for when a page first needs it); a path that is
        not an executable file is a ``ConfigError`` saying which setting to fix."""
        if self.browser is None:
            return None
        try:
            return find_executable(self.browser)
        except BrowserUnavailable as error:
            raise ConfigError(
                f"the browser setting names no Chromium ({error}): set browser in"
                f" {CONFIG_FILE} or {ENV_PREFIX}BROWSER to the path of one, or leave it out"
            ) from None

    def lazy_browser(self) -> Browser:
        """A lazy browser launching the Chromium ``browser`` names: every face that
        renders starts its browser here, so the setting means the same everywhere."""
        return Browser(self.browser, lazy=True)


class ScrapeAccess(TypedDict):
    """How ``scrape`` may fetch and render, as its keyword arguments, from a setup."""

    identity: ClientIdentity
    policy: FetchPolicy
    fetcher: Fetcher
    store: AnyStore | None
    offline: bool
    executable: str | None


@dataclass(frozen=True)
class SourceSetup:
    """What reading public sources takes: the identity to send, the settings, the store that
    keeps (or, offline, answers) every snapshot, and the one fetcher every source shares,
    whose limiters keep their budget and 429/503 blocks in the store (``budget``: the named
    store, else the default one), so a host's block outlives the run. Close it when done."""

    identity: ClientIdentity
    settings: Settings
    store: AnyStore | None
    fetcher: Fetcher = field(default_factory=Fetcher)
    budget: AnyStore | None = None
    _searching: list[AnyStore] = field(default_factory=list, init=False, repr=False, compare=False)
    _opening: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )
    _closed: threading.Event = field(
        default_factory=threading.Event, init=False, repr=False, compare=False
    )

    def search_store(self) -> AnyStore | None:
        """The open store searches of the index read (None: none is open). PostgreSQL's
        is ``budget`` itself (its pool serves threads at once); a SQLite file gets a
        connection of its own, opened on first use and kept until ``close``, so a long
        search never holds the one connection the limiters claim each fetch's budget by.
        When that connection cannot be opened, searches read ``budget``, as before."""
        budget = self.budget
        if not isinstance(budget, SQLiteStore) or str(budget.path) == MEMORY:
            return budget
        with self._opening:
            if not self._searching and not self._closed.is_set():
                try:
                    own = SQLiteStore(budget.path, busy_timeout_ms=budget.busy_timeout_ms,
                                      read_only=budget.read_only)  # fmt: skip
                except StoreError:
                    return budget
                self._searching.append(own)
            return self._searching[0] if self._searching else budget  # closed: as it was

    def access(self) -> Access:
        """A source's fetch keywords from the settings."""
        chosen = self.settings
        return Access(
            allow_private=chosen.allow_private,
            store=self.store,
            offline=chosen.offline,
            fetcher=self.fetcher,
        )

    def scraping(self) -> ScrapeAccess:
        """``scrape``'s fetch and render keywords from the settings."""
        chosen = self.settings
        return ScrapeAccess(
            identity=self.identity,
            policy=chosen.fetch_policy(),
            fetcher=self.fetcher,
            store=self.store,
            offline=chosen.offline,
            executable=chosen.browser,
        )

    def limits(self, defaults: L) -> L:
        """``defaults`` (a source's limits) with each bound the settings name replaced."""
        names = {field.name for field in fields(defaults)} & set(POLICY_SETTINGS)  # type: ignore[arg-type]
        given = {name: getattr(self.settings, name) for name in names}
        return replace(defaults, **{k: v for k, v in given.items() if v is not None})  # type: ignore[type-var]

    def web_pages(self, mode: Mode = DEFAULT_MODE) -> WebPageSource:
        """A web-page source bounded and allowed as the settings say (robots.txt included)."""
        access = self.access()
        access["robots"] = self.settings.robots
        return WebPageSource(self.identity, mode, self.limits(PageLimits()), **access)

    def page_access(self) -> PageAccess:
        """How ``index_add`` reads web pages, as the settings say: the identity, the page
        bounds, private addresses, robots.txt and offline."""
        chosen = self.settings
        return PageAccess(self.identity, self.limits(PageLimits()), chosen.allow_private,
                          chosen.robots, chosen.offline)  # fmt: skip

    def wikipedia(self, origin: str, page_path: str) -> WikipediaSourceProvider:
        """A Wikipedia source for ``origin`` bounded and allowed as the settings say; a bad
        ``page_path`` is a ``ValueError``."""
        limits = self.limits(WikipediaLimits())
        return WikipediaSourceProvider(self.identity, origin, page_path, limits, **self.access())

    def web_search(self) -> WebSearch | None:
        """The web search source the settings name (``search``, at ``search_url`` with
        ``search_key``), or None when they name none; an unknown one is ``InvalidArgument``."""
        chosen = self.settings.search
        if chosen is None or chosen == "none":
            return None
        origin = self.settings.search_url or DEFAULT_ORIGIN
        wiki = self.wikipedia(origin, PAGE_PATH) if chosen == "wikipedia" else None
        return search_backend(chosen, self.settings.search_url, self.settings.search_key, wiki)  # type: ignore[arg-type]

    def close(self) -> None:
        """Close the stores that are open (the searches' own connection too)."""
        with self._opening:
            self._closed.set()
            opened = [self.store, self.budget, *self._searching]
            self._searching.clear()
        for store in {id(s): s for s in opened if s is not None}.values():
            store.close()

    def __enter__(self) -> SourceSetup:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def source_setup(settings: Settings, *, keep: bool = False) -> SourceSetup:
    """The identity, settings and store for reading sources. The store is opened when the
    settings name one, or offline (which answers from the default store when none is named);
    with ``keep``, the default store keeps every snapshot read when none is named (when it
    opens), so that a later offline run answers from them as the first one read them.
    A missing contact is a ``ConfigError``, a bound that makes no sense (``deadline=nan``) an
    ``InvalidArgument`` naming it, a path that cannot hold a store a ``ValueError``."""
    identity = settings.identity()
    settings.fetch_policy()  # checks every bound the settings give, before anything is opened
    kept = settings.open_store() if settings.store or settings.offline else None
    budget = kept or _default_store(settings)
    kept = budget if keep and kept is None else kept
    fetcher = shared_fetcher(budget) if budget is not None else Fetcher()
    return SourceSetup(identity, settings, kept, fetcher, budget)


def _default_store(settings: Settings) -> AnyStore | None:
    """The default store, for the limiters' budget; None when it cannot be opened (the
    caller named no store, so fetching goes on with limiters of this process alone)."""
    try:
        return settings.open_store()
    except (ValueError, StoreError):
        return None


def load_settings(
    flags: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
    config: Path | None = None,
) -> Settings:
    """Settings from the config file, then the environment, then ``flags`` (None = unset)."""
    environ = os.environ if environ is None else environ
    path = config or config_path(environ)
    layers = [
        _from_file(path) if path else {},
        _from_env(environ),
        {k: v for k, v in (flags or {}).items() if v is not None},
    ]
    merged: dict[str, object] = {}
    for layer in layers:
        merged.update(layer)
    return Settings(**merged)  # type: ignore[arg-type]


def config_path(environ: Mapping[str, str]) -> Path | None:
    """``$CITESIFT_CONFIG`` (which must exist), else ``./citesift.toml`` when present."""
    named = environ.get(CONFIG_ENV)
    if named:
        if not Path(named).is_file():
            raise ConfigError(f"{CONFIG_ENV} names {named}, which is not a file")
        return Path(named)
    local = Path(CONFIG_FILE)
    return local if local.is_file() else None


def _from_file(path: Path) -> dict[str, object]:
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    known = _types()
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}")
    return {key: _typed(value, known[key], path, key) for key, value in table.items()}


def _from_env(environ: Mapping[str, str]) -> dict[str, object]:
    found: dict[str, object] = {}
    for name, kind in _types().items():
        variable = ENV_PREFIX + name.upper()
        if environ.get(variable, "").strip():
            found[name] = _parsed(environ[variable].strip(), kind, variable)
    return found


def _types() -> dict[str, type]:
    """Each setting's value type (``bool``, ``int``, ``float`` or ``str``)."""
    kinds = {"bool": bool, "int | None": int, "float | None": float}
    return {field.name: kinds.get(str(field.type), str) for field in fields(Settings)}


def _parsed(text: str, kind: type, where: str) -> object:
    """A setting written as text (an environment variable) read as ``kind``."""
    if kind is bool:
        if text.lower() not in _TRUE | _FALSE:
            raise ConfigError(f"{where}: expected true or false, got {text!r}")
        return text.lower() in _TRUE
    try:
        return kind(text)
    except ValueError:
        raise ConfigError(f"{where}: expected {kind.__name__}, got {text!r}") from None


def _typed(value: object, kind: type, path: Path, key: str) -> object:
    """A setting from the config file, checked to be of its kind (an int may stand for a
    float); a wrong one is shown in the message unless it is a key (``SECRET_SETTINGS``)."""
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if type(value) is not kind:
        got = f"a {type(value).__name__}" if key in SECRET_SETTINGS else shown(value)
        raise ConfigError(f"{path}: {key}: expected {kind.__name__}, got {got}")
    return value


def version_text() -> str:
    """The installed citesift's version ("0" when it is not installed)."""
    try:
        return version("citesift")
    except PackageNotFoundError:
        return "0"


__all__ = [
    "ConfigError",
    "Settings",
    "SourceSetup",
    "config_path",
    "load_settings",
    "source_setup",
    "version_text",
]
