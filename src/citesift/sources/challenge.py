"""Pages that stand in for the one asked for: bot challenges, block pages and soft 404s.

A bot-protection service can answer a request with its own interstitial ("Just a moment...",
"Press & Hold", a captcha frame) and a success status, and many sites answer a missing page
with a "not found" page and 200. Read as the page, either would become a citable document
about nothing. A page is taken for a challenge when the service says so in a header, or when
its markup carries a service's own challenge marker (in the title, an id, a script's
address) and it shows little text; a marker alone is not enough, since services put some of
their scripts on ordinary pages too. A soft 404 is a short page whose title or first heading
says the page was not found.
"""

from __future__ import annotations

import re

from citesift.encoding import decode_html
from citesift.extract import strip_tags
from citesift.model import Snapshot

SCAN_BYTES = 256 * 1024
"""How much of the body is searched for markers (they sit in the head or near the top)."""
MAX_SHOWN_CHARS = 2_000
"""A challenge page shows at most this much text (markup and scripts stripped)."""
CHALLENGE_HEADERS = (("cf-mitigated", "challenge", "Cloudflare"),)
"""Headers by which a service says the answer is its challenge: name, value, service."""
MARKERS: tuple[tuple[str, re.Pattern[bytes]], ...] = tuple(
    (service, re.compile(pattern))
    for service, pattern in (
        (
            "Cloudflare",
            rb"<title>\s*(?:just a moment\.\.\.|attention required! \| cloudflare)\s*</title>"
            rb"|_cf_chl_opt|/cdn-cgi/challenge-platform/h/|id=[\"']?challenge-(?:form|running)",
        ),
        ("DataDome", rb"(?:src|href)=[\"'][^\"'>]*captcha-delivery\.com"),
        ("PerimeterX", rb"id=[\"']?px-captcha|/captcha/captcha\.js\?"),
        ("Imperva", rb"_incapsula_resource|incapsula incident id"),
        ("Sucuri", rb"sucuri_cloudproxy_js|<title>\s*sucuri website firewall"),
        ("Akamai", rb"errors\.edgesuite\.net"),
        ("AWS WAF", rb"awswafintegration|token\.awswaf\.com"),
        ("Vercel", rb"<title>\s*vercel security checkpoint"),
        ("DDoS-Guard", rb"<title>\s*ddos-guard\s*</title>"),
    )
)
"""Markers of challenge and block pages, searched in the lower-cased top of the body."""
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
    service = challenge_service(snapshot)
    if service is not None:
        return f"a {service} challenge or block page, not the page"
    if NOT_FOUND.search(snapshot.body[:SCAN_BYTES].lower()) and _shows_little(snapshot):
        return "a page saying it was not found (a soft 404), not the page"
    return None


def challenge_service(snapshot: Snapshot) -> str | None:
    """The service whose challenge or block page ``snapshot`` holds instead of the page, or None."""
    for name, value, service in CHALLENGE_HEADERS:
        if (snapshot.header(name) or "").strip().lower() == value:
            return service
    top = snapshot.body[:SCAN_BYTES].lower()
    service = next((service for service, marker in MARKERS if marker.search(top)), None)
    return service if service is not None and _shows_little(snapshot) else None


def _shows_little(snapshot: Snapshot) -> bool:
    """Whether the page shows at most ``MAX_SHOWN_CHARS`` of text, white space collapsed."""
    html = decode_html(snapshot.body, snapshot.charset)[0]
    return len(" ".join(strip_tags(html).split())) <= MAX_SHOWN_CHARS
