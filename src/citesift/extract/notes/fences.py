"""Fenced code in Markdown: where it starts and ends, so that headings, links and tables
inside it are read as code. A fence is three or more backticks or tildes after at most three
spaces; only a run of the same character at least as long closes it (a shorter fence inside
a longer one is code), and one left open runs to the end of the text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


class Line(NamedTuple):
    """One line of the text: where it starts, its text without the line break, and whether
    it is part of fenced code (a fence line itself included)."""

    start: int
    text: str
    fenced: bool
    fence: bool = False
    """Whether the line is a fence (one opening or closing fenced code)."""

    @property
    def end(self) -> int:
        """Where the line's text ends (before its line break)."""
        return self.start + len(self.text)


def lines(text: str) -> Iterator[Line]:
    """Each line of ``text`` with its offset, told in or out of fenced code."""
    opener: str | None = None
    for found in _LINE.finditer(text):
        raw = found.group()
        if not raw:
            break
        line = raw.rstrip("\r\n")
        fence = _FENCE.match(line)
        if opener is None:
            if fence and not (fence.group(1)[0] == "`" and "`" in line[fence.end() :]):
                opener = fence.group(1)
                yield Line(found.start(), line, True, True)
                continue
            yield Line(found.start(), line, False)
            continue
        closing = fence is not None and _closes(fence.group(1), opener, line[fence.end() :])
        yield Line(found.start(), line, True, closing)
        if closing:
            opener = None


def _closes(run: str, opener: str, rest: str) -> bool:
    """Whether a fence ``run`` (followed by ``rest``) closes the fence ``opener`` opened."""
    return run[0] == opener[0] and len(run) >= len(opener) and not rest.strip()


def fenced_spans(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that are fenced code, fence lines included, in order."""
    spans: list[tuple[int, int]] = []
    inside = False
    for line in lines(text):
        if line.fenced and inside:
            spans[-1] = (spans[-1][0], line.end)
        elif line.fenced:
            spans.append((line.start, line.end))
        inside = line.fenced
    return spans
