"""Whether a page needs a browser: read from its static HTML, said with the reason.

A page rich in text as served is never rendered. A thin one is rendered when it shows a
sign that JavaScript writes its text: an empty application root (React's ``root``,
Next's ``__next``, Nuxt's ``__nuxt``, Vue's ``app``, Angular's ``ng-app`` or
``<app-root>``), a ``<noscript>`` that asks for JavaScript, or scripts on a page with
little readable text for its size. A small page without scripts is what it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citesift.extract import strip_tags

RICH_CHARS = 1_500
"""Readable characters (CJK weighing more) past which a static page is rich: never rendered."""
THIN_CHARS = 200
"""Readable characters under which a page with scripts is thin enough to render."""
SMALL_HTML = 4_096
"""A page this small with no script is not worth rendering, however thin."""
THIN_RATIO = 0.02
"""Readable characters per character of HTML under which a page with scripts is thin."""
CJK_WEIGHT = 3
"""A CJK character says as much as about three Latin ones."""
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_APP_ROOT = re.compile(
    r"<(div|main|section|body)\b[^>]{0,500}?\bid=[\"']?(?:root|app|__next|__nuxt|main|application)"
    r"[\"']?[^>]{0,500}>\s*</\1>"
    r"|<app-root\b[^>]{0,500}>\s*</app-root>"
    r"|<[a-z][^>]{0,500}?\s(?:data-)?ng-app\b",
    re.IGNORECASE,
)
_NOSCRIPT = re.compile(r"<noscript\b[^>]*>(.{0,2000}?)</noscript>", re.IGNORECASE | re.DOTALL)
_ASKS_FOR_JS = re.compile(
    r"(?:enable|turn on|requires?|need|activate|allow|run)\w*\b.{0,60}?javascript"
    r"|javascript.{0,40}?(?:enabled?|required|disabled|turned off)",
    re.IGNORECASE | re.DOTALL,
)
_SCRIPT = re.compile(r"<script\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RenderRecord:
    """What was decided about rendering a page and what came of it.

    ``decided``: the page was to be rendered; ``why``: the reason, in words; ``rendered``:
    it was; ``unavailable``: it was to be, but no browser could be had (the static page was
    read instead, or, when rendering was forced, the scrape failed).
    """

    decided: bool
    why: str
    rendered: bool = False
    unavailable: bool = False


def readable_chars(html: str) -> int:
    """The page's readable characters as served, white space collapsed, CJK weighing more."""
    text = " ".join(strip_tags(html).split())
    return len(text) + (CJK_WEIGHT - 1) * len(_CJK.findall(text))


def needs_rendering(html: str) -> tuple[bool, str]:
    """Whether the static ``html`` needs a browser to show its text, and why (or why not)."""
    readable = readable_chars(html)
    if readable >= RICH_CHARS:
        return False, f"the static page is rich ({readable} readable characters)"
    if _APP_ROOT.search(html):
        return True, f"an empty application root and {readable} readable characters"
    if any(_ASKS_FOR_JS.search(m.group(1)) for m in _NOSCRIPT.finditer(html)):
        return True, "a <noscript> asks for JavaScript"
    scripted = _SCRIPT.search(html) is not None
    if not scripted and len(html) <= SMALL_HTML:
        return False, "a small page without scripts"
    if scripted and (readable < THIN_CHARS or readable < THIN_RATIO * len(html)):
        return True, f"{readable} readable characters in {len(html)} of HTML with scripts"
    return False, f"the static page shows its text ({readable} readable characters)"


def decide(html: str, render: str) -> RenderRecord:
    """The decision for one page under the caller's ``render`` choice."""
    if render == "always":
        return RenderRecord(True, "rendering was asked for (render='always')")
    if render == "never":
        return RenderRecord(False, "rendering was turned off (render='never')")
    return RenderRecord(*needs_rendering(html))
