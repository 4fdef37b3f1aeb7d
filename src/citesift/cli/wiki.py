"""``citesift wiki search|read``: Wikipedia hits and attributed passages from the command line."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Coroutine
from enum import StrEnum
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console

from citesift.cli.app import app
from citesift.cli.options import (
    AllowPrivate,
    Contact,
    Deadline,
    Offline,
    SourceSetup,
    Store,
    source_setup,
    usage_error,
)
from citesift.extract import blocks_to_markdown
from citesift.model import Document, Hits, Passage, SourceDocument, SourceHit
from citesift.sources import DEFAULT_ORIGIN, PAGE_PATH, WikipediaLimits, WikipediaSourceProvider
from citesift.text import attribution, citation_sources
from citesift.text.passages import CONTRIBUTORS, NO_LICENCE

T = TypeVar("T")

wiki = typer.Typer(help="Search Wikipedia and read articles as attributed passages.")
app.add_typer(wiki, name="wiki")

Origin = Annotated[str, typer.Option(help="The wiki to ask (a stand-in or another wiki).")]


class ReadFormat(StrEnum):
    """How a read document is printed."""

    passages = "passages"
    blocks = "blocks"
    markdown = "markdown"
    json = "json"


Title = Annotated[str | None, typer.Option(help="The title to cite (default: the source's).")]
Output = Annotated[ReadFormat, typer.Option("--format", help="What to print.")]


@wiki.command()
def search(
    phrase: Annotated[str, typer.Argument(help="A short topic phrase.")],
    limit: Annotated[int, typer.Option(min=1, max=100, help="Most hits to return.")] = 2,
    origin: Origin = DEFAULT_ORIGIN,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    offline: Offline = False,
    deadline: Deadline = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the hits as JSON.")] = False,
) -> None:
    """Search Wikipedia for a phrase: each hit's key, title and excerpt."""
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        provider = _provider(origin, PAGE_PATH, setup)
        searching = f"Searching {origin} for {phrase!r}…"
        outcome = run_with_status(searching, provider.search(phrase, limit))
    if not isinstance(outcome, Hits):
        fail(f"search {describe(outcome)}")
    if as_json:
        typer.echo(json.dumps([dataclasses.asdict(h) for h in outcome.hits], ensure_ascii=False))
        return
    for hit in outcome.hits:
        typer.echo(f"{hit.key}\t{hit.title}" + (f"\n    {hit.excerpt}" if hit.excerpt else ""))


@wiki.command()
def read(
    key: Annotated[str, typer.Argument(help="The article's key, as a search hit gives it.")],
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
    hit = SourceHit(key, title or key.replace("_", " "))
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        provider = _provider(origin, page_path, setup)
        outcome = run_with_status(f"Reading {key} from {origin}…", provider.read(hit))
    if not isinstance(outcome, Document):
        fail(f"read {describe(outcome)}")
    typer.echo(render(outcome.document, output), nl=False)


def render(document: SourceDocument, output: ReadFormat) -> str:
    """A read document in the chosen format, ending with a newline when not empty."""
    if output is ReadFormat.json:
        passages = [dataclasses.asdict(p) for p in citation_sources(document)]
        body = {"document": dataclasses.asdict(document), "passages": passages}
        return json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    if output is ReadFormat.markdown:
        return blocks_to_markdown(document.blocks)
    if output is ReadFormat.blocks:
        return "".join(
            f"[{i}] {b.kind} § {' › '.join(b.section) or '-'}\n{b.text}\n\n"
            for i, b in enumerate(document.blocks)
        )
    return _passages(document)


def _passages(document: SourceDocument) -> str:
    """Each passage with its place and link, then the attribution the licence asks for."""
    passages = citation_sources(document)
    lines = [f"[{p.block}:{p.start}-{p.end}] {p.content}\n    {p.fragment_url}\n" for p in passages]
    if passages:
        lines.append(_attribution_note(passages[0]))
    return "".join(lines)


def _attribution_note(passage: Passage) -> str:
    """The source, its licence and the modification notice, said once for all passages."""
    shown = attribution(passage)
    licence = f"{shown.licence.name} <{shown.licence.url}>" if shown.licence else NO_LICENCE
    credit = f", {CONTRIBUTORS} <{shown.history}>" if shown.history else ""
    where = f"{shown.site} <{shown.url}>{credit}"
    return f"\nFrom {shown.title}, {where}; {licence}. {shown.notice}\n"


def describe(outcome: object) -> str:
    """Why an outcome gave nothing: its kind, status and reason."""
    status = getattr(outcome, "status", None)
    reason = getattr(outcome, "reason", "")
    kind = type(outcome).__name__.lower()
    return f"{kind}" + (f" (HTTP {status})" if status else "") + (f": {reason}" if reason else "")


def fail(message: str, code: int = 1) -> NoReturn:
    """Say why nothing came (a refusal or failure, not a usage error) and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def run_with_status(message: str, call: Coroutine[Any, Any, T]) -> T:
    """Run ``call`` to completion while a spinner on standard error says what is happening."""
    with Console(stderr=True).status(message):
        return asyncio.run(call)


def _provider(origin: str, page_path: str, setup: SourceSetup) -> WikipediaSourceProvider:
    """The provider the command asks, bounded and allowed as the settings say."""
    limits = setup.limits(WikipediaLimits())
    try:
        return WikipediaSourceProvider(setup.identity, origin, page_path, limits, **setup.access())
    except ValueError as error:
        usage_error(str(error))
