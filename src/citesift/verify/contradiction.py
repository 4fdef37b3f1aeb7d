"""``FactContradiction``: an offline stand-in for an NLI model, for ``CitationVerifier``'s
``nli`` hook, built on what ``verify_claim`` checks.

The premise (a source) is cut into sentences and the hypothesis (a claim) graded against
them by the offline judge (a claim quoting them word for word supported, as ``verify_claim``
holds it). A claim is contradicted when one of its best candidate sentences
(those the judge names as support when it finds the claim supported: a page stating the
claim is not turned against it by a denial elsewhere, *never won it again*) states it with
the other polarity (``polarity.opposite``: *was never rebuilt* against *was
rebuilt in 1952*, *did not win* against *won*, *is closed* against *is open*, a question
answered *No.* against its statement), which the judge, matching words, may miss or even
call support; or when the judge finds it backed in part, held back from support by a
rule of ``judges/rules.py``, and, where the claim's number or date is not found, the
sentences backing that statement of the claim state another of that kind (the year 2009
where the claim says 2011, not a count of children where it says a year). A source that is
merely silent on the fact (a year it does not give), or never names a name of the claim,
contradicts nothing; nor does a negation the two sides do not share of another thing, or
two negations cancelling.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from citesift.errors import invalid
from citesift.index import Embedder
from citesift.index.embedders import shared_embedder
from citesift.index.lexical import BM25Index
from citesift.text.sentences import sentence_spans
from citesift.verify.candidates import fused, lexical_index, lexical_scores, unit_vectors
from citesift.verify.claim_check import MAX_CLAIM_CHARS, MAX_SOURCE_CHARS, read_far
from citesift.verify.facts import facts, number_kinds, without_zeros
from citesift.verify.judges.features import Measured, fact_keys, measure
from citesift.verify.judges.offline import STATEMENT_BACKED, OfflineJudge
from citesift.verify.judges.subclaims import split_claim
from citesift.verify.judges.verbatim import verbatim_check
from citesift.verify.polarity import answered, opposite
from citesift.verify.verifier import NliResult

NEUTRAL = NliResult("neutral", 0.0)
OPPOSED_SCORE = 0.9
"""The score of a contradiction: the rule (``opposed``) decides, so its answer is one level,
above the bar an NLI model's score must pass (``verifier.CONTRADICTION_SCORE``)."""
KEPT_SOURCES = 4
"""Sources whose sentences, index and vectors are kept for the next claim: an answer's
claims are checked against a few sources, each many times."""


@dataclass(frozen=True, slots=True)
class _Source:
    """A premise read once for all the claims checked against it: its sentences (as far
    as one check reads), their BM25 index and unit vectors."""

    sentences: tuple[str, ...]
    index: BM25Index
    vectors: np.ndarray | None


