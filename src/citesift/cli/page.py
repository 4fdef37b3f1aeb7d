"""``citesift page URL``: any web page a citation names, as attributed passages."""

from __future__ import annotations

from typing import Annotated

import typer

from citesift.cli.app import app
from citesift.cli.extract import ExtractMode
from citesift.cli.options import AllowPrivate, Contact, Offline, Store
from citesift.cli.wiki import (
    Output,
    ReadFormat,
    Title,
    describe,
    fail,
    render,
    run_with_status,
    source_options,
)
from citesift.model import Document, SourceHit
from citesift.sources import WebPageSource


@app.command()
def page(
    url: Annotated[str, typer.Argument(help="The page's address (http or https).")],
    title: Title = None,
    output: Output = ReadFormat.passages,
    mode: Annotated[ExtractMode, typer.Option(help="All the page shows, or article prose.")] = (
        ExtractMode.page
    ),
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    offline: Offline = False,
) -> None:
    """Read a web page: passages with attribution, blocks, Markdown or JSON."""
    identity, options = source_options(contact, allow_private, store, offline)
    source = WebPageSource(identity, mode.value, **options)
    outcome = run_with_status(f"Reading {url}…", source.read(SourceHit(url, title or url)))
    if not isinstance(outcome, Document):
        fail(f"read {describe(outcome)}")
    typer.echo(render(outcome.document, output), nl=False)
