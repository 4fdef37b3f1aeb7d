"""Wikipedia as a public source: REST search by phrase, Parsoid page HTML by key.

Every request goes through ``citesift.net.fetch`` under the shared per-host limiter, names
the caller's identity, sends no cookie and follows no redirect: a 3xx is a transport
failure, ``Skipped(None)`` (where it points kept in ``location``, its target never asked
for; ``redirect_note`` says which title of the same wiki to ask for instead). A key is sent
as given (``encodeURIComponent``'s form); a phrase or key no address can carry, a blank
phrase or one over ``MAX_PHRASE_CHARS`` answers ``Failed(None)`` / ``Skipped(None)`` with
nothing sent. Neither method raises for a refusal or a failure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Unpack
from urllib.parse import unquote, urlsplit, urlunsplit

from citesift.errors import invalid
from citesift.extract import extract_document
from citesift.model import (
    WIKIPEDIA_LICENCE,
    Failed,
    FetchOutcome,
    Hits,
    Limited,
    ReadOutcome,
    SearchOutcome,
    Skipped,
    Snapshot,
    SourceDocument,
    SourceHit,
)
from citesift.net import ClientIdentity, FetchPolicy
from citesift.net.limiter import OnSend
from citesift.sources.base import (
    DEFAULT_LIMIT,
    TEXT_BUDGET,
    Access,
    FetchingSource,
    Signal,
    check_bounds,
    checked_limit,
)
from citesift.sources.excerpts import plain_excerpt
from citesift.text.addresses import (
    WIKIPEDIA_SITE,
    article_url,
    carriable,
    encode_component,
)

DEFAULT_ORIGIN = "https://en.wikipedia.org"
SEARCH_PATH = "/w/rest.php/v1/search/page"
PAGE_PATH = "/api/rest_v1/page/html/{key}"
CORE_PAGE_PATH = "/w/rest.php/v1/page/{key}/html"
_ETAG_REVISION = re.compile(r'^(?:W/)?"(\d+)/')
_HTML_REVISION = re.compile(rb'<html[^>]*\sabout="[^"]*/revision/(\d+)"')
_REVISION_READ = re.compile(r"/revision/|/page/html/[^/]+/[^/]+")
"""A page path reading one revision: the core REST API's ``revision/{id}/html`` or
RESTBase's ``page/html/{title}/{revision}`` (either part being the ``{key}``)."""
REVISION_SCAN_BYTES = 8192
HEAD_SCAN_BYTES = 16_384  # Parsoid writes the page's own metadata first
_VERSION_OF = re.compile(rb'<link\s[^>]*?rel="dc:isVersionOf"[^>]*?href="[^"]*?/wiki/([^"#?]+)"')
REDIRECT, DISAMBIGUATION = "redirect", "disambiguation"
NOT_FOUND, REDIRECTED = "NOT_FOUND", "REDIRECTED"
"""The kinds of a read ``not_read`` explains: no such article, a key the wiki redirects."""
_REDIRECT_LINK = re.compile(rb'<link\s[^>]*?rel="mw:PageProp/redirect"[^>]*?href="\./([^"#]+)')
_DISAMBIGUATION = b'property="mw:PageProp/disambiguation"'
_HEAD_END = re.compile(rb"</head\s*>", re.IGNORECASE)
NO_REDIRECT = "redirect=no"  # the query the core REST path adds to a redirect's target
MAX_PHRASE_CHARS = 300  # CirrusSearch refuses longer queries
MAX_KEY_CHARS = 1_000  # titles are at most 255 bytes; leave room for encoded forms


@dataclass(frozen=True, slots=True)
class WikipediaLimits:
    """The bounds of one provider (DESIGN.md's Wikipedia row); a value that makes no sense is
    an ``InvalidArgument`` naming it."""

    deadline: float = 3.0  # seconds from send to the end of the body
    search_max_bytes: int = 65_536
    page_max_sent_bytes: int = 1_500_000  # declared Content-Length
    page_max_bytes: int = 6_000_000  # body after decompression
    text_budget: int = TEXT_BUDGET  # characters of text kept from one page

    def __post_init__(self) -> None:
        check_bounds(self, ("search_max_bytes", "page_max_sent_bytes", "page_max_bytes"))


