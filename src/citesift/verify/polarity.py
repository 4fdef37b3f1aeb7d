"""Polarity apart: a claim and a sentence stating one thing, one of them denying it in words
of its own (*was never rebuilt* against *was rebuilt in 1952*, *did not win* against *won*,
*failed to*, *refused to*, *no longer*).

Each side is cut into clauses; a clause's statement is its content words (stemmed, a verb's
past forms read as the verb) with the subject of the sentence when the clause leaves it out,
and the words its negation denies when it holds an odd number of them (two cancel: *not true
that … never*). One side denies the other when it denies a word the other states plainly
and says nothing the other does not: a denial of something more specific (*not in 2001*)
does not deny the general statement. A negation quoted from someone, *not only … but*,
*not … until* (which says when), a negation in a condition (*if … not*), hedges
(*probably*, *may*) and a negation of a word the other side does not state deny nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from citesift.index.lexical import Tokenizer
from citesift.verify.facts import FUNCTION_WORDS

NEGATIONS = frozenset(["not", "never", "cannot"])
"""Words denying the content word after them."""
NEGATING_VERBS = frozenset(
    [
        "fail",
        "fails",
        "failed",
        "failing",
        "refuse",
        "refuses",
        "refused",
        "refusing",
        "decline",
        "declines",
        "declined",
        "declining",
    ]
)
"""Verbs denying the verb after their *to* (*failed to win*: did not win)."""
NOT_DENYING = frozenset(
    ["only", "just", "merely", "simply", "solely", "all", "every", "always", "necessarily"]
)
"""Words after *not* that make it no negation of the act: *not only rebuilt but widened*
states both, *not all* speaks of how many."""
CONDITIONS = frozenset(["if", "unless", "whether"])
"""Words opening a condition: a negation after them in their clause states nothing."""
UNTIL = frozenset(["until", "till"])
"""*was not rebuilt until 1952* says when it was rebuilt: its negation denies nothing."""
SAYS_WHEN = 6
"""Words from a negation within which an *until* makes it say when (*did not win the
award until 2001*); one further on belongs to another statement."""
TRUTH = frozenset(["true", "case", "correct", "accurate"])
"""*not true that*, *not the case that*: the negation passes to the clause after *that*."""
HEDGES = frozenset(
    [
        "probably",
        "possibly",
        "perhaps",
        "reportedly",
        "allegedly",
        "apparently",
        "likely",
        "presumably",
        "arguably",
        "seemingly",
        "supposedly",
        "believed",
        "maybe",
        "seems",
        "seem",
        "seemed",
        "appears",
        "appear",
        "appeared",
    ]
)
"""Words weighing how sure a statement is, not what it states: a claim differing in them
alone states the same."""
AUXILIARIES = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "wo",
        "ca",
        "sha",
    ]
)
"""Words that start a verb phrase: what comes before the first is the subject (*wo*, *ca*,
*sha* of *won't*, *can't*, *shan't*)."""
PAST_FORMS = {
    past: verb
    for verb, forms in {
        "begin": "began begun",
        "become": "became",
        "break": "broke broken",
        "bring": "brought",
        "build": "built",
        "buy": "bought",
        "catch": "caught",
        "choose": "chose chosen",
        "come": "came",
        "draw": "drew drawn",
        "drive": "drove driven",
        "fall": "fell fallen",
        "fight": "fought",
        "find": "found",
        "fly": "flew flown",
        "forget": "forgot forgotten",
        "give": "gave given",
        "go": "went gone",
        "grow": "grew grown",
        "hold": "held",
        "keep": "kept",
        "know": "knew known",
        "lead": "led",
        "leave": "left",
        "lose": "lost",
        "make": "made",
        "meet": "met",
        "pay": "paid",
        "rebuild": "rebuilt",
        "ride": "rode ridden",
        "rise": "rose risen",
        "run": "ran",
        "see": "saw seen",
        "sell": "sold",
        "send": "sent",
        "sing": "sang sung",
        "speak": "spoke spoken",
        "spend": "spent",
        "stand": "stood",
        "take": "took taken",
        "teach": "taught",
        "tell": "told",
        "throw": "threw thrown",
        "win": "won",
        "withdraw": "withdrew withdrawn",
        "write": "wrote written",
    }.items()
    for past in forms.split()
}
"""Past forms of common verbs that do not stem to the verb (*won*, *win*)."""

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|«[^»]*»")
_CLAUSE = re.compile(r"[;:!?()\[\]–—]|[.,](?!\d)|\b(?:but|whereas|although|though|while)\b", re.I)
_CONTRACTED_NOT = re.compile(r"n['’]t\b", re.I)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(rf"{_NUMBER.pattern}|[^\W\d_][\w'’-]*")


@dataclass(frozen=True, slots=True)
class Statement:
    """One clause: its content stems (the sentence's subject added when the clause lacks
    one) and those its negation denies (none when its negations cancel)."""

    content: frozenset[str]
    denied: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Clause:
    """A clause's words, lower-cased."""

    words: tuple[str, ...]

    def verb_at(self) -> int:
        """Where its first verb (an auxiliary, a negation, a past form) is, or its length."""
        return next((i for i, w in enumerate(self.words) if _is_verb(w)), len(self.words))


def opposite(claim: str, sentence: str) -> bool:
    """``claim`` and ``sentence`` state one thing, one of them denying it (see the module)."""
    ours, theirs = statements(claim), statements(sentence)
    return any(_denies(a, b) or _denies(b, a) for a in ours for b in theirs)


def _denies(negated: Statement, plain: Statement) -> bool:
    """``negated`` denies a word ``plain`` states without denying it, and states nothing
    ``plain`` does not."""
    return bool(negated.denied & (plain.content - plain.denied)) and negated.content <= (
        plain.content
    )


@lru_cache(maxsize=1 << 14)
def statements(text: str) -> tuple[Statement, ...]:
    """The statements of ``text``'s clauses; what is quoted in it is left out (a denial
    quoted is someone else's). A clause opening on a negation (*, not Samsung*, *but never
    repainted*) leaves its verb to the clause before, whose content it takes; one without
    a subject takes the sentence's. Remembered: a page's sentences are read for every
    claim."""
    plain = _CONTRACTED_NOT.sub(" not", _QUOTED.sub(",", text))
    clauses = _joined(
        [_Clause(tuple(w.lower() for w in _WORD.findall(part))) for part in _CLAUSE.split(plain)]
    )
    subject = next(
        (_stems(c.words[: c.verb_at()]) for c in clauses if c.verb_at() < len(c.words)),
        frozenset(),
    )
    found: list[Statement] = []
    for clause in clauses:
        content = _stems(_stated(clause.words))
        if found and clause.words[:1] and clause.words[0] in NEGATIONS:
            content |= found[-1].content
        elif not _stems(clause.words[: clause.verb_at()]):
            content |= subject
        found.append(Statement(content, _denied(clause.words)))
    return tuple(found)


def _joined(clauses: list[_Clause]) -> list[_Clause]:
    """``clauses`` with each holding no verb joined to the next (the last to the one
    before): *In 2009* and *The bridge* are parts of the clause beside them."""
    joined: list[_Clause] = []
    pending: tuple[str, ...] = ()
    for clause in clauses:
        words = pending + clause.words
        if any(_is_verb(w) for w in words):
            joined.append(_Clause(words))
            pending = ()
        else:
            pending = words
    if pending and joined:
        joined[-1] = _Clause(joined[-1].words + pending)
    elif pending:
        joined.append(_Clause(pending))
    return joined


def _denied(words: tuple[str, ...]) -> frozenset[str]:
    """The stems a clause's negations (``_negation``) deny: the content word after each (two
    when the first is an adverb: *not officially sponsored*), or every content word after a
    *not true that*; none when they are even in number."""
    targets: list[str] = []
    count = 0
    for i in range(len(words)):
        taken = _negation(words, i)
        if taken:
            count += 1
            targets.extend(_target(words[i + taken :]))
    return frozenset(targets) if count % 2 else frozenset()


def _negation(words: tuple[str, ...], i: int) -> int:
    """How many words the negation starting at ``words[i]`` takes (0: none starts there).
    *not* negates after an auxiliary (*did not*, *was still not*) or opening its clause
    (*but not repainted*), not as a noun's modifier (*the source not tied to*); none
    negates in a condition (*if … not*), before *only* or *all* (*not only … but*) or with
    *until* after it (*not … until 1952* says when)."""
    word, after = words[i], words[i + 1 : i + 2]
    if set(words[:i]) & CONDITIONS:
        return 0
    if (word in NEGATING_VERBS and after == ("to",)) or (word, *after) == ("no", "longer"):
        return 2
    if word not in NEGATIONS or set(after) & NOT_DENYING or set(words[i : i + SAYS_WHEN]) & UNTIL:
        return 0
    plain = word != "not" or i == 0 or bool(set(words[max(i - 2, 0) : i]) & AUXILIARIES)
    return 1 if plain else 0


def _target(rest: tuple[str, ...]) -> list[str]:
    """The stems a negation followed by ``rest`` denies (see ``_denied``)."""
    content = [w for w in rest if _stems((w,)) and w not in NEGATING_VERBS]
    if content[:1] and content[0] in TRUTH and "that" in rest:
        return list(_stems(_stated(rest[rest.index("that") :])))
    kept = content[:2] if content[:1] and content[0].endswith("ly") else content[:1]
    return list(_stems(tuple(kept)))


def _stated(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` without the verbs of a denial (*failed* of *failed to win*), which say the
    act did not happen, not an act of their own, nor the word of a *true that*, which says
    the clause after it holds."""
    return tuple(
        w
        for i, w in enumerate(words)
        if not (w in NEGATING_VERBS and words[i + 1 : i + 2] == ("to",))
        and not (w in TRUTH and "that" in words[i + 1 : i + 3])
    )


def _is_verb(word: str) -> bool:
    """``word`` starts a verb phrase: an auxiliary, a negation, a past form."""
    return (
        word in AUXILIARIES
        or word in NEGATIONS
        or word in NEGATING_VERBS
        or word in PAST_FORMS
        or (len(word) > 4 and word.endswith("ed"))
    )


def _stems(words: tuple[str, ...]) -> frozenset[str]:
    """The content stems of ``words``: function words, hedges and negations left out, a
    past form read as its verb, a number kept whole (``1.0``)."""
    stem = _tokenizer()
    return frozenset(
        term
        for w in words
        if w not in HEDGES and w not in NEGATIONS
        for term in ((w,) if _NUMBER.fullmatch(w) else stem(PAST_FORMS.get(w, w)))
    )


@lru_cache(maxsize=1)
def _tokenizer() -> Tokenizer:
    """Snowball stems of the words that are not function words (as ``facts`` reads them)."""
    return Tokenizer(stopwords=FUNCTION_WORDS | AUXILIARIES | {"no", "longer", "to"})
