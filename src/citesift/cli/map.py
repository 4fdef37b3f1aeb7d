"""``citesift map URL``: the URLs of a site, from its sitemaps and its start page."""

from __future__ import annotations

from typing import Annotated

import typer

from citesift.cli.app import app
from citesift.cli.options import (
    AllowPrivate,
    Contact,
    Deadline,
    ListFormat,
    Listing,
    Store,
    source_setup,
    usage_error,
)
from citesift.cli.reading import fail, run_with_status
from citesift.cli.terminal import safe_json, say
from citesift.errors import InvalidArgument, masked
from citesift.scrape.map import MAP_LIMIT, areadable_map, start_url


@app.command("map")
def map_command(
    url: Annotated[
        str, typer.Argument(metavar="URL", help="The site's start page (http or https).")
    ],
    search: Annotated[
        str | None, typer.Option(help="Words to rank the URLs by (most matching first).")
    ] = None,
    limit: Annotated[int, typer.Option(help="URLs to print at most.")] = MAP_LIMIT,
    output: Listing = ListFormat.text,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    store: Store = None,
    deadline: Deadline = None,
) -> None:
    """List a site's URLs (robots.txt sitemaps, /sitemap.xml, the start page's links) one a
    line, leaving out those robots.txt disallows; how many were left out and what could not
    be read is said on standard error, and a start page that could not be read makes the
    command exit 1 (after the URLs its sitemaps list)."""
    try:
        start_url(url)
    except InvalidArgument as error:
        usage_error(str(error))
    with source_setup(contact, allow_private, store, deadline=deadline) as setup:
        call = areadable_map(
            url, search, limit, policy=setup.settings.fetch_policy(), fetcher=setup.fetcher
        )
        try:  # a start that could not be read is said below, not listed
            found, urls = run_with_status(f"Mapping {masked(url)}…", call)
        except InvalidArgument as error:
            usage_error(str(error))
    notes = [problem for problem in found.problems if problem != found.start_failure]
    for note in [*notes, found.disallowed_note()]:
        if note is not None:
            say(f"note: {note}", err=True)
    if output is ListFormat.json:
        listed = {"url": found.url, "urls": list(urls), "sitemaps": list(found.sitemaps),
                  "start_failure": found.start_failure,
                  "disallowed": found.disallowed}  # fmt: skip
        say(safe_json(listed))
    else:
        for address in urls:
            say(address)
    if found.start_failure is not None:
        fail(f"the start page could not be read: {found.start_failure}")
