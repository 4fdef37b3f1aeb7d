"""``FactContradiction``: an offline stand-in for an NLI model, for ``CitationVerifier``'s
``nli`` hook, built on what ``verify_claim`` checks.

The premise (a source) is cut into sentences and the hypothesis (a claim) graded against
them by the offline judge. A claim the source backs in part, held back from support by a
rule of ``judges/rules.py``, is contradicted when the source states the opposite: a
negation not shared, or, where the claim's number, date or name is not found, the
support stating another of that kind (the year 2009 where the claim says 2011). A source
that is merely silent on the fact (a year it does not give) contradicts nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from citesift.errors import invalid
from citesift.index import Embedder
from citesift.text.sentences import sentence_spans
from citesift.verify.candidates import find_candidates
from citesift.verify.claim_check import MAX_CLAIM_CHARS, read_far
from citesift.verify.facts import Facts, facts
from citesift.verify.judges.features import Measured, measure
from citesift.verify.judges.meaning import shared_embedder
from citesift.verify.judges.offline import OfflineJudge
from citesift.verify.verifier import NliResult

NEUTRAL = NliResult("neutral", 0.0)


class FactContradiction:
    """``nli(premise, hypothesis)`` answering ``contradiction`` when the premise states a
    number, date, name or polarity against the hypothesis, scored by how surely the
    offline judge finds the hypothesis not supported in full (one minus its score);
    ``entailment`` when the judge finds it supported; ``neutral`` otherwise.

    ``embedder`` ranks the premise's sentences by meaning (the bundled MiniLM when None,
    loaded at the first call). A source is embedded sentence by sentence for each claim
    checked against it: a ``CachedEmbedder`` embeds each sentence once for all its claims
    (as ``citesift verify answer`` does)."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    def __call__(self, premise: str, hypothesis: str) -> NliResult:
        if not isinstance(premise, str) or not isinstance(hypothesis, str):
            raise invalid("premise and hypothesis", (premise, hypothesis), "two strings")
        sentences = [premise[start:end] for start, end in sentence_spans(premise)]
        sentences = sentences[: read_far(sentences)]
        if not sentences or not hypothesis.strip() or len(hypothesis) > MAX_CLAIM_CHARS:
            return NEUTRAL
        embedder = self.embedder or shared_embedder()
        candidates = find_candidates(hypothesis, sentences, embedder)
        check = OfflineJudge(embedder).judge(hypothesis, sentences, candidates)
        if check.label == "supported":
            return NliResult("entailment", check.score)
        measured = measure(hypothesis, sentences, candidates)
        if check.label == "not_supported" or measured is None:
            return NEUTRAL
        support = [facts(sentences[i]) for i in (*measured.chosen, *measured.apart)]
        if opposed(facts(hypothesis), support, measured):
            return NliResult("contradiction", 1.0 - check.score)
        return NliResult("neutral", 1.0 - check.score)


def opposed(claim: Facts, support: list[Facts], measured: Measured) -> bool:
    """The support states the opposite of the claim: their polarity differs, or a number,
    month or name of the claim is missing (``measured.missed``, ``measured.absent``) where
    the support states one of that kind the claim does not."""
    if measured.negation:
        return True
    kinds = {m.split(":", 1)[0] for m in measured.missed if ":" in m}

    def other(kind: Callable[[Facts], frozenset[Any]]) -> bool:
        return bool(frozenset().union(*map(kind, support)) - kind(claim))

    return (
        ("n" in kinds and other(lambda f: f.numbers))
        or ("m" in kinds and other(lambda f: f.months))
        or (bool(measured.absent) and other(lambda f: f.entities))
    )
