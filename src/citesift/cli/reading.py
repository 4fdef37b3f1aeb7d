"""How the reading commands print a document, and say why none came."""

from __future__ import annotations

import dataclasses
from collections.abc import Coroutine
from enum import StrEnum
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from citesift.cli.listing import block_listing
from citesift.cli.terminal import safe, safe_json, say
from citesift.extract.markdown import document_markdown
from citesift.model import Document, Passage, SourceDocument
from citesift.net import run_sync
from citesift.sources.reasons import asks_to_wait, describe, has_text, read_note
from citesift.text import attribution, citation_sources

T = TypeVar("T")
EXIT_FAILED = 1
"""The exit status when the source refused or failed."""
EXIT_LIMITED = 75
"""The exit status when a limiter said "not now" and nothing was sent (sysexits' TEMPFAIL)."""


class ReadFormat(StrEnum):
    """How a read document is printed."""

    passages = "passages"
    blocks = "blocks"
    markdown = "markdown"
    json = "json"


Title = Annotated[str | None, typer.Option(help="The title to cite (default: the source's).")]
Output = Annotated[ReadFormat, typer.Option("--format", help="What to print.")]


def render(document: SourceDocument, output: ReadFormat) -> str:
    """A read document in the chosen format, ending with a newline when not empty."""
    if output is ReadFormat.json:
        passages = [dataclasses.asdict(p) for p in citation_sources(document)]
        body = {"document": dataclasses.asdict(document), "passages": passages}
        return safe_json(body, indent=2) + "\n"
    if output is ReadFormat.markdown:
        return document_markdown(document)
    if output is ReadFormat.blocks:
        return block_listing(document)
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
    return f"\nFrom {shown.source_text()}; {shown.licence_text()}. {shown.notice}\n"


def exit_status(outcome: object) -> int:
    """The exit status of an outcome that gave nothing: 75 when asked to wait, else 1."""
    return EXIT_LIMITED if asks_to_wait(outcome) else EXIT_FAILED


def fail_outcome(doing: str, outcome: object) -> NoReturn:
    """Say that ``doing`` gave nothing and why, and exit with the outcome's status."""
    fail(f"{doing} {describe(outcome)}", exit_status(outcome))


def print_read(outcome: object, output: ReadFormat) -> None:
    """Print a read document as asked, or say why the read gave none and exit; a page with
    no text to cite exits 1 too, and a redirect or disambiguation page is said on standard
    error."""
    if not isinstance(outcome, Document):
        fail_outcome("read", outcome)
    note = read_note(outcome.document)
    if not has_text(outcome.document):
        fail(f"read gave nothing: {note}")
    say(render(outcome.document, output), nl=False)
    if note:
        say(f"warning: {note}", err=True)


def fail(message: str, code: int = EXIT_FAILED) -> NoReturn:
    """Say why nothing came (a refusal or failure, not a usage error) and exit with ``code``."""
    say(f"error: {message}", err=True)
    raise typer.Exit(code)


def run_with_status(message: str, call: Coroutine[Any, Any, T]) -> T:
    """Run ``call`` to completion while a spinner on standard error says what is happening."""
    with Console(stderr=True).status(escape(safe(message))):
        return run_sync(call)
