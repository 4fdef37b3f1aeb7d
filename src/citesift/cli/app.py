"""The command-line application object every command module registers on."""

import typer

app = typer.Typer(
    name="citesift",
    help="Citable evidence from the web, Wikipedia and documents.",
    no_args_is_help=True,
    add_completion=False,
)
