"""Text-fragment links (``url#:~:text=...``) that scroll a browser to a cited sentence.

Written per the WICG Text Fragments spec: each term is percent-encoded like
``encodeURIComponent`` with ``-`` also encoded (so ``-``, ``,`` and ``&`` never read as
syntax); a long sentence is named by its first and last words (``textStart,textEnd``); a
sentence that occurs more than once gets the words around it as ``prefix-,`` and
``,-suffix``. Any fragment the URL already had is replaced.
"""

from __future__ import annotations

from urllib.parse import quote, urldefrag

from citesift.checks import address_arg, text_arg
from citesift.model import Match
from citesift.text.addresses import COMPONENT_SAFE

DIRECTIVE = ":~:text="
LONG_TEXT = 300
"""Sentences longer than this many characters are linked as a ``textStart,textEnd`` range."""
RANGE_WORDS = 5
"""Words kept at each end of a long sentence's range."""
CONTEXT_WORDS = 3
"""Words of context kept in a prefix or a suffix."""


def match_link(match: Match) -> str | None:
    """A link that scrolls to an index hit: its provenance's own, else a text fragment of
    its chunk on its page (the URL its provenance or metadata names); None without a URL."""
    origin = match.provenance
    if origin is not None and origin.fragment_url:
        return origin.fragment_url
    url = (origin.url if origin else None) or match.metadata.get("url")
    return fragment_url(url, match.content) if isinstance(url, str) and url else None


def fragment_url(url: str, text: str, context: tuple[str, str] | None = None) -> str:
    """``url`` with a text fragment that finds ``text``; ``context`` is (text before, after).

    Give ``context`` when ``text`` occurs more than once in the page: its last words before
    and first words after disambiguate. A text no address can carry (a lone surrogate), or
    one without a letter or digit (empty, an ellipsis, a bullet: no words a reader would be
    shown), gives ``url`` without a fragment.
    """
    base = urldefrag(address_arg(url, "url"))[0]
    words = text_arg(text, "text").split()
    if not has_word(text):
        return base
    try:
        terms = _terms(words, context)
    except UnicodeEncodeError:
        return base
    return base + "#" + DIRECTIVE + ",".join(terms)


def has_word(text: str) -> bool:
    """Whether ``text`` holds a letter or a digit: something a text fragment can find."""
    return any(c.isalnum() for c in text)


def encode_term(term: str) -> str:
    """One term percent-encoded so that ``-``, ``,`` and ``&`` are never read as syntax."""
    return quote(term, safe=COMPONENT_SAFE).replace("-", "%2D")


def _terms(words: list[str], context: tuple[str, str] | None) -> list[str]:
    """The encoded terms of the directive: optional prefix, start, optional end and suffix."""
    terms = [encode_term(part) for part in text_terms(" ".join(words))]
    if context is None:
        return terms
    before, after = (text_arg(part, "context").split() for part in context)
    if before:
        terms.insert(0, encode_term(" ".join(before[-CONTEXT_WORDS:])) + "-")
    if after:
        terms.append("-" + encode_term(" ".join(after[:CONTEXT_WORDS])))
    return terms


def text_terms(text: str) -> list[str]:
    """What the link searches for, unencoded: the whole text (white space collapsed), or
    its first and last words when it is long and has enough of them."""
    words = text.split()
    text = " ".join(words)
    if len(text) <= LONG_TEXT or len(words) <= 2 * RANGE_WORDS:
        return [text]
    return [" ".join(words[:RANGE_WORDS]), " ".join(words[-RANGE_WORDS:])]
