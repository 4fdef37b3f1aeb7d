"""``citesift scrape URL``: one page through fetch, render decision, browser and extraction."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

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
from citesift.cli.reading import EXIT_FAILED, EXIT_LIMITED, exit_status, fail, run_with_status
from citesift.cli.terminal import safe_json, say
from citesift.errors import InvalidArgument, masked
from citesift.numbers import is_decimal
from citesift.scrape.options import ScrapeOptions
from citesift.scrape.page import scrape
from citesift.scrape.result import HOST_COOLDOWN, RATE_LIMITED, ScrapeFailure, ScrapeResult
from citesift.sources.reasons import status_text
from citesift.sources.web import is_web_url


class ScrapeFormat(StrEnum):
    """What ``scrape`` prints: one format, or the whole result as JSON."""

    markdown = "markdown"
    text = "text"
    blocks = "blocks"
    passages = "passages"
    html = "html"
    raw_html = "raw_html"
    links = "links"
    metadata = "metadata"
    json = "json"


class RenderChoice(StrEnum):
    """Whether the page is rendered in a browser."""

    auto = "auto"
    always = "always"
    never = "never"


JSON_FORMATS = ("markdown", "links", "metadata")
"""The formats ``--format json`` answers (a screenshot is written to its file)."""
LIMITED_CODES = (RATE_LIMITED, HOST_COOLDOWN)


@app.command("scrape")
def scrape_command(
    url: Annotated[str, typer.Argument(metavar="URL", help="The page's address (http or https).")],
    output: Annotated[ScrapeFormat, typer.Option("--format", help="What to print.")] = (
        ScrapeFormat.markdown
    ),
    render: Annotated[
        RenderChoice, typer.Option(help="Render in headless Chromium: when needed, always, never.")
    ] = RenderChoice.auto,
    wait_for: Annotated[
        str | None,
        typer.Option(
            "--wait-for", metavar="MS|SELECTOR", help="After load: milliseconds, or a CSS selector."
        ),
    ] = None,
    timeout: Annotated[float | None, typer.Option(help="Seconds the render may take.")] = None,
    screenshot: Annotated[
        Path | None, typer.Option(help="Write a PNG of the rendered page here.")
    ] = None,
    full_page: Annotated[
        bool,
        typer.Option("--full-page/--viewport-only", help="Screenshot the whole page or the view."),
    ] = True,
    viewport: Annotated[
        str | None, typer.Option(metavar="WxH", help="The browser's window in pixels: 1280x800.")
    ] = None,
    block_resources: Annotated[
        list[str] | None,
        typer.Option(metavar="KIND", help="Resources the browser skips: images, fonts, media."),
    ] = None,
    headers: Annotated[
        list[str] | None,
        typer.Option(metavar="'NAME: VALUE'", help="A header the browser sends (repeatable)."),
    ] = None,
    include_tags: Annotated[
        list[str] | None,
        typer.Option(metavar="SELECTOR", help="CSS selector: read only these (repeatable)."),
    ] = None,
    exclude_tags: Annotated[
        list[str] | None,
        typer.Option(metavar="SELECTOR", help="CSS selector: drop these (repeatable)."),
    ] = None,
    max_age: Annotated[
        float | None, typer.Option(help="Seconds: answer from a stored snapshot this young.")
    ] = None,
    only_main_content: Annotated[
        bool,
        typer.Option(
            "--only-main-content/--all-content",
            help="Keep the page's article prose, or all it shows.",
        ),
    ] = ScrapeOptions.only_main_content,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    offline: Offline = False,
    deadline: Deadline = None,
) -> None:
    """Scrape one page: rendered when it needs it, in the format asked; a page the server
    answers with an error status (a 404) exits 1, printed only with --format json."""
    if not is_web_url(url):
        usage_error(f"not an http(s) URL with a host: {masked(url)}")
    chosen: dict[str, Any] = {
        "render": render.value,
        "full_page": full_page,
        "block_resources": tuple(block_resources or ()),
        "headers": _headers(headers or []),
        "include_tags": tuple(include_tags or ()),
        "exclude_tags": tuple(exclude_tags or ()),
        "max_age": max_age,
        "only_main_content": only_main_content,
    }
    given = {"wait_for": wait_for, "timeout": timeout, "viewport": _size(viewport)}
    options = _options(
        output, screenshot, chosen | {k: v for k, v in given.items() if v is not None}
    )
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        call = scrape(url, options=options, **setup.scraping())
        outcome = run_with_status(f"Scraping {masked(url)}…", call)
    _print(outcome, output, screenshot)


def _options(
    output: ScrapeFormat, screenshot: Path | None, chosen: dict[str, Any]
) -> ScrapeOptions:
    """The scrape options the flags ask for; a usage error naming a bad one."""
    asked = JSON_FORMATS if output is ScrapeFormat.json else (output.value,)
    try:
        return ScrapeOptions(formats=asked + (("screenshot",) if screenshot else ()), **chosen)
    except InvalidArgument as error:
        usage_error(str(error))


def _size(viewport: str | None) -> tuple[int, int] | None:
    """``WxH`` as (width, height); a usage error when it is not two whole numbers."""
    if viewport is None:
        return None
    width, _, height = viewport.lower().partition("x")
    if not (is_decimal(width.strip()) and is_decimal(height.strip())):
        usage_error(f"--viewport takes WIDTHxHEIGHT in pixels, such as 1280x800, not {viewport!r}")
    return int(width), int(height)


def _headers(given: list[str]) -> dict[str, str]:
    """``NAME: VALUE`` flags as headers; a usage error for one without a colon, which names
    it by its place, not its text (a value may be a key)."""
    headers = {}
    for at, line in enumerate(given, 1):
        name, colon, value = line.partition(":")
        if not colon:
            usage_error(f"--headers takes 'NAME: VALUE': header {at} has no ':' (not shown)")
        headers[name.strip()] = value.strip()
    return headers


def _print(outcome: ScrapeResult | ScrapeFailure, output: ScrapeFormat, shot: Path | None) -> None:
    """The result as asked (warnings on standard error), or why there is none; a page the
    server answered with an error status (a 404) is a failure, printed only as JSON."""
    if isinstance(outcome, ScrapeFailure):
        code = EXIT_LIMITED if outcome.code in LIMITED_CODES else EXIT_FAILED
        fail(f"scrape failed: {outcome.code}: {outcome.message}", code)
    for warning in outcome.warnings:
        say(f"warning: {warning}", err=True)
    done = "rendered" if outcome.render.rendered else "not rendered"
    say(f"render: {done}: {outcome.render.why}", err=True)
    formats = dict(outcome.formats)
    png = formats.pop("screenshot", None)
    answered = f"the server answered {status_text(outcome.status)}"
    refused = answered if outcome.status >= 400 else None
    if refused and output is not ScrapeFormat.json:
        fail(f"{refused} (--format json prints the page it answered)", exit_status(outcome))
    if output is not ScrapeFormat.json and formats[output.value] is None:
        fail(f"scrape gave no {output.value}: {'; '.join(outcome.warnings)}", EXIT_FAILED)
    if shot is not None and isinstance(png, bytes):
        shot.write_bytes(png)
    if output is ScrapeFormat.json:
        body = outcome.to_dict()
        body["formats"].pop("screenshot", None)  # written to its file, not printed
        say(safe_json(body, indent=2))
    else:
        say(_shown(formats[output.value]), nl=False)
    if refused:  # the JSON says the status, as Firecrawl's does; the exit status too
        fail(refused, exit_status(outcome))


def _shown(value: Any) -> str:
    """A format printed: text as it is, anything else as JSON; ending with a newline."""
    text = value if isinstance(value, str) else safe_json(value, indent=2)
    return text if text.endswith("\n") or not text else text + "\n"
