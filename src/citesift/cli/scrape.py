"""``citesift scrape URL``: one page through fetch, render decision, browser and extraction."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from citesift.cli.app import app
from citesift.cli.options import (
    DEFAULT_READING,
    AllowPrivate,
    Contact,
    Deadline,
    Mode,
    Offline,
    ReadingMode,
    Store,
    source_setup,
    usage_error,
)
from citesift.cli.reading import EXIT_FAILED, EXIT_LIMITED, fail, run_with_status
from citesift.cli.terminal import safe_json, say
from citesift.errors import InvalidArgument
from citesift.scrape.options import ScrapeOptions
from citesift.scrape.page import scrape
from citesift.scrape.result import HOST_COOLDOWN, RATE_LIMITED, ScrapeFailure, ScrapeResult
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
    viewport_only: Annotated[
        bool, typer.Option("--viewport-only", help="Screenshot the viewport, not the whole page.")
    ] = False,
    block: Annotated[
        list[str] | None,
        typer.Option(metavar="KIND", help="Resources the browser skips: images, fonts, media."),
    ] = None,
    include_tag: Annotated[
        list[str] | None,
        typer.Option("--include-tag", metavar="SELECTOR", help="CSS selector: read only these."),
    ] = None,
    exclude_tag: Annotated[
        list[str] | None,
        typer.Option("--exclude-tag", metavar="SELECTOR", help="CSS selector: drop these."),
    ] = None,
    max_age: Annotated[
        float | None, typer.Option(help="Seconds: answer from a stored snapshot this young.")
    ] = None,
    mode: Mode = DEFAULT_READING,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    offline: Offline = False,
    deadline: Deadline = None,
) -> None:
    """Scrape one page: rendered when it needs it, in the format asked."""
    if not is_web_url(url):
        usage_error(f"not an http(s) URL with a host: {url}")
    options = _options(
        output, render, wait_for, timeout, screenshot, viewport_only, block, include_tag,
        exclude_tag, max_age, mode,
    )  # fmt: skip
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        call = scrape(
            url,
            identity=setup.identity,
            options=options,
            policy=setup.settings.fetch_policy(),
            fetcher=setup.fetcher,
            store=setup.store,
            offline=setup.settings.offline,
            executable=setup.settings.browser,
        )
        outcome = run_with_status(f"Scraping {url}…", call)
    _print(outcome, output, screenshot)


def _options(
    output: ScrapeFormat,
    render: RenderChoice,
    wait_for: str | None,
    timeout: float | None,
    screenshot: Path | None,
    viewport_only: bool,
    block: list[str] | None,
    include: list[str] | None,
    exclude: list[str] | None,
    max_age: float | None,
    mode: ReadingMode,
) -> ScrapeOptions:
    """The scrape options the flags ask for; a usage error naming a bad one."""
    asked = JSON_FORMATS if output is ScrapeFormat.json else (output.value,)
    chosen: dict[str, Any] = {
        "formats": asked + (("screenshot",) if screenshot else ()),
        "render": render.value,
        "full_page": not viewport_only,
        "block_resources": tuple(block or ()),
        "include_tags": tuple(include or ()),
        "exclude_tags": tuple(exclude or ()),
        "max_age": max_age,
        "only_main_content": mode is ReadingMode.article,
    }
    if wait_for is not None:
        chosen["wait_for"] = wait_for
    if timeout is not None:
        chosen["timeout"] = timeout
    try:
        return ScrapeOptions(**chosen)
    except InvalidArgument as error:
        usage_error(str(error))


def _print(outcome: ScrapeResult | ScrapeFailure, output: ScrapeFormat, shot: Path | None) -> None:
    """The result as asked (warnings on standard error), or why there is none."""
    if isinstance(outcome, ScrapeFailure):
        code = EXIT_LIMITED if outcome.code in LIMITED_CODES else EXIT_FAILED
        fail(f"scrape failed: {outcome.code}: {outcome.message}", code)
    for warning in outcome.warnings:
        say(f"warning: {warning}", err=True)
    done = "rendered" if outcome.render.rendered else "not rendered"
    say(f"render: {done}: {outcome.render.why}", err=True)
    formats = dict(outcome.formats)
    png = formats.pop("screenshot", None)
    if shot is not None and isinstance(png, bytes):
        shot.write_bytes(png)
    if output is ScrapeFormat.json:
        body = outcome.to_dict()
        body["formats"].pop("screenshot", None)  # written to its file, not printed
        say(safe_json(body, indent=2))
    else:
        say(_shown(formats[output.value]), nl=False)


def _shown(value: Any) -> str:
    """A format printed: text as it is, anything else as JSON; ending with a newline."""
    text = value if isinstance(value, str) else safe_json(value, indent=2)
    return text if text.endswith("\n") or not text else text + "\n"
