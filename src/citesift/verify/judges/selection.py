"""Which sentences are named as a claim's support: the fewest that together cover it, as
a reader checking the citation would want them.

Sentences are chosen greedily, each adding the claim facts it newly covers, until none adds
``MIN_GAIN`` of the claim; then a neighbour or the page's dateline may add a number or date
still missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from citesift.verify.candidates import Candidates
from citesift.verify.facts import facts

MAX_SUPPORTING = 4
"""At most this many sentences are named as support."""
MIN_GAIN = 0.12
"""A sentence joins the support when it covers at least this share of the claim anew."""
DATELINE_WORDS = 8
"""A line of at most this many words with a month and a number in it is a dateline or a
dated heading, not a statement: its date dates the page, so it may complete a claim's date
(``June 27, 2016 3.09pm EDT``)."""


def page_lines(sentences: Sequence[str]) -> frozenset[int]:
    """The page's lines that may complete a claim wherever they stand (see ``choose``)."""
    return frozenset(i for i, s in enumerate(sentences) if _dateline(s))


def choose(
    weights: Mapping[str, float],
    hard: frozenset[str],
    keys: Mapping[int, frozenset[str]],
    candidates: Candidates,
    lines: frozenset[int],
) -> tuple[list[int], set[str]]:
    """The support, chosen in two passes over the claim units (``weights``, the ``hard``
    ones being numbers, dates and names) each sentence's ``keys`` cover. First, candidates
    added while one covers at least ``MIN_GAIN`` of the claim anew, words or names among it
    (a number alone in a sentence about something else supports nothing). Then, for a
    number or date of the claim still missing, a candidate beside a chosen sentence or one
    of the page's short ``lines`` (a dateline or heading, where a page often states its date
    alone) that holds it. Ties go to the better-ranked."""
    rank = {i: r for r, i in enumerate(candidates.ranked)}
    order = sorted(keys, key=lambda i: (rank.get(i, len(rank)), i))
    pool = set(candidates.pool)
    quantities = {u for u in hard if u.startswith(("n:", "m:"))}
    chosen: list[int] = []
    covered: set[str] = set()

    def add(wanted: set[str], least: float, may: Callable[[int, frozenset[str]], bool]) -> None:
        while len(chosen) < MAX_SUPPORTING:
            best, gain = -1, least
            for i in order:
                fresh = (keys[i] & wanted) - covered
                new = math.fsum(weights[u] for u in fresh)
                if new > gain and may(i, fresh):
                    best, gain = i, new
            if best < 0:
                return
            chosen.append(best)
            covered.update(keys[best])

    add(
        set(weights),
        MIN_GAIN * math.fsum(weights.values()),
        lambda i, fresh: i in pool and not fresh <= quantities,
    )
    add(
        quantities,
        0.0,
        lambda i, fresh: i in lines or (i in pool and bool({i - 1, i + 1} & set(chosen))),
    )
    return chosen, covered


def _dateline(sentence: str) -> bool:
    """A line of a few words naming a month and a number: a dateline or a dated heading."""
    if len(sentence.split()) > DATELINE_WORDS:
        return False
    found = facts(sentence)
    return bool(found.months and found.numbers)
