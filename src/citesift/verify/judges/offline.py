"""The offline judge: on the CPU, with no model beyond the embedder, it checks that the
candidate sentences repeat what the claim asserts — its content words, every number, date
and name, and its polarity — rather than that they merely look alike.

The sentences are chosen and measured by ``features.measure``; the share of the claim they
cover, the facts missed and how much of each of the claim's statements they back give the
label, and with the closeness of meaning the score, by bounds and weights set by reasoning
over the features' ranges, not fitted. A claim none of whose statements is backed in words
may still be partly backed in other words, by a sentence that stands out from the page by
meaning (``meaning.py``), and a common word of the claim the page never writes may be
matched by a near-synonym (``words_by_meaning.py``). The rules of ``rules.py`` hold over
all of it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from citesift.index import Embedder
from citesift.index.embedders import shared_embedder
from citesift.verify.candidates import Candidates
from citesift.verify.judges.base import ClaimCheck, Label
from citesift.verify.judges.features import Measured, measure
from citesift.verify.judges.meaning import standing_out
from citesift.verify.judges.rules import BLOCKED_SCORE, blocked, graded, unmeasured
from citesift.verify.judges.selection import MAX_SUPPORTING
from citesift.verify.judges.subclaims import split_claim
from citesift.verify.judges.verbatim import verbatim_check
from citesift.verify.judges.words_by_meaning import close_words

SUPPORTED_COVERAGE = 0.6
"""Share of the claim's weighted facts the support must cover to support it in full (a
source words a fact its own way, so some of the claim's words never appear in it)."""
STATEMENT_BACKED = 0.4
"""Share of one statement's weighted facts (``subclaims.split_claim``) the support must
cover for that statement to count as backed; a claim none of whose statements is backed is
not supported, one with a statement backed is at least partly supported. Below one half,
as a source rewords what it backs (a supported claim's words are found about two times in
three), so a backed statement often shows only half its words; 0.4 rather than 0.5 was
chosen between the two on the development claims."""
SCORE_WEIGHTS = {"bias": -4.0, "coverage": 5.0, "dense": 2.5, "missed": -3.0, "negation": -3.0}
"""The logistic weights of the evidence: full coverage of a close sentence gives about 0.9;
each number, date or name missed, or a negation not shared, takes the odds down about
twentyfold. The score is that evidence folded into the upper half for a claim judged
supported and into the lower half otherwise (see ``_score``)."""
IN_OTHER_WORDS = "a sentence states part of it in other words"


class OfflineJudge:
    """The default judge: fact coverage, number/date/name agreement, negation, closeness.

    ``embedder`` tells when a sentence backs a statement of the claim by meaning rather
    than by words (``meaning.stands_out``); the bundled MiniLM when None, loaded only if a
    claim needs it. Which word of the page is a near-synonym of a claim's word it never
    writes (``words_by_meaning``) is told by the bundled MiniLM whatever ``embedder`` is.
    """

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> ClaimCheck:
        """The grade of ``claim`` from the sentences in ``candidates``' windows; a claim that
        quotes whole sentences word for word is supported by them, however many it runs over
        (``verbatim.py``: support is measured over the few sentences a statement takes)."""
        quoting = verbatim_check(claim, sentences)
        if quoting is not None:
            return quoting
        return self.grade(claim, sentences, candidates, self.measure(claim, sentences, candidates))

    def measure(
        self, claim: str, sentences: Sequence[str], candidates: Candidates
    ) -> Measured | None:
        """``features.measure`` of ``claim`` as this judge reads it: a common word of the
        claim the page never writes matched by a near-synonym (``words_by_meaning``)."""
        return measure(claim, sentences, candidates, self._close_words)

    def grade(
        self,
        claim: str,
        sentences: Sequence[str],
        candidates: Candidates,
        measured: Measured | None,
    ) -> ClaimCheck:
        """``judge`` from what ``features.measure`` found of ``claim`` in ``candidates``'
        windows (``measured``), for a caller that reads the measure too."""
        if measured is None:
            return unmeasured(claim, candidates)
        dense = candidates.dense
        closeness = max((dense[i] for i in measured.chosen), default=0.0) if dense else 0.0
        label = _label(measured)
        score = _score(measured, closeness, label)
        if label == "not_supported" and measured.chosen:
            meant = self._by_meaning(claim, sentences, candidates)
            if meant:
                check = graded("partially_supported", score, measured, sentences)
                room = max(MAX_SUPPORTING - len(check.supporting), 0)
                supporting = tuple(sorted({*check.supporting, *meant[:room]}))
                reason = f"{check.reason}; {IN_OTHER_WORDS}"
                return replace(check, supporting=supporting, reason=reason)
        return graded(label, score, measured, sentences)

    def _close_words(
        self, wanted: Mapping[str, str], offered: Mapping[str, str]
    ) -> dict[str, frozenset[str]]:
        """The page's near-synonyms of the claim's words (``words_by_meaning.close_words``),
        by the bundled MiniLM's vectors whatever this judge's embedder: the bar of
        closeness is set on its scale, and single words have no place in a caller's
        store of vectors."""
        return close_words(wanted, offered)

    def _by_meaning(
        self, claim: str, sentences: Sequence[str], candidates: Candidates
    ) -> tuple[int, ...]:
        """The candidates that back a statement of the claim in other words, standing out
        from the page by meaning: a claim whose words are not found is then partly
        supported by them, not unsupported. Asked only of a claim that would be unsupported;
        the page's vectors are those candidate finding made, so only the statements are
        embedded."""
        embedder = self.embedder or shared_embedder()
        statements = split_claim(claim)
        return standing_out(statements, sentences, candidates.pool, embedder, candidates.vectors)


def _score(measured: Measured, closeness: float, label: Label) -> float:
    """The confidence that the claim is supported in full: above one half exactly when it is
    judged supported, so that score and label never disagree, and within each side ordered
    by the evidence (a supported claim with a name missed ranks below one with none)."""
    w = SCORE_WEIGHTS
    z = (
        w["bias"]
        + w["coverage"] * measured.coverage
        + w["dense"] * closeness
        + w["missed"] * len(measured.missed)
        + (w["negation"] if measured.negation else 0.0)
    )
    evidence = 1 / (1 + math.exp(-z))
    return (1 + evidence) / 2 if label == "supported" else evidence * BLOCKED_SCORE


def _label(measured: Measured) -> Label:
    """Not supported when no statement of the claim is backed; supported when enough of it
    is covered with every number, date and name found in the support, and no rule of
    ``rules.py`` stands against it; partly supported otherwise. A name the page states
    elsewhere but the support leaves out is not let pass: the support then does not say
    that what it states is about that person, place or work (a page about a band names its
    albums, each in its own sentences), which is what makes a claim partly supported. The
    share covered for full support is that of the claim's facts as written
    (``Measured.written``): a word matched by meaning (``words_by_meaning``) shows that a
    sentence is about the fact, not that it states it (*husband* and *wife* are as close by
    meaning as *buy* and *purchase*), so it counts toward partial support and toward the
    sentences chosen, never toward full support."""
    if max((s.coverage for s in measured.statements), default=measured.coverage) < STATEMENT_BACKED:
        return "not_supported"
    written = measured.written >= SUPPORTED_COVERAGE
    if written and not measured.missed and not blocked(measured):
        return "supported"
    return "partially_supported"
