"""``citesift extract``: a page's blocks, text, Markdown or document JSON, from a file or stdin."""

from __future__ import annotations

import dataclasses
import json
import sys
from enum import StrEnum
from importlib.resources import files
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from citesift.cli.app import app
from citesift.cli.options import usage_error
from citesift.cli.reading import block_listing
from citesift.encoding import decode_html
from citesift.extract.document import extract_document
from citesift.extract.html import DEFAULT_BUDGET
from citesift.extract.markdown import blocks_to_markdown
from citesift.model import SourceDocument
from citesift.sources.files import MAX_FILE_BYTES

SAMPLE = "samples/article.html"
SAMPLE_NAME = "sample:article.html"


class ExtractMode(StrEnum):
    """What ``extract`` keeps: an article's prose, or everything the page shows."""

    article = "article"
    page = "page"


class OutputFormat(StrEnum):
    """How ``extract`` prints the document."""

    blocks = "blocks"
    text = "text"
    markdown = "markdown"
    json = "json"


@app.command()
def extract(
    file: Annotated[
        str | None, typer.Argument(help="An HTML file, or - for standard input.")
    ] = None,
    mode: Annotated[ExtractMode, typer.Option(help="Article prose or the whole page.")] = (
        ExtractMode.article
    ),
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
    """Extract the readable blocks of an HTML page, each with its place in the source."""
    name, body = _input(file, sample)
    html = decode_html(body)[0]
    with Console(stderr=True).status(f"Extracting {name}…"):
        document = extract_document(
            html, url=url, mode=mode.value, budget=budget, key=None if url else name
        )
    typer.echo(_render(document, html, output), nl=False)
    if document.truncated:
        typer.echo(f"note: the text was cut at the budget of {budget} characters", err=True)


def _input(file: str | None, sample: bool) -> tuple[str, bytes]:
    """The input's name and bytes; a usage error when there is none, or too much."""
    if sample == (file is not None):
        usage_error("give one of FILE, - (standard input) or --sample")
    if file is None:
        return SAMPLE_NAME, files("citesift").joinpath(SAMPLE).read_bytes()
    if file == "-":
        return "<stdin>", _bounded(sys.stdin.buffer.read(MAX_FILE_BYTES + 1))
    try:
        with Path(file).open("rb") as handle:
            return file, _bounded(handle.read(MAX_FILE_BYTES + 1))
    except OSError as error:
        usage_error(f"cannot read {file}: {error.strerror or error}")


def _bounded(body: bytes) -> bytes:
    if len(body) > MAX_FILE_BYTES:
        usage_error(f"the input is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    return body


def _render(document: SourceDocument, html: str, output: OutputFormat) -> str:
    """The document in the chosen format, ending with a newline when not empty."""
    if output is OutputFormat.json:
        return json.dumps(dataclasses.asdict(document), ensure_ascii=False, indent=2) + "\n"
    if output is OutputFormat.markdown:
        return blocks_to_markdown(document.blocks, html)
    if output is OutputFormat.text:
        return "".join(block.text + "\n\n" for block in document.blocks)
    return block_listing(document.blocks, spans=True)
