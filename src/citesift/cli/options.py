"""The options every command that fetches shares, and the settings they add up to.

One definition per option, so ``--allow-private`` (and the rest) read the same on every
command; ``load_cli_settings`` layers the flags given over the ``CITESIFT_*`` environment
variables and the config file (``citesift.config``) and turns a bad setting into a clear
usage error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from citesift.config import POLICY_SETTINGS, ConfigError, Settings, load_settings
from citesift.net import ClientIdentity, IdentityError
from citesift.store import SQLiteStore

EXIT_USAGE = 64
L = TypeVar("L")

AllowPrivate = Annotated[
    bool, typer.Option("--allow-private", help="Allow loopback, private and link-local addresses.")
]
Contact = Annotated[
    str | None, typer.Option(help="Your URL or e-mail, sent to every site (CITESIFT_CONTACT).")
]
Store = Annotated[Path | None, typer.Option(help="The SQLite store file (CITESIFT_STORE).")]
Offline = Annotated[bool, typer.Option("--offline", help="Answer from stored snapshots only.")]
Deadline = Annotated[float | None, typer.Option(help="Seconds from sending to the last byte.")]


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


@dataclass(frozen=True)
class SourceSetup:
    """What a command that reads public sources was told: its identity, its settings and the
    store that keeps (or, offline, answers) every snapshot. Close it when done."""

    identity: ClientIdentity
    settings: Settings
    store: SQLiteStore | None

    def access(self) -> dict[str, Any]:
        """A source's fetch keywords (``citesift.sources.base.Access``) from the settings."""
        chosen = self.settings
        return {
            "allow_private": chosen.allow_private,
            "store": self.store,
            "offline": chosen.offline,
        }

    def limits(self, defaults: L) -> L:
        """``defaults`` (a source's limits) with each bound the settings name replaced."""
        names = {field.name for field in fields(defaults)} & set(POLICY_SETTINGS)  # type: ignore[arg-type]
        given = {name: getattr(self.settings, name) for name in names}
        return replace(defaults, **{k: v for k, v in given.items() if v is not None})  # type: ignore[type-var]

    def __enter__(self) -> SourceSetup:
        return self

    def __exit__(self, *_: object) -> None:
        if self.store is not None:
            self.store.close()


def source_setup(
    contact: str | None,
    allow_private: bool,
    store: Path | None = None,
    offline: bool = False,
    deadline: float | None = None,
) -> SourceSetup:
    """The identity, settings and store for reading sources: flags over the environment
    and the config file. Offline answers from the named store, else the default one."""
    settings = load_cli_settings(
        {
            "contact": contact,
            "allow_private": allow_private or None,
            "store": store,
            "offline": offline or None,
            "deadline": deadline,
        }
    )
    identity = client_identity(settings)
    kept = open_store(settings) if settings.store or settings.offline else None
    return SourceSetup(identity, settings, kept)


def open_store(settings: Settings) -> SQLiteStore:
    """The store the settings name (else the default one), open; a usage error when the
    path cannot hold one."""
    try:
        return settings.open_store()
    except ValueError as error:
        usage_error(str(error))


def checked_store(path: Path) -> Path:
    """``path`` once a store opens there; a usage error saying why when none can."""
    try:
        SQLiteStore(path).close()
    except ValueError as error:
        usage_error(str(error))
    return path


def client_identity(settings: Settings) -> ClientIdentity:
    """The identity to send, or a usage error saying how to give a contact."""
    try:
        return settings.identity()
    except (ConfigError, IdentityError) as error:
        usage_error(str(error))


def usage_error(message: str) -> NoReturn:
    """Say what is wrong on standard error and exit with ``EXIT_USAGE``."""
    Console(stderr=True, soft_wrap=True).print(
        f"[red]error:[/red] {escape(message)}", highlight=False
    )
    raise typer.Exit(EXIT_USAGE)
