"""URLs as a site map and a crawl compare them: normalised, scoped, and read from a page.

``normalise`` is conservative: it changes only what cannot change what a server answers
(scheme and host case, a default port, the fragment, dot segments, an empty path, the
percent-escapes of letters, digits and ``-._~`` and the case of the others' hex digits), so
two spellings of one page become one key and no two pages become one. ``page_links`` reads the
``<a href>`` of a page (after its ``<base href>``) in one linear scan, capped in count and in
time, and says how many anchors it left unread.
"""

from __future__ import annotations

import html as htmllib
import re
import string
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

from citesift.extract.chars import unescape_attribute
from citesift.extract.tokens import RAW_TEXT_ENDS, TOKEN, attributes, raw_text_end

MAX_LINKS = 2_000
"""Links read from one page at most (a page of a million links reads its first ones)."""
ANCHORS_PER_LINK = 4
LINK_SECONDS = 5.0
"""Seconds reading one page's links may take at most (a caller's shorter deadline wins)."""
CLOCK_EVERY = 256
"""Tags read between two looks at the clock (every tag the scan stops at counts, so a page
of bare anchors, closing tags or ``<base>`` is held to the deadline as one of links is)."""
MAX_URL_CHARS = 8_192
"""A link longer than this is passed over (servers refuse far shorter request lines)."""
MAX_ANCHOR_TEXT = 200
MAX_ANCHOR_MARKUP = 2_000
"""Characters of an anchor's markup read for its text (a giant anchor costs no more)."""
_DEFAULT_PORTS = {"http": 80, "https": 443}
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_TAG = re.compile(r"<[^>]*>?")
_ANCHOR = re.compile(r"<a[\t\n\f\r />]", re.IGNORECASE)
_OPENERS = re.compile(
    "<(?:!--|/?(?:a|base|" + "|".join(RAW_TEXT_ENDS) + r")(?=[\t\n\f\r />]))", re.IGNORECASE
)
"""Where the tags a link scan reads may start: anchors, ``<base>``, raw-text elements (whose
bodies are skipped) and comments; every other tag is passed over by one search."""


def normalise(url: str, base: str | None = None) -> str | None:
    """``url`` (resolved against ``base``) in its normal form, or None unless it is an
    http(s) URL with a host."""
    try:
        full = urljoin(base, url.strip()) if base else url.strip()
        parts = urlsplit(full)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host or any(c in full for c in "\r\n\t"):
        return None
    path, query = _escapes(parts.path), _escapes(parts.query)
    return urlunsplit((scheme, _netloc(scheme, host, port), _path(path), query, ""))


def _netloc(scheme: str, host: str, port: int | None) -> str:
    """The host (in brackets when it is an IPv6 address) and the port unless it is
    ``scheme``'s default."""
    if ":" in host:
        host = f"[{host}]"
    return host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"


def _escapes(part: str) -> str:
    """``part`` with the percent-escapes of unreserved characters decoded and the others'
    hex digits in upper case (RFC 3986, 6.2.2): ``/%7euser`` and ``/~user`` are one page, so
    a site spelling one page many ways has it read once."""
    return _ESCAPE.sub(_escape, part) if "%" in part else part


