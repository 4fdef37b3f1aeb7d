"""``citesift store migrate``: copy one store into another (a SQLite file into PostgreSQL)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console

from citesift.cli.app import group
from citesift.cli.options import ListFormat, Listing, checked_store
from citesift.index.transfer import copy_store
from citesift.store import is_postgres_url, open_store

store_app = group("store", "Move a store: copy the embedded SQLite file to PostgreSQL.")
err = Console(stderr=True, soft_wrap=True)


@store_app.command("migrate")
def migrate(
    source: Annotated[
        str, typer.Option("--from", help="The store to copy: a SQLite file or a URL.")
    ],
    target: Annotated[
        str, typer.Option("--to", help="The store to copy into: a postgresql:// URL or a file.")
    ],
    format: Listing = ListFormat.text,
) -> None:
    """Copy every snapshot, chunk (with its vectors), cached embedding and host block from
    one store into another; running it again finishes an interrupted copy and adds nothing
    twice. The source is only read."""
    if not is_postgres_url(source):
        checked_store(source, existing=True)
    checked_store(target)
    with open_store(source) as origin, open_store(target) as destination:
        copied = copy_store(origin, destination, lambda part, done: err.print(
            f"{part}: {done}", end="\r", highlight=False))  # fmt: skip
    if format is ListFormat.json:
        typer.echo(json.dumps(asdict(copied)))
        return
    typer.echo(
        f"copied {copied.snapshots} snapshots, {copied.documents} documents"
        f" ({copied.chunks} chunks), {copied.vectors} cached vectors, {copied.blocks} host blocks"
    )
