"""``citesift research TASK``: an answer with every field cited; ``citesift trace RUN``: a
stored run's fields traced to the stored text they came from."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from citesift.agent.evidence import Evidence
from citesift.agent.research import aresearch
from citesift.agent.run import Answer
from citesift.agent.trace import RunTrace, trace
from citesift.cli.app import app
from citesift.cli.options import (
    AllowPrivate,
    Contact,
    ListFormat,
    Store,
    load_cli_settings,
    open_store,
    source_setup,
    usage_error,
)
from citesift.cli.reading import EXIT_FAILED
from citesift.cli.replay import Pointer, RunId, field_lines, graded, on_store
from citesift.cli.terminal import safe_json, say
from citesift.errors import InvalidArgument
from citesift.model import Place
from citesift.store import AnyStore
from citesift.verify.runs import RunCheck, verify_run

Report = Annotated[
    ListFormat, typer.Option("--format", help="A report to read, or one JSON object.")
]
EXIT_INCOMPLETE = 3
"""The exit status of a run that ended without a complete answer."""


class SearchBackend(StrEnum):
    """Where the agent searches the web."""

    wikipedia = "wikipedia"
    searxng = "searxng"
    brave = "brave"
    tavily = "tavily"
    none = "none"


class Effort(StrEnum):
    """How many pages a run may read: low 5, medium 20, high 80."""

    low = "low"
    medium = "medium"
    high = "high"


@app.command("research")
def research_command(
    task: Annotated[str, typer.Argument(metavar="TASK", help="What to find out.")],
    schema: Annotated[
        Path | None, typer.Option(help="A JSON Schema file the answer must match.")
    ] = None,
    urls: Annotated[
        list[str] | None,
        typer.Option(
            metavar="URL",
            help="A page to read (repeat): the run keeps to these pages and the pages they link"
            " to, and does not search unless --search is given.",
        ),
    ] = None,
    search: Annotated[
        SearchBackend | None,
        typer.Option(help="Where to search the web (default: wikipedia; none with --urls)."),
    ] = None,
    search_url: Annotated[
        str | None, typer.Option(help="The search service's address (SearXNG's is required).")
    ] = None,
    search_key: Annotated[
        str | None, typer.Option(help="Brave or Tavily key (else $BRAVE_API_KEY, $TAVILY_API_KEY).")
    ] = None,
    max_steps: Annotated[int, typer.Option(min=1, help="Model turns at most.")] = 12,
    max_pages: Annotated[
        int | None, typer.Option(min=0, help="Pages read at most (default: by --effort).")
    ] = None,
    effort: Annotated[Effort, typer.Option(help="Pages to read: low 5, medium 20, high 80.")] = (
        Effort.medium
    ),
    max_seconds: Annotated[float, typer.Option(help="Wall time of the run.")] = 300.0,
    max_tokens_in: Annotated[
        int | None, typer.Option(min=1, help="Tokens sent to the model in the whole run.")
    ] = None,
    max_tokens_out: Annotated[
        int | None, typer.Option(min=1, help="Tokens received from the model in the whole run.")
    ] = None,
    context_tokens: Annotated[
        int | None, typer.Option(min=1, help="The model's context (default: 8192 assumed).")
    ] = None,
    tokens_per_minute: Annotated[
        int | None,
        typer.Option(min=1, help="The model's per-minute token limit: turns are paced to it."),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="The chat model (CITESIFT_MODEL); none: extractive.")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="Its OpenAI-compatible endpoint (CITESIFT_BASE_URL).")
    ] = None,
    tokenizer: Annotated[
        Path | None, typer.Option(help="The model's tokenizer.json (default: 3 bytes a token).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Also write the answer as JSON here.")] = None,
    output: Report = ListFormat.text,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
) -> None:
    """Research TASK and print the answer, each field with its source, what is missing, and
    the run id (for ``citesift trace``); progress goes to standard error."""
    settings = load_cli_settings({"model": model, "base_url": base_url, "store": store})
    shape = _schema(schema) if schema else None
    with source_setup(contact, allow_private, store) as setup:
        kept = open_store(settings)
        try:
            answer = _run(
                aresearch(
                    task,
                    identity=setup.identity,
                    schema=shape,
                    urls=urls or [],
                    search=None if search is None else search.value,
                    search_url=search_url,
                    search_key=search_key,
                    model=settings.model,
                    base_url=settings.base_url,
                    api_key=settings.api_key,
                    max_steps=max_steps,
                    max_pages=max_pages,
                    effort=effort.value,
                    max_seconds=max_seconds,
                    max_tokens_in=max_tokens_in,
                    max_tokens_out=max_tokens_out,
                    context_tokens=context_tokens,
                    tokens_per_minute=tokens_per_minute,
                    tokenizer=tokenizer,
                    allow_private=setup.settings.allow_private,
                    store=kept,
                    fetcher=setup.fetcher,
                    progress=lambda line: say(line, err=True),
                    executable=settings.browser,
                )
            )
        finally:
            kept.close()
    body = answer.to_dict()
    if out is not None:
        out.write_text(safe_json(body, indent=2) + "\n", encoding="utf-8")
    say(safe_json(body, indent=2) if output is ListFormat.json else _report(answer))
    if answer.status != "completed":
        raise typer.Exit(EXIT_INCOMPLETE)


def _run(call: Any) -> Answer:
    """Run the research; a bad argument is a usage error."""
    try:
        result: Answer = asyncio.run(call)
    except InvalidArgument as error:
        usage_error(str(error))
    return result


def _schema(path: Path) -> dict[str, Any]:
    """The JSON Schema in ``path``, or a usage error saying why it cannot be read."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError) as error:
        usage_error(f"cannot read the schema {path}: {error}")
    if not isinstance(loaded, dict):
        usage_error(f"the schema {path} is not a JSON object")
    return loaded


