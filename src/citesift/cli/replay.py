"""``citesift replay RUN``: each field of a stored run graded again against its cited
evidence read from the stored snapshots, offline; exits 1 when any field is not supported."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, TypeVar

import typer
from rich.console import Console

from citesift.cli.app import app
from citesift.cli.options import ListFormat, Store, load_cli_settings, open_store
from citesift.cli.reading import EXIT_FAILED
from citesift.cli.terminal import safe_json, say
from citesift.errors import InvalidArgument
from citesift.store import AnyStore
from citesift.verify.runs import FieldCheck, RunCheck, replay_run

Grader = Callable[[AnyStore, str, str | None], RunCheck]
T = TypeVar("T")

RunId = Annotated[str, typer.Argument(metavar="RUN", help="A run id (or a unique prefix).")]
Pointer = Annotated[str | None, typer.Argument(metavar="POINTER", help="One field's JSON Pointer.")]


@app.command("replay")
def replay_command(
    run: RunId,
    pointer: Pointer = None,
    output: Annotated[
        ListFormat, typer.Option("--format", help="A report to read, or one JSON object.")
    ] = ListFormat.text,
    store: Store = None,
) -> None:
    """Grade each field of a stored run's answer (or POINTER's) again against the evidence it
    cites, read from the stored pages without the network. Exits 1 when any field is not
    supported now."""
    checked = on_store(store, lambda kept: graded(replay_run, kept, run, pointer))
    if output is ListFormat.json:
        say(safe_json(checked.as_json(), indent=2))
    else:
        lines = [f"Run {checked.run_id}: {checked.task} (replayed from the stored pages)"]
        for field in checked.fields:
            shown = json.dumps(field.value, ensure_ascii=False)
            lines += ["", f"{field.pointer or '/'} = {shown}", *field_lines(field)]
        flagged = ", ".join(p or "/" for p in checked.flagged)
        lines += ["", f"Flagged: {flagged}" if flagged else "Every field is supported."]
        say("\n".join(lines))
    if checked.flagged:
        raise typer.Exit(EXIT_FAILED)


def on_store(store: str | None, work: Callable[[AnyStore], T]) -> T:
    """``work`` on the store ``--store`` names, closed after; an unknown run or a bad
    pointer (``InvalidArgument``) is said and exits 1."""
    kept = open_store(load_cli_settings({"store": store}))
    try:
        return work(kept)
    except InvalidArgument as error:
        say(f"error: {error}", err=True)
        raise typer.Exit(EXIT_FAILED) from None
    finally:
        kept.close()


def graded(grade: Grader, store: AnyStore, run: str, pointer: str | None) -> RunCheck:
    """``grade(store, run, pointer)`` with a progress line while the model works."""
    with Console(stderr=True).status("Grading the fields…"):
        return grade(store, run, pointer)


def field_lines(check: FieldCheck) -> list[str]:
    """A field's verdict, for people: the claim checked, the label, score and reason, each
    supporting sentence with its link (and its place in a file), and a flag when the run had
    called it verified."""
    was = " — the run had marked it verified" if check.verified and check.flagged else ""
    lines = [
        f"  now: {check.status} (score {check.score:.2f}){was}",
        f"    claim: {check.claim}",
        f"    why: {check.reason}",
    ]
    for sentence in check.supporting:
        lines.append(f"    [{sentence.evidence_id}] {' '.join(sentence.text.split())}")
        where = f" ({sentence.place.label()})" if sentence.place is not None else ""
        lines.append(f"      {sentence.fragment_url}{where}")
    return lines
