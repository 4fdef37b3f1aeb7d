"""What a claim asserts that a supporting sentence must repeat, not merely resemble: its
content words (stemmed), numbers, dates, named entities, and what it denies."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from itertools import pairwise

from citesift.index.lexical import Tokenizer

AUXILIARY_VERBS = frozenset(
    ["is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do", "does", "did"]
)
"""The forms of *be*, *have* and *do*: the verbs that carry a tense or a negation."""
FUNCTION_WORDS = AUXILIARY_VERBS | frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "nor",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "without",
        "into",
        "onto",
        "over",
        "under",
        "about",
        "as",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "he",
        "she",
        "they",
        "them",
        "his",
        "her",
        "their",
        "him",
        "we",
        "us",
        "our",
        "you",
        "your",
        "i",
        "me",
        "my",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "why",
        "how",
        "than",
        "then",
        "there",
        "here",
        "also",
        "such",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "very",
        "more",
        "most",
        "other",
        "some",
        "any",
        "each",
        "all",
        "both",
        "either",
        "one",
        "s",
        "t",
        # pronouns and auxiliaries
        "am",
        "doing",
        "having",
        "ought",
        "myself",
        "ourselves",
        "ours",
        "yours",
        "yourself",
        "yourselves",
        "himself",
        "herself",
        "hers",
        "itself",
        "theirs",
        "themselves",
        "own",
        # connectives
        "because",
        "if",
        "so",
        "while",
        "once",
        "through",
        "during",
        "between",
        "further",
        "again",
        "too",
        # discourse adverbs and vague quantities
        "actually",
        "additionally",
        "already",
        "currently",
        "especially",
        "even",
        "eventually",
        "finally",
        "furthermore",
        "however",
        "instead",
        "just",
        "later",
        "moreover",
        "now",
        "often",
        "particularly",
        "respectively",
        "sometime",
        "sometimes",
        "still",
        "usually",
        "well",
        "many",
        "much",
        "several",
        "various",
    ]
)
"""Words that carry no fact of their own: a claim is not unsupported for lacking them. Beside
articles, pronouns and auxiliaries, the connectives and discourse adverbs a source rewords
or drops at will (*however*, *instead*, *during*, *still*), vague quantities (*many*,
*several*) and the titles written before a name (*Dr.*, *Mr*, *Prof.*), which a source
drops or writes its own way (*Professor*, *the physician*) while naming the same person.
Words of a relation that changes the fact stay content words (*before*, *after*,
*against*, *above*, *only*, *until*)."""
NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "neither",
        "nor",
        "none",
        "nobody",
        "nothing",
        "nowhere",
        "cannot",
        "without",
        "n't",
    ]
)
"""Words that turn a statement into its opposite."""
NEGATION_SCOPE = 3
"""Content words after a negation that it denies (``did not want to leave`` denies *want*
and *leave*): a negation speaks of the words near it, not of the whole sentence."""
MONTH_NAMES = (
    ("january", "jan"),
    ("february", "feb"),
    ("march", "mar"),
    ("april", "apr"),
    ("may",),
    ("june", "jun"),
    ("july", "jul"),
    ("august", "aug"),
    ("september", "sep", "sept"),
    ("october", "oct"),
    ("november", "nov"),
    ("december", "dec"),
)
"""Each month's names, in order: the full name first, then its abbreviations."""
MONTHS = {name: number for number, names in enumerate(MONTH_NAMES, start=1) for name in names}
_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
NUMBER_WORDS = {
    **{word: str(value) for value, word in enumerate(_UNITS)},
    **{tens: str(20 + 10 * i) for i, tens in enumerate(_TENS)},
    **{
        f"{tens}-{unit}": str(21 + 10 * i + j)
        for i, tens in enumerate(_TENS)
        for j, unit in enumerate(_UNITS[1:10])
    },
}
"""Numbers below a hundred written as words (``twenty-one`` with its hyphen), read as the
digits a source may use instead; but *one of* picks one of a group (*one of the highest*,
*one of its members*) and counts nothing."""
SCALES = {"thousand": 3, "million": 6, "billion": 9}
"""Words multiplying the number before them by a power of ten: ``1.5 million`` is read as
``1500000``, the value a source may write in digits instead."""

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
"""A number in digits, its separators kept (``1,200``, ``41.3``)."""
WORD = re.compile(rf"[^\W\d_][\w'’-]*|{NUMBER.pattern}")
"""A word (its apostrophes and hyphens kept) or a number."""
CONTRACTED_NOT = re.compile(r"n['’]t\b", re.IGNORECASE)
"""The *n't* of *didn't*, *won't*."""
_YEAR_RANGE = re.compile(r"\b(1[5-9]|20)(\d\d)(\s?[–/-]\s?)(\d\d)\b(?!\s?[:.]\d|[–/-]\w)")
"""A span of years written short (``2018–19``, ``2019-20``, ``2019/20``), read in full
(``2018–2019``) by ``_full_years``. Its second part is a year, not the month of a date
whose day or path goes on after it (``2009-12-05``, ``/2009/12/post``) nor the hour of a
time (``2019 - 12:00AM`` is a date and its time, no span). A year and two digits alone
(``2009-12``) is read as a span: a claim or an article writes a span so (a season, a
fiscal year, a term), while a year and its month in digits is written with its day
(bylines, page metadata), which ``_NUMERIC_DATE`` reads first."""
_NUMERIC_DATE = re.compile(
    r"\b(?P<year>1[5-9]\d\d|20\d\d)-(?P<month>\d\d)-(?P<day>\d\d)"
    r"(?:T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d|[A-Z]{1,4})?)?\b"
    r"|(?<![/\w.])(?P<y>1[5-9]\d\d|20\d\d)/(?P<m>\d\d)/(?P<d>\d\d)\b(?![/.]\w)"
    r"|\b(?P<first>\d{1,2})(?P<sep>[/.])(?P<second>\d{1,2})(?P=sep)(?P<in_year>1[5-9]\d\d|20\d\d)\b"
)
"""A date in digits: ``2016-08-25`` (ISO, as in bylines and page metadata) with the time
of day an ISO timestamp writes after it (``2019-04-17T09:00:00Z``, the page's published
time in its metadata: the time is no fact of the claim's, its date is), ``2013/10/22``
(the year first, as a forum's or a CMS's post time writes it, the month before the day;
not within an address's path, ``/2009/12/05/story``, which names the story's place as
much as its date; not with dots, ``2019.12.01``, which on the web is far more often a
version of software, ``tzdata 2019.12.01``, than a date), ``25/08/2016`` or
``08.25.2016`` (read only when one of day and month is above 12, so the order is sure)."""
_MONTH_WORDS = "|".join(names[0].capitalize() for names in MONTH_NAMES)
_GLUED_MONTH = re.compile(rf"(?<=[^\W\d_]{{3}})(?=(?:{_MONTH_WORDS})\s+\d)")
"""The place before a month's full name run into a word of three letters or more before it
and followed by a number, as a page's text read without its layout glues a menu or a
byline to its date (``NewsOPINIONApril 11 2019``, ``Orange County RegisterAugust 25,
2016``); a name ending in a month's abbreviation stays whole (``DeMar 2015``, ``LeMay 3``)."""
_TITLE = re.compile(r"\b(?:Dr|Mrs?|Ms|Prof)(?:\.|(?=\s+[A-Z]))")
"""A title before a name (``Dr. Smith``, ``Mr Lee``): written Title-case, with its period
or before a capitalised word, so *MS* and *ms* are read as the words they are. It is read
as an article (``the Smith``), a word that states nothing and leaves the name after it
read as a name."""
_MILLISECONDS = re.compile(r"(?<=\d)[\s-]?ms\b")
"""*ms* written after a number (``500 ms``, ``500ms``, ``a 500-ms delay``): milliseconds,
read as the word a source may write in full (``500 milliseconds``). Only in lower case
right after a number: *MS* and *ms* elsewhere are the words they are (a disease, a firm)."""
_CLAUSE = re.compile(r"[,;:.!?()\[\]\"“”–—]")


