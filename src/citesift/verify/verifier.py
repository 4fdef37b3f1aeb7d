"""``CitationVerifier``: each claim of an answer graded by the source it is closest to.

One embedding call covers the claims and the sources' contents; a claim's best source is the
one of highest cosine (strictly above zero, so a claim near nothing has no source). The
cosine decides the verdict; an optional NLI function can turn a ``supported`` claim whose
best source contradicts it into ``contradicted``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from citesift.errors import invalid
from citesift.index import Embedder
from citesift.model import Match, Passage
from citesift.numbers import is_finite_number
from citesift.verify.candidates import answered_rows, unit_rows
from citesift.verify.claim_check import MAX_SOURCE_CHARS
from citesift.verify.claims import extract_claims
from citesift.verify.judges.nli import nli_scores

Verdict = Literal["supported", "weak", "unverifiable", "contradicted"]
SNIPPET_CHARS = 200
"""How much of the best source a verdict quotes."""
CONTRADICTION_SCORE = 0.7
"""An NLI ``contradiction`` above this score overturns a ``supported`` verdict."""
MAX_TEXTS = 50_000
"""Claims and sources graded in one call at most (they are embedded in one batch)."""
MAX_ANSWER_CHARS = 1_000_000
"""Characters of a text split into claims at most: a long book, not an answer."""
MAX_CHARS = MAX_SOURCE_CHARS
"""Characters of the claims and sources of one call together at most."""

EmbedFunction = Callable[[list[str]], Any]
"""Texts in, one vector per text out (any array-like of equal-length rows)."""


@dataclass(frozen=True, slots=True)
class CitationSource:
    """A text a claim may be checked against, with what to cite it by."""

    content: str
    title: str | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class NliResult:
    """What a natural-language-inference model said of (premise, hypothesis)."""

    label: str
    score: float


NliFunction = Callable[[str, str], Any]
"""``nli(premise, hypothesis)`` answering an ``NliResult``, a mapping with label and score,
a ``(label, score)`` pair or a Hugging Face pipeline's list of such mappings."""


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """One claim's grade: ``confidence`` is the best cosine, ``source_index`` the source
    that gave it (None when no source is closer than zero)."""

    text: str
    verdict: Verdict
    confidence: float
    source_index: int | None = None
    source_snippet: str | None = None
    source_ref: str | None = None


@dataclass(frozen=True, slots=True)
class VerifiedResponse:
    """Every claim's verdict and the counts; grounded when no claim is contradicted."""

    claims: tuple[ClaimVerdict, ...]
    overall_grounded: bool
    supported_ratio: float
    total_claims: int
    supported_count: int
    contradicted_count: int
    unverifiable_count: int
    weak_count: int


