"""Pages that stand in for the one asked for: bot challenges, block pages, consent walls and
soft 404s.

A bot-protection service can answer a request with its own interstitial ("Just a moment...",
"Press & Hold", a captcha frame) and a success status, and many sites answer a missing page
with a "not found" page and 200. Read as the page, either would become a citable document
about nothing. A page is taken for a challenge when the service says so in a header, or when
its markup carries a service's own challenge marker (in the title, an id, a script's
address) and it shows little text; a marker alone is not enough, since services put some of
their scripts on ordinary pages too. A consent wall is a page of a consent service (reached
by redirect, or carrying its form) showing little text in place of the page. A soft 404 is a
short page whose title or first heading says the page was not found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from citesift.encoding import decode_html
from citesift.extract import strip_tags
from citesift.model import Snapshot

SCAN_BYTES = 256 * 1024
"""How much of the body is searched for markers (they sit in the head or near the top)."""
MAX_SHOWN_CHARS = 2_000
"""A challenge page shows at most this much text (markup and scripts stripped)."""
CHALLENGE_HEADERS = (("cf-mitigated", "challenge", "Cloudflare"),)
"""Headers by which a service says the answer is its challenge: name, value, service."""


@dataclass(frozen=True, slots=True)
class Marker:
    """A service's mark on its challenge page: words that must occur (any of ``needles``, a
    cheap scan), then, when given, a ``pattern`` placing them in markup."""

    service: str
    needles: tuple[bytes, ...]
    pattern: re.Pattern[bytes] | None = None

    def on(self, top: bytes) -> bool:
        """Whether the lower-cased ``top`` of a page carries this mark."""
        if not any(needle in top for needle in self.needles):
            return False
        return self.pattern is None or self.pattern.search(top) is not None


MARKERS = (
    Marker(
        "Cloudflare",
        (b"just a moment", b"attention required", b"_cf_chl_opt", b"challenge-"),
        re.compile(
            rb"<title>\s*(?:just a moment\.\.\.|attention required! \| cloudflare)\s*</title>"
            rb"|_cf_chl_opt|/cdn-cgi/challenge-platform/h/|id=[\"']?challenge-(?:form|running)"
        ),
    ),
    Marker(
        "DataDome",
        (b"captcha-delivery.com",),
        re.compile(rb"(?:src|href)=[\"'][^\"'>]*captcha-delivery\.com"),
    ),
    Marker(
        "PerimeterX",
        (b"px-captcha", b"/captcha/captcha.js?"),
        re.compile(rb"id=[\"']?px-captcha|/captcha/captcha\.js\?"),
    ),
    Marker("Imperva", (b"_incapsula_resource", b"incapsula incident id")),
    Marker(
        "Sucuri",
        (b"sucuri_cloudproxy_js", b"sucuri website firewall"),
        re.compile(rb"sucuri_cloudproxy_js|<title>\s*sucuri website firewall"),
    ),
    Marker("Akamai", (b"errors.edgesuite.net",)),
    Marker("AWS WAF", (b"awswafintegration", b"token.awswaf.com")),
    Marker(
        "Vercel",
        (b"vercel security checkpoint",),
        re.compile(rb"<title>\s*vercel security checkpoint"),
    ),
    Marker("DDoS-Guard", (b"ddos-guard",), re.compile(rb"<title>\s*ddos-guard\s*</title>")),
)
"""Marks of challenge and block pages, searched in the lower-cased top of the body."""
CONSENT_HOSTS = {
    "consent.google.com": "Google",
    "consent.youtube.com": "YouTube",
    "guce.yahoo.com": "Yahoo",
    "consent.yahoo.com": "Yahoo",
}
"""Hosts of consent services that sites send a visitor to before the page, and their owners."""
CONSENT_MARKERS = (
    Marker(
        "Google",
        (b"consent.google.com", b"consent.youtube.com"),
        re.compile(rb"action=[\"']https://consent\.(?:google|youtube)\.com/"),
    ),
    Marker(
        "Yahoo",
        (b"guce.yahoo.com", b"consent.yahoo.com"),
        re.compile(rb"action=[\"'][^\"'>]*(?:guce|consent)\.yahoo\.com"),
    ),
)
"""Marks of a consent service's form, on a page showing little else (a consent wall)."""
NOT_FOUND_PHRASES = (
    rb"\b404\b",
    rb"page (?:was )?not found",
    rb"page (?:could|can)(?: ?not|n't|'t) be found",
    rb"file not found",
    rb"seite nicht gefunden",
    "página no encontrada".encode(),
    rb"page introuvable",
    rb"pagina non trovata",
)
NOT_FOUND = re.compile(
    rb"<(title|h1)\b[^>]*>[^<]{0,120}?(?:" + b"|".join(NOT_FOUND_PHRASES) + rb")[^<]{0,120}</\1>"
)
"""A title or first-level heading that says the page was not found (lower-cased UTF-8)."""


def stand_in(snapshot: Snapshot) -> str | None:
    """Why ``snapshot`` holds something other than the page asked for, or None."""
    top = snapshot.body[:SCAN_BYTES].lower()
    service = _challenger(snapshot, top)
    if service is not None:
        return f"a {service} challenge or block page, not the page"
    service = _consent(snapshot, top)
    if service is not None:
        return f"a {service} consent wall, not the page"
    if NOT_FOUND.search(top) and _shows_little(snapshot):
        return "a page saying it was not found (a soft 404), not the page"
    return None


def _challenger(snapshot: Snapshot, top: bytes) -> str | None:
    """The service whose challenge or block page ``snapshot`` holds instead of the page, or
    None; ``top`` is the lower-cased top of its body."""
    for name, value, service in CHALLENGE_HEADERS:
        if (snapshot.header(name) or "").strip().lower() == value:
            return service
    marked = next((marker.service for marker in MARKERS if marker.on(top)), None)
    return marked if marked is not None and _shows_little(snapshot) else None


def _consent(snapshot: Snapshot, top: bytes) -> str | None:
    """The consent service whose wall ``snapshot`` holds instead of the page, or None."""
    try:
        host = (urlsplit(snapshot.final_url).hostname or "").lower()
    except ValueError:
        host = ""
    if host in CONSENT_HOSTS:
        return CONSENT_HOSTS[host]
    marked = next((marker.service for marker in CONSENT_MARKERS if marker.on(top)), None)
    return marked if marked is not None and _shows_little(snapshot) else None


def _shows_little(snapshot: Snapshot) -> bool:
    """Whether the page shows at most ``MAX_SHOWN_CHARS`` of text, white space collapsed."""
    html = decode_html(snapshot.body, snapshot.charset)[0]
    return len(" ".join(strip_tags(html).split())) <= MAX_SHOWN_CHARS
