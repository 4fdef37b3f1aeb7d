"""Any web page a citation names, read as a public source.

Page mode by default (tables, figures, quotations and code kept, each cell its own block);
``publisher``, ``page_date`` and the licence are taken from what the page states about
itself. Redirects are followed up to a bound, each hop re-checked by ``citesift.net``
(scheme, address, robots.txt, limiter).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from citesift.extract import extract_document
from citesift.extract.rules import Mode
from citesift.model import (
    Document,
    Failed,
    Hits,
    Limited,
    ReadOutcome,
    SearchOutcome,
    Skipped,
    Snapshot,
    SourceDocument,
    SourceHit,
)
from citesift.net import LIMITERS, ClientIdentity, FetchPolicy, LimiterRegistry, fetch
from citesift.net.policy import BODY_BYTES, DECLARED_BYTES, PAGE_DEADLINE, PAGE_REDIRECTS
from citesift.sources.addresses import carriable
from citesift.sources.base import (
    DEFAULT_LIMIT,
    TEXT_BUDGET,
    BlockingCalls,
    OnSend,
    Signal,
    abortable,
    keeping,
    sane_budget,
)
from citesift.store import SQLiteStore

HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True, slots=True)
class PageLimits:
    """The bounds of reading one page (DESIGN.md's web-page row); absurd values sanitised."""

    deadline: float = PAGE_DEADLINE
    max_declared_bytes: int = DECLARED_BYTES
    max_body_bytes: int = BODY_BYTES
    max_redirects: int = PAGE_REDIRECTS
    text_budget: int = TEXT_BUDGET


class WebPageSource(BlockingCalls):
    """Reads the page at a URL; its ``search`` only recognises a URL given as the phrase."""

    site = "web"

    def __init__(
        self,
        identity: ClientIdentity,
        mode: Mode = "page",
        limits: PageLimits = PageLimits(),
        *,
        allow_private: bool = False,
        robots: bool = True,
        limiters: LimiterRegistry = LIMITERS,
        store: SQLiteStore | None = None,
        offline: bool = False,
    ) -> None:
        if mode not in ("page", "article"):
            raise ValueError(f"mode must be 'page' or 'article', not {mode!r}")
        self.mode = mode
        self.policy = FetchPolicy.for_pages(
            identity,
            deadline=limits.deadline,
            max_declared_bytes=limits.max_declared_bytes,
            max_body_bytes=limits.max_body_bytes,
            allow_private=allow_private,
            robots=robots,
            limiters=limiters,
            **keeping(store, offline),
        ).with_(max_redirects=limits.max_redirects)
        self.text_budget = sane_budget(limits.text_budget)

    async def search(
        self,
        phrase: str,
        limit: int = DEFAULT_LIMIT,
        *,
        signal: Signal | None = None,
        on_send: OnSend | None = None,
    ) -> SearchOutcome:
        """One hit when ``phrase`` is an http(s) URL (a page source has no search of its own)."""
        url = phrase.strip() if isinstance(phrase, str) else ""
        if not is_web_url(url):
            return Failed(None, "a web page source reads URLs; the phrase is not one")
        return Hits((SourceHit(url, url),))

    async def read(
        self, hit: SourceHit, *, signal: Signal | None = None, on_send: OnSend | None = None
    ) -> ReadOutcome:
        """The page at ``hit.key``; the hit's title is kept unless it is the URL itself."""
        outcome = await abortable(fetch(hit.key, self.policy, on_send=on_send), signal)
        if isinstance(outcome, Skipped | Limited):
            return outcome
        if not outcome.content_type.lower().startswith(HTML_TYPES):
            return Skipped(outcome.status, f"content type {outcome.content_type!r} is not HTML")
        return Document(self._document(hit, outcome))

    def _document(self, hit: SourceHit, snapshot: Snapshot) -> SourceDocument:
        """The page's document, titled by the hit unless the hit's title is just the URL."""
        document = extract_document(snapshot, mode=self.mode, budget=self.text_budget, key=hit.key)
        named = isinstance(hit.title, str) and hit.title.strip() and hit.title != hit.key
        return replace(document, title=hit.title) if named else document


def is_web_url(text: str) -> bool:
    """Whether ``text`` is an http(s) URL with a host that an address can carry."""
    if not carriable(text):
        return False
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)
