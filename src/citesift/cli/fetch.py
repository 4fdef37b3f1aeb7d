"""``citesift fetch``: one URL fetched politely and safely, its outcome printed."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console

from citesift.cli.app import app
from citesift.cli.options import (
    AllowPrivate,
    Contact,
    Deadline,
    Offline,
    Store,
    client_identity,
    load_cli_settings,
    open_store,
)
from citesift.cli.reading import exit_status
from citesift.model import FetchOutcome, Limited, Skipped, Snapshot
from citesift.net import fetch_sync
from citesift.settings import Settings


class FetchFormat(StrEnum):
    """What ``fetch`` prints: a summary, the summary and the decoded text, or the raw body."""

    summary = "summary"
    text = "text"
    raw = "raw"


@app.command("fetch")
def fetch_command(
    url: Annotated[str, typer.Argument(help="The http(s) address to fetch.")],
    output: Annotated[FetchFormat, typer.Option("--format", help="What to print.")] = (
        FetchFormat.summary
    ),
    save: Annotated[bool, typer.Option("--save", help="Keep the snapshot in the store.")] = False,
    offline: Offline = False,
    allow_private: AllowPrivate = False,
    no_robots: Annotated[
        bool, typer.Option("--no-robots", help="Do not honour robots.txt.")
    ] = False,
    deadline: Deadline = None,
    max_body_bytes: Annotated[
        int | None, typer.Option(help="Cap on the decompressed body.")
    ] = None,
    max_redirects: Annotated[int | None, typer.Option(help="Redirects to follow.")] = None,
    store: Store = None,
    contact: Contact = None,
) -> None:
    """Fetch URL; exits 0 with a snapshot, 1 when skipped, 75 when limited (try later)."""
    settings = load_cli_settings(
        {
            "allow_private": allow_private or None,
            "robots": False if no_robots else None,
            "offline": offline or None,
            "deadline": deadline,
            "max_body_bytes": max_body_bytes,
            "max_redirects": max_redirects,
            "store": store,
            "contact": contact,
        }
    )
    outcome = _fetch(url, settings, save=save)
    raise typer.Exit(render(outcome, output, saved=save or settings.offline))


def _fetch(url: str, settings: Settings, *, save: bool) -> FetchOutcome:
    client_identity(settings)  # a missing or unusable contact is a usage error, said first
    keep = open_store(settings) if save or settings.offline else None
    policy = settings.fetch_policy(store=keep, save=save, offline=settings.offline)
    try:
        with Console(stderr=True).status(f"fetching {url}"):
            return fetch_sync(url, policy)
    finally:
        if keep is not None:
            keep.close()


def render(outcome: FetchOutcome, output: FetchFormat, *, saved: bool = False) -> int:
    """Print ``outcome`` as asked (the snapshot id when it is in the store); the exit status."""
    if isinstance(outcome, Limited):
        Console(stderr=True).print(f"limited: {outcome.reason}")
        return exit_status(outcome)
    if isinstance(outcome, Skipped):
        status = "no answer" if outcome.status is None else f"HTTP {outcome.status}"
        Console(stderr=True).print(f"skipped ({status}): {outcome.reason}", markup=False)
        return exit_status(outcome)
    if output is FetchFormat.raw:
        sys.stdout.buffer.write(outcome.body)
        sys.stdout.buffer.flush()
        return 0
    typer.echo(summary(outcome, saved=saved))
    if output is FetchFormat.text:
        typer.echo("\n" + outcome.text())
    return 0


def summary(snapshot: Snapshot, *, saved: bool = False) -> str:
    """Status, URLs, content type, charset, size (and the stored snapshot's id), one per line."""
    rows = [
        ("status", str(snapshot.status)),
        ("url", snapshot.url),
        ("final url", snapshot.final_url),
        ("content type", snapshot.content_type or "(none)"),
        ("charset", snapshot.charset or "(binary)"),
        ("size", f"{len(snapshot.body)} bytes"),
    ]
    if saved:
        rows.append(("snapshot", snapshot.id))
    return "\n".join(f"{name:<13}{value}" for name, value in rows)
