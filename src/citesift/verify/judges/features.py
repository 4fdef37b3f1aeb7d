"""What the offline judge measures of a claim beside its candidate sentences: how much of
the claim the best sentences cover (weighting rare facts more), whether every number, date
and name is matched, and whether the polarity agrees.

The sentences named as support are chosen by ``selection.choose``; the features describe
that choice. The training script computes
the very same features, so the model shipped fits what the judge sees.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from citesift.verify.candidates import Candidates
from citesift.verify.facts import NUMBER_WORDS, Facts, date_parts, facts, written_as
from citesift.verify.judges.selection import choose, page_lines
from citesift.verify.judges.subclaims import split_claim
from citesift.verify.judges.words_by_meaning import WordsByMeaning

FACT_WEIGHT = 1.5
"""A number, date or name weighs this much more than a plain content word."""
CAP = 3
"""Counts of missed facts are capped here: a fourth miss tells nothing a third did not."""
PAGES_KEPT = 4
"""Pages whose whole-page measures (``_page``) are kept for the next claim checked against
them."""
MIN_ROOT = 5
"""Letters a stem needs before a longer word starting with it counts as its kin (shorter
stems begin too many unrelated words: *art* and *article*)."""
MAX_SUFFIX = 3
"""Letters a kin word may add (*-ian*, *-an*, *-ese*)."""
NAMES = (
    "coverage",
    "coverage_first",
    "coverage_plain",
    "pairs",
    "missed_quantities",
    "missed_names",
    "missed_hard_share",
    "has_hard",
    "negation",
    "size",
    "chosen",
    "heaviest_missed",
)
"""The features, in the order the model's weights follow. The closeness of meaning ranks
the candidates but is no feature: its level depends on how alike two texts are written (a
sentence and its rewording are far closer than an article and a page it cites), so a model
fitted on one would misread the other."""


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of the claim (see ``subclaims``) against the chosen sentences: the
    weighted share of its facts they cover."""

    coverage: float


@dataclass(frozen=True, slots=True)
class Measured:
    """A claim measured against its candidates: the ``features`` (in ``NAMES`` order) of the
    sentences chosen, the ``chosen`` ones named as support (best first; a sentence read for
    its facts but not named, see ``selection.PASSAGE``, counts in the features and the
    coverage only), the hard facts ``missed``, the weighted ``coverage``,
    whether the polarity differs, each of the claim's ``statements``, the names of the
    claim the whole page never states (``absent``), and the sentences read but not named
    (``apart``), so a reason can say where the rest of the coverage comes from, and the
    claim's own word for each fact key missed (``words``: *June* for ``m:6``), which a
    reason shows, and the weighted share of the claim the chosen sentences cover as written
    (``written``: without the words matched by meaning, ``words_by_meaning``)."""

    features: tuple[float, ...]
    chosen: tuple[int, ...]
    missed: tuple[str, ...]
    coverage: float
    negation: bool
    statements: tuple[Statement, ...] = ()
    absent: tuple[str, ...] = ()
    apart: tuple[int, ...] = ()
    words: tuple[tuple[str, str], ...] = ()
    written: float = 0.0


@dataclass(frozen=True, slots=True)
class _Units:
    """A claim's facts as weighted units to cover."""

    weights: dict[str, float]
    hard: frozenset[str]  # numbers, dates and names: each must be matched


