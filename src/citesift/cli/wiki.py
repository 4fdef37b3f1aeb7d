"""``citesift wiki search|read``: Wikipedia hits and attributed passages from the command line."""

from __future__ import annotations

import dataclasses
from typing import Annotated

import typer

from citesift.cli.app import group
from citesift.cli.options import (
    AllowPrivate,
    Contact,
    Deadline,
    ListFormat,
    Listing,
    Offline,
    Store,
    source_setup,
    usage_error,
)
from citesift.cli.reading import (
    Output,
    ReadFormat,
    Title,
    fail,
    fail_outcome,
    print_read,
    run_with_status,
)
from citesift.cli.terminal import safe_json, say
from citesift.errors import InvalidArgument
from citesift.model import Hits, SourceHit
from citesift.settings import SourceSetup
from citesift.sources import DEFAULT_ORIGIN, PAGE_PATH, WikipediaSourceProvider
from citesift.sources.wikipedia import checked_phrase, wiki_key

wiki = group("wiki", "Search Wikipedia and read articles as attributed passages.")

Origin = Annotated[str, typer.Option(help="The wiki to ask (a stand-in or another wiki).")]


@wiki.command()
def search(
    phrase: Annotated[str, typer.Argument(metavar="PHRASE", help="A short topic phrase.")],
    limit: Annotated[int, typer.Option(min=1, max=100, help="Most hits to return.")] = 2,
    origin: Origin = DEFAULT_ORIGIN,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    offline: Offline = False,
    deadline: Deadline = None,
    output: Listing = ListFormat.text,
) -> None:
    """Search Wikipedia for a phrase: each hit's key, title and excerpt."""
    try:
        checked_phrase(phrase)
    except InvalidArgument as error:
        usage_error(str(error))
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        provider = _provider(origin, PAGE_PATH, setup)
        searching = f"Searching {origin} for {phrase!r}…"
        outcome = run_with_status(searching, provider.search(phrase, limit))
    if not isinstance(outcome, Hits):
        fail_outcome("search", outcome)
    if output is ListFormat.json:
        say(safe_json([dataclasses.asdict(h) for h in outcome.hits], indent=2))
        return
    for hit in outcome.hits:
        say(f"{hit.key}\t{hit.title}" + (f"\n    {hit.excerpt}" if hit.excerpt else ""))
    if not outcome.hits:
        say("no results", err=True)


@wiki.command()
def read(
    key: Annotated[
        str,
        typer.Argument(
            metavar="KEY",
            help="The article's key, as a search hit gives it (spaces are sent as _).",
        ),
    ],
    title: Title = None,
    output: Output = ReadFormat.passages,
    origin: Origin = DEFAULT_ORIGIN,
    page_path: Annotated[str, typer.Option(help="The page-HTML path, holding {key}.")] = PAGE_PATH,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    offline: Offline = False,
    deadline: Deadline = None,
) -> None:
    """Read an article by its key: passages with attribution, blocks, Markdown or JSON."""
    key = wiki_key(key)
    hit = SourceHit(key, title or key.replace("_", " "))
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        provider = _provider(origin, page_path, setup)
        outcome = run_with_status(f"Reading {key} from {origin}…", provider.read(hit))
    unread = provider.not_read(key, outcome)
    if unread:
        fail(unread[1])
    print_read(outcome, output)


def _provider(origin: str, page_path: str, setup: SourceSetup) -> WikipediaSourceProvider:
    """The provider the command asks, bounded and allowed as the settings say."""
    try:
        return setup.wikipedia(origin, page_path)
    except ValueError as error:
        usage_error(str(error))
