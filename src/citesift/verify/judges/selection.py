"""Which sentences are named as a claim's support: the few that together cover it, as a
reader checking the citation would want them — the sentence stating the main fact, and
those supplying another of its facts, a name or a date.

Sentences are chosen greedily, each adding the claim facts it newly covers (see
``choose``), from the candidates' windows, and the page's datelines for a date. A sentence
joining on slight evidence far from the others is read, not named (``PASSAGE``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from citesift.text.sentences import ENDED
from citesift.verify.candidates import Candidates, few_words
from citesift.verify.facts import date_parts, month_stems, number_kinds

MAX_SUPPORTING = 4
"""At most this many sentences are named as support."""
MIN_GAIN = 0.12
"""A sentence joins the support when it covers at least this share of the claim anew."""
CLOSE = 0.5
"""Cosine with the claim from which a sentence is close in meaning to it: half way from
unrelated texts (about 0 with MiniLM) to a rewording (about 1)."""
CLOSE_GAIN = MIN_GAIN / 2
"""The share of the claim a sentence close in meaning must cover anew to join: its
closeness vouches that the few facts it adds are the claim's, not words that merely recur
on the page, so half the usual share will do."""
NEAR_LIFT = 2.0
"""Standard deviations above the page's mean cosine with the claim (``Candidates.lift``)
from which a sentence beside the support stands out from the page by meaning: the top
sentence or two of a hundred, were the cosines spread normally. Beside a chosen sentence
(a fact often runs over two sentences: a name in one, what it did in the next) that is
enough to show it speaks of the claim, so any fact of the claim it adds is the claim's."""
BACKED = 0.5
"""Share of one statement of the claim (its weighted facts) from which it counts as backed
by the support; a statement below it gets a sentence of its own if one covers this share
of it anew."""
TIE = 0.2
"""Candidates covering within this share of the most a candidate covers anew are tied for
a place in the support, and the better-ranked one takes it: which of a claim's words a
source repeats is partly chance, so a fifth less of the claim's weight (about one word of
a claim of five) tells two sentences apart less surely than the ranking, which reads the
whole claim both by its rare terms and by meaning. (A tenth was compared with a fifth on
the development claims; a fifth helped more.)"""
PASSAGE = 3
"""Sentences either side of a chosen one within which a sentence joining the support on
slight evidence is named: one adding a single fact of the claim (one word, name or number),
or one joining for its closeness in meaning (``CLOSE_GAIN``). A fact that runs over
sentences runs over the few of one passage (a paragraph of a web page holds three to
five), and closeness vouches for a few facts as the claim's within it; farther away, a
lone word of the claim, or a sentence on the claim's topic adding little of it (a summary,
a related item), is found on the page, so its facts count as found, but a reader checking
the citation reads the passage that states the claim, to which it seldom belongs. A
statement of the claim still unbacked (``BACKED``) may be stated anywhere on the page.
(Beside the support, 1, was compared with a paragraph, 3, on the development claims; both
helped, 3 more.)"""


_ITEMS = re.compile(r"\s[|•]\s")
"""What sets apart the items of a line of a page's layout (``Published May 24, 2019 |
Updated May 25, 2019``, ``By Jo Ames • May 24, 2019``)."""


def page_lines(sentences: Sequence[str]) -> frozenset[int]:
    """The page's lines that may complete a claim's date wherever they stand."""
    return frozenset(i for i, s in enumerate(sentences) if _dateline(s))


