"""Markdown notes made of what costs by the line, not by the text: millions of empty lines,
fences, headings or wikilinks in a few megabytes (a local note may be 128 MiB), and one
paragraph of millions of short lines. Each is read in seconds: the note is read up to
``MAX_NOTE_CHARS`` and said to be truncated, and a block stops gathering lines once no more
of it could be kept."""

from __future__ import annotations

import time

import pytest

from citesift.extract.notes import note_document
from citesift.extract.notes.document import MAX_NOTE_CHARS
from measure import traced

SIZE = 8_000_000  # characters: eight times the most read, several times what took seconds
PEAK_BYTES = 120 * 1024 * 1024  # what a block of the whole budget's short lines holds
SECONDS = 10.0  # each takes a few seconds at most alone (20 to 25 before); machines are slow
FLOODS = {
    "empty lines": "\r",
    "one-line paragraphs": "a\n",
    "fences": "```\n",
    "headings": "# a\n",
    "wikilinks": "[[a]] ",
}


def read(raw: str) -> tuple[int, bool]:
    document = note_document(raw, "file:///vault/flood.md", "flood.md", 0)
    return len(document.blocks), document.truncated


@pytest.mark.timeout(120)
@pytest.mark.parametrize("unit", FLOODS.values(), ids=FLOODS.keys())
def test_a_note_of_millions_of_lines_is_read_in_seconds(unit: str) -> None:
    raw = unit * (SIZE // len(unit)) + "\n\nThe last line."
    started = time.perf_counter()
    _, truncated = read(raw)
    assert time.perf_counter() - started < SECONDS
    assert truncated


def test_a_paragraph_of_short_lines_holds_no_more_than_it_could_keep() -> None:
    raw = "a\n" * (MAX_NOTE_CHARS // 2)  # within what is read: one paragraph, cut by the budget
    (blocks, truncated), _, peak = traced(lambda: read(raw))
    assert (blocks, truncated) == (1, True)
    assert peak < PEAK_BYTES, peak  # twice that before, and growing with the note


def test_a_note_under_the_bound_is_read_whole() -> None:
    raw = "# Title\n\n" + "A line of prose about rivers.\n\n" * 1_000 + "The last line."
    document = note_document(raw, "file:///vault/whole.md", "whole.md", 0)
    assert not document.truncated and document.blocks[-1].text == "The last line."