class WikipediaSourceProvider(FetchingSource):
    """English Wikipedia by default, another wiki through ``origin``."""

    site = WIKIPEDIA_SITE

    def __init__(
        self,
        identity: ClientIdentity,
        origin: str = DEFAULT_ORIGIN,
        page_path: str = PAGE_PATH,
        limits: WikipediaLimits = WikipediaLimits(),
        **access: Unpack[Access],
    ) -> None:
        if "{key}" not in page_path or not page_path.startswith("/"):
            raise ValueError("page_path must start with / and hold {key}")
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
            raise ValueError(f"origin must be an http(s) address such as {DEFAULT_ORIGIN}")
        super().__init__(FetchPolicy.for_wikipedia, identity, limits.text_budget, access)
        self.origin = origin.rstrip("/")
        self.page_path = page_path
        self.search_policy = self.base_policy.with_(
            deadline=limits.deadline,
            max_body_bytes=limits.search_max_bytes,
            accept="application/json",
        )
        self.page_policy = self.base_policy.with_(
            deadline=limits.deadline,
            max_declared_bytes=limits.page_max_sent_bytes,
            max_body_bytes=limits.page_max_bytes,
            accept="text/html",
        )

    def search_url(self, phrase: str, limit: int = DEFAULT_LIMIT) -> str | None:
        """The search address for ``phrase`` (space as ``%20``), or None for a phrase the
        search cannot take: blank, over ``MAX_PHRASE_CHARS``, or not carriable."""
        query = encode_component(phrase)
        if query is None or not phrase.strip() or len(phrase) > MAX_PHRASE_CHARS:
            return None
        return f"{self.origin}{SEARCH_PATH}?q={query}&limit={checked_limit(limit)}"

    def page_url(self, key: str) -> str | None:
        """The page-HTML address of ``key``, or None if no address can carry it."""
        encoded = encode_component(key)
        if encoded is None or not key or len(key) > MAX_KEY_CHARS:
            return None
        return self.origin + self.page_path.replace("{key}", encoded)

    async def read(
        self, hit: SourceHit, *, signal: Signal | None = None, on_send: OnSend | None = None
    ) -> ReadOutcome:
        """The hit's article; a redirect is a transport failure, ``Skipped(None)`` keeping
        where it points."""
        outcome = await super().read(hit, signal=signal, on_send=on_send)
        if isinstance(outcome, Skipped):
            return Skipped(_failure_status(outcome.status), outcome.reason, outcome.location)
        return outcome

    def redirected_key(self, outcome: ReadOutcome) -> str | None:
        """The key a read skipped for a redirect points to when that is another title of
        this wiki's page path (``…/page/html/Dog``; the core REST path's ``?redirect=no``
        asks nothing else), else None."""
        if not isinstance(outcome, Skipped) or outcome.location is None:
            return None
        before, after = (self.origin + self.page_path).split("{key}", 1)
        location = urlsplit(outcome.location)
        address = urlunsplit((location.scheme, location.netloc, location.path, "", ""))
        elsewhere = location.query not in ("", NO_REDIRECT) or location.fragment
        if elsewhere or not address.startswith(before) or not address.endswith(after):
            return None
        written = address[len(before) : len(address) - len(after)]
        key = unquote(written)
        return key if key and "/" not in written and carriable(key) else None

    def redirect_note(self, key: str, outcome: ReadOutcome) -> str | None:
        """What to tell a caller whose read of ``key`` was skipped for a redirect to another
        title of this wiki (``Wikipedia redirects dog to Dog: ask for Dog``), else None."""
        target = self.redirected_key(outcome)
        if target is None or target == key:
            return None
        return f"{self.site} redirects {key} to {target}: ask for {target}"

    def not_read(self, key: str, outcome: ReadOutcome) -> tuple[str, str] | None:
        """What to tell a caller whose read of ``key`` gave no article because the wiki has
        none (``NOT_FOUND``) or redirects the key (``REDIRECTED``): the kind and the message
        every surface says; None for any other outcome."""
        if isinstance(outcome, Skipped) and outcome.status == 404:
            return NOT_FOUND, f"{self.origin} has no article {key!r} (HTTP 404): search for its key"
        redirected = self.redirect_note(key, outcome)
        return (REDIRECTED, redirected) if redirected else None

    def article_url(self, key: str) -> str:
        """The article's address for attribution."""
        return article_url(self.origin, key)

    def search_request(self, phrase: str, limit: int) -> str | SearchOutcome:
        """The search address, or ``Failed(None)`` for a phrase the search cannot take."""
        url = self.search_url(phrase, limit)
        if url is None:
            return Failed(None, f"the phrase is not text of 1 to {MAX_PHRASE_CHARS} characters")
        return url

    def search_answer(self, outcome: FetchOutcome, limit: int) -> SearchOutcome:
        """The hits of a REST search answer."""
        return _search_outcome(outcome, limit)

    def read_url(self, hit: SourceHit) -> str | None:
        """The page-HTML address of the hit's key."""
        return self.page_url(hit.key)

    def refusal(self, snapshot: Snapshot) -> Skipped | None:
        """A page that is not HTML, or not a plain 200 answer, is not read."""
        refused = super().refusal(snapshot)
        if refused is None and snapshot.status != 200:
            return Skipped(snapshot.status, f"HTTP {snapshot.status}")
        return refused

    def document(self, hit: SourceHit, snapshot: Snapshot) -> SourceDocument:
        """The article: its text in article mode, the revision and Wikipedia's licence; a
        revision read by its number (a page path of either API's revision form) is
        attributed to the article the page says it is a version of, any other read to the
        hit's key."""
        own = article_of(snapshot.body) if _REVISION_READ.search(self.page_path) else None
        if own is not None and own != hit.key:
            hit = retitled_hit(hit, own)
        document = extract_document(
            snapshot,
            url=self.article_url(hit.key),
            mode="article",
            budget=self.text_budget,
            site=self.site,
            key=hit.key,
        )
        return replace(
            document,
            title=hit.title,
            revision=revision_of(snapshot),
            licence=WIKIPEDIA_LICENCE,
            publisher=None,
            page_date=None,
            metadata={**document.metadata, **page_kind(snapshot.body)},
        )