def choose(
    weights: Mapping[str, float],
    hard: frozenset[str],
    keys: Mapping[int, frozenset[str]],
    candidates: Candidates,
    lines: frozenset[int],
    statements: Sequence[frozenset[str]] = (),
    sentences: Sequence[str] = (),
    dates: frozenset[tuple[str, str]] = frozenset(),
) -> tuple[list[int], set[str], frozenset[int]]:
    """The sentences chosen (indices, in the order chosen), the claim units they cover, and
    those of them read but not named as support (``PASSAGE``).

    ``weights`` are the claim's units (``hard`` ones are numbers, dates and names),
    ``keys`` the units each sentence covers, ``statements`` the units of each statement of
    the claim, ``sentences`` the page's lines (read for their form, ``_in_full``). Passes,
    each adding the sentence that covers most anew until none qualifies:
    candidates covering ``MIN_GAIN`` of the claim anew, words or names among it (a number
    alone in a sentence about something else supports nothing) and standing no lower than
    the page's average by meaning (``Candidates.lift``: a sentence less close to the claim
    than the page as a whole is about something else, and the claim's words it holds are
    words the page repeats everywhere), near ties (``TIE``) going to the better-ranked, and
    the first of them one backing the most of the claim's statements (``_main``);
    then candidates close in meaning to the claim (``CLOSE``) covering ``CLOSE_GAIN``, if
    they state something (a heading or a label is close to a claim on its topic by being
    short and naming the topic, not by stating its facts); then a statement beside a chosen
    sentence standing out from the page by meaning (``NEAR_LIFT``) adding any fact;
    then, for a number or date still missing, a candidate beside a chosen sentence or one
    of the page's date ``lines`` that holds it, of those tied the one heading the support
    nearest (``_heads``); last, for each statement not yet
    ``BACKED``, the candidate covering that share of it anew. Ties go to the
    better-ranked, but a line of few words to a full sentence stating its facts of the
    claim (``_in_full``). A sentence adding a single unit, or joining for its closeness, farther
    than ``PASSAGE`` from every sentence chosen before it is not named, unless it is a
    date line. A part of the claim's ``dates`` (``facts.date_parts``) that the first sentence
    chosen states differently (``_conflicting``) is covered by no sentence."""
    rank = {i: r for r, i in enumerate(candidates.ranked)}
    order = sorted(keys, key=lambda i: (rank.get(i, len(rank)), i))
    pool = set(candidates.pool)
    quantities = {u for u in hard if u.startswith(("n:", "m:"))}
    total = math.fsum(weights.values())
    dense = candidates.dense
    chosen: list[int] = []
    covered: set[str] = set()
    aside: set[int] = set()
    barred: set[str] = set()

    def add(
        wanted: set[str],
        least: float,
        may: Callable[[int, frozenset[str]], bool],
        tie: float = 0.0,
        loose: bool = False,
        heads: bool = False,
    ) -> None:
        """Add the candidates ``may`` admits that cover more than ``least`` of ``wanted``
        anew, the most first; ``loose`` ones (and any adding one unit) are named only
        within ``PASSAGE`` of the support; with ``heads``, of tied candidates the one
        heading the support (``_heads``) rather than the better-ranked."""
        while len(chosen) < MAX_SUPPORTING:
            gains = {}
            for i in order:
                fresh = (keys[i] & wanted) - covered - barred
                new = math.fsum(weights[u] for u in fresh)
                if new > least and may(i, fresh):
                    gains[i] = new
            if not gains:
                return
            if not chosen:
                gains = _main(gains, keys, weights, statements)
            most = max(gains.values())
            tied = [i for i, gain in gains.items() if gain >= (1 - tie) * most]
            if heads and chosen:
                named = [j for j in chosen if j not in aside] or chosen
                tied.sort(key=lambda i: _heads(i, named))
            best = _in_full(tied, keys, wanted, sentences)
            if (loose or len((keys[best] & wanted) - covered) == 1) and _apart(best, chosen, lines):
                aside.add(best)
            chosen.append(best)
            if len(chosen) == 1 and best < len(sentences):
                stated = date_parts(sentences[best])
                barred.update(_conflicting(dates, stated, keys[best], statements or [weights]))
            covered.update(keys[best] - barred)

    lift = candidates.lift
    short = candidates.short

    def beside(i: int) -> bool:
        return bool({i - 1, i + 1} & set(chosen))

    def stated(i: int, fresh: frozenset[str]) -> bool:
        return i in pool and not fresh <= quantities and (lift is None or lift[i] >= 0)

    add(set(weights), MIN_GAIN * total, stated, TIE)
    if dense is not None:
        add(
            set(weights),
            CLOSE_GAIN * total,
            lambda i, f: stated(i, f) and dense[i] >= CLOSE and i not in short,
            loose=True,
        )
    if lift is not None:
        add(
            set(weights),
            0.0,
            lambda i, f: stated(i, f) and lift[i] >= NEAR_LIFT and beside(i) and i not in short,
        )
    add(
        quantities,
        0.0,
        lambda i, fresh: i in lines or (i in pool and beside(i)),
        heads=True,
    )
    for statement in statements:
        weight = math.fsum(weights[u] for u in statement)
        if weight > 0 and not _backs(statement, frozenset(covered), weights):
            add(set(statement), BACKED * weight, lambda i, fresh: i in pool)
    return chosen, covered, frozenset(aside)


def _main(
    gains: dict[int, float],
    keys: Mapping[int, frozenset[str]],
    weights: Mapping[str, float],
    statements: Sequence[frozenset[str]],
) -> dict[int, float]:
    """Of the candidates for the first sentence named (with what each covers anew,
    ``gains``), those backing the most statements of the claim (``BACKED``), when one backs
    two or more: the sentence stating several of the claim's statements together is the
    one stating the claim, while one holding more of a single statement's words states a
    part of it (a heading, another event of the same people)."""
    backs = {i: sum(_backs(statement, keys[i], weights) for statement in statements) for i in gains}
    most = max(backs.values())
    return gains if most < 2 else {i: gain for i, gain in gains.items() if backs[i] == most}


