"""Any web page a citation names, read as a public source.

Page mode by default (tables, figures, quotations and code kept, each cell its own block);
``publisher``, ``page_date`` and the licence are taken from what the page states about
itself. Redirects are followed up to a bound, each hop re-checked by ``citesift.net``
(scheme, address, robots.txt, limiter). A bot challenge, block page or soft 404 answered
with a success status is refused, not read as the page (``challenge``). What the bytes are
decides how they are read, as ``scrape`` reads them: a PDF, Word, PowerPoint or Excel file
by its own reader (each block with its place), within the same bounds; one encrypted,
corrupt or past those bounds is ``Skipped`` saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Unpack
from urllib.parse import urldefrag, urlsplit

from citesift.errors import DocumentError
from citesift.extract import extract_document
from citesift.extract.rules import Mode
from citesift.extract.sniff import document_kind
from citesift.model import (
    Failed,
    Hits,
    SearchOutcome,
    Skipped,
    Snapshot,
    SourceDocument,
    SourceHit,
)
from citesift.net import ClientIdentity, FetchPolicy
from citesift.net.policy import (
    BODY_BYTES,
    DECLARED_BYTES,
    MAX_REDIRECTS,
    PAGE_DEADLINE,
    PAGE_REDIRECTS,
)
from citesift.numbers import number_in
from citesift.sources.base import TEXT_BUDGET, Access, FetchingSource, check_bounds
from citesift.sources.challenge import stand_in
from citesift.text.addresses import carriable

HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True, slots=True)
class PageLimits:
    """The bounds of reading one page (DESIGN.md's web-page row); a value that makes no sense
    is an ``InvalidArgument`` naming it."""

    deadline: float = PAGE_DEADLINE
    max_declared_bytes: int = DECLARED_BYTES
    max_body_bytes: int = BODY_BYTES
    max_redirects: int = PAGE_REDIRECTS
    text_budget: int = TEXT_BUDGET

    def __post_init__(self) -> None:
        check_bounds(self, ("max_declared_bytes", "max_body_bytes"))
        number_in("max_redirects", self.max_redirects, 0, MAX_REDIRECTS, whole=True)


class WebPageSource(FetchingSource):
    """Reads the page at a URL; its ``search`` only recognises a URL given as the phrase."""

    site = "web"
    html_types = HTML_TYPES

    def __init__(
        self,
        identity: ClientIdentity,
        mode: Mode = "page",
        limits: PageLimits = PageLimits(),
        **access: Unpack[Access],
    ) -> None:
        if mode not in ("page", "article"):
            raise ValueError(f"mode must be 'page' or 'article', not {mode!r}")
        super().__init__(FetchPolicy.for_pages, identity, limits.text_budget, access)
        self.mode = mode
        self.page_policy = self.base_policy.with_(
            deadline=limits.deadline,
            max_declared_bytes=limits.max_declared_bytes,
            max_body_bytes=limits.max_body_bytes,
            max_redirects=limits.max_redirects,
        )

    def search_request(self, phrase: str, limit: int) -> SearchOutcome:
        """One hit when ``phrase`` is an http(s) URL (a page source has no search of its own)."""
        url = phrase.strip() if isinstance(phrase, str) else ""
        if not is_web_url(url):
            return Failed(None, "a web page source reads URLs; the phrase is not one")
        return Hits((SourceHit(url, url),))

    def refusal(self, snapshot: Snapshot) -> Skipped | None:
        """Why a fetched page is not read: neither HTML nor a PDF or Office file, or
        something standing in for it (a bot challenge, a block page, a soft 404)."""
        try:
            if document_kind(snapshot.body, snapshot.content_type) is not None:
                return None  # a file, read by its own reader
        except DocumentError as error:  # a zip that is no Office file, or one with macros
            return Skipped(snapshot.status, str(error))
        refusal = super().refusal(snapshot)
        why = None if refusal else stand_in(snapshot)
        return Skipped(snapshot.status, why) if why else refusal

    def document(self, hit: SourceHit, snapshot: Snapshot) -> SourceDocument:
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


def page_address(url: str) -> str:
    """A page's address as its document's id: without its ``#fragment``, which names a
    place in the page, not another page."""
    return urldefrag(url).url
