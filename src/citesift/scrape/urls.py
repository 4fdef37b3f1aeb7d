"""URLs as a site map and a crawl compare them: normalised, scoped, and read from a page.

``normalise`` is conservative: it changes only what cannot change what a server answers
(scheme and host case, a default port, the fragment, dot segments, an empty path), so two
spellings of one page become one key and no two pages become one. ``page_links`` reads the
``<a href>`` of a page (after its ``<base href>``) with a streaming parser, capped in count.
"""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit, urlunsplit

MAX_LINKS = 2_000
"""Links read from one page at most (a page of a million links reads its first ones)."""
_DEFAULT_PORTS = {"http": 80, "https": 443}


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
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, _path(parts.path), parts.query, ""))


def _path(path: str) -> str:
    """``path`` with its dot segments resolved (RFC 3986, 5.2.4); ``/`` when empty."""
    if not path:
        return "/"
    resolved = posixpath.normpath(path)
    if resolved.startswith("//"):  # normpath keeps a leading double slash
        resolved = "/" + resolved.lstrip("/")
    if path.endswith(("/", "/.", "/..")) and resolved != "/":
        resolved += "/"
    return resolved


def host_of(url: str) -> str:
    """The host (and port) of a normalised URL."""
    return urlsplit(url).netloc


def same_site(url: str, start: str) -> bool:
    """Whether ``url`` is on ``start``'s host, by scheme (http or https) and host and port."""
    return host_of(url) == host_of(start)


class _Links(HTMLParser):
    """Collects ``(href, anchor text)`` of the ``<a>`` elements, honouring ``<base href>``."""

    def __init__(self, base: str, cap: int) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base
        self.cap = cap
        self.found: dict[str, str] = {}
        self._open: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "base" and href and not self.found:
            self.base = normalise(href, self.base) or self.base
        elif tag == "a" and href and len(self.found) < self.cap:
            self._close()
            self._open = normalise(href, self.base)
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._close()

    def handle_data(self, data: str) -> None:
        if self._open is not None and sum(map(len, self._text)) < 500:
            self._text.append(data)

    def _close(self) -> None:
        if self._open is not None and self._open not in self.found:
            self.found[self._open] = " ".join("".join(self._text).split())[:200]
        self._open = None


def page_links(html: str, base: str, cap: int = MAX_LINKS) -> dict[str, str]:
    """The page's http(s) links, normalised and deduplicated, in page order, each with its
    anchor text (the first anchor's, when several link the same URL); ``cap`` at most."""
    parser = _Links(base, cap)
    parser.feed(html)
    parser.close()
    parser._close()
    return parser.found
