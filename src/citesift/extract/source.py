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
from citesift.extract.html import sanitise
from citesift.extract.skip import skip_dropped
from citesift.extract.tokens import (
    RAW_TEXT_ENDS,
    TOKEN,
    attributes,
    is_dropped,
    is_hidden,
    raw_text_end,
)


def _visible_runs(fragment: str, mode: rules.Mode) -> list[str]:
    """The text runs of ``fragment`` that lie outside dropped elements."""
    drop_tags = rules.dropped_tags(mode)
    runs: list[str] = []
    open_tags: list[str] = []
    last = pos = 0
    while (m := TOKEN.search(fragment, pos)) is not None:
        runs.append(fragment[last : m.start()])
        last = pos = m.end()
        end_slash, name, raw_attrs = m.groups()
        tag = (name or "").lower()
        if not tag or tag in rules.VOID_TAGS:
            continue
        if end_slash:
            if tag in open_tags:
                del open_tags[len(open_tags) - 1 - open_tags[::-1].index(tag) :]
        elif tag in RAW_TEXT_ENDS:
            last = pos = raw_text_end(fragment, tag, pos)
        elif tag in drop_tags or _drops(tag, attributes(raw_attrs), mode):
            around = frozenset(open_tags) & rules.BLOCK_TAGS
            last = pos = skip_dropped(fragment, tag, pos, around)
        else:
            open_tags.append(tag)
    runs.append(fragment[last:])
    return runs


def _drops(tag: str, attrs: dict[str, str], mode: rules.Mode) -> bool:
    """Whether an element inside text is left out (hidden, or dropped by ``mode``)."""
    return is_hidden(attrs) or is_dropped(tag, attrs, mode)


def normalise(text: str) -> str:
    """Entities decoded, NFC, every white-space run as one space (ends kept)."""
    return _collapse(unicodedata.normalize("NFC", htmllib.unescape(text)))


def _collapse(text: str) -> str:
    """Every white-space run as one space, keeping a leading or trailing one."""
    words = text.split()
    lead = " " if text[:1].isspace() else ""
    tail = " " if text[-1:].isspace() and words else ""
    return lead + " ".join(words) + tail


def source_text(html: str, start: int, end: int, mode: rules.Mode = "article") -> str:
    """The normalised text that ``html[start:end]`` shows in ``mode``."""
    return normalise("".join(_visible_runs(sanitise(html[start:end]), mode)))