@dataclass(frozen=True, slots=True)
class Facts:
    """The checkable parts of a text: content stems, numbers (digits only, no separators),
    month numbers, named-entity stems, the pairs of content stems that follow each other (a
    phrase repeated, not just its words), the content stems a negation denies (see
    ``NEGATION_SCOPE``), the stems of its words written in lower case (``plain``: common
    words, on this text's evidence) and those of its first word when capitalised
    (``opening``: a name or not, which its capital alone does not tell)."""

    stems: frozenset[str]
    numbers: frozenset[str]
    months: frozenset[int]
    entities: frozenset[str]
    pairs: frozenset[tuple[str, str]] = frozenset()
    denied: frozenset[str] = frozenset()
    plain: frozenset[str] = frozenset()
    opening: frozenset[str] = frozenset()


@lru_cache(maxsize=1 << 16)
def facts(text: str) -> Facts:
    """The facts of ``text`` (a claim or an evidence sentence); remembered, as a page's
    sentences are read again for every claim checked against it."""
    text = _TITLE.sub("the", _units(_dates(text)))
    words = WORD.findall(_full_years(text))
    lowered = [w.lower() for w in words]
    stem = content_stemmer()
    numbers = {number for _, number in _numbers(words, lowered)}
    months = {MONTHS[w] for w, raw in zip(lowered, words, strict=True) if _is_month(w, raw)}
    entities = {
        s
        for i, w in enumerate(words)
        if i > 0
        and w[:1].isupper()
        and lowered[i] not in FUNCTION_WORDS
        and lowered[i] not in MONTHS
        for s in stem(w)
    }
    ordered = [_singular(s) for s in stem(text) if not s.isdigit() and s not in NEGATIONS]
    plain = stem(" ".join(w for w in words if w[:1].islower()))
    first = words[0] if words and words[0][:1].isupper() else ""
    opening = () if first.lower() in FUNCTION_WORDS or first.lower() in MONTHS else stem(first)
    return Facts(
        frozenset(ordered),
        frozenset(numbers),
        frozenset(months),
        frozenset(_singular(e) for e in entities),
        frozenset(pairwise(ordered)),
        _denied(text),
        frozenset(_singular(s) for s in plain),
        frozenset(_singular(s) for s in opening),
    )


