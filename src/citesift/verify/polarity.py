"""Polarity apart: a claim and a sentence stating one thing, one of them denying it in words
of its own (*was never rebuilt* against *was rebuilt in 1952*, *did not win* against *won*,
*failed to*, *refused to*).

Each side is cut into clauses; a clause's statement is its content words (stemmed, a verb's
past forms read as the verb) with the subject of the sentence when the clause leaves it out,
and the words its negation denies when it holds an odd number of them (two cancel: *not true
that … never*). One side denies the other when it denies a word the other states plainly
(and the other does not deny it too), shares another content word with it or names just
what the other names, of a subject said in the same words (*he was not elected*, *he was
elected*; not *she was elected*), and says nothing the other does not: a denial of
something more specific (*not in 2001*) does not deny the general statement, nor does a
bare *he never won* deny every statement of winning. A negation quoted from someone, *not
only … but*, *not … until* (which says when), *no longer*, *never … again* and *not …
anymore* (which say it held once), a negation in a condition (*if … not*), one after a
modal (*may not*, *will not*) and any in a hedged clause (*probably*, *reportedly*) deny
nothing.

Two plain clauses alike but for the two poles of a pair of ``ANTONYMS`` (*the bridge is open*,
*the bridge is closed*), in one tense, of a subject not said in other ``REFERRING`` words
(*he*, *she*; *this*, *that*), state things that cannot both hold. A yes-or-no question
states nothing; answered by a bare *No* (*Was Smith elected mayor? No.*, not *No. 1 on the
list was Jones*) it denies what it asks as a whole, answered *Yes* it states it; one asking
what may or can be (*Can cats eat grapes?*) denies nothing that is.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from citesift.verify.facts import AUXILIARY_VERBS, CONTRACTED_NOT, NUMBER, WORD, content_stemmer

# Narrower than facts.NEGATIONS: *no*, *none*, *without* deny a thing (*no children*), not the act.
NEGATIONS = frozenset(["not", "never", "cannot"])
"""Words denying the content word after them."""
SHARED_STEMS = 2
"""Content stems a denial shares with the statement it denies, the denied one among them:
*He never won it again* names nothing that was won, so denies no statement of winning."""
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
ONCE_HELD = frozenset(["again", "anymore"])
"""*never won it again*, *is not open anymore* say it held once: their negation denies no
statement of the past."""
SAYS_WHEN = 6
"""Words from a negation within which an *until* makes it say when (*did not win the
award until 2001*), or an *again* that it held once; one further on belongs to another
statement."""
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
MODALS = frozenset(
    ["may", "might", "could", "will", "would", "wo", "shall", "sha", "should", "must"]
)
"""Verbs saying what may be or is to come (*wo*, *sha* of *won't*, *shan't*): a negation
after them (*may not have won*, *will not run*) denies nothing that was."""
MAY_BE = MODALS | {"can"}
"""Words opening a question of what may or can be (*Can cats eat grapes?*): answered *No*
it denies nothing that is, as a negation after a modal does not."""
AUXILIARIES = MODALS | AUXILIARY_VERBS | {"can", "ca"}
"""Words that start a verb phrase: what comes before the first is the subject (*ca* of
*can't*). Function words all (``facts.FUNCTION_WORDS``) but for the contracted ones."""
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
ANTONYMS = tuple(
    (frozenset(one.split()), frozenset(other.split()))
    for one, other in (
        ("open", "closed shut"),
        ("alive", "dead deceased"),
        ("true", "false untrue"),
        ("correct", "incorrect"),
        ("valid", "invalid"),
        ("legal lawful", "illegal unlawful"),
        ("possible", "impossible"),
        ("present", "absent"),
        ("guilty convicted", "innocent acquitted"),
        ("won win wins", "lost lose loses"),
        ("accepted approved", "rejected"),
        ("increased increase increases", "decreased decrease decreases"),
        ("success successful succeeded", "failure unsuccessful failed"),
    )
)
"""Pairs of words, each side's forms, stating of one thing what cannot hold with the other
side: states that exclude each other, and the outcomes of one event. Not verbs of events
that may both happen (*opened*, *closed* at two dates), nor relations (*before*, *after*),
which hold of different things at once."""
NOT_PLAIN = (
    NEGATIONS
    | HEDGES
    | MODALS
    | CONDITIONS
    | UNTIL
    | ONCE_HELD
    | frozenset(["no", "nor", "neither", "without", "longer"])
)
"""Words making a clause other than a plain statement (denied, hedged, to come, in a
condition, said of a time before or since), as does a *failed to*: its words of
``ANTONYMS`` state no pole."""
REFERRING = frozenset(
    ["a", "an", "the", "this", "that", "these", "those", "other", "another", "i", "we", "you",
     "he", "she", "it", "they", "my", "our", "your", "his", "her", "its", "their"]
)  # fmt: skip
"""Words of a subject saying which thing it is: two statements whose subjects are said in
other ones (*he*, *she*; *this*, *that*; *the other statement*, *the statement*) may speak
of two things."""
PAST = frozenset(["was", "were", "had", "did"])
PRESENT = frozenset(["is", "are", "am", "has", "have", "does", "do"])
"""Auxiliaries of the past and the present: *was open* and *is closed* may both hold."""

_QUOTED = re.compile(r"\"[^\"]*\"|“[^“”]*”|‘[^‘’]*’|«[^«»]*»")
"""A quotation; one opened again before it closes ends there, so an unclosed mark is passed
over in one scan."""
_SENTENCE = re.compile(r"[^.!?;]*(?:[.!?;]|\Z)")
"""A sentence, from the end of the one before it to its mark or the text's end: a question
is one ending on ``?``. Each match starts where the last ended, so a text is scanned once
(a pattern of the question alone, tried again at each character of a long run without a
question mark, scanned the run's rest from each)."""
_REPLY = re.compile(r"\s*(yes|no)\s*(?:$|[.;:!](?=\s*$|\s+[^\d\s])|,(?=\s*[^\d\s]))", re.I)
"""A bare *yes* or *no* answering a question: ending its sentence, or followed by a clause
not opening on a number (not *No one*, *no children*, *No. 1 on the list*, *No, 1 in 3*)."""
_CLAUSE = re.compile(r"[;:!?()\[\]–—]|[.,](?!\d)|\b(?:but|whereas|although|though|while)\b", re.I)


@dataclass(frozen=True, slots=True)
class Statement:
    """One clause: its content stems (the sentence's subject added when the clause lacks
    one) and those its negation denies (none when its negations cancel); a plain clause's
    ``poles`` (index in ``ANTONYMS``, side) and its ``tense`` (``past``, ``present`` or
    none said); the ``REFERRING`` words of its subject (``who``)."""

    content: frozenset[str]
    denied: frozenset[str]
    poles: frozenset[tuple[int, int]] = frozenset()
    tense: str = ""
    who: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Clause:
    """A clause's words, lower-cased."""

    words: tuple[str, ...]

    def verb_at(self, start: int = 0) -> int:
        """Where its first verb (an auxiliary, a negation, a past form) from ``start`` is,
        or its length."""
        found = (i for i, w in enumerate(self.words[start:], start) if _is_verb(w))
        return next(found, len(self.words))

    def who(self) -> frozenset[str]:
        """The ``REFERRING`` words of its subject: before its first verb, or, in a question
        (opening on an auxiliary: *was he elected*), between that and the next."""
        start = 1 if self.words[:1] and self.words[0] in AUXILIARIES else 0
        return REFERRING.intersection(self.words[start : self.verb_at(start)])


def opposite(claim: str, sentence: str) -> bool:
    """``claim`` and ``sentence`` state one thing, one of them denying it (see the module)."""
    ours, theirs = statements(claim), statements(sentence)
    return any(_denies(a, b) or _denies(b, a) or _against(a, b) for a in ours for b in theirs)


def answered(sentences: Sequence[str], i: int) -> str:
    """``sentences[i]``, with the sentence after it when that answers it, a question, by a
    bare *yes* or *no* (``Was he elected?`` ``No.``): the answer says whether it holds."""
    question = i + 1 < len(sentences) and sentences[i].rstrip().endswith("?")
    if question and _REPLY.match(sentences[i + 1]):
        return f"{sentences[i]} {sentences[i + 1]}"
    return sentences[i]


def _denies(negated: Statement, plain: Statement) -> bool:
    """``negated`` denies a word ``plain`` states without denying it, shares another with
    it (``SHARED_STEMS``) or names just what it names of a subject said alike (*he was not
    elected*, *he was elected*; not *she was elected*), and states nothing ``plain`` does
    not; ``plain`` denies none of what ``negated`` denies (two denials of one act agree)."""
    shares = len(negated.content) >= SHARED_STEMS
    return (
        bool(negated.denied & (plain.content - plain.denied))
        and negated.denied.isdisjoint(plain.denied)
        and negated.content <= plain.content
        and (shares or negated.content == plain.content)
        and _one_subject(negated, plain, strict=not shares)
    )


def _against(one: Statement, other: Statement) -> bool:
    """``one`` and ``other`` hold the two poles of a pair of ``ANTONYMS``, in one tense, and
    state the same besides, of a subject said alike (when nothing besides is stated, in
    the same ``REFERRING`` words: *he is present*, not *she is absent*)."""
    if one.tense != other.tense:
        return False
    for pair, side in one.poles:
        besides = one.content - _pair_stems(pair)
        if (
            (pair, 1 - side) in other.poles
            and besides == other.content - _pair_stems(pair)
            and _one_subject(one, other, strict=not besides)
        ):
            return True
    return False


def _one_subject(one: Statement, other: Statement, strict: bool) -> bool:
    """The subjects of ``one`` and ``other`` may be one: said in the same ``REFERRING``
    words, or (unless ``strict``, when they state nothing else to tell what they speak
    of) one in none (*he*, *Clinton*)."""
    return one.who == other.who or not (strict or (one.who and other.who))


@lru_cache(maxsize=1 << 14)
def statements(text: str) -> tuple[Statement, ...]:
    """The statements of ``text``'s clauses; what is quoted in it is left out (a denial
    quoted is someone else's). A clause opening on a negation (*, not Samsung*, *but never
    repainted*) leaves its verb to the clause before, whose content it takes; one without
    a subject takes the sentence's; a yes-or-no question's statement is its answer's
    (``_replies``). Remembered: a page's sentences are read for every claim."""
    plain, replied = _replies(CONTRACTED_NOT.sub(" not", _QUOTED.sub(",", text)))
    clauses = _joined(
        [_Clause(tuple(w.lower() for w in WORD.findall(part))) for part in _CLAUSE.split(plain)]
    )
    subject = next(
        (_stems(c.words[: c.verb_at()]) for c in clauses if c.verb_at() < len(c.words)),
        frozenset(),
    )
    said = next((c.who() for c in clauses if c.verb_at() < len(c.words)), frozenset())
    found: list[Statement] = []
    for clause in clauses:
        words, who = clause.words, clause.who()
        content = _stems(tuple(w for i, w in enumerate(words) if _stated(words, i)))
        if found and words[:1] and words[0] in NEGATIONS:
            content |= found[-1].content
            who = who or found[-1].who
        elif not _stems(words[: clause.verb_at()]):
            content |= subject
            who = who or said
        found.append(Statement(content, _denied(words), _poles(words), _tense(words), who))
    return (*found, *replied)


def _replies(text: str) -> tuple[str, tuple[Statement, ...]]:
    """``text`` without its yes-or-no questions (opening on an auxiliary: not a title that
    ends on a question mark), which state nothing, but those answered by a bare *yes*,
    kept as stated; and for each answered by a bare *no* a statement denying all it asks.
    A question that is itself denied, hedged or conditional, or asks what may or can be
    (``MAY_BE``), is no plain one to answer."""
    kept: list[str] = []
    denied: list[Statement] = []
    at = 0
    for question in _SENTENCE.finditer(text):
        if not question[0].endswith("?"):
            continue
        words = tuple(w.lower() for w in WORD.findall(question[0]))
        if question.start() < at or not words or words[0] not in AUXILIARIES:
            continue
        kept.append(text[at : question.start()])
        reply = _REPLY.match(text, question.end())
        at = reply.end() if reply else question.end()
        if reply is None or not _plain(words) or words[0] in MAY_BE:
            continue
        if reply[1].lower() == "yes":
            kept.append(question[0])
        else:
            asked = _stems(tuple(w for i, w in enumerate(words) if _stated(words, i)))
            denied.append(Statement(asked, asked, who=_Clause(words).who()))
    kept.append(text[at:])
    return ";".join(kept), tuple(denied)


def _poles(words: tuple[str, ...]) -> frozenset[tuple[int, int]]:
    """The poles of ``ANTONYMS`` a plain clause (``_plain``) states: (pair, side) of each
    pair one side of which alone it names."""
    if not _plain(words):
        return frozenset()
    said = {w for i, w in enumerate(words) if _stated(words, i)}
    poles = set()
    for pair, sides in enumerate(ANTONYMS):
        named = [side for side, forms in enumerate(sides) if not forms.isdisjoint(said)]
        if len(named) == 1:
            poles.add((pair, named[0]))
    return frozenset(poles)


def _plain(words: tuple[str, ...]) -> bool:
    """``words`` make a plain statement: no word of ``NOT_PLAIN``, no *failed to*."""
    return NOT_PLAIN.isdisjoint(words) and not any(
        w in NEGATING_VERBS and words[i + 1 : i + 2] == ("to",) for i, w in enumerate(words)
    )


def _tense(words: tuple[str, ...]) -> str:
    """``past`` or ``present`` by a clause's auxiliaries; none said, or both, ``""``."""
    past, present = not PAST.isdisjoint(words), not PRESENT.isdisjoint(words)
    return "past" if past and not present else "present" if present and not past else ""


@lru_cache(maxsize=len(ANTONYMS))
def _pair_stems(pair: int) -> frozenset[str]:
    """The content stems of the words of both sides of ``ANTONYMS[pair]``."""
    return _stems(tuple(ANTONYMS[pair][0] | ANTONYMS[pair][1]))


def _joined(clauses: list[_Clause]) -> list[_Clause]:
    """``clauses`` with each holding no verb joined to the next (the last to the one
    before): *In 2009* and *The bridge* are parts of the clause beside them."""
    joined: list[_Clause] = []
    pending: list[str] = []
    for clause in clauses:
        if any(_is_verb(w) for w in clause.words):
            joined.append(_Clause((*pending, *clause.words)))
            pending = []
        else:
            pending.extend(clause.words)
    if pending and joined:
        joined[-1] = _Clause((*joined[-1].words, *pending))
    elif pending:
        joined.append(_Clause(tuple(pending)))
    return joined


def _denied(words: tuple[str, ...]) -> frozenset[str]:
    """The stems a clause's negations (``_negation``) deny: the content word after each (two
    when the first is an adverb: *not officially sponsored*), or every content word after a
    *not true that*; none when they are even in number, the clause is hedged, or they follow
    a condition's word (*if … not*). One pass: each word is stemmed once, and what a *not
    true that* denies is gathered once, however many follow."""
    if not HEDGES.isdisjoint(words):
        return frozenset()
    stems = [_stems((w,)) for w in words]
    content = [j for j, w in enumerate(words) if stems[j] and w not in NEGATING_VERBS]
    thats = [j for j, w in enumerate(words) if w == "that"]
    condition = next((j for j, w in enumerate(words) if w in CONDITIONS), len(words))
    targets: set[str] = set()
    covered = len(words)  # where the words a *not true that* denies begin
    count = 0
    for i in range(condition):
        taken = _negation(words, i)
        if not taken:
            continue
        count += 1
        at = bisect_left(content, i + taken)
        first = content[at : at + 2]
        that = bisect_left(thats, i + taken)
        if first and words[first[0]] in TRUTH and that < len(thats):
            targets.update(*(stems[j] for j in range(thats[that], covered) if _stated(words, j)))
            covered = min(covered, thats[that])
        else:
            kept = first if first and words[first[0]].endswith("ly") else first[:1]
            targets.update(*(stems[j] for j in kept))
    return frozenset(targets) if count % 2 else frozenset()


def _negation(words: tuple[str, ...], i: int) -> int:
    """How many words the negation starting at ``words[i]`` takes (0: none starts there).
    *not* negates after an auxiliary (*did not*, *was still not*) or opening its clause
    (*but not repainted*), not as a noun's modifier (*the source not tied to*); none
    negates after a modal (*may not*, *will fail to*), before *only* or *all* (*not only …
    but*) or with *until* or *again* after it (*not … until 1952* says when, *never …
    again* that it held once)."""
    word, after, before = words[i], words[i + 1 : i + 2], words[max(i - 2, 0) : i]
    if word in NEGATING_VERBS and after == ("to",):
        taken = 2
    elif word in NEGATIONS and NOT_DENYING.isdisjoint(after):
        taken = 1
    else:
        return 0
    if not MODALS.isdisjoint(before) or not (UNTIL | ONCE_HELD).isdisjoint(
        words[i : i + SAYS_WHEN]
    ):
        return 0
    plain = word != "not" or i == 0 or not AUXILIARIES.isdisjoint(before)
    return taken if plain else 0


def _stated(words: tuple[str, ...], i: int) -> bool:
    """``words[i]`` is stated: not a verb of a denial (*failed* of *failed to win*), which
    says the act did not happen, not an act of its own, nor the word of a *true that*,
    which says the clause after it holds."""
    w = words[i]
    return not (w in NEGATING_VERBS and words[i + 1 : i + 2] == ("to",)) and not (
        w in TRUTH and "that" in words[i + 1 : i + 3]
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
    """The content stems of ``words`` (``_word_stems``)."""
    return frozenset().union(*map(_word_stems, words))


@lru_cache(maxsize=1 << 16)
def _word_stems(word: str) -> frozenset[str]:
    """The content stems of ``word``: none for a function word, an auxiliary, a hedge or a
    negation, its verb for a past form, a number kept whole (``1.0``). Remembered: a clause
    is read for its subject, its content and its negations."""
    if word in HEDGES or word in NEGATIONS or word in AUXILIARIES:
        return frozenset()
    if NUMBER.fullmatch(word):
        return frozenset([word])
    return frozenset(content_stemmer()(PAST_FORMS.get(word, word)))
