"""Percent-encoding of phrases and keys, and the address of a Wikipedia article."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from citesift.checks import address_arg, text_arg

COMPONENT_SAFE = "-_.!~*'()"
"""What ``encodeURIComponent`` leaves as it is."""
_ARTICLE_RESTORED = {"%2C": ",", "%3A": ":", "%2F": "/"}
WIKIPEDIA_SITE = "Wikipedia"


def encode_component(text: str) -> str | None:
    """``text`` encoded like JavaScript's ``encodeURIComponent``; None when no address can
    carry it (it is not a string, or it holds half of a surrogate pair)."""
    if not isinstance(text, str):
        return None
    try:
        return quote(text, safe=COMPONENT_SAFE)
    except UnicodeEncodeError:
        return None


def carriable(text: str) -> bool:
    """Whether ``text`` can be put in an address (UTF-8 encodable)."""
    return encode_component(text) is not None


def article_url(origin: str, key: str) -> str:
    """The article's address for attribution: ``origin/wiki/<key>``, keeping ``, : /`` and
    brackets readable as Wikipedia writes them."""
    encoded = encode_component(text_arg(key, "key")) or ""
    for code, char in _ARTICLE_RESTORED.items():
        encoded = encoded.replace(code, char)
    return address_arg(origin, "origin").rstrip("/") + "/wiki/" + encoded


def wikipedia_history(site: str, article: str, key: str) -> str | None:
    """The page history of a Wikipedia article (None for any other site)."""
    return history_url(article, key) if _is_wikipedia(site) else None


def wikipedia_revision(site: str, article: str, key: str, revision: str | None) -> str | None:
    """The permanent address of the Wikipedia revision that was read (``index.php?title=<key>
    &oldid=<revision>``), so a citation keeps pointing at the text it quotes after the article
    changes; None for any other site or a revision that is not a revision number."""
    if not _is_wikipedia(site) or not isinstance(revision, str):
        return None
    if not (revision.isascii() and revision.isdigit()):
        return None
    return index_url(article, key, f"oldid={revision}")


def history_url(article: str, key: str) -> str | None:
    """The page history next to an ``article`` address (``origin/w/index.php?title=<key>
    &action=history``): where a wiki names the contributors it asks to be credited. None
    when ``article`` has no origin or no address can carry ``key``."""
    return index_url(article, key, "action=history")


def index_url(article: str, key: str, query: str) -> str | None:
    """``origin/w/index.php?title=<key>&<query>`` beside an ``article`` address, or None when
    ``article`` has no origin or no address can carry ``key``."""
    try:
        parts = urlsplit(article)
    except ValueError:
        return None
    title = encode_component(key)
    if not (parts.scheme and parts.netloc and title):
        return None
    for code, char in _ARTICLE_RESTORED.items():
        title = title.replace(code, char)
    return f"{parts.scheme}://{parts.netloc}/w/index.php?title={title}&{query}"


def _is_wikipedia(site: object) -> bool:
    return isinstance(site, str) and site.casefold() == WIKIPEDIA_SITE.casefold()
