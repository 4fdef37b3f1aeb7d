"""Web addresses written out in a document's text, read where a reader sees them end.

An address ends before white space, a double or typographic quote, a dash, an angle bracket
or a bracket it does not open itself: parentheses inside it are kept when balanced
(``Foo_(bar)``), an apostrophe inside it too (``Hitchhiker's_Guide``); a marker written
against it (``https://a.example/b[1]``) and punctuation closing the sentence around it
(``.,;:!?``, a closing apostrophe, emphasis ``*`` ``_``) are not part of it.
"""

from __future__ import annotations

import re

from citesift.net import without_credentials

_CHAR = r"[^\s<>\"()\]`“”‘’«»—–]"
_PATH = rf"(?:{_CHAR}|\({_CHAR}*\))"
URL_PATTERN = rf"(?i:https?)://(?:\[[\w:.%]+\]{_PATH}*|{_PATH}+)"
"""An address written out (its scheme in any case); a host in brackets (IPv6) is read whole."""
URL = re.compile(URL_PATTERN)
_WRITTEN = re.compile(rf"\(\s*{URL_PATTERN}\s*\)|<{URL_PATTERN}>|{URL_PATTERN}")
"""An address written out, with the brackets around it that hold only it."""
_TRAILING = ".,;:!?*_'"
_ENDING = re.compile(r"[\s.,;:!?*_'\")\]]*")
"""What may follow an address that ends a sentence."""
POINTING = r"see\s+also|cf\."
"""Words pointing at the source named after them wherever they stand; a bare "see" does so
only after a comma or the like, or alone, being a verb otherwise ("what we see")."""
_POINTER = re.compile(rf"(?:[,;:]\s*|^)(?i:see|{POINTING})\s*$|\s+(?i:{POINTING})\s*$")
"""Words that point at the address after them: "see" after a comma (or alone), "see also"
and "cf." anywhere (``POINTING``)."""
_OPENED_POINTER = re.compile(r"\s*\(\s*(?i:see(?:\s+also)?|cf\.)\s*$")
"""A pointer opening a bracket the address after it closes (``secure (see https://…)``)."""
_ATTRIBUTE = ("=", '="', "='")
"""What stands before an address given as an HTML attribute's value (``src=``, ``href=``)."""
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "`": "`"}
"""The quotes an address may be written between, each with its closing one."""
_EXAMPLE = re.compile(r"(?i:https?)://(?:[^/?#\s]*[.@])?example\.(?:com|org|net)(?![\w.-])")
"""An address on a domain reserved for examples (``example.com``, ``www.example.org``)."""


def written_url(match: re.Match[str]) -> str | None:
    """The address ``URL`` matched, without the punctuation after it and cleaned as
    ``web_url`` cleans it; None when nothing but a scheme is left."""
    url = match.string[match.start() : address_end(match)]
    return web_url(url) if url.partition("://")[2] else None


def address_end(match: re.Match[str]) -> int:
    """Where the address ``URL`` matched ends: before the punctuation after it and a marker
    written against it (``https://a.example/b[1]``)."""
    url = match.group(0)
    if match.string.startswith("]", match.end()) and "[" in url:
        url = url[: url.rindex("[")]
    return match.start() + len(url.rstrip(_TRAILING))


def web_url(url: str) -> str:
    """A web address as it is read: its scheme in lower case (``HTTPS://`` is ``https://``,
    one page cited both ways is one page) and without the user name and password it may
    hold, which a fetch never sends and a report or a stored page should not show."""
    scheme, colon, rest = url.partition(":")
    return without_credentials(scheme.lower() + colon + rest)


def in_attribute(text: str, start: int) -> bool:
    """Whether the address at ``start`` is an HTML attribute's value (an image's source, a
    link's target), not an address the prose gives."""
    return text[max(start - 2, 0) : start].endswith(_ATTRIBUTE)


def an_example(match: re.Match[str]) -> bool:
    """Whether the address ``URL`` matched is shown rather than cited: written between
    quotes (``such as "https://site/page"``) or on a domain reserved for examples."""
    text, start = match.string, match.start()
    closing = _QUOTES.get(text[start - 1 : start]) if start else None
    quoted = closing is not None and text.startswith(
        closing, len(match.group(0).rstrip(_TRAILING)) + start
    )
    return quoted or bool(_EXAMPLE.match(match.group(0)))


def without_addresses(text: str) -> str:
    """``text`` without the addresses written out in it (and the brackets holding only
    one), the punctuation after them kept: the sentence as it reads around them. A pointer
    left with nothing to point at (``secure, see <https://…>.``: "see", "see also", "cf.")
    goes with an address that ends the text, so the claim reads "secure."; one in brackets
    with the address alone (``secure (see https://…)``) goes with its brackets, wherever
    it stands."""
    kept, at = [], 0
    for match in _WRITTEN.finditer(text):
        before, end = text[at : match.start()], match.end()
        opened = _OPENED_POINTER.search(before)
        if opened and text.startswith(")", end):
            before, end = before[: opened.start()], end + 1
        elif _ENDING.fullmatch(text, end):
            before = _POINTER.sub("", before)
        kept += [before, _punctuation_after(match)]
        at = end
    return "".join(kept) + text[at:]


def _punctuation_after(match: re.Match[str]) -> str:
    written = match.group(0)
    return "" if written[0] in "(<" else written[len(written.rstrip(_TRAILING)) :]