class FactContradiction:
    """``nli(premise, hypothesis)`` answering ``contradiction`` (score ``OPPOSED_SCORE``)
    when one of the hypothesis's best candidate sentences (its support, when the judge finds
    it supported) denies it or it denies one (``polarity.opposite``), or the premise states
    a number or date against it (``opposed``);
    ``entailment`` with the offline judge's score when it finds the hypothesis supported,
    its facts measured as written (no word matched by meaning, ``words_by_meaning``: a
    near-synonym shows a sentence is about a fact, and entailment asks that it state it);
    ``neutral`` (score 0) otherwise.

    ``embedder`` ranks the premise's sentences by meaning (the bundled MiniLM when None,
    loaded at the first call). A premise is split, indexed and embedded once for all the
    claims checked against it (the last ``KEPT_SOURCES`` are kept), as far as one check of
    ``verify_claim`` reads (``claim_check.read_far``)."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder
        self._sources: OrderedDict[str, _Source] = OrderedDict()

    def __call__(self, premise: str, hypothesis: str) -> NliResult:
        if not isinstance(premise, str) or not isinstance(hypothesis, str):
            raise invalid("premise and hypothesis", (premise, hypothesis), "two strings")
        if not hypothesis.strip() or len(hypothesis) > MAX_CLAIM_CHARS:
            return NEUTRAL
        embedder = self.embedder or shared_embedder()
        source = self._read(premise, embedder)
        sentences = source.sentences
        if not sentences:
            return NEUTRAL
        lexical = lexical_scores(source.index, hypothesis, len(sentences))
        claim_vector = unit_vectors(embedder, [hypothesis])[0]
        candidates = fused(sentences, lexical, claim_vector, source.vectors)
        measured = measure(hypothesis, sentences, candidates)  # as written: no word by meaning
        check = verbatim_check(hypothesis, sentences) or OfflineJudge(embedder).grade(
            hypothesis, sentences, candidates, measured
        )
        supported = check.label == "supported"
        read = check.supporting if supported else candidates.ranked
        if any(opposite(hypothesis, answered(sentences, i)) for i in read):
            return NliResult("contradiction", OPPOSED_SCORE)
        if supported:
            return NliResult("entailment", check.score)
        partly = check.label == "partially_supported"
        if partly and measured is not None and opposed(hypothesis, sentences, measured):
            return NliResult("contradiction", OPPOSED_SCORE)
        return NEUTRAL

    def _read(self, premise: str, embedder: Embedder) -> _Source:
        """``premise`` split, indexed and embedded, or as kept from an earlier claim."""
        kept = self._sources.get(premise)
        if kept is None:
            sentences = tuple(_sentences(premise))
            vectors = unit_vectors(embedder, sentences) if sentences else None
            kept = _Source(sentences, lexical_index(sentences), vectors)
            self._sources[premise] = kept
            while len(self._sources) > KEPT_SOURCES:
                self._sources.popitem(last=False)
        self._sources.move_to_end(premise)
        return kept


def _sentences(premise: str) -> list[str]:
    """The sentences of ``premise`` one check reads (``read_far``); only its first
    ``MAX_SOURCE_CHARS`` characters are split, as no more are read (the last sentence of a
    longer premise is left out, as it may be cut)."""
    head = premise[:MAX_SOURCE_CHARS]
    spans = sentence_spans(head)
    if len(premise) > len(head):
        spans = spans[:-1]
    sentences = [head[start:end] for start, end in spans]
    return sentences[: read_far(sentences)]


def opposed(claim: str, sentences: Sequence[str], measured: Measured) -> bool:
    """The support states the opposite of ``claim``: a number or month of a statement of the
    claim (``subclaims.split_claim``) is missing (``measured.missed``) where the support's
    sentences backing that statement (``_backing``) state another of its kind
    (``facts.number_kinds``: a year against a year, a day of a date against a day, a count
    against a count)."""
    support = [sentences[i] for i in (*measured.chosen, *measured.apart)]
    missed = frozenset(measured.missed)
    claim_kinds = number_kinds(claim)
    claim_numbers = {number for _, number in claim_kinds}
    claim_months = facts(claim).months
    for part in split_claim(claim):
        keys = fact_keys(facts(part))
        lacking = keys & missed
        if not any(m.startswith(("n:", "m:")) for m in lacking):
            continue
        numbers = {without_zeros(m[2:]) for m in lacking if m.startswith("n:")}
        kinds = {kind for kind, number in claim_kinds | number_kinds(part) if number in numbers}
        backing = _backing(keys - missed, support)
        stated = {number for s in backing for kind, number in number_kinds(s) if kind in kinds}
        months = frozenset().union(*(facts(s).months for s in backing))
        if stated - claim_numbers or (
            any(m.startswith("m:") for m in lacking) and months - claim_months
        ):
            return True
    return False


def _backing(units: frozenset[str], support: Sequence[str]) -> list[str]:
    """The ``support`` sentences backing a statement whose facts, but for those missed, are
    ``units``: each holding ``judges.offline.STATEMENT_BACKED`` of them at least (every
    sentence when the statement has no other fact)."""
    least = STATEMENT_BACKED * len(units)
    return [s for s in support if len(units & fact_keys(facts(s))) >= least]