def _denied(text: str) -> frozenset[str]:
    """The stems of the first ``NEGATION_SCOPE`` content words after each negation, within
    its clause and up to a name past them (``_scope``; ``No. 1`` and ``not only`` deny
    nothing). Names are passed over: a negation denies what is done or said of a thing
    (``did not want to leave Savatage`` denies *want* and *leave*), and a name is stated
    again and again on the page it belongs to."""
    denied: set[str] = set()
    for clause in _CLAUSE.split(text):
        words = WORD.findall(clause)
        lowered = [w.lower() for w in words]
        for i, word in enumerate(lowered):
            if (word in NEGATIONS or CONTRACTED_NOT.search(word)) and lowered[i + 1 : i + 2] != [
                "only"
            ]:
                scope = _scope(lowered[i + 1 :], words[i + 1 :])
                denied.update(_singular(s) for s in scope[:NEGATION_SCOPE] if s not in NEGATIONS)
    return frozenset(denied)


def _scope(lowered: list[str], words: list[str]) -> list[str]:
    """The content stems a negation may deny, from the words after it: names and numbers
    are passed over, and the first of them met once a content word is read ends it, as the
    name is then what the denied act is done to and the words beyond it say when or where
    (``would not start the Cheez-It 355 at The Glen a day after`` denies *start* alone)."""
    stem = content_stemmer()
    scope: list[str] = []
    for w, raw in zip(lowered, words, strict=True):
        named = raw[:1].isupper() or NUMBER.fullmatch(w) is not None
        if named and scope:
            break
        if not named:
            scope.extend(s for s in stem(w) if not s.isdigit())
    return scope


