"""The command-line application object every command module registers on."""

from typing import Any

import typer
from typer.core import TyperGroup

from citesift.cli.reading import EXIT_FAILED, EXIT_LIMITED, fail
from citesift.errors import CitesiftError, StoreBusy


class _Commands(TyperGroup):
    """The top-level group: an error citesift raises ends its command with one line on
    standard error (a busy store with the temporary-failure status), never a traceback."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except CitesiftError as error:
            fail(str(error), EXIT_LIMITED if isinstance(error, StoreBusy) else EXIT_FAILED)


app = typer.Typer(
    name="citesift",
    cls=_Commands,
    help="Citable evidence from the web, Wikipedia and documents.",
    no_args_is_help=True,
    add_completion=False,
)
