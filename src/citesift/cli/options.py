"""The options every command that fetches shares, and the settings they add up to.

One definition per option, so ``--allow-private`` (and the rest) read the same on every
command; ``load_cli_settings`` layers the flags given over the ``CITESIFT_*`` environment
variables and the config file (``citesift.config``) and turns a bad setting into a clear
usage error.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from citesift.config import ConfigError, Settings, load_settings
from citesift.net import ClientIdentity, IdentityError

EXIT_USAGE = 64

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


def client_identity(settings: Settings) -> ClientIdentity:
    """The identity to send, or a usage error saying how to give a contact."""
    try:
        return settings.identity()
    except (ConfigError, IdentityError) as error:
        usage_error(str(error))


def usage_error(message: str) -> NoReturn:
    """Say what is wrong on standard error and exit with ``EXIT_USAGE``."""
    Console(stderr=True).print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(EXIT_USAGE)