def _dates(text: str) -> str:
    """``text`` with its dates made readable: a month's name run into the word before it
    set apart (``_GLUED_MONTH``), a date in digits written out (``_spelled_date``)."""
    return _NUMERIC_DATE.sub(_spelled_date, _GLUED_MONTH.sub(" ", text))


def _units(text: str) -> str:
    """``text`` with its units written short read in full (``_MILLISECONDS``)."""
    return _MILLISECONDS.sub(" milliseconds", text)


def _full_years(text: str) -> str:
    """``text`` with each span of years written short (``_YEAR_RANGE``) written in full."""
    return _YEAR_RANGE.sub(_full_span, text)


def _full_span(match: re.Match[str]) -> str:
    """A short span (``2018–19``) in full (``2018–2019``); one whose second part is below
    the first's last two digits runs into the next century when the first is in a
    century's nineties (``1999–00`` is ``1999–2000``, a season or fiscal year across it),
    and is left as written otherwise (``2019-12``: a year and an hour). Across a century, a
    hyphen before a month's number (``1995-06``) is left as written too: a hyphen joins
    ISO's year and month as well as a span, and a span across a century ends within a
    year or two of it (``1999-00``, whose ``00`` names no month), not a decade later
    (``1995–2006`` is written in full, or with an en dash)."""
    century, first, dash, second = match.groups()
    if second > first:
        return f"{century}{first}{dash}{century}{second}"
    month = dash.strip() == "-" and 1 <= int(second) <= 12
    if second < first and first.startswith("9") and not month:
        return f"{century}{first}{dash}{int(century) + 1}{second}"
    return match[0]


def _spelled_date(match: re.Match[str]) -> str:
    """A date in digits written with its month's name (``2016-08-25`` as ``25 August
    2016``), so its month and day match a date written out; left as it is when its order of
    day and month is not sure or it is no date."""
    if match["year"]:
        year, month, day = match["year"], int(match["month"]), int(match["day"])
    elif match["y"]:
        year, month, day = match["y"], int(match["m"]), int(match["d"])
    else:
        first, second = int(match["first"]), int(match["second"])
        year, (day, month) = match["in_year"], (first, second) if first > 12 else (second, first)
        if min(first, second) > 12 or max(first, second) <= 12:
            return match[0]
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return match[0]
    return f"{day} {MONTH_NAMES[month - 1][0].capitalize()} {year}"


def _singular(stem: str) -> str:
    """A stem without a plural ``s`` the stemmer left (``hindus`` and ``hindu`` alike)."""
    return stem[:-1] if len(stem) > 3 and stem.endswith("s") and not stem.endswith("ss") else stem


@lru_cache(maxsize=1 << 12)
def number_kinds(text: str) -> frozenset[tuple[str, str]]:
    """Each number of ``text`` with its kind: ``year`` (four digits from 1000 to 2099),
    ``day`` (1 to 31 beside a month's name: ``May 15``, ``15 May``) or ``count``; written as
    in ``Facts.numbers`` but for leading zeros, dropped (``05`` is ``5``, as in a date). Two
    numbers disagree only when they are of one kind: a year is no count."""
    words = WORD.findall(_full_years(_dates(text)))
    lowered = [w.lower() for w in words]
    found = set()
    for i, number in _numbers(words, lowered):
        whole = without_zeros(number)
        beside = [j for j in (i - 1, i + 1) if 0 <= j < len(words)]
        if re.fullmatch(r"1\d{3}|20\d\d", words[i]):
            found.add(("year", whole))
        elif (
            whole.isdigit()
            and 1 <= int(whole) <= 31
            and any(_is_month(lowered[j], words[j]) for j in beside)
        ):
            found.add(("day", whole))
        else:
            found.add(("count", whole))
    return frozenset(found)