def measure(
    claim: str,
    sentences: Sequence[str],
    candidates: Candidates,
    by_meaning: WordsByMeaning | None = None,
) -> Measured | None:
    """The features of ``claim`` against the sentences of ``candidates``' windows; None when
    the claim states no checkable fact. With ``by_meaning``, a common word of the claim
    the page never writes is matched by a near-synonym in the sentences read
    (``_by_meaning``), both in choosing the sentences named and in the coverage."""
    lines, document, names_written, words_written = _page(tuple(sentences))
    claim_facts = facts(claim)
    sentence_facts = {i: facts(sentences[i]) for i in {*candidates.pool, *lines}}
    units = _units(claim_facts, document, len(sentences), _about_keys(candidates.about))
    total = math.fsum(units.weights.values())
    if total == 0:
        return None
    pool = {i: _matched(units, fact_keys(found)) for i, found in sentence_facts.items()}
    parts = _statement_keys(claim, units)
    as_written = pool
    if by_meaning is not None:
        pool = _by_meaning(by_meaning, claim, units, document, sentences, sentence_facts, pool)
    chosen, covered, aside = choose(
        units.weights, units.hard, pool, candidates, lines, parts, sentences, date_parts(claim)
    )
    coverage = math.fsum(units.weights[u] for u in covered) / total
    meant = covered - frozenset().union(*(as_written[i] for i in chosen))
    written = coverage - math.fsum(units.weights[u] for u in meant) / total
    first = (
        math.fsum(units.weights[u] for u in pool[chosen[0]] & units.weights.keys()) if chosen else 0
    )
    missed = tuple(sorted(units.hard - covered))
    quantities = sum(m.startswith(("n:", "m:")) for m in missed)
    negation = _polarity_differs(claim_facts, [sentence_facts[i] for i in chosen])
    features = (
        coverage,
        first / total,
        _share(claim_facts.stems, [sentence_facts[i].stems for i in chosen]),
        _share(claim_facts.pairs, [sentence_facts[i].pairs for i in chosen]),
        min(quantities, CAP),
        min(len(missed) - quantities, CAP),
        len(missed) / len(units.hard) if units.hard else 0.0,
        float(bool(units.hard)),
        float(negation),
        math.log1p(len(units.weights)),
        float(len(chosen)),
        max((units.weights[u] for u in units.weights.keys() - covered), default=0.0) / total,
    )
    statements = _statements(parts, units, covered)
    opening = _opening_name(claim_facts, names_written, words_written)
    names = {m for m in missed if ":" not in m} | (opening & units.weights.keys() - covered)
    for sentence in sentences if names else ():
        names -= _matched(units, fact_keys(facts(sentence)))
    absent = tuple(sorted(names))
    named = tuple(i for i in chosen if i not in aside)
    apart = tuple(sorted(i for i in chosen if i in aside))
    shown = tuple(pair for pair in written_as(claim) if pair[0] in {*missed, *absent})
    return Measured(
        features, named, missed, coverage, negation, statements, absent, apart, shown, written
    )


def _by_meaning(
    find: WordsByMeaning,
    claim: str,
    units: _Units,
    document: Counter[str],
    sentences: Sequence[str],
    read: dict[int, Facts],
    pool: dict[int, frozenset[str]],
) -> dict[int, frozenset[str]]:
    """``pool`` (the claim's units each sentence ``read`` covers) with the claim's common
    words (written in lower case, no name, number or date) that no sentence of the page
    matches (``document``, by stem or family) matched by the near-synonyms ``find`` tells
    among the common words of the sentences read (``_common``)."""
    claim_facts = facts(claim)
    on_page = _matched(units, frozenset(document))
    wanted = {
        key: word
        for key, word in written_as(claim)
        if key in units.weights.keys() - on_page and _common(key, word, claim_facts, units.hard)
    }
    if not wanted:
        return pool
    offered: dict[str, str] = {}
    for i, found in read.items():
        for key, word in written_as(sentences[i]):
            if _common(key, word, found):
                offered.setdefault(key, word)
    close = find(wanted, offered)
    if not close:
        return pool
    return {
        i: keys | {unit for unit, stems in close.items() if stems & read[i].stems}
        for i, keys in pool.items()
    }


def _common(key: str, word: str, found: Facts, hard: frozenset[str] = frozenset()) -> bool:
    """The ``word`` of a text (its key ``key``, its facts ``found``) is a common word it
    writes in lower case: no name, number (``two`` too) or date, nor a compound written
    with a hyphen (*art-making*), whose parts are keys of their own."""
    return (
        key in found.plain
        and key not in found.entities | hard
        and ":" not in key
        and "-" not in word
        and word.lower() not in NUMBER_WORDS
    )


def _statement_keys(claim: str, units: _Units) -> list[frozenset[str]]:
    """The claim's units each of its statements (``subclaims.split_claim``) holds."""
    return [fact_keys(facts(part)) & units.weights.keys() for part in split_claim(claim)]


def _statements(
    parts: list[frozenset[str]], units: _Units, covered: set[str]
) -> tuple[Statement, ...]:
    """Each statement holding a fact (its units, ``parts``), measured against ``covered``."""
    out = []
    for keys in parts:
        weight = math.fsum(units.weights[k] for k in keys)
        if weight > 0:
            out.append(Statement(math.fsum(units.weights[k] for k in keys & covered) / weight))
    return tuple(out)


def _share(wanted: frozenset[Any], found: Sequence[frozenset[Any]]) -> float:
    """The share of ``wanted`` found in any of the ``found`` sets (1 when nothing is wanted)."""
    if not wanted:
        return 1.0
    return len(wanted & frozenset().union(*found)) / len(wanted)


def fact_keys(found: Facts) -> frozenset[str]:
    """The facts of a text as comparable keys (``n:``, ``m:`` and plain stems)."""
    return found.stems | {f"n:{n}" for n in found.numbers} | {f"m:{m}" for m in found.months}


