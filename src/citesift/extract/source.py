"""The text a span of source shows: what every block's offsets are checked against.

``source_text(html, start, end, mode)`` strips the markup of ``html[start:end]``, leaves out
the elements ``mode`` drops inside text (reference markers, edit links, hidden or inline
mathematics…), decodes entities, applies NFC and collapses white space (without trimming).
For every block and every ``i <= j``, ``block.text[i:j]`` occurs in
``source_text(html, *block.source_span(i, j), mode)``.
"""

from __future__ import annotations

import html as htmllib
import unicodedata

from citesift.extract import rules
from citesift.extract.chars import without_format
from citesift.extract.html import markup, sanitise
from citesift.extract.skip import Searches, skip_dropped
from citesift.extract.tokens import (
    PLAINTEXT,
    RAW_TEXT_ENDS,
    TOKEN,
    attributes,
    closes,
    is_dropped,
    is_hidden,
    plaintext_start,
    raw_text_end,
)


def _visible_runs(fragment: str, mode: rules.Mode, mediawiki: bool) -> list[tuple[str, bool]]:
    """The text runs of ``fragment`` that lie outside dropped elements (of a MediaWiki page
    or not), each with whether it is raw text (after ``<plaintext>``: shown as written,
    entities and all)."""
    drop_tags = rules.dropped_tags(mode)
    runs: list[tuple[str, bool]] = []
    open_tags: dict[str, int] = {}
    searches: Searches = {}
    last = pos = 0
    while (m := TOKEN.search(fragment, pos)) is not None:
        runs.append((fragment[last : m.start()], False))
        last = pos = m.end()
        end_slash, name, raw_attrs = m.groups()
        tag = (name or "").lower()
        if not tag or not closes(fragment, m) or tag in rules.VOID_TAGS:
            continue
        if end_slash:
            open_tags[tag] = max(0, open_tags.get(tag, 0) - 1)
        elif tag == PLAINTEXT:
            return [*runs, (fragment[pos:], True)]
        elif tag in RAW_TEXT_ENDS:
            last = pos = raw_text_end(fragment, tag, pos)
        elif tag in drop_tags or _drops(tag, attributes(raw_attrs), mode, mediawiki):
            around = frozenset(t for t, n in open_tags.items() if n) & rules.BLOCK_TAGS
            last = pos = skip_dropped(fragment, tag, pos, around, searches)
        else:
            open_tags[tag] = open_tags.get(tag, 0) + 1
    runs.append((fragment[last:], False))
    return runs


def _drops(tag: str, attrs: dict[str, str], mode: rules.Mode, mediawiki: bool) -> bool:
    """Whether an element inside text is left out (hidden, or dropped by ``mode``)."""
    return is_hidden(attrs) or is_dropped(tag, attrs, mode, mediawiki)


def normalise(text: str) -> str:
    """Format characters out, NFC, every white-space run as one space (ends kept)."""
    return _collapse(unicodedata.normalize("NFC", without_format(text)))


def _collapse(text: str) -> str:
    """Every white-space run as one space, keeping a leading or trailing one."""
    words = text.split()
    lead = " " if text[:1].isspace() else ""
    tail = " " if text[-1:].isspace() and words else ""
    return lead + " ".join(words) + tail


def source_text(html: str, start: int, end: int, mode: rules.Mode = "article") -> str:
    """The normalised text that ``html[start:end]`` shows in ``mode``."""
    fragment = sanitise(html[start:end])
    if plaintext_start(html, start + 1) >= 0:
        return normalise(fragment)
    runs = _visible_runs(fragment, mode, markup(html)[0])
    return normalise("".join(run if raw else htmllib.unescape(run) for run, raw in runs))
