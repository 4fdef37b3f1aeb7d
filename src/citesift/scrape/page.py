"""One page through the whole pipeline: fetch, decide on rendering, render, extract, format.

    outcome = await scrape(url, ("markdown", "links"), identity=identity)
    outcome = scrape_sync(url, ("text",), identity=identity, render="never")
    async with Browser(lazy=True) as browser:  # many pages, one Chromium, if any needs one
        outcomes = [await scrape(url, identity=identity, browser=browser) for url in urls]

The static page is fetched through ``citesift.net`` (saved to the store when one is given,
or answered from it when offline or fresh enough for ``max_age``). What the bytes are decides
how they are read, never the URL's suffix: a PDF or Office file by its own reader, HTML
through the render decision; a stand-in for the page is a failure; a rendered page, and a
page narrowed by selectors, is kept as a snapshot of its own beside the network one, saying
what it was made from and how, and extraction reads it instead.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from citesift.errors import DocumentError, StoreError, invalid
from citesift.extract.document import extract_document, snapshot_text
from citesift.extract.rules import Mode
from citesift.extract.sniff import DocumentKind, document_kind
from citesift.model import FetchOutcome, Snapshot
from citesift.net import (
    ClientIdentity,
    Fetcher,
    Fetches,
    FetchPolicy,
    run_sync,
    without_credentials,
)
from citesift.scrape import result as codes
from citesift.scrape.browser import Browser, BrowserUnavailable, Rendered, RenderFailed
from citesift.scrape.decision import RenderRecord, decide
from citesift.scrape.failures import failure_of, stand_in_failure
from citesift.scrape.formats import PAGE_ONLY_FORMATS, Page, formats, metadata
from citesift.scrape.options import ScrapeOptions
from citesift.scrape.result import ScrapeFailure, ScrapeOutcome, ScrapeResult
from citesift.scrape.tags import NARROWING_HEADER, narrowed, narrowing
from citesift.scrape.urls import link_seconds
from citesift.sources.challenge import stand_in
from citesift.sources.snapshots import (
    DERIVED_HEADER,
    NARROWED,
    RENDERED,
    SOURCE_HEADER,
    fetching,
    latest_page,
)
from citesift.sources.web import HTML_TYPES, is_web_url
from citesift.store import AnyStore
from citesift.store.snapshots import snapshot_id, snapshots_in

RENDERED_TYPE = "text/html; charset=utf-8"
MAX_SHOWN_URL = 300
"""How much of an address a page named is shown in a warning."""


async def scrape(
    url: str,
    formats: tuple[str, ...] | list[str] | None = None,
    *,
    identity: ClientIdentity,
    options: ScrapeOptions | None = None,
    policy: FetchPolicy | None = None,
    allow_private: bool = False,
    fetcher: Fetcher | None = None,
    store: AnyStore | None = None,
    offline: bool = False,
    browser: Browser | None = None,
    executable: str | None = None,
    **changes: Any,
) -> ScrapeOutcome:
    """The page at ``url`` in ``formats`` (default: the options', else markdown).

    ``options`` and any ``ScrapeOptions`` field given as a keyword say how; ``policy`` how
    to fetch (default: a web-page policy for ``identity``, private addresses as
    ``allow_private`` says); ``fetcher``/``store``/``offline`` as a source takes them;
    ``browser`` an entered ``Browser`` to render with (a lazy one starts on the first page
    that needs it), else one is launched for this page when needed (``executable`` as
    ``find_executable`` takes it). A page asked with headers (the options' or the policy's:
    a Cookie, an Authorization) is the caller's alone: its snapshots are neither kept in
    ``store`` nor answered from it. A bad argument is an
    ``InvalidArgument`` (an unknown keyword a ``TypeError``); anything else is an outcome.
    """
    if not isinstance(url, str) or not is_web_url(url):
        raise invalid("url", url, "an http(s) URL with a host")
    url = without_credentials(url)  # never sent, so neither looked up, stored nor shown
    if formats is not None:
        changes["formats"] = tuple(formats) if not isinstance(formats, str) else (formats,)
    chosen = (options or ScrapeOptions()).replace(**changes)
    base = policy or FetchPolicy.for_pages(identity, allow_private=allow_private)
    policy = base.with_(error_pages=True, headers=(*base.headers, *chosen.headers.items()))
    if policy.headers:  # a page asked with credentials is the caller's alone: never shared
        store = None
    run = _Run(url, chosen, policy, store, offline)
    got = await _static(url, chosen, policy, fetching(fetcher or Fetcher(), store, offline), store)
    run.lap("fetch")
    if not isinstance(got, Snapshot):
        return failure_of(url, got)
    try:
        kind = document_kind(got.body, got.content_type)
    except DocumentError as error:
        return ScrapeFailure(url, codes.UNREADABLE_DOCUMENT, str(error), got.status)
    if kind is not None:
        return run.file(got, kind)
    refusal = _refusal(url, got)
    if refusal is not None:
        return refusal
    return await run.finish(got, browser, executable)


def scrape_sync(
    url: str, formats: tuple[str, ...] | list[str] | None = None, **keywords: Any
) -> ScrapeOutcome:
    """``scrape`` run to completion from synchronous code (also inside a running loop)."""
    return run_sync(scrape(url, formats, **keywords))


async def _static(
    url: str,
    options: ScrapeOptions,
    policy: FetchPolicy,
    fetcher: Fetches,
    store: AnyStore | None,
) -> FetchOutcome:
    """The page as served: a stored snapshot young enough for ``max_age``, else fetched."""
    if options.max_age is not None and store is not None:
        try:
            found = latest_page(snapshots_in(store), url)
        except (sqlite3.Error, StoreError):
            found = None
        if found is not None and _now_ms() - found.fetched_at <= options.max_age * 1000:
            return found
    return await fetcher.fetch(url, policy)


def _refusal(url: str, snapshot: Snapshot) -> ScrapeFailure | None:
    """Why a fetched page is not read: not HTML, or a stand-in for the page."""
    if not snapshot.content_type.lower().startswith(HTML_TYPES) and snapshot.content_type:
        return ScrapeFailure(
            url,
            codes.UNSUPPORTED_CONTENT,
            f"content type {snapshot.content_type!r} is not HTML",
            snapshot.status,
        )
    why = stand_in(snapshot) if snapshot.status < 400 else None
    return None if why is None else stand_in_failure(url, why, snapshot.status)


class _Run:
    """One scrape past its fetch: the render decision, the render, extraction, formats."""

    def __init__(
        self,
        url: str,
        options: ScrapeOptions,
        policy: FetchPolicy,
        store: AnyStore | None,
        offline: bool,
    ) -> None:
        self.url = url
        self.options = options
        self.policy = policy
        self.store = store
        self.offline = offline
        self.warnings: list[str] = []
        self.timings: dict[str, float] = {}
        self._since = time.perf_counter()

    def lap(self, step: str) -> None:
        """Note the milliseconds ``step`` took: since the last step ended, or the start."""
        now = time.perf_counter()
        self.timings[step] = round((now - self._since) * 1000, 1)
        self._since = now

    def file(self, static: Snapshot, kind: DocumentKind) -> ScrapeOutcome:
        """A PDF or Office file read by its own reader: never rendered, never narrowed, and
        without the formats only a page has (they are None, and a warning says so)."""
        record = RenderRecord(False, f"a {kind} file is read as a file, not rendered")
        options = self.options
        lacking = [name for name in options.formats if name in PAGE_ONLY_FORMATS]
        if lacking:
            self.warnings.append(f"a {kind} file has no {', '.join(lacking)}")
        if options.include_tags or options.exclude_tags:
            self.warnings.append(f"include_tags and exclude_tags do not apply to a {kind} file")
        try:
            document = extract_document(static)
        except DocumentError as error:
            return ScrapeFailure(self.url, codes.UNREADABLE_DOCUMENT, str(error), static.status)
        return self._made(static, Page(document, None, None, static.final_url), record, (static,))

    async def finish(
        self, static: Snapshot, browser: Browser | None, executable: str | None
    ) -> ScrapeOutcome:
        """The result read from ``static``, or from its render when one is decided and runs."""
        html = snapshot_text(static)
        record = decide(html, self.options.render)
        if static.header(DERIVED_HEADER) == RENDERED and self.options.render != "always":
            record = RenderRecord(False, "the stored snapshot is the page as rendered before")
        if "screenshot" in self.options.formats and not record.decided:
            record = RenderRecord(True, f"a screenshot was asked for ({record.why})")
        if not record.decided:
            return self._result(static, html, None, record)
        self.lap("decide")
        rendered = await self._rendered(static, browser, executable)
        self.lap("render")
        if isinstance(rendered, str):
            return self._unrendered(static, html, record, rendered)
        record = replace(record, rendered=True)
        snapshot = self._kept(derived(static, rendered.html, RENDERED, rendered.final_url))
        refusal = _refusal(self.url, snapshot)
        if refusal is not None:
            return replace(refusal, render=record)
        return self._result(static, rendered.html, rendered, record, snapshot)

    async def _rendered(
        self, static: Snapshot, browser: Browser | None, executable: str | None
    ) -> Rendered | str:
        """The page rendered, or why not (in words)."""
        if self.offline:
            return "offline: nothing is sent, so nothing is rendered"
        screenshot = "screenshot" in self.options.formats
        try:
            if browser is not None:
                return await browser.render(static, self.options, self.policy, screenshot)
            async with Browser(executable) as own:
                return await own.render(static, self.options, self.policy, screenshot)
        except BrowserUnavailable as error:
            return f"rendering unavailable: {error}"
        except TimeoutError:
            return f"timeout: the page was not rendered within {self.options.timeout:g} s"
        except RenderFailed as error:
            return f"the render failed: {error}"

    def _unrendered(
        self, static: Snapshot, html: str, record: RenderRecord, why: str
    ) -> ScrapeOutcome:
        """The static page when rendering was decided but did not happen, or the failure
        when the caller required it (``render='always'``, a screenshot)."""
        unavailable = why.startswith(("rendering unavailable", "offline"))
        record = replace(record, unavailable=unavailable)
        if self.options.render == "always" or "screenshot" in self.options.formats:
            code = codes.RENDER_UNAVAILABLE if unavailable else codes.RENDER_FAILED
            code = codes.TIMEOUT if why.startswith("timeout") else code
            return ScrapeFailure(self.url, code, why, static.status, record)
        self.warnings.append(f"{why}; the static page was read instead")
        return self._result(static, html, None, record)

    def _kept(self, snapshot: Snapshot) -> Snapshot:
        """``snapshot`` (made here), saved beside the network one when there is a store."""
        if self.store is not None:
            try:
                snapshots_in(self.store).save(snapshot)
            except (sqlite3.Error, StoreError) as error:
                how = snapshot.header(DERIVED_HEADER)
                self.warnings.append(f"the {how} page was not kept: {error}")
        return snapshot

    def _narrowed(self, page: Snapshot, html: str) -> Snapshot:
        """``page`` (whose text is ``html``) narrowed by the selectors, as a snapshot kept
        with the selectors recorded; ``page`` itself when they leave it as it is."""
        include, exclude = self.options.include_tags, self.options.exclude_tags
        notes = ((NARROWING_HEADER, narrowing(include, exclude)),)
        made = derived(page, narrowed(html, include, exclude), NARROWED, notes=notes)
        return page if made.id == page.id else self._kept(made)

    def _result(
        self,
        static: Snapshot,
        html: str,
        rendered: Rendered | None,
        record: RenderRecord,
        snapshot: Snapshot | None = None,
    ) -> ScrapeResult:
        """The formats asked for, read from ``html`` (narrowed first when selectors say so)."""
        options = self.options
        read = snapshot or static
        if options.include_tags or options.exclude_tags:
            read = self._narrowed(read, html)
        if rendered is not None and rendered.refused:
            self.warnings.append(f"the browser was kept from {len(rendered.refused)} address(es)")
        if rendered is not None and rendered.left_for is not None:
            self.warnings.append(
                f"the page's script tried to go to {rendered.left_for[:MAX_SHOWN_URL]}, not"
                " followed: the page fetched was read (ask for that address to read it)"
            )
        mode: Mode = "article" if options.only_main_content else "page"
        document = extract_document(read, mode=mode)
        page = Page(
            document,
            snapshot_text(read),
            html,
            read.final_url,
            rendered.screenshot if rendered else None,
            link_seconds(self.policy.deadline),
        )
        return self._made(static, page, record, (static, snapshot, read))

    def _made(
        self,
        static: Snapshot,
        page: Page,
        record: RenderRecord,
        read: tuple[Snapshot | None, ...],
    ) -> ScrapeResult:
        """The result: the formats asked for made from ``page``, the snapshots ``read``."""
        made = formats(page, self.options.formats, self.warnings)
        self.lap("extract")
        self.timings["total"] = round(sum(self.timings.values()), 1)
        return ScrapeResult(
            url=self.url,
            final_url=page.url,
            status=static.status,
            formats=made,
            metadata=made.get("metadata") or metadata(page),
            snapshot_ids=tuple(dict.fromkeys(s.id for s in read if s is not None)),
            render=record,
            warnings=tuple(self.warnings),
            timings=dict(self.timings),
            document=page.document,
        )


def derived(
    source: Snapshot,
    html: str,
    how: str,
    final_url: str | None = None,
    notes: Sequence[tuple[str, str]] = (),
) -> Snapshot:
    """A snapshot of ``html`` made here from ``source`` (``how``: rendered or narrowed),
    naming ``source`` and carrying ``notes`` on how among its headers."""
    body = html.encode("utf-8")
    made = ((DERIVED_HEADER, how), (SOURCE_HEADER, source.id), *notes)
    return Snapshot(
        id=snapshot_id(body),
        url=source.url,
        final_url=final_url or source.final_url,
        status=source.status,
        headers=(("content-type", RENDERED_TYPE), *made),
        content_type=RENDERED_TYPE,
        charset="utf-8",
        fetched_at=_now_ms(),
        body=body,
    )


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