def cosine_similarity(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """The cosine of two vectors of one length; 0 when either has no length or holds a
    value that is not finite. Huge values do not overflow: each vector is scaled first."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise invalid("b", y.shape, f"a vector of the same length as a ({x.shape})")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        return 0.0
    unit = unit_rows(np.stack([x, y]))
    return float(np.clip(unit[0] @ unit[1], -1.0, 1.0))


class CitationVerifier:
    """Grades claims against sources by embedding similarity (and, optionally, NLI)."""

    def __init__(
        self,
        embed: Embedder | EmbedFunction,
        support_threshold: float = 0.6,
        unverifiable_threshold: float = 0.3,
        nli: NliFunction | None = None,
        extract_claims: Callable[[str], list[str]] | None = None,
    ) -> None:
        if not (isinstance(embed, Embedder) or callable(embed)):
            raise invalid("embed", embed, "an Embedder or a function from texts to vectors")
        if not is_finite_number(support_threshold) or not 0 < support_threshold <= 1:
            # a claim near no source has confidence 0: a bar at 0 would call it supported
            raise invalid("support_threshold", support_threshold, "a cosine above 0, at most 1")
        if not is_finite_number(unverifiable_threshold) or not 0 <= unverifiable_threshold <= 1:
            raise invalid("unverifiable_threshold", unverifiable_threshold, "a cosine from 0 to 1")
        if nli is not None and not callable(nli):
            raise invalid("nli", nli, "a function (premise, hypothesis) -> NliResult")
        if extract_claims is not None and not callable(extract_claims):
            raise invalid("extract_claims", extract_claims, "a function from text to claims")
        self.embed = embed
        self.support_threshold = float(support_threshold)
        self.unverifiable_threshold = float(unverifiable_threshold)
        self.nli = nli
        self.extract_claims = extract_claims

    def verify(
        self,
        text_or_claims: str | Sequence[str],
        sources: Sequence[CitationSource | Passage | Match | Mapping[str, Any]],
    ) -> VerifiedResponse:
        """Grade a text's claims (or the claims given, as they are) against ``sources``.

        A text over ``MAX_ANSWER_CHARS`` characters, more than ``MAX_TEXTS`` claims and
        sources, or more than ``MAX_CHARS`` characters in them all are ``InvalidArgument``,
        refused before anything is embedded."""
        claims = self._claims(text_or_claims)
        checked = [citation_source(s) for s in _sequence("sources", sources)]
        if len(claims) + len(checked) > MAX_TEXTS:
            raise invalid(
                "text_or_claims and sources", (len(claims), len(checked)), f"{MAX_TEXTS:,} at most"
            )
        chars = sum(map(len, claims)) + sum(len(s.content) for s in checked)
        if chars > MAX_CHARS:
            raise invalid(
                "text_or_claims and sources", f"{chars:,} characters", f"{MAX_CHARS:,} at most"
            )
        if not claims:
            return summarise([])
        vectors = self._vectors(claims + [s.content for s in checked])
        return summarise(
            [
                self._grade(c, vectors[i], vectors[len(claims) :], checked)
                for i, c in enumerate(claims)
            ]
        )

    def _claims(self, given: str | Sequence[str]) -> list[str]:
        if isinstance(given, str):
            if len(given) > MAX_ANSWER_CHARS:
                expected = f"a text of at most {MAX_ANSWER_CHARS:,} characters"
                raise invalid("text_or_claims", given, expected)
            split = self.extract_claims or extract_claims
            claims = split(given)
            if isinstance(claims, str | bytes) or not isinstance(claims, Sequence):
                raise invalid("extract_claims' answer", claims, "a list of claim strings")
        else:
            claims = _sequence("text_or_claims", given)
        if not all(isinstance(c, str) for c in claims):
            raise invalid("text_or_claims", given, "a text or a list of claim strings")
        return list(claims)

    def _vectors(self, texts: list[str]) -> np.ndarray:
        """One embedding call for every text: a ``(len(texts), dim)`` array of unit rows
        (the embedder's vectors, scaled; a row of zeros is near nothing)."""
        raw = self.embed.embed(texts) if isinstance(self.embed, Embedder) else self.embed(texts)
        return answered_rows(raw, len(texts), "embed's answer")

    def _grade(
        self, claim: str, vector: np.ndarray, found: np.ndarray, sources: list[CitationSource]
    ) -> ClaimVerdict:
        similarities = np.clip(found @ vector, -1.0, 1.0) if len(found) else np.zeros(1)
        index = int(np.argmax(similarities))  # the first of the best
        best = float(similarities[index])
        if best <= 0.0:
            best, index = 0.0, -1
        verdict: Verdict = (
            "supported"
            if best >= self.support_threshold
            else "unverifiable"
            if best < self.unverifiable_threshold
            else "weak"
        )
        if index < 0:
            return ClaimVerdict(claim, verdict, best)
        source = sources[index]
        if (
            verdict == "supported"
            and self.nli is not None
            and _contradicts(self.nli, source.content, claim)
        ):
            verdict = "contradicted"
        return ClaimVerdict(claim, verdict, best, index, source.content[:SNIPPET_CHARS], source.url)


def summarise(verdicts: list[ClaimVerdict]) -> VerifiedResponse:
    """The response for ``verdicts``: counts, the supported share (1 with no claims), and
    grounded unless some claim is contradicted."""

    def count(verdict: Verdict) -> int:
        return sum(v.verdict == verdict for v in verdicts)

    supported, contradicted = count("supported"), count("contradicted")
    return VerifiedResponse(
        claims=tuple(verdicts),
        overall_grounded=contradicted == 0,
        supported_ratio=supported / len(verdicts) if verdicts else 1.0,
        total_claims=len(verdicts),
        supported_count=supported,
        contradicted_count=contradicted,
        unverifiable_count=count("unverifiable"),
        weak_count=count("weak"),
    )


def format_verified_response(response: VerifiedResponse) -> str:
    """One line for people: how many claims were verified, and the share rounded half up."""
    if response.total_claims == 0:
        return "No verifiable claims found."
    share = math.floor(100 * response.supported_count / response.total_claims + 0.5)
    return f"{response.supported_count}/{response.total_claims} claims verified ({share}%)"


def _contradicts(nli: NliFunction, premise: str, hypothesis: str) -> bool:
    """Whether ``nli`` finds a contradiction above the bar; a failing NLI finds none, but an
    answer of no shape it can be read in is the caller's bug (``InvalidArgument``)."""
    try:
        answer = nli(premise, hypothesis)
    except Exception:  # an NLI model that fails leaves the cosine's verdict standing
        return False
    scores = nli_scores(answer)
    if scores is None:
        expected = (
            "an NliResult, a mapping with label and score, a (label, score) pair "
            "or a list of {label, score} mappings"
        )
        raise invalid("nli's answer", answer, expected)
    score = scores.get("contradiction", 0.0)
    return is_finite_number(score) and score > CONTRADICTION_SCORE


def _sequence(name: str, value: object) -> list[Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise invalid(name, value, "a list")
    return list(value)


def citation_source(value: object) -> CitationSource:
    """A source from what callers hold: a ``CitationSource``, a passage, a match or a mapping
    (``InvalidArgument`` for anything else, so that a caller can check its sources first)."""
    if isinstance(value, CitationSource):
        found = value
    elif isinstance(value, Passage):
        found = CitationSource(value.content, value.title, value.url)
    elif isinstance(value, Match):
        where = value.provenance
        found = CitationSource(
            value.content, where.title if where else None, where.url if where else None
        )
    elif isinstance(value, Mapping):
        found = CitationSource(value.get("content"), value.get("title"), value.get("url"))  # type: ignore[arg-type]
    else:
        raise invalid("a source", value, "a CitationSource, Passage, Match or mapping with content")
    if not isinstance(found.content, str):
        raise invalid("a source's content", found.content, "a string")
    for name, text in (("title", found.title), ("url", found.url)):
        if text is not None and not isinstance(text, str):
            raise invalid(f"a source's {name}", text, "a string or None")
    return found
