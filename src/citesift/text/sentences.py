"""The default sentence rule: where sentences start and end in a text, as offsets.

A sentence ends after ``.``, ``?`` or ``!`` (and the stops of other scripts) followed by
white space or the end of the text, and at every line break. Closing quotes, brackets and
footnote markers after the stop stay with the sentence. A full stop does not end a
sentence after a title (``Dr.``), a Latin abbreviation (``e.g.``), an initial
(``J. R. R. Tolkien``), a list number at the start of a sentence (``1.``), or before a
word in lower case; after an acronym or an ambiguous abbreviation (``U.S.``, ``etc.``) it
ends one only when the next word commonly starts a sentence. CJK stops end a sentence
with no space after them. Offsets are code points, trimmed: ``text[start:end]`` is the
sentence.
"""

from __future__ import annotations

import re

_STOP = re.compile(
    r"(?P<stop>\.{2,}|…+|[.?!‽‼⁇⁈⁉]+|[。！？｡．]+|[؟۔।॥።։။។]+)"
    r"(?P<close>[\"'”’»›)\]}」』）】〕]*(?:\[\d{1,3}\])*)"
)
ENDED = re.compile(_STOP.pattern + r"\s*$")
"""The end of a sentence at the end of a text: its stop (``.``, ``?``, ``!``, an ellipsis, a
stop of another script), maybe followed by closing quotes or brackets and footnote marks."""
_LINE_BREAK = re.compile(r"[\n\r\u2028\u2029\x0b\x0c\x85]+")
_CJK_STOPS = frozenset("。！？｡．")
_OPENERS = "\"'“‘«‹([{「『（【〔"
_ACRONYM = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]", re.UNICODE)
_LIST_NUMBER = re.compile(r"(?:\d{1,3}|[ivxlc]{1,5}|[a-z])", re.IGNORECASE)


def _vocabulary(words: str) -> frozenset[str]:
    """A set of words written as one space-separated string."""
    return frozenset(words.split())


NEVER_FINAL = _vocabulary(
    """mr mrs ms mx dr prof st sr mt ft gen col lt capt cmdr sgt rev hon pres gov sen rep
    e.g i.e cf vs viz approx ca c figs al nos vols pp eds op
    jan feb mar apr jun jul aug sep sept oct nov dec"""
)
"""Abbreviations after which a full stop never ends a sentence (lower case, no final dot)."""

BEFORE_NUMBERS = _vocabulary("no vol p fig ch sec art ed")
"""Words that are abbreviations only before a number (``No. 5``); else ordinary words."""

AMBIGUOUS_FINAL = _vocabulary("etc inc ltd co corp jr bros esq plc llc dept univ")
"""Abbreviations that end a sentence only before a common sentence starter."""

SENTENCE_STARTERS = _vocabulary(
    """the a an this that these those it its he she they we i you his her their our my
    in on at after before during when while however but and as for from by there then
    since although though following many some most other one both each if what why how
    who where later today thus also such all no not yet so because"""
)
"""Words that commonly open an English sentence (compared in lower case)."""


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` code-point offsets of each sentence of ``text``, trimmed."""
    spans: list[tuple[int, int]] = []
    line_start = 0
    for brk in _LINE_BREAK.finditer(text):
        spans.extend(_line_spans(text, line_start, brk.start()))
        line_start = brk.end()
    spans.extend(_line_spans(text, line_start, len(text)))
    return spans


def _line_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The trimmed sentences of ``text[start:end]``, a stretch holding no line break.

    Each position is looked at a bounded number of times, so the work stays linear.
    """
    spans: list[tuple[int, int]] = []
    first = _skip_space(text, start, end)
    for match in _STOP.finditer(text, first, end):
        if _ends_sentence(text, match, first, end):
            spans.append((first, match.end()))
            first = _skip_space(text, match.end(), end)
    spans.append(_trim(text, first, end))
    return [span for span in spans if span[0] < span[1]]


def _ends_sentence(text: str, match: re.Match[str], first: int, end: int) -> bool:
    """Whether the stop ``match`` ends the sentence whose first character is at ``first``."""
    stop = match["stop"]
    after = match.end()
    if stop[0] in _CJK_STOPS:
        return True
    if after < end and not text[after].isspace():
        return False
    following = _next_word(text, after, end)
    if following[:1].islower():
        return False
    if "…" in stop or (len(stop) > 1 and set(stop) == {"."}):
        return not following or following[0].isupper()
    if stop != ".":
        return True
    return _full_stop_ends(_word_before(text, match.start(), first), following, first)


def _full_stop_ends(word: tuple[int, str], following: str, piece: int) -> bool:
    """Whether a full stop after ``word`` (its start, its lower-case text) ends a sentence."""
    at, token = word
    if not token:
        return True
    if token in NEVER_FINAL or (token in BEFORE_NUMBERS and following[:1].isdigit()):
        return False
    if at == piece and _LIST_NUMBER.fullmatch(token):
        return False
    if _is_ambiguous(token):
        return not following or following.lower() in SENTENCE_STARTERS
    return True


def _is_ambiguous(token: str) -> bool:
    """Whether a full stop after ``token`` may or may not end a sentence (initials, acronyms)."""
    single_letter = len(token) == 1 and token.isalpha()
    return single_letter or token in AMBIGUOUS_FINAL or bool(_ACRONYM.fullmatch(token))


def _word_before(text: str, stop: int, piece: int) -> tuple[int, str]:
    """The word just before a stop at ``stop``: its start and its lower-case text."""
    at = stop
    while at > piece and not text[at - 1].isspace():
        at -= 1
    while at < stop and text[at] in _OPENERS:
        at += 1
    return at, text[at:stop].lower()


def _next_word(text: str, at: int, end: int) -> str:
    """The word that follows position ``at`` (openers skipped), or "" at the end."""
    while at < end and (text[at].isspace() or text[at] in _OPENERS):
        at += 1
    stop = at
    while stop < end and text[stop].isalnum():
        stop += 1
    return text[at:stop] if stop > at else text[at : at + 1]


def _skip_space(text: str, at: int, end: int) -> int:
    """The first position at or after ``at`` (before ``end``) that is not white space."""
    while at < end and text[at].isspace():
        at += 1
    return at


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` narrowed past white space on both sides."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