def _in_full(
    tied: Sequence[int],
    keys: Mapping[int, frozenset[str]],
    wanted: set[str],
    sentences: Sequence[str],
) -> int:
    """Of candidates ``tied`` for a place (best-ranked first), the best-ranked, unless it is
    a line of a few words (``candidates.few_words``: a heading, a label, a dateline) and a
    tied full sentence (``_full``) holds every fact of the claim it holds: then that
    sentence. A heading names a topic in the claim's words (*Wizards Recall McClellan*,
    *Melvin R. Seiden Curator of Chinese Art*), and ranks well for being short, while the
    sentence holding the same words states them of someone, in a clause (*McClellan has
    been recalled*, *Jan Stuart is the first Melvin R. Seiden Curator*), which is what a
    reader checking the claim looks for."""
    best = tied[0]
    if best >= len(sentences) or not few_words(sentences[best]):
        return best
    held = keys[best] & wanted
    return next((i for i in tied[1:] if held <= keys[i] and _full(sentences[i])), best)


def _full(sentence: str) -> bool:
    """``sentence`` is a full sentence: more than a few words, and ended by a full stop, a
    question or an exclamation mark, an ellipsis (``ENDED``), as a heading, a page's title, a
    label or a link's text is not."""
    return not few_words(sentence) and ENDED.search(sentence) is not None


def _backs(statement: frozenset[str], keys: frozenset[str], weights: Mapping[str, float]) -> bool:
    """``keys`` cover the ``BACKED`` share of ``statement``'s weighted facts."""
    weight = math.fsum(weights[u] for u in statement)
    return weight > 0 and math.fsum(weights[u] for u in statement & keys) >= BACKED * weight


def _heads(i: int, named: Sequence[int]) -> tuple[bool, int]:
    """How well sentence ``i`` heads the sentences ``named`` for a date they lack, the
    smallest best: one beside them or before them, the nearest first, then one after them.
    A page holding several dates of the claim's year (a byline, an update, an archive's
    capture, the dates of the related items listed below an article) dates each item in a
    line heading it: the one nearest above the passage stating the claim dates that
    passage; a line after it heads the next item."""
    gap = min(abs(i - j) for j in named)
    return (gap > 1 and i > max(named), gap)


def _conflicting(
    claim: frozenset[tuple[str, str]],
    stated: frozenset[tuple[str, str]],
    held: frozenset[str],
    statements: Sequence[Iterable[str]],
) -> frozenset[str]:
    """The keys of the claim's date parts (``facts.date_parts``) that the sentence backing
    the rest of their statement states differently: the sentence first chosen (its date
    parts ``stated``, the claim's units it covers ``held``) covers every other unit of a
    statement of the claim (the words of a month's name are the date's), states a date of
    each kind the statement's date has, and for one of them another part of that kind
    (May for June, 2014 for 2015) and not the claim's. Such a part is a conflict, not a gap
    another sentence may fill: the sentence says when the very event happened, and a month
    or year found elsewhere on the page (a caption, another event) dates something else. A
    sentence backing only part of the statement, or dating it less finely (a year beside a
    claim's day), may be speaking of another event of the same people."""
    kind_of = {key: kind for kind, key in claim}
    kinds = {kind for kind, _ in stated}
    barred: set[str] = set()
    for statement in statements:
        dated = {key for key in statement if key in kind_of}
        rest = set(statement) - dated - month_stems()
        if not dated or not rest or not rest <= held:
            continue
        if {kind_of[key] for key in dated} <= kinds:
            barred.update(
                key
                for key in dated - held
                if any(
                    kind == kind_of[key] and (kind, other) not in claim for kind, other in stated
                )
            )
    return frozenset(barred)


def _apart(i: int, chosen: Sequence[int], lines: frozenset[int]) -> bool:
    """Sentence ``i`` stands farther than ``PASSAGE`` from every sentence ``chosen`` and is
    no date line (whose date dates the page wherever the line stands)."""
    return bool(chosen) and i not in lines and min(abs(i - j) for j in chosen) > PASSAGE


def _dateline(sentence: str) -> bool:
    """A line of a few words (``candidates.FEW_WORDS``) naming a day of a month (a date in
    digits names its month, see ``facts``), or a line of short items set apart by ``|`` or
    ``•`` (``_ITEMS``) one of which is such a date, as a page's bar shows a published and an
    updated time side by side: a dateline, a dated heading or the page's published time,
    not a statement; its date dates the page, so it may complete a claim's date (``June 27,
    2016 3.09pm EDT``, ``PUBLISHED: 2016-08-25 00:00``). A page is dated to its day: a short
    line naming a month of a year alone (``Screenshot of the site in June 2022``) is a
    caption dating its picture, not the page."""
    items = _ITEMS.split(sentence)
    return all(map(few_words, items)) and any(map(_dated, items))


def _dated(item: str) -> bool:
    """``item`` names a day of a month (see ``_dateline``)."""
    return any(kind == "day" for kind, _ in number_kinds(item))
