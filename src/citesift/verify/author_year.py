"""Author–year citations of a document's text: ``[Smith 2020]``, ``[Smith et al., 2020]``,
``(Smith, 2020)``, several in one bracket apart by ``;``, and narrative ones (``Smith (2020)
found``, ``Smith and Jones (2019) show``, ``Smith et al. (2018)``), each resolved against the
reference list entry (a line) that begins with its author and holds its year and an address
(``Smith, J. (2020). Title. https://...``).

A name and a year in brackets or parentheses are common prose (``[Windows 2000]``,
``(May 2015)``, ``Obama (2009)``), so one cites only when an entry resolves it or, in a
document whose reference list resolves others, when it is plainly a citation (a comma before
its year, ``et al.``, a second author): then, no entry resolving it, it cites nothing. A
narrative one cites only when an entry resolves it. The entries are no claims of their own:
those cited, and the lines shaped as one (``Surname, I. (2020). ...``), are set apart.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from citesift.verify.written_urls import URL, written_url

ENTRY_CHARS = 4_000
"""How far into a reference list entry its years are looked for."""
ENTRY_YEARS = 8
"""How many years of one entry it can be cited by (an entry names one or two)."""
ENTRY_WORDS = 6
"""How many words an entry's author may hold (``World Health Organization``)."""
_UPPER = r"[A-Z\u00c0-\u00d6\u00d8-\u00de]"
_WORD = rf"{_UPPER}[\w'’-]*"
_NAME = (
    rf"(?:(?:van|von|de|der|den|da|di|del|du|la|le|ter|ten)[ \t]+){{0,2}}"
    rf"{_WORD}(?:[ \t]+{_WORD}){{0,2}}"
)
_AUTHORS = rf"(?P<author>{_NAME})(?P<others>[ \t]+(?:and|&)[ \t]+{_NAME}|[ \t]+et[ \t]+al\.?)?"
_YEAR_PAGE = r"(?P<year>(?:1[5-9]|20)\d\d[a-z]?)(?:,[ \t]*(?:pp?\.|ch\.)[ \t]*\d+(?:[-–]\d+)?)?"
_ITEM = re.compile(rf"{_AUTHORS}(?P<comma>,)?[ \t]+{_YEAR_PAGE}")
"""One author–year citation: the first author, others (``& Lee``, ``et al.``), the year
(``2020a`` for one of two works of a year) and a page (``p. 4``)."""
_NARRATIVE = re.compile(rf"(?<![\w'’-]){_AUTHORS}[ \t]+(?P<bracket>\({_YEAR_PAGE}\))")
"""A narrative author–year citation: the authors named in the sentence, the year (and
page) in parentheses after them (``Smith et al. (2018, p. 4)``)."""
_BRACKET = re.compile(r"\[([^\[\]\n]{6,300})\](?![(\[:])|\(([^()\n]{6,300})\)")
"""Brackets that may hold author–year citations: not a link's text nor a label defined."""
_LINE = re.compile(r"[^\n]+")
_WORDS = re.compile(r"\S+")
_ENTRY_START = re.compile(
    r"[ \t]*(?:>[ \t]*)*"
    r"(?:(?P<item>[-+*]|\d{1,9}[.)])[ \t]+|\[(?P<label>[^\[\]\n]{1,40})\]:?[ \t]+)?[*_]*"
)
"""What may open an entry before its author: a quote, a list item, a label (which, when it
reads as a citation, ``[Smith 2020]: ...``, is one way to cite the entry). A line holding an
address is an entry only when opened so or shaped as one: prose gives addresses too."""
_AUTHOR_WORDS = re.compile(rf"[\w'’-]+(?:[ \t]+[\w'’-]+){{0,{ENTRY_WORDS - 1}}}")
_YEAR = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?:[a-z](?![a-z\d]))?(?!\d)")

_SHAPE = re.compile(
    rf"{_NAME}(?:,[ \t]+{_UPPER}|[ \t]+et[ \t]+al\.|\.?[ \t]+\(\d)"
    r".*?(?:\((?:1[5-9]|20)\d\d[a-z]?[),]|[ \t](?:1[5-9]|20)\d\d[a-z]?\.)"
)
"""A line shaped as a reference list entry: its authors, then its year."""

Listed = tuple[int, int, str]
"""A stretch of a page read as a reference list entry (a list item, a paragraph of its
references) and the address it links to (``""`` for none): its text may show none."""
Entry = tuple[str, tuple[int, int]]
"""A reference list entry's address and its line's span."""


@dataclass(frozen=True, slots=True)
class AuthorYear:
    """An author–year citation: its bracket's span, how it reads (``(Smith, 2020)``) and
    the address of its entry (``""`` when none resolves it)."""

    start: int
    end: int
    marker: str
    url: str


