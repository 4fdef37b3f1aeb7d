"""``citesift page URL``: any web page a citation names, as attributed passages."""

from __future__ import annotations

from typing import Annotated

import typer

from citesift.cli.app import app
from citesift.cli.extract import ExtractMode
from citesift.cli.options import (
    AllowPrivate,
    Contact,
    Deadline,
    Offline,
    SourceSetup,
    Store,
    source_setup,
)
from citesift.cli.reading import (
    Output,
    ReadFormat,
    Title,
    print_read,
    run_with_status,
)
from citesift.model import SourceHit
from citesift.sources import PageLimits, WebPageSource


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
    deadline: Deadline = None,
) -> None:
    """Read a web page: passages with attribution, blocks, Markdown or JSON."""
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        source = page_source(setup, mode)
        outcome = run_with_status(f"Reading {url}…", source.read(SourceHit(url, title or url)))
    print_read(outcome, output)


def page_source(setup: SourceSetup, mode: ExtractMode = ExtractMode.page) -> WebPageSource:
    """A web-page source bounded and allowed as the settings say (robots.txt included)."""
    limits = setup.limits(PageLimits())
    return WebPageSource(
        setup.identity, mode.value, limits, robots=setup.settings.robots, **setup.access()
    )
