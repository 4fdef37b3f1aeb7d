"""The places of a passage read from a PDF or Office file: where each block it spans begins
in its text and that block's page, slide or sheet, so each of its sentences can be linked to
its own page. Places kept as JSON are read back leniently: a run stored before places were
kept (or edited by hand) has none, and its passages are linked by their text. A passage is
linked by one of its sentences, never whole: it can begin in one block (a heading) and run
on into the next, and a text fragment that runs across them finds nothing."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

from citesift.model import Block, Place, TextPlace, place_json, stored_place
from citesift.text.fragments import fragment_url, has_word
from citesift.text.passages import place_link
from citesift.text.sentences import sentence_spans

LINKED_SENTENCES = 3
"""The most sentences of one line a link names together, when none of them alone holds
what is looked for."""
SentencePlace = tuple[int, int, Place | None]
"""A sentence of a passage: where it begins and ends in the text, and its place in a file."""


def places_in(
    blocks: Sequence[Block], starts: Sequence[int], start: int, end: int
) -> tuple[TextPlace, ...]:
    """The places of ``text[start:end]``, ``text`` being the blocks joined as ingested (block
    ``i`` beginning at ``starts[i]``): each block it spans that has a place, from where that
    block begins in the passage (the first from 0)."""
    if not blocks or end <= start:
        return ()
    first = max(bisect.bisect_right(starts, start) - 1, 0)
    last = max(bisect.bisect_left(starts, end) - 1, first)
    return tuple(
        TextPlace(max(starts[i] - start, 0), place)
        for i in range(first, last + 1)
        if (place := blocks[i].place) is not None
    )


def places_at(places: Sequence[TextPlace], positions: Sequence[int]) -> list[Place | None]:
    """The place of each of ``positions`` of a passage's text (None when it has no places),
    found by binary search over where its places begin (a passage may have thousands)."""
    if not places:
        return [None] * len(positions)
    starts = [item.start for item in places]
    return [places[max(bisect.bisect_right(starts, pos) - 1, 0)].place for pos in positions]


def sentence_places(text: str, places: Sequence[TextPlace]) -> list[SentencePlace]:
    """Each sentence of a passage: where it begins and ends in ``text``, and its place in
    a file (None in a web page, or a passage kept without its places)."""
    spans = sentence_spans(text)
    found = places_at(places, [start for start, _ in spans])
    return [(start, end, place) for (start, end), place in zip(spans, found, strict=True)]


def sentence_link(
    url: str,
    text: str,
    places: Sequence[TextPlace],
    holds: Callable[[str], bool] | None = None,
    sentences: Sequence[SentencePlace] | None = None,
) -> tuple[str, Place | None]:
    """A link to the sentence of a passage (``text`` of ``url``) that ``holds`` is true of,
    else to the fewest sentences running on in one line (at most ``LINKED_SENTENCES``) it is
    true of together, else to the passage's first sentence (its page in a file, a text
    fragment in a web page), and that sentence's place in a file. A "sentence" of no word
    (an ellipsis, a bullet) is passed over for the next one: a link finds words. ``sentences``
    are the passage's ``sentence_places`` when already found (a passage linked for many
    values is split once)."""
    if sentences is None:
        sentences = sentence_places(text, places)
    if not sentences:
        place = places[0].place if places else None
        return link_to(url, text, place), place
    held = _holding(text, sentences, holds) if holds is not None else None
    worded = (s for s in sentences if has_word(text[s[0] : s[1]]))
    start, end, place = held or next(worded, sentences[0])
    return link_to(url, text[start:end], place), place


def _holding(
    text: str, sentences: Sequence[SentencePlace], holds: Callable[[str], bool]
) -> SentencePlace | None:
    """The first sentence ``holds`` is true of, else the first shortest run of sentences in
    one line it is true of (None when there is none: ``text`` is asked first)."""
    if not holds(text):
        return None
    for width in range(1, LINKED_SENTENCES + 1):
        for first, last in zip(sentences, sentences[width - 1 :], strict=False):
            piece = text[first[0] : last[1]]
            if (width == 1 or len(piece.splitlines()) == 1) and holds(piece):
                return first[0], last[1], first[2]
    return None


def place_words(first: Place | None, final: Place | None) -> str | None:
    """Where a passage of a file lies: its block's place, or the places of the first and
    last blocks it spans (``page 1, paragraph 2 to page 2, paragraph 1``)."""
    if first is None:
        return None
    if final is None or final == first:
        return first.label()
    return f"{first.label()} to {final.label()}"


def link_to(url: str, text: str, place: Place | None) -> str:
    """A link to ``text`` of ``url``: its page in a file (``#page=N``), a text fragment in a
    web page (a PDF viewer follows no text fragment)."""
    return place_link(url, place) if place is not None else fragment_url(url, text)


def places_json(places: Sequence[TextPlace]) -> list[dict[str, Any]]:
    """Places as JSON keeps them, compactly: each place with only the fields it has
    (``[{"start": 0, "place": {"page": 2, "paragraph": 1}}]``, as ``stored_places`` reads)."""
    return [
        {
            "start": item.start,
            "place": place_json(item.place),
        }
        for item in places
    ]


def stored_places(value: object, length: int) -> tuple[TextPlace, ...]:
    """Places as JSON keeps them, of a passage of ``length`` characters. A stored run is
    read as untrusted: an item that is no place, or whose start is not past the one before
    or not within the text, is left out (so there are at most ``length``), and a value that
    is no list gives none."""
    if not isinstance(value, list):
        return ()
    found: list[TextPlace] = []
    for item in value:
        start = item.get("start") if isinstance(item, dict) else None
        if type(start) is not int or not (found[-1].start if found else -1) < start < length:
            continue
        place = stored_place(item.get("place"))
        if place is not None:
            found.append(TextPlace(start, place))
    return tuple(found)
