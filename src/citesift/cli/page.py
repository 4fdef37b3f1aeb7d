"""``citesift page URL``: any web page a citation names, as attributed passages."""

from __future__ import annotations

from typing import Annotated

import typer

from citesift.cli.app import app
from citesift.cli.options import (
    DEFAULT_READING,
    AllowPrivate,
    Contact,
    Deadline,
    Mode,
    Offline,
    Store,
    source_setup,
    usage_error,
)
from citesift.cli.reading import (
    Output,
    ReadFormat,
    Title,
    print_read,
    run_with_status,
)
from citesift.errors import masked
from citesift.model import SourceHit
from citesift.sources.web import is_web_url


@app.command()
def page(
    url: Annotated[str, typer.Argument(metavar="URL", help="The page's address (http or https).")],
    title: Title = None,
    output: Output = ReadFormat.passages,
    mode: Mode = DEFAULT_READING,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    offline: Offline = False,
    deadline: Deadline = None,
) -> None:
    """Read a web page: passages with attribution, blocks, Markdown or JSON."""
    if not is_web_url(url):
        usage_error(f"not an http(s) URL with a host: {masked(url)}")
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        source = setup.web_pages(mode.value)
        reading = source.read(SourceHit(url, title or url))
        outcome = run_with_status(f"Reading {masked(url)}…", reading)
    print_read(outcome, output)