def author_year_citations(
    text: str, listed: Sequence[Listed] = ()
) -> tuple[list[AuthorYear], list[tuple[int, int]]]:
    """The author–year citations of ``text`` (a document's text with its code blanked and
    its line breaks as newlines, an entry on one line) in document order, as the module says
    which cite, and the spans of the reference list's entries: the lines cited and the lines
    shaped as an entry. A line starting in one of ``listed`` (a page's list items, the
    paragraphs of its references) is opened as an entry, as a list item's mark opens one."""
    entries, shaped = _entries(text, listed)
    found = []
    for bracket in _BRACKET.finditer(text):
        for marker, key, plainly in _items(bracket) or ():
            found.append((bracket, marker, entries.get(key), plainly))
    resolving = any(entry for _, _, entry, _ in found)
    cited = [
        (AuthorYear(bracket.start(), bracket.end(), marker, entry[0] if entry else ""), entry)
        for bracket, marker, entry, plainly in found
        if entry or (plainly and resolving)
    ]
    cited = sorted(cited + _narrative(text, entries), key=lambda pair: pair[0].start)
    citing = [citation.start for citation, _ in cited]
    lines = shaped + [entry[1] for _, entry in cited if entry]
    return [c for c, _ in cited], [line for line in lines if not _holding(citing, line)]


def _narrative(
    text: str, entries: dict[tuple[str, str], Entry]
) -> list[tuple[AuthorYear, Entry | None]]:
    """The narrative citations of ``text`` an entry resolves (``Smith (2020) found``), each
    spanning its year's parentheses, which are no words of the claim: the author named
    may be the last words before them (``In Smith (2020)``, ``Later Smith (2020)``)."""
    out: list[tuple[AuthorYear, Entry | None]] = []
    for match in _NARRATIVE.finditer(text):
        words = list(_WORDS.finditer(match["author"]))
        for word in words:
            author = " ".join(w.group(0) for w in words[words.index(word) :]).casefold()
            entry = entries.get((author, match["year"]))
            if entry is not None:
                marker = text[match.start("author") + word.start() : match.end()]
                cited = AuthorYear(*match.span("bracket"), " ".join(marker.split()), entry[0])
                out.append((cited, entry))
                break
    return out


def _holding(starts: list[int], line: tuple[int, int]) -> bool:
    """Whether one of ``starts`` (sorted) lies in ``line``: a line citing is prose."""
    index = bisect_left(starts, line[0])
    return index < len(starts) and starts[index] < line[1]


def without_author_year(sentence: str) -> str:
    """``sentence`` without the brackets of author–year citations it holds."""
    return _BRACKET.sub(lambda m: "" if _items(m) else m.group(0), sentence)


def _items(bracket: re.Match[str]) -> list[tuple[str, tuple[str, str], bool]] | None:
    """Each citation of a bracket: how it reads, its (author, year) key and whether it is
    plainly one; None unless every part of the bracket is an author–year citation."""
    square = bracket.group(1) is not None
    opening, closing = ("[", "]") if square else ("(", ")")
    items = []
    for part in (bracket.group(1) if square else bracket.group(2)).split(";"):
        item = _ITEM.fullmatch(part.strip())
        if item is None:
            return None
        key = _key(item)
        plainly = bool(item["comma"] or item["others"])
        items.append((f"{opening}{part.strip()}{closing}", key, plainly))
    return items


def _entries(
    text: str, listed: Sequence[Listed]
) -> tuple[dict[tuple[str, str], Entry], list[tuple[int, int]]]:
    """The entries of ``text`` (lines holding an address, opened by a list item's mark, a
    label or one of ``listed``, or shaped as an entry) by each (first words, year) they may
    be cited by (the first such line for each); and the spans of those shaped as an entry."""
    starts = [start for start, _, _ in listed]
    entries: dict[tuple[str, str], Entry] = {}
    shaped: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        written = line.group(0)
        opening = _ENTRY_START.match(written)
        words = _AUTHOR_WORDS.match(written, opening.end() if opening else 0)
        given = _within(listed, starts, line.start() + words.start()) if words else None
        if words is None or ("://" not in written and not given):
            continue
        in_text = next((u for u in map(written_url, URL.finditer(written)) if u), None)
        address = in_text or given
        label = opening["label"] if opening else None
        if not address:
            continue
        labelled = _ITEM.fullmatch(label.strip()) if label else None
        if labelled or _SHAPE.match(written[:ENTRY_CHARS], words.start()):
            shaped.append(line.span())
        elif not (label or (opening and opening["item"]) or given is not None):
            continue  # prose giving an address: ``In 2020 rates rose, per https://...``
        if labelled:
            entries.setdefault(_key(labelled), (address, line.span()))
        years = dict.fromkeys(m.group(0) for m in _YEAR.finditer(written, 0, ENTRY_CHARS))
        named = words.group(0).split()
        for year in list(years)[:ENTRY_YEARS]:
            for count in range(1, len(named) + 1):
                author = " ".join(named[:count]).casefold()
                entries.setdefault((author, year), (address, line.span()))
    return entries, shaped


def _within(listed: Sequence[Listed], starts: list[int], position: int) -> str | None:
    """The address of the span of ``listed`` (sorted, apart; ``starts`` theirs) holding
    ``position``; None when none holds it."""
    index = bisect_right(starts, position) - 1
    if index >= 0 and listed[index][0] <= position < listed[index][1]:
        return listed[index][2]
    return None


def _key(item: re.Match[str]) -> tuple[str, str]:
    """The (author, year) an author–year citation or an entry's label names."""
    return " ".join(item["author"].split()).casefold(), item["year"]
