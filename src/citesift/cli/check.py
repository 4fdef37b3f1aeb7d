"""``citesift check FILE|URL``: every citation of a document graded against its source, with
a non-zero exit when any is not supported, so that it can gate a pipeline."""

from __future__ import annotations

import asyncio
from enum import StrEnum
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer
from rich.console import Console

from citesift.cli.app import app
from citesift.cli.options import (
    AllowPrivate,
    Contact,
    Deadline,
    Offline,
    Store,
    source_setup,
    usage_error,
)
from citesift.cli.reading import EXIT_FAILED
from citesift.cli.terminal import safe_json, say
from citesift.encoding import decode_html
from citesift.errors import InvalidArgument
from citesift.model import Snapshot
from citesift.net.exchange import media_type
from citesift.sources import WebPageSource
from citesift.sources.files import NOTE_SUFFIXES, FileRefused, file_bytes, file_text
from citesift.sources.web import HTML_TYPES, is_web_url
from citesift.verify import CitationCheck, DocumentCheck, check_citations, check_json
from citesift.verify.citations import MAX_CITATIONS, Kind, checked_base_url
from citesift.verify.document_check import checked_max_seconds

MaxSeconds = Annotated[
    float | None,
    typer.Option(
        help="Seconds of wall time for the whole check: citations not reached by then are "
        "'source unavailable' (time limit reached) and the check fails."
    ),
]

BaseUrl = Annotated[
    str | None,
    typer.Option(
        help="The address the document's relative links start from (a page read from its "
        "URL starts from that URL). Without it a relative link is 'source unavailable'."
    ),
]


MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")
"""The types of a page read as Markdown; one served as ``text/plain`` is too when its address
ends as a note's name does (``NOTE_SUFFIXES``)."""
READABLE = (
    "HTML (text/html) or Markdown (text/markdown, or text/plain at a .md or .markdown address)"
)


class CheckFormat(StrEnum):
    """How the report is printed."""

    text = "text"
    json = "json"


@app.command()
def check(
    document: Annotated[
        str,
        typer.Argument(
            metavar="FILE|URL",
            help="A Markdown or HTML file, or a page's URL (read as its content type says).",
        ),
    ],
    output: Annotated[
        CheckFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = CheckFormat.text,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    offline: Offline = False,
    deadline: Deadline = None,
    max_seconds: MaxSeconds = None,
    base_url: BaseUrl = None,
) -> None:
    """Check each citation of a document against the page it cites: the verdict and the
    source's best supporting sentence, with a link to it. Exits 1 unless all are supported.
    The pages read are kept in the store (the default one when none is named), so that
    --offline checks the document again from them."""
    try:
        if max_seconds is not None:
            checked_max_seconds(max_seconds)
        checked_base_url(base_url)
    except InvalidArgument as error:
        usage_error(str(error))
    with source_setup(contact, allow_private, store, offline, deadline, keep=True) as setup:
        pages = setup.web_pages("page")
        text, kind, read_from = _document(document, pages)
        with Console(stderr=True).status("Checking citations…") as status:

            def progress(done: int, total: int) -> None:
                status.update(f"Checking citations… {done}/{total}")

            report = check_citations(
                text,
                pages,
                kind,
                base_url=base_url or read_from,
                progress=progress,
                max_seconds=max_seconds,
            )
    if output is CheckFormat.json:
        say(safe_json(check_json(report), indent=2))
    else:
        say(report_text(report))
    if not report.passed:
        raise typer.Exit(EXIT_FAILED)


def _document(name: str, pages: WebPageSource) -> tuple[str, Kind, str | None]:
    """The document's text, whether it is HTML, and the address its links are relative to."""
    if is_web_url(name):
        fetched = asyncio.run(pages.fetcher.fetch(name, pages.page_policy))
        if not isinstance(fetched, Snapshot):
            usage_error(f"{name}: the page could not be read ({fetched})")
        kind = served_kind(fetched)
        if kind is None:
            shown = fetched.content_type or "no content type"
            usage_error(f"{name}: served as {shown}, which is not {READABLE}")
        text = decode_html(fetched.body, fetched.charset)[0] if kind == "html" else fetched.text()
        return text, kind, fetched.final_url
    try:
        text = file_text(file_bytes(Path(name)))
    except FileRefused as refusal:
        usage_error(f"{name}: {refusal}")
    html = name.lower().endswith((".html", ".htm", ".xhtml"))
    return text, "html" if html else "markdown", None


def served_kind(snapshot: Snapshot) -> Kind | None:
    """How a fetched document is read, by its content type: HTML, Markdown (a ``text/plain``
    one too when its address ends in ``.md`` or ``.markdown``), or None for neither."""
    mime = media_type(snapshot.content_type)[0]
    if mime in HTML_TYPES:
        return "html"
    path = urlsplit(snapshot.final_url).path.lower()
    if mime in MARKDOWN_TYPES or (mime == "text/plain" and path.endswith(NOTE_SUFFIXES)):
        return "markdown"
    return None


def report_text(report: DocumentCheck) -> str:
    """The report for people: each citation's verdict, then the counts."""
    lines = [line for check in report.citations for line in _citation_lines(check)]
    lines.append(
        f"{len(report.citations)} citations: {report.supported} supported, "
        f"{report.partially_supported} partially supported, {report.not_supported} not "
        f"supported, {report.unavailable} with the source unavailable"
    )
    if report.cut_short:
        lines.append("cut short: the time limit passed before every citation was read")
    if report.unchecked:
        lines.append(
            f"not checked: {report.unchecked:,} more citations past the first {MAX_CITATIONS:,}"
        )
    return "\n".join(lines)


def _citation_lines(check: CitationCheck) -> list[str]:
    cited = check.citation
    lines = [f"{check.status}: {cited.sentence}", f"  cites {cited.url or cited.marker}"]
    lines.append(f"  abstained: {check.reason}" if check.abstained else f"  {check.reason}")
    if check.evidence:
        lines.append(f"  best: {check.evidence}")
        where = f" ({check.place.label()})" if check.place else ""
        lines.append(f"  at {check.evidence_url}{where}")
    return lines
