"""``citesift fetch``: one URL fetched politely and safely, its outcome printed.

``--format summary`` (the default) prints status, URLs, content type, charset and size;
``text`` prints the readable text (an HTML page's blocks, another text body decoded) with
the summary on standard error; ``raw`` writes the body's bytes. A host that answered 429 or
503 stays blocked for later runs too (the block is kept in the store), and the command
then exits 75 saying how long is left.
"""

from __future__ import annotations

import math
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
    load_cli_settings,
    open_store,
    usage_error,
)
from citesift.cli.reading import EXIT_FAILED, EXIT_LIMITED
from citesift.cli.terminal import say
from citesift.errors import ConfigError, InvalidArgument, StoreError, masked, shown
from citesift.extract import extract_document
from citesift.model import FetchOutcome, Limited, Skipped, Snapshot
from citesift.net import AddressRefused, FetchPolicy, run_sync
from citesift.net.address import parse_url
from citesift.settings import Settings, SourceSetup, source_setup
from citesift.sources.reasons import asks_to_wait
from citesift.sources.snapshots import fetching

HTML_TYPES = ("text/html", "application/xhtml+xml")
PRIVATE_HINT = "pass --allow-private to fetch loopback and private addresses"


class FetchFormat(StrEnum):
    """What ``fetch`` prints: a summary, the readable text, or the raw body."""

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
    """Fetch URL; exits 0 with a snapshot, 1 when skipped or unreachable, 75 when the host
    asked us to wait (try later), 64 for a usage error."""
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
    try:
        parse_url(url)
    except AddressRefused as error:
        usage_error(f"{shown(url)} is not an http(s) URL: {masked(str(error))}")
    with _setup(settings) as setup:
        outcome = _fetch(url, setup, save=save)
        left = setup.fetcher.blocked_seconds(url) if not settings.offline else 0.0
    raise typer.Exit(render(outcome, output, saved=save or settings.offline, blocked=left))


def _setup(settings: Settings) -> SourceSetup:
    """The identity, stores and fetcher; a usage error for a bad setting or store."""
    try:
        return source_setup(settings)
    except (ConfigError, InvalidArgument, StoreError) as error:
        usage_error(str(error))


def _fetch(url: str, setup: SourceSetup, *, save: bool) -> FetchOutcome:
    offline = setup.settings.offline
    keep = setup.store if offline else None
    if save and not offline:
        keep = setup.store or setup.budget or open_store(setup.settings)
    fetcher = fetching(setup.fetcher, keep, offline)
    with Console(stderr=True).status(f"fetching {masked(url)}"):
        return run_sync(fetcher.fetch(url, _policy(setup)))


def _policy(setup: SourceSetup) -> FetchPolicy:
    try:
        return setup.settings.fetch_policy()
    except InvalidArgument as error:
        usage_error(str(error))


def render(
    outcome: FetchOutcome, output: FetchFormat, *, saved: bool = False, blocked: float = 0.0
) -> int:
    """Print ``outcome`` as asked (the snapshot id when it is in the store); the exit status."""
    if not isinstance(outcome, Snapshot):
        return _say_why(outcome, blocked)
    if output is FetchFormat.raw:
        sys.stdout.buffer.write(outcome.body)
        sys.stdout.buffer.flush()
        return 0
    if output is FetchFormat.summary:
        say(summary(outcome, saved=saved))
        return 0
    say(summary(outcome, saved=saved), err=True)
    if outcome.charset is None:
        say(f"error: the body is binary ({outcome.content_type}): use --format raw for its"
            " bytes, or `citesift page URL` or `citesift scrape URL` to read a PDF or an Office"
            " file", err=True)  # fmt: skip
        return EXIT_FAILED
    say(readable_text(outcome))
    return 0


def _say_why(outcome: Limited | Skipped, blocked: float) -> int:
    """Say on standard error why nothing came; the exit status (75: try again later)."""
    waits = asks_to_wait(outcome)
    if isinstance(outcome, Limited):
        told = " (the host asked us to wait)" if outcome.reason == "blocked" else ""
        message = f"limited: {outcome.reason}{told}"
    else:
        status = "no answer" if outcome.status is None else f"HTTP {outcome.status}"
        message = f"skipped ({status}): {outcome.reason}"
        if "non-public" in outcome.reason or "link-local" in outcome.reason:
            message += f" ({PRIVATE_HINT})"
    if waits and blocked > 0:
        message += f"; try again in {_duration(blocked)}"
    say(message, err=True)
    return EXIT_LIMITED if waits else EXIT_FAILED


def _duration(seconds: float) -> str:
    whole = math.ceil(seconds)
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def readable_text(snapshot: Snapshot) -> str:
    """An HTML page's blocks (page mode), one paragraph each; another text body decoded."""
    if not snapshot.content_type.lower().startswith(HTML_TYPES):
        return snapshot.text()
    document = extract_document(snapshot, mode="page")
    return "\n\n".join(block.text for block in document.blocks)


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