def _matched(units: _Units, keys: frozenset[str]) -> frozenset[str]:
    """The claim's units a text's ``keys`` cover: the same stem, or one of a word's family
    the stemmer leaves apart (*Libya* and *Libyan*, *Jordan* and *Jordanians*), told by one
    stem of at least ``MIN_ROOT`` letters starting the other and longer by ``MAX_SUFFIX``
    letters at most (not *state* and *statement*), less the final vowel a longer stem's
    family drops (*Canada* and *Canadian*, *Mexico* and *Mexican*). Numbers and dates match
    only exactly."""
    found = set(units.weights.keys() & keys)
    words = [k for k in keys if len(k) >= MIN_ROOT and ":" not in k]
    for unit in units.weights.keys() - found:
        if len(unit) >= MIN_ROOT and ":" not in unit and any(_kin(unit, k) for k in words):
            found.add(unit)
    return frozenset(found)


def _kin(a: str, b: str) -> bool:
    """``a`` and ``b`` are one word's family (see ``_matched``)."""
    short, long = sorted((a, b), key=len)
    if short[-1] in "aeiouy" and len(short) > MIN_ROOT:  # the root left is MIN_ROOT or more
        short = short[:-1]
    return long.startswith(short) and len(long) - len(short) <= MAX_SUFFIX


@lru_cache(maxsize=PAGES_KEPT)
def _page(
    sentences: tuple[str, ...],
) -> tuple[frozenset[int], Counter[str], frozenset[str], frozenset[str]]:
    """What ``measure`` reads of the whole page for every claim, read once per page: its
    datelines (``selection.page_lines``), how many of its sentences hold each fact key, and
    the stems it writes capitalised within a sentence (names) and in lower case (common
    words), which tell whether a claim's first word is a name (``_opening_name``)."""
    read = [facts(s) for s in sentences]
    document = Counter(k for found in read for k in fact_keys(found))
    named = frozenset().union(*(found.entities for found in read))
    plain = frozenset().union(*(found.plain for found in read))
    return page_lines(sentences), document, named, plain


def _opening_name(claim: Facts, named: frozenset[str], plain: frozenset[str]) -> frozenset[str]:
    """The stems of ``claim``'s first word when the evidence says it is a name: the page
    writes it capitalised within a sentence (``named``), or neither the page (``plain``)
    nor the claim writes it in lower case. A first word is capitalised whatever it is, so
    its capital tells nothing; but a name swapped there (*Apple sponsored* for *Mozilla
    sponsored*) that the page never names keeps the claim from support as any name does,
    while a common word opening the claim (*Construction began*), which the page writes in
    lower case, is a plain word."""
    opening = claim.opening - claim.entities
    return opening if opening & named or not opening & (plain | claim.plain) else frozenset()


def _about_keys(about: str) -> frozenset[str]:
    """The keys of the words naming what a claim is about (``Candidates.about``)."""
    return fact_keys(facts(about)) if about.strip() else frozenset()


def _units(
    claim: Facts, document: Counter[str], size: int, about: frozenset[str] = frozenset()
) -> _Units:
    """The claim's keys weighted by rarity among a page's ``size`` sentences, ``document``
    counting the sentences holding each key (rarer weighs more); the keys of what the claim
    is ``about`` left out (``height: 42`` states 42, which a page may say is how tall a
    thing stands), so a claim stating nothing else has none (``height: N/A``)."""
    keys = fact_keys(claim) - about
    hard = {f"n:{n}" for n in claim.numbers} | {f"m:{m}" for m in claim.months} | claim.entities
    count = max(size, 1)
    weights = {
        k: math.log(1 + count / (1 + document[k])) * (FACT_WEIGHT if k in hard else 1.0)
        for k in keys
    }
    return _Units(weights, frozenset(hard & keys))


def _polarity_differs(claim: Facts, chosen: list[Facts]) -> bool:
    """The support's main sentence (the one covering most of the claim) states plainly
    what the claim denies, or denies what the claim states: a word under a negation on one
    side (``facts.NEGATION_SCOPE``) is found unnegated on the other. A negation about
    something the claim does not speak of changes nothing, nor does a word of the claim's
    denial that another sentence of the support uses of something else (*not allowed*
    beside a sentence of what is allowed)."""
    if not chosen:
        return False
    denied = frozenset().union(*(c.denied for c in chosen))
    main = chosen[0]
    return bool((claim.denied & main.stems) - denied) or bool(
        main.denied & claim.stems - claim.denied
    )
