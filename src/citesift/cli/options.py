"""The options every command that fetches shares, and the settings they add up to.

One definition per option, so ``--allow-private`` (and the rest) read the same on every
command; ``load_cli_settings`` layers the flags given over the ``CITESIFT_*`` environment
variables and the config file (``citesift.settings``) and turns a bad setting into a clear
usage error.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from citesift.cli.reading import fail
from citesift.cli.terminal import safe
from citesift.errors import CitesiftError, ConfigError, StoreError, StoreUnreachable, renamed
from citesift.net import ClientIdentity
from citesift.settings import DEFAULT_MODE, Settings, SourceSetup, load_settings
from citesift.settings import source_setup as setup_from
from citesift.store import AnyStore, is_postgres_url, store_path
from citesift.store import open_store as open_location

EXIT_USAGE = 64

AllowPrivate = Annotated[
    bool,
    typer.Option(
        "--allow-private", help="Allow loopback and private addresses (link-local stays refused)."
    ),
]
Contact = Annotated[
    str | None, typer.Option(help="Your URL or e-mail, sent to every site (CITESIFT_CONTACT).")
]
Store = Annotated[
    str | None,
    typer.Option(help="The store: a SQLite file, or a postgresql:// URL (CITESIFT_STORE)."),
]
Offline = Annotated[bool, typer.Option("--offline", help="Answer from stored snapshots only.")]
Deadline = Annotated[float | None, typer.Option(help="Seconds from sending to the last byte.")]


class ReadingMode(StrEnum):
    """What reading a page keeps: its article prose, or everything the page shows."""

    article = "article"
    page = "page"


DEFAULT_READING = ReadingMode(DEFAULT_MODE)
"""The one default of every command that reads a page (``extract``, ``page``, ``index add``)."""


class RetrievalMode(StrEnum):
    """How chunks are scored: by their words, by their meaning, or both fused."""

    hybrid = "hybrid"
    bm25 = "bm25"
    dense = "dense"


Retrieval = Annotated[
    RetrievalMode,
    typer.Option(help="Score by words (bm25, no embedding), by meaning (dense), or both."),
]


class ListFormat(StrEnum):
    """How a command that lists (hits, documents) prints them: lines to read, or JSON."""

    text = "text"
    json = "json"


Listing = Annotated[ListFormat, typer.Option("--format", help="Lines to read, or one JSON array.")]
Mode = Annotated[
    ReadingMode,
    typer.Option(help="What to keep of a page: its article prose, or all it shows."),
]


def load_cli_settings(flags: Mapping[str, object]) -> Settings:
    """The settings: ``flags`` (None means not given: pass a switch as ``switch or None``)
    over the environment and the config file."""
    given = {
        name: str(value) if isinstance(value, Path) else value for name, value in flags.items()
    }
    try:
        return load_settings(given)
    except ConfigError as error:
        usage_error(str(error))


def source_setup(
    contact: str | None,
    allow_private: bool,
    store: str | Path | None = None,
    offline: bool = False,
    deadline: float | None = None,
    *,
    keep: bool = False,
) -> SourceSetup:
    """The identity, settings and store for reading sources: flags over the environment
    and the config file. Offline answers from the named store, else the default one;
    ``keep`` keeps what is read in the default store when none is named."""
    settings = load_cli_settings(
        {
            "contact": contact,
            "allow_private": allow_private or None,
            "store": store,
            "offline": offline or None,
            "deadline": deadline,
        }
    )
    try:
        return setup_from(settings, keep=keep)
    except (ValueError, StoreError) as error:  # a bad setting, or no store at the path
        refuse(error)


def open_store(settings: Settings) -> AnyStore:
    """The store the settings name (else the default one), open; a usage error when the
    path cannot hold one."""
    try:
        return settings.open_store()
    except (ValueError, StoreError) as error:
        refuse(error)


def checked_store(location: str | Path, *, existing: bool = False, read_only: bool = False) -> str:
    """``location`` (a SQLite file or a PostgreSQL URL) once a store opens there (only to
    read it, when ``read_only``); a usage error saying why when none can (or, when
    ``existing``, when there is no file there)."""
    try:
        if existing and not is_postgres_url(location) and not store_path(location).is_file():
            usage_error(f"no store at {location}")
        open_location(location, read_only=read_only).close()
    except (ValueError, StoreError) as error:
        refuse(error)
    return str(location)


def client_identity(settings: Settings) -> ClientIdentity:
    """The identity to send, or a usage error saying how to give a contact."""
    try:
        return settings.identity()
    except ConfigError as error:
        usage_error(str(error))


def refuse(error: Exception, names: Mapping[str, str] | None = None) -> NoReturn:
    """Exit for ``error``: a store's server that cannot be reached is a failure (status 1:
    try again once it is up); anything else a usage error, its argument said as ``names``
    has it (``api_keys`` as ``--api-key``)."""
    if isinstance(error, StoreUnreachable):
        fail(str(error))
    if isinstance(error, CitesiftError):
        usage_error(renamed(error, dict(names or {})))
    usage_error(str(error))


def usage_error(message: str) -> NoReturn:
    """Say what is wrong on standard error and exit with ``EXIT_USAGE``."""
    Console(stderr=True, soft_wrap=True).print(
        f"[red]error:[/red] {escape(safe(message))}", highlight=False
    )
    raise typer.Exit(EXIT_USAGE)
