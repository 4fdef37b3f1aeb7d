"""The command-line application object every command module registers on, and its groups."""

from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from citesift.cli.reading import EXIT_FAILED, EXIT_LIMITED, fail
from citesift.errors import CitesiftError, StoreBusy
from citesift.settings import version_text


class _Commands(TyperGroup):
    """The top-level group: an error citesift raises ends its command with one line on
    standard error (a busy store with the temporary-failure status), never a traceback."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except CitesiftError as error:
            fail(str(error), EXIT_LIMITED if isinstance(error, StoreBusy) else EXIT_FAILED)


def _typer(name: str, help: str, cls: type[TyperGroup] | None = None) -> typer.Typer:
    """A command group with plain help and error lines (no boxes wrapped at 80 columns, no
    type on every flag) that prints its help (and exits 2) when called without a command."""
    return typer.Typer(
        name=name,
        cls=cls,
        help=help,
        rich_markup_mode=None,
        no_args_is_help=True,
        add_completion=False,
    )


app = _typer("citesift", "Citable evidence from the web, Wikipedia and documents.", _Commands)


def group(name: str, help: str) -> typer.Typer:
    """A command group (``citesift NAME ...``) that helps and fails as every other one does."""
    commands = _typer(name, help)
    app.add_typer(commands)
    return commands


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"citesift {version_text()}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Citable evidence from the web, Wikipedia and documents."""