def _report(answer: Answer) -> str:
    """The answer, a line per field with its source link, what is missing, the URLs not
    read and why, the message, the run id."""
    lines = ["Answer:", json.dumps(answer.data, ensure_ascii=False, indent=2), "", "Sources:"]
    for field in answer.fields:
        mark = "" if field.verified else "  (unverified)"
        links = ", ".join(_evidence_link(*cited) for cited in answer.links(field)) or "none"
        lines.append(f"  {field.pointer or '/'}: {links}{mark}")
    if not answer.fields:
        lines.append("  none")
    if answer.missing:
        lines += ["", "Missing:", *(f"  {m}" for m in answer.missing)]
    if answer.unread:
        lines += ["", "Not read:", *(f"  {u.url}: {u.reason}" for u in answer.unread)]
    if answer.message:
        lines += ["", f"Message: {answer.message}"]
    lines += ["", f"Status: {answer.status} ({answer.stop_reason})", f"Run: {answer.run_id}"]
    return "\n".join(lines)


def _evidence_link(evidence: Evidence, link: str, place: Place | None) -> str:
    """A piece of evidence as a source line names it: its id, the link to the sentence that
    holds the field's value and that sentence's place in a file."""
    where = f" ({place.label()})" if place is not None else ""
    return f"{evidence.id} {link}{where}"


@app.command("trace")
def trace_command(
    run: RunId,
    pointer: Pointer = None,
    verify: Annotated[
        bool, typer.Option("--verify", help="Grade each field against its evidence again now.")
    ] = False,
    output: Report = ListFormat.text,
    store: Store = None,
) -> None:
    """Show, for each field of a stored run's answer (or POINTER's), its value, its evidence,
    and the exact span of the stored page it came from, with its context (for a PDF or
    Office file, its text as read, its page and a link to it); with --verify,
    each field graded again against the passages it cites (as ``verify_run``), exiting 1
    when any is not supported now."""

    def traced_and_checked(kept: AnyStore) -> tuple[RunTrace, RunCheck | None]:
        traced = trace(kept, run, pointer)
        return traced, graded(verify_run, kept, run, pointer) if verify else None

    traced, checked = on_store(store, traced_and_checked)
    if output is ListFormat.json:
        body = asdict(traced) | ({} if checked is None else {"verification": checked.as_json()})
        say(safe_json(body, indent=2))
    else:
        say(_traced(traced, checked))
    if checked is not None and checked.flagged:
        raise typer.Exit(EXIT_FAILED)


def _traced(traced: RunTrace, checked: RunCheck | None) -> str:
    lines = [f"Run {traced.run_id}: {traced.task}"]
    checks = {c.pointer: c for c in checked.fields} if checked else {}
    for field in traced.fields:
        state = "verified" if field.verified else "unverified"
        lines += ["", f"{field.pointer or '/'} = {json.dumps(field.value, ensure_ascii=False)}"
                  f" ({state}{', citation corrected' if field.corrected else ''})"]  # fmt: skip
        if field.pointer in checks:
            lines += field_lines(checks[field.pointer])
        for span in field.evidence:
            lines.append(f"  [{span.id}] {span.url} ({span.kind})")
            lines.append(f"    passage: {' '.join(span.text.split())}")
            if span.span is None:
                lines.append("    the page's snapshot is not in the store")
                if span.place is not None:
                    lines.append(f"    {span.place}: {span.link}")
                continue
            if span.place is not None:
                lines.append(f"    snapshot {span.snapshot_id}, {span.place}:")
            else:
                lines.append(
                    f"    snapshot {span.snapshot_id}, characters {span.source_start}:"
                    f"{span.source_end} of its decoded text:"
                )
            if span.link is not None:
                lines.append(f"    {span.link}")
            lines.append(f"    …{span.before}⟦{span.span}⟧{span.after}…")
    return "\n".join(lines)
