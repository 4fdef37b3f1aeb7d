"""``citesift extract``: a page's blocks, text, Markdown or document JSON, from a file or stdin."""

from __future__ import annotations

import dataclasses
import sys
from enum import StrEnum
from importlib.resources import files
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from citesift.checks import address_arg
from citesift.cli.app import app
from citesift.cli.listing import block_listing
from citesift.cli.options import DEFAULT_READING, Mode, usage_error
from citesift.cli.reading import EXIT_FAILED, fail
from citesift.cli.terminal import safe_json, say
from citesift.encoding import decode_html
from citesift.errors import DocumentError
from citesift.extract.document import extract_document, page_host
from citesift.extract.html import DEFAULT_BUDGET
from citesift.extract.markdown import document_markdown
from citesift.extract.notes.note import file_title
from citesift.extract.rules import Mode as ModeName
from citesift.extract.sniff import DocumentKind, document_kind
from citesift.model import SourceDocument
from citesift.sources.files import (
    MAX_FILE_BYTES,
    TEXT_SUFFIXES,
    FileRefused,
    body_document,
    checked_text,
    content_revision,
    extracted_file,
    file_bytes,
    readable_name,
    too_large,
    why_empty,
)

SAMPLE = "samples/article.html"
SAMPLE_NAME = "sample:article.html"


class OutputFormat(StrEnum):
    """How ``extract`` prints the document."""

    blocks = "blocks"
    text = "text"
    markdown = "markdown"
    json = "json"


@app.command()
def extract(
    file: Annotated[
        str | None,
        typer.Argument(
            metavar="FILE", help="An HTML, PDF, Office, .txt or .md file, or - for standard input."
        ),
    ] = None,
    mode: Mode = DEFAULT_READING,
    output: Annotated[OutputFormat, typer.Option("--format", help="What to print.")] = (
        OutputFormat.blocks
    ),
    budget: Annotated[int, typer.Option(min=0, help="Most characters of text to keep.")] = (
        DEFAULT_BUDGET
    ),
    url: Annotated[
        str | None, typer.Option(help="The page's address (for links and site).")
    ] = None,
    sample: Annotated[bool, typer.Option("--sample", help="Read the bundled sample page.")] = False,
) -> None:
    """Extract the readable blocks of an HTML page, or of a PDF, Word, PowerPoint or Excel
    file (told by its content, not its name), each with its place in the source."""
    url = _address(url)
    name, body = _input(file, sample)
    kind = document_kind(body)
    try:
        with Console(stderr=True).status(f"Extracting {name}…"):
            if file not in (None, "-") and _read_as_file(Path(name), kind):
                if kind is None:
                    _text(name, body)  # a usage error for a file that holds no text
                document = _file_document(Path(name), body, url, mode.value, budget)
                html = None
            elif file not in (None, "-") and url is None:  # an HTML file, named as index add does
                html = decode_html(_text(file, body))[0]
                revision = content_revision(body)
                document = extracted_file(Path(name), html, revision, mode.value, budget)
            else:
                source = body if kind else decode_html(_text(file, body))[0]
                document = extract_document(
                    source, url=url, mode=mode.value, budget=budget, key=None if url else name
                )
                html = source if isinstance(source, str) else None
                if file not in (None, "-") and document.title == document.url:
                    document = dataclasses.replace(document, title=file_title(readable_name(name)))
    except DocumentError as error:
        fail(f"{_named(file)}: {error}", EXIT_FAILED)
    say(_render(document, html, output), nl=False)
    if document.truncated:
        say(f"note: the text was cut at the budget of {budget} characters", err=True)
    if not document.blocks:
        say(f"note: {_named(file)}: no blocks: {why_empty(body)}", err=True)


def _read_as_file(path: Path, kind: DocumentKind | None) -> bool:
    """Whether the file at ``path`` is read as ``index add`` reads it: a PDF or Office file
    (its bytes' ``kind``) or a plain text or Markdown file (by its name); anything else is
    HTML."""
    return kind is not None or path.suffix.lower() in TEXT_SUFFIXES


def _file_document(
    path: Path, body: bytes, url: str | None, mode: ModeName, budget: int
) -> SourceDocument:
    """The file read by the reader ``index add`` uses (titled by its name when it states
    no title), named by ``url`` when one is given, else by its ``file:`` URI."""
    try:
        document = body_document(path, body, mode, budget)
    except FileRefused as refusal:
        fail(f"{path}: {refusal}", EXIT_FAILED)
    if url is None:
        return document
    return dataclasses.replace(document, url=url, key=url, site=page_host(url))


def _address(url: str | None) -> str | None:
    """``url`` when an address can carry it, else a usage error (a byte that is not UTF-8
    reaches us as a lone surrogate), said before any input is read."""
    try:
        return None if url is None else address_arg(url, "--url")
    except ValueError as error:
        usage_error(str(error))


def _input(file: str | None, sample: bool) -> tuple[str, bytes]:
    """The input's name and bytes; a usage error when there is none, or too much."""
    if sample == (file is not None):
        usage_error("give one of FILE, - (standard input) or --sample")
    if file is None:
        return SAMPLE_NAME, files("citesift").joinpath(SAMPLE).read_bytes()
    try:
        if file == "-":
            body = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
            if len(body) > MAX_FILE_BYTES:
                raise FileRefused(too_large())
            return "<stdin>", body
        return file, file_bytes(Path(file))
    except FileRefused as refusal:
        usage_error(f"{_named(file)}: {refusal}")


def _text(file: str | None, body: bytes) -> bytes:
    """``body`` when it can be text, else a usage error saying why not."""
    try:
        return checked_text(body)
    except FileRefused as refusal:
        usage_error(f"{_named(file)}: {refusal}")


def _named(file: str | None) -> str:
    return "standard input" if file == "-" else file or SAMPLE_NAME


def _render(document: SourceDocument, html: str | None, output: OutputFormat) -> str:
    """The document in the chosen format, ending with a newline when not empty."""
    if output is OutputFormat.json:
        return safe_json(dataclasses.asdict(document), indent=2) + "\n"
    if output is OutputFormat.markdown:
        return document_markdown(document, html)
    if output is OutputFormat.text:
        return "".join(block.text + "\n\n" for block in document.blocks)
    return block_listing(document, html, spans=True)