DATE_KINDS = frozenset(["year", "day"])
"""The kinds of ``number_kinds`` that are parts of a date, beside the month."""


@lru_cache(maxsize=1 << 12)
def date_parts(text: str) -> frozenset[tuple[str, str]]:
    """The parts of the dates ``text`` states, each with its kind and its key as
    ``features.fact_keys`` writes it: ``("month", "m:5")``, ``("year", "n:2015")``,
    ``("day", "n:15")``. A date part is stated differently only against one of its kind."""
    found = facts(text)
    numbers = {without_zeros(n): n for n in found.numbers}
    parts = {("month", f"m:{m}") for m in found.months}
    for kind, whole in number_kinds(text):
        if kind in DATE_KINDS and whole in numbers:
            parts.add((kind, f"n:{numbers[whole]}"))
    return frozenset(parts)


def without_zeros(number: str) -> str:
    """A whole number as ``_plain_number`` writes it without its leading zeros (``05`` is
    ``5``); any other left as it is."""
    return (number.lstrip("0") or "0") if number.isdigit() else number


def _numbers(words: list[str], lowered: list[str]) -> list[tuple[int, str]]:
    """The numbers of a text's ``words`` (digits or ``NUMBER_WORDS``) with their positions,
    each as ``_plain_number`` writes it; one followed by a word of ``SCALES`` multiplied
    out."""
    numbers = []
    for i, (word, after) in enumerate(pairwise([*lowered, ""])):
        if NUMBER.fullmatch(word):
            number = _plain_number(words[i])
        elif word in NUMBER_WORDS and not (word == "one" and after == "of"):
            number = NUMBER_WORDS[word]
        else:
            continue
        if after in SCALES and re.fullmatch(r"\d+(?:\.\d+)?", number):
            number = _plain_number(format(Decimal(number).scaleb(SCALES[after]), "f"))
        numbers.append((i, number))
    return numbers


def _plain_number(word: str) -> str:
    """``1,200`` and ``1200`` alike, ``05`` and ``5`` too; a decimal point kept (``41.3``),
    trailing zeros of a decimal part dropped (``2.50`` is ``2.5``)."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", word):
        word = word.replace(",", "")
    if "." in word and re.fullmatch(r"\d+\.\d+", word):
        word = word.rstrip("0").rstrip(".")
    return word


def _is_month(lowered: str, raw: str) -> bool:
    """A month name, capitalised (``May``, not the verb ``may``)."""
    return lowered in MONTHS and raw[:1].isupper()


@lru_cache(maxsize=1 << 12)
def written_as(text: str) -> tuple[tuple[str, str], ...]:
    """Each fact key of ``text`` (as ``features.fact_keys`` writes it: a stem, ``n:`` a
    number, ``m:`` a month) with the word ``text`` writes it in, the first where several
    share a key: what a reason shows a reader (*June*, not ``m:6``; *Google*, not
    ``googl``)."""
    words = WORD.findall(_full_years(_dates(text)))
    lowered = [w.lower() for w in words]
    stem = content_stemmer()
    shown = {f"n:{number}": words[i] for i, number in _numbers(words, lowered)}
    for w, raw in zip(lowered, words, strict=True):
        if _is_month(w, raw):
            shown.setdefault(f"m:{MONTHS[w]}", raw)
        for s in stem(raw) if not NUMBER.fullmatch(w) else ():
            shown.setdefault(_singular(s), raw)
    return tuple(shown.items())


@lru_cache(maxsize=1)
def month_stems() -> frozenset[str]:
    """The content stems of the months' names (a date's words, not a fact of its own)."""
    stem = content_stemmer()
    return frozenset(_singular(s) for names in MONTH_NAMES for name in names for s in stem(name))


@lru_cache(maxsize=1)
def content_stemmer() -> Tokenizer:
    """Snowball stems of the words that are not function words (remembered: one for all
    readers of facts)."""
    return Tokenizer(stopwords=FUNCTION_WORDS)
