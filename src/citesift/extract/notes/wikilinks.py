"""Wikilinks (``[[Target]]``, ``[[Target|alias]]``, ``[[Target#Heading]]``, embeds
``![[file.png]]``, and ``[[Target\\|alias]]`` as written inside a table): their targets, and
text with each link as the words a reader sees. Fenced code is left as it is."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from citesift.extract.notes.fences import fenced_spans

WIKILINK = re.compile(r"!?\[\[([^\[\]\r\n]*)\]\]")
_ALIAS = re.compile(r"\\?\|")


@dataclass(frozen=True, slots=True)
class Wikilink:
    """One link as written: its span in the text, target, heading and alias (each stripped,
    empty when absent), and the span of the words it shows (alias, else target, else
    heading; ``shown_start == shown_end`` when it shows nothing)."""

    start: int
    end: int
    target: str
    heading: str
    alias: str
    shown_start: int
    shown_end: int

    @property
    def shown(self) -> str:
        """What the link reads as: its alias, else its target, else its heading."""
        return self.alias or self.target or self.heading


def wikilinks(text: str) -> Iterator[Wikilink]:
    """Every wikilink of ``text`` outside fenced code, in order (``[[]]`` is not one)."""
    fences = fenced_spans(text) if "```" in text or "~~~" in text else []
    starts = [start for start, _ in fences]
    for found in WIKILINK.finditer(text):
        at = bisect.bisect_right(starts, found.start()) - 1
        if at >= 0 and found.start() < fences[at][1]:
            continue
        link = _parsed(found)
        if link is not None:
            yield link


def _parsed(found: re.Match[str]) -> Wikilink | None:
    inner, offset = found.group(1), found.start(1)
    if not inner.strip():
        return None
    bar = _ALIAS.search(inner)
    left = inner[: bar.start()] if bar else inner
    alias_at = bar.end() if bar else len(inner)
    target, _, heading = left.partition("#")
    alias = inner[alias_at:] if bar else ""
    spans = (
        (alias_at, len(inner), alias),
        (0, len(target), target),
        (len(target) + 1, len(left), heading),
    )
    start, end = next(((s, e) for s, e, part in spans if part.strip()), (0, 0))
    lead = len(inner[start:end]) - len(inner[start:end].lstrip())
    trail = len(inner[start:end].rstrip())
    return Wikilink(
        found.start(), found.end(), target.strip(), heading.strip(), alias.strip(),
        offset + start + lead, offset + start + trail,
    )  # fmt: skip


def extract_wikilinks(text: str) -> list[str]:
    """The targets ``text`` links to, each once, in the order first seen; a link to a
    heading of the same note (``[[#Heading]]``) or with a blank target names none."""
    return list(dict.fromkeys(link.target for link in wikilinks(text) if link.target))


def strip_wikilinks(text: str) -> str:
    """``text`` with each wikilink replaced by what it shows (alias, else target, else
    heading); an empty ``[[]]`` and links in fenced code stay as written."""
    parts: list[str] = []
    cut = 0
    for link in wikilinks(text):
        parts.append(text[cut : link.start])
        parts.append(link.shown)
        cut = link.end
    parts.append(text[cut:])
    return "".join(parts)