def retitled_hit(hit: SourceHit, key: str) -> SourceHit:
    """``hit`` for the article ``key``: its title made from the key unless the caller gave
    one of its own (a title that is not the old key's)."""
    derived = hit.title == hit.key.replace("_", " ")
    return SourceHit(key, key.replace("_", " ") if derived else hit.title, hit.excerpt)


def article_of(body: bytes) -> str | None:
    """The key of the article the page is a version of (Parsoid's ``dc:isVersionOf``)."""
    link = _VERSION_OF.search(body[:HEAD_SCAN_BYTES])
    key = unquote(link.group(1).decode("utf-8", "replace")) if link else ""
    return key if key and carriable(key) else None


def page_kind(body: bytes) -> dict[str, object]:
    """What the page's own markers say it is: a redirect page (``redirect``: the title it
    points to) or a disambiguation page (``disambiguation``: True, a meta of its head: an
    article's text quoting the marker is no such page); empty for an article."""
    kind: dict[str, object] = {}
    target = _REDIRECT_LINK.search(body)
    if target:
        kind[REDIRECT] = unquote(target.group(1).decode("utf-8", "replace")).replace("_", " ")
    if _DISAMBIGUATION in _head(body):
        kind[DISAMBIGUATION] = True
    return kind


def _head(body: bytes) -> bytes:
    """The page's head: up to ``</head>`` within its first ``HEAD_SCAN_BYTES``."""
    first = body[:HEAD_SCAN_BYTES]
    end = _HEAD_END.search(first)
    return first[: end.start()] if end else first


def wiki_key(title: str) -> str:
    """A title a person typed as MediaWiki writes it in an address (spaces as ``_``), for
    the surfaces that take one; the provider sends a key as given."""
    return title.replace(" ", "_")


def checked_phrase(phrase: object, name: str = "phrase") -> None:
    """``InvalidArgument`` (naming ``name``) for a phrase Wikipedia's search cannot take:
    blank, or longer than ``MAX_PHRASE_CHARS``; for the surfaces to say before they ask
    (the provider answers such a phrase ``Failed(None)``)."""
    if isinstance(phrase, str) and (not phrase.strip() or len(phrase) > MAX_PHRASE_CHARS):
        why = f"text of 1 to {MAX_PHRASE_CHARS} characters (the most Wikipedia's search takes)"
        raise invalid(name, phrase, why)


def revision_of(snapshot: Snapshot) -> str | None:
    """The revision: the content-revision-id header, the ETag's, or the HTML's own link."""
    header = (snapshot.header("content-revision-id") or "").strip()
    if header.isascii() and header.isdigit():
        return header
    etag = _ETAG_REVISION.match((snapshot.header("etag") or "").strip())
    if etag:
        return etag.group(1)
    link = _HTML_REVISION.search(snapshot.body[:REVISION_SCAN_BYTES])
    return link.group(1).decode("ascii") if link else None


def _search_outcome(outcome: FetchOutcome, limit: int) -> SearchOutcome:
    """A fetch outcome read as a search answer."""
    if isinstance(outcome, Limited):
        return outcome
    if isinstance(outcome, Skipped):
        return Failed(_failure_status(outcome.status), outcome.reason)
    if outcome.status != 200:
        return Failed(outcome.status, f"HTTP {outcome.status}")
    pages = _pages(outcome.body)
    if pages is None:
        return Failed(200, "the answer is not JSON with a pages list")
    return Hits(tuple(_hits(pages, limit)))


def _failure_status(status: int | None) -> int | None:
    """A status worth reporting: redirects are transport failures (None)."""
    return None if status is None or 300 <= status < 400 else status


def _pages(body: bytes) -> list[Any] | None:
    """The ``pages`` list of a REST search answer, or None."""
    try:
        answer = json.loads(body)
    except (ValueError, RecursionError):
        return None
    pages = answer.get("pages") if isinstance(answer, dict) else None
    return pages if isinstance(pages, list) else None


def _hits(pages: list[Any], limit: int) -> list[SourceHit]:
    """Hits for the entries with a non-empty, carriable key and a title, up to ``limit``."""
    hits: list[SourceHit] = []
    for page in pages:
        if len(hits) >= limit:
            break
        hit = _hit(page)
        if hit is not None:
            hits.append(hit)
    return hits


def _hit(page: object) -> SourceHit | None:
    if not isinstance(page, dict):
        return None
    key, title, excerpt = page.get("key"), page.get("title"), page.get("excerpt")
    if not (isinstance(key, str) and key and isinstance(title, str) and title):
        return None
    if not carriable(key):
        return None
    return SourceHit(key, title, plain_excerpt(excerpt) if isinstance(excerpt, str) else None)