def _escape(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else match.group(0).upper()


def _path(path: str) -> str:
    """``path`` with its dot segments resolved (RFC 3986, 5.2.4), and nothing else: an empty
    segment stays (``/a//b`` may be another page than ``/a/b``); ``/`` when empty."""
    if not path:
        return "/"
    segments = path.split("/")
    kept: list[str] = []
    for segment in segments:
        if segment == "..":
            if len(kept) > 1:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    if segments[-1] in (".", ".."):
        kept.append("")
    return "/".join(kept) or "/"


def host_of(url: str) -> str:
    """The host (and port) of a normalised URL."""
    return urlsplit(url).netloc


def origin_key(url: str) -> str | None:
    """``url``'s origin written ``scheme://host[:port]``, scheme and host in lower case, its
    user info and a default port left out (so every spelling of one origin gives one key),
    or None unless it is an http(s) URL with a host. One ``urlsplit``: a crawl asks it of
    every link it finds, where ``httpx.URL`` costs some 40 times as much."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname  # lower case, without user info or an IPv6 address's brackets
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    return f"{scheme}://{_netloc(scheme, host, port)}"


def same_site(url: str, start: str) -> bool:
    """Whether ``url`` is on ``start``'s host, by scheme (http or https) and host and port."""
    return host_of(url) == host_of(start)


@dataclass(frozen=True, slots=True)
class PageLinks:
    """A page's links (normalised URL → anchor text, in page order), the cap they were read
    to, how many anchors were left unread past it or the deadline, and whether the deadline
    cut the reading."""

    found: dict[str, str]
    cap: int
    unread: int = 0
    late: bool = False

    def problem(self) -> str | None:
        """What was left unread, in words, for a warning (None when nothing was)."""
        if not self.unread:
            return None
        why = "its links are read within a deadline, which passed" if self.late else (
            f"a page's first {self.cap:,} links are read, from"
            f" {self.cap * ANCHORS_PER_LINK:,} anchors at most"
        )  # fmt: skip
        return f"{self.unread:,} anchor(s) of the page were not read: {why}"


def link_seconds(deadline: float) -> float:
    """Seconds a page's links may be read in under a fetch's ``deadline``: ``LINK_SECONDS``,
    or the deadline when it is shorter."""
    return min(LINK_SECONDS, deadline)


def page_links(
    html: str, base: str, cap: int = MAX_LINKS, seconds: float = LINK_SECONDS
) -> PageLinks:
    """The page's http(s) links, normalised and deduplicated, in page order, each with its
    anchor text (the first that one of its anchors has, when several link the same URL);
    ``cap`` at most, read within ``seconds``.

    One scan for the tags it needs, each read by the extraction tokenizer (linear whatever
    the markup), raw-text bodies and comments skipped; the first ``<base href>``, when it
    comes before the first link, sets the base (as in HTML, later ones count for nothing).
    At most ``ANCHORS_PER_LINK`` anchors per link of ``cap`` are read, so a page of a
    million anchors to nowhere costs no more than its first ones; an address repeated
    (menus, footers, fragments of one page) is resolved once. The clock is read every
    ``CLOCK_EVERY`` tags, whatever they are. The anchors after the last one read are
    counted (one search), so a caller can say what it left."""
    until = time.monotonic() + seconds
    found: dict[str, str] = {}
    resolved: dict[str, str | None] = {}
    opened: tuple[str | None, int] = (None, 0)  # the open anchor's URL, where its text starts
    pos, anchors, tags = 0, cap * ANCHORS_PER_LINK, 0
    begun, late = 0, False  # where the last anchor read begins; whether the clock ran out
    based = False  # whether a ``<base href>`` was met (only the first counts)
    while len(found) < cap and anchors and (opener := _OPENERS.search(html, pos)) is not None:
        tags += 1
        if tags % CLOCK_EVERY == 0 and time.monotonic() > until:
            late, begun = True, opener.start()
            break
        token = TOKEN.match(html, opener.start())
        if token is None:  # not reached: every opener starts a token
            break
        pos = token.end()
        name = (token.group(2) or "").lower()
        if name in RAW_TEXT_ENDS and not token.group(1):
            pos = raw_text_end(html, name, pos)
        if name != "a" and (name != "base" or token.group(1)):
            continue
        _keep(found, opened, html, token.start())
        opened = (None, pos)
        if token.group(1):
            continue
        href = attributes(token.group(3)).get("href")
        if href is None:
            continue
        if name == "base":
            if not (based or found):
                base = normalise(unescape_attribute(href), base) or base
            based = True
            continue
        anchors, begun = anchors - 1, token.start()
        if len(href) > MAX_URL_CHARS:
            continue  # no server answers such an address; it would only fill the frontier
        target = unescape_attribute(href).partition("#")[0]  # one key for ``#1``… ``#9999``
        if target not in resolved:
            resolved[target] = normalise(target, base)
        opened = (resolved[target], pos)
    if len(found) < cap:
        _keep(found, opened, html, begun if late else len(html))
    pending = opened[0] is not None and opened[0] not in found  # its link not kept: the cap
    dropped = late or (len(found) >= cap and pending)
    unread = sum(1 for _ in _ANCHOR.finditer(html, begun if dropped else pos))
    return PageLinks(found, cap, unread, late)


def _keep(found: dict[str, str], opened: tuple[str | None, int], html: str, end: int) -> None:
    """Count the anchor ``opened`` (when it links somewhere) with the text of its markup,
    which ends at ``end``: a link's text is its first anchor's that has any (an image's
    anchor before a named one leaves the name)."""
    url, start = opened
    if url is not None and not found.get(url):
        text = _TAG.sub(" ", html[start : min(end, start + MAX_ANCHOR_MARKUP)])
        found[url] = " ".join(htmllib.unescape(text).split())[:MAX_ANCHOR_TEXT]
