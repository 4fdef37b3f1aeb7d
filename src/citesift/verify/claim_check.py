"""``verify_claim``: one claim graded against a list of sentences, naming the ones that
support it. Candidates are found first (lexical and dense), then a judge decides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from citesift.errors import invalid, written_number
from citesift.index import Embedder
from citesift.index.embedders import shared_embedder
from citesift.numbers import is_finite_number
from citesift.verify.candidates import DEFAULT_TOP, find_candidates
from citesift.verify.judges.base import LABELS, ClaimCheck, Judge
from citesift.verify.judges.offline import OfflineJudge

MAX_SENTENCES = 50_000
"""Sentences one check reads at most."""
MAX_SOURCE_CHARS = 10_000_000
"""Characters of all the sentences of one check together at most: as much as a source's
read keeps at its largest text budget."""
MAX_CLAIM_CHARS = 10_000
MAX_REASON_CHARS = 1_000
"""A judge's reason is cut to this many characters: it is one line, for people."""


def verify_claim(
    claim: str,
    sentences: Sequence[str],
    judge: Judge | None = None,
    *,
    embedder: Embedder | None = None,
    top: int = DEFAULT_TOP,
    about: str = "",
) -> ClaimCheck:
    """How well ``sentences`` support ``claim``: ``supported``, ``partially_supported`` or
    ``not_supported``, with the indices of the supporting sentences.

    ``judge`` decides (the offline ``OfflineJudge`` by default); ``embedder`` ranks the
    sentences by meaning beside BM25 (the bundled MiniLM by default); ``top`` sentences
    of the fused ranking are read, each with its neighbours. ``about`` names what the claim
    is about, as a field's name does its value (``about="height"``, claim ``42``): the
    claim is read as ``height: 42`` to find its sentences and by the judge, but a sentence
    need not repeat the words of ``about`` (``It stands 42 metres tall.`` supports it).
    """
    written = f"a string of at most {written_number(MAX_CLAIM_CHARS)} characters"
    if not isinstance(claim, str) or len(claim) > MAX_CLAIM_CHARS:
        raise invalid("claim", claim, written)
    if not isinstance(about, str) or len(about) > MAX_CLAIM_CHARS:
        raise invalid("about", about, written)
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise invalid("sentences", sentences, "a list of strings")
    if len(sentences) > MAX_SENTENCES or not all(isinstance(s, str) for s in sentences):
        raise invalid("sentences", sentences, f"a list of at most {MAX_SENTENCES:,} strings")
    if sum(map(len, sentences)) > MAX_SOURCE_CHARS:
        expected = f"strings of at most {MAX_SOURCE_CHARS:,} characters in all"
        raise invalid("sentences", sentences, expected)
    if judge is not None and not isinstance(judge, Judge):
        raise invalid("judge", judge, "a Judge (an object with judge(claim, sentences, found))")
    if embedder is not None and not isinstance(embedder, Embedder):
        raise invalid("embedder", embedder, "an Embedder")
    if not isinstance(top, int) or isinstance(top, bool) or not 1 <= top <= 100:
        raise invalid("top", top, "an integer from 1 to 100")
    if not claim.strip() or not sentences:
        return ClaimCheck(
            "not_supported", (), 0.0, "nothing to check" if sentences else "no source"
        )
    embedder = embedder or shared_embedder()
    stated = about_claim(about, claim)
    found = replace(find_candidates(stated, sentences, embedder, top), about=about.strip())
    decided = (judge or OfflineJudge(embedder)).judge(stated, sentences, found)
    return _checked(decided, len(sentences))


def about_claim(about: str, claim: str) -> str:
    """``claim`` as read with what it is ``about`` (``height: 42``); itself without one."""
    return f"{about.strip()}: {claim}" if about.strip() else claim


def verify_read_far(
    claim: str,
    sentences: Sequence[str],
    judge: Judge | None = None,
    *,
    embedder: Embedder | None = None,
    about: str = "",
) -> ClaimCheck:
    """``verify_claim`` over as many of the first ``sentences`` as one check reads (a long
    page is read that far, not refused); when some are left unread, the reason says so. A
    claim, or what it is ``about``, longer than ``MAX_CLAIM_CHARS`` is ``not_supported``,
    said so (naming which, as ``verify_claim`` bounds each), not refused: a document or an
    answer holding one still has its other claims checked."""
    for name, text in (("the claim", claim), ("what the claim is about", about)):
        if len(text) > MAX_CLAIM_CHARS:
            reason = f"{name} is longer than {MAX_CLAIM_CHARS:,} characters"
            return ClaimCheck("not_supported", (), 0.0, reason)
    kept = read_far(sentences)
    check = verify_claim(claim, sentences[:kept], judge, embedder=embedder, about=about)
    if kept == len(sentences):
        return check
    note = f" (only the first {kept:,} of {len(sentences):,} sentences were read)"
    return replace(check, reason=check.reason + note)


def read_far(sentences: Sequence[str]) -> int:
    """How many of the first ``sentences`` one check reads: at most ``MAX_SENTENCES``,
    holding at most ``MAX_SOURCE_CHARS`` characters together."""
    chars = 0
    for kept, sentence in enumerate(sentences[:MAX_SENTENCES]):
        chars += len(sentence)
        if chars > MAX_SOURCE_CHARS:
            return kept
    return min(len(sentences), MAX_SENTENCES)


def _checked(check: object, count: int) -> ClaimCheck:
    """A judge's answer held to the contract: a known label, a tuple of indices in range, a
    finite 0–1 score, a line of reason, and no supporting sentence for an unsupported claim
    (a judge is code the caller brings: what breaks the contract is an error, not a verdict).
    A reason past ``MAX_REASON_CHARS`` is cut."""
    if not isinstance(check, ClaimCheck) or check.label not in LABELS:
        raise invalid("the judge's answer", check, "a ClaimCheck with a known label")
    indices, name = check.supporting, "the judge's supporting indices"
    if not isinstance(indices, tuple) or not all(
        type(i) is int and 0 <= i < count for i in indices
    ):
        raise invalid(name, indices, f"a tuple of indices below {count}")
    if check.label == "not_supported" and indices:
        raise invalid(name, indices, "empty for a claim not supported")
    if not is_finite_number(check.score) or not 0.0 <= check.score <= 1.0:
        raise invalid("the judge's score", check.score, "a number from 0 to 1")
    if not isinstance(check.reason, str):
        raise invalid("the judge's reason", check.reason, "a string")
    if not isinstance(check.abstained, bool) or (
        check.abstained and check.label != "not_supported"
    ):
        raise invalid(
            "the judge's abstained", check.abstained, "a bool, True only when not_supported"
        )
    if len(check.reason) > MAX_REASON_CHARS:
        return replace(check, reason=check.reason[: MAX_REASON_CHARS - 1] + "…")
    return check
