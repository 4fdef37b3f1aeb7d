"""The sentences worth reading for a claim: lexical (BM25) and dense (embedding) rankings
fused by reciprocal rank, each kept with its neighbours, since a fact often runs over two
sentences (a name in one, what it did in the next)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from citesift.errors import invalid
from citesift.index import Embedder
from citesift.index.lexical import BM25Index

DEFAULT_TOP = 10
"""How many sentences the fused ranking hands on (neighbours come on top)."""
RRF_K = 60
"""The damping constant of reciprocal-rank fusion (the value its authors recommend)."""
NEIGHBOURS = 1
"""Sentences kept on either side of a candidate."""
FEW_WORDS = 8
"""A line of at most this many words is a heading, a label or a dateline rather than a
statement of fact: a sentence stating who did what, and when, takes more."""
_WORD = re.compile(r"\S*\w\S*")
"""A word: a run without spaces holding a letter or digit, so that the page's markup and
separators (``#`` of a heading, ``•`` or ``|`` between the items of a byline) are not
counted as words."""


@dataclass(frozen=True, slots=True)
class Candidates:
    """Candidate sentences for one claim.

    ``ranked``: indices of the best sentences, best first; ``windows``: each with its
    neighbours, as runs of consecutive indices (runs that touch are merged), in text order;
    ``lexical``: each sentence's BM25 score over the best one's (0 to 1); ``dense``: each
    sentence's cosine with the claim, or None without an embedder; ``short``: the windows'
    lines of ``FEW_WORDS`` words or fewer (headings, labels, datelines); ``vectors``: the
    sentences' unit vectors the cosines came from (None without an embedder), so that a
    judge measuring the page by meaning again does not embed it twice; ``about``: the
    words of the claim naming what it is about (a field's name), which found its sentences
    but are no fact a sentence must repeat (see ``verify_claim``).
    """

    ranked: tuple[int, ...]
    windows: tuple[tuple[int, ...], ...]
    lexical: tuple[float, ...]
    dense: tuple[float, ...] | None
    short: frozenset[int] = frozenset()
    vectors: np.ndarray | None = field(default=None, compare=False, repr=False)
    about: str = ""

    @property
    def pool(self) -> tuple[int, ...]:
        """Every sentence of every window, in text order."""
        return tuple(i for window in self.windows for i in window)

    @property
    def lift(self) -> tuple[float, ...] | None:
        """Each sentence's cosine with the claim in standard deviations above the page's
        mean (None without an embedder): how the sentence stands out from the page by
        meaning, a level that does not depend on how alike the two texts are written."""
        if self.dense is None:
            return None
        dense = np.asarray(self.dense)
        spread = float(dense.std())
        return tuple(float(x) for x in (dense - dense.mean()) / (spread or 1.0))


def find_candidates(
    claim: str,
    sentences: Sequence[str],
    embedder: Embedder | None = None,
    top: int = DEFAULT_TOP,
) -> Candidates:
    """The ``top`` sentences by fused BM25 and cosine rank (BM25 alone without an embedder),
    leaving out sentences that share no term with the claim and are not close to it."""
    vectors = (
        unit_vectors(embedder, [claim, *sentences]) if embedder is not None and sentences else None
    )
    lexical = lexical_scores(lexical_index(sentences), claim, len(sentences))
    if vectors is None:
        return fused(sentences, lexical, None, None, top)
    return fused(sentences, lexical, vectors[0], vectors[1:], top)


def fused(
    sentences: Sequence[str],
    lexical: np.ndarray,
    claim_vector: np.ndarray | None,
    vectors: np.ndarray | None,
    top: int = DEFAULT_TOP,
) -> Candidates:
    """The candidates of ``find_candidates`` from what it computes, so that a caller checking
    many claims against one source indexes and embeds its sentences once: the sentences'
    ``lexical`` scores for the claim, and the claim's unit vector with the sentences' ones
    (``vectors``; None without an embedder)."""
    dense = None
    if claim_vector is not None and vectors is not None:
        dense = np.clip(vectors @ claim_vector, -1.0, 1.0)
    ranking = np.zeros(len(sentences))
    for scores in (lexical, dense):
        if scores is not None:
            order = np.argsort(-scores, kind="stable")
            ranks = np.empty(len(scores))
            ranks[order] = np.arange(1, len(scores) + 1)
            ranking += np.where(scores > 0, 1.0 / (RRF_K + ranks), 0.0)
    ranked = [int(i) for i in np.argsort(-ranking, kind="stable")[:top] if ranking[i] > 0]
    windows = _windows(ranked, len(sentences))
    return Candidates(
        tuple(ranked),
        windows,
        tuple(float(x) for x in lexical),
        None if dense is None else tuple(float(x) for x in dense),
        frozenset(i for window in windows for i in window if few_words(sentences[i])),
        None if dense is None else vectors,
    )


def few_words(line: str) -> bool:
    """``line`` is a heading, a label or a dateline by its length in words (``FEW_WORDS``),
    the marks of the page's layout left out (``_WORD``): ``###### By A. Writer May 24,
    2019 2:44 pm`` is as short as the same byline written plain."""
    return len(_WORD.findall(line)) <= FEW_WORDS


def lexical_index(sentences: Sequence[str]) -> BM25Index:
    """A BM25 index of ``sentences``, each under its position."""
    index = BM25Index()
    index.add([str(i) for i in range(len(sentences))], list(sentences))
    return index


def lexical_scores(index: BM25Index, claim: str, count: int) -> np.ndarray:
    """Each of the ``count`` sentences of ``index``'s BM25 score for ``claim`` over the best
    one's (0 to 1)."""
    scores = index.scores(claim) if count else np.zeros(0)
    peak = float(scores.max(initial=0.0))
    out: np.ndarray = scores / peak if peak > 0 else np.zeros(count)
    return out


def unit_vectors(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """The unit vectors of ``texts`` by ``embedder``, in float64 (see ``answered_rows``)."""
    return answered_rows(embedder.embed(texts), len(texts), "the embedder's answer")


def answered_rows(raw: object, count: int, name: str) -> np.ndarray:
    """``raw``, what a caller's embedder answered for ``count`` texts, as unit rows in
    float64. An answer that is not one finite vector per text is a clear error naming it
    ``name``, and vectors that are not of unit length (or are huge) are scaled, so that no
    product overflows and every product is a cosine."""
    try:
        vectors = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise invalid(name, raw, "one vector of numbers per text") from exc
    if vectors.ndim != 2 or vectors.shape[0] != count or not np.isfinite(vectors).all():
        raise invalid(name, vectors.shape, f"{count} vectors of finite numbers")
    return unit_rows(vectors)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row of finite ``vectors`` scaled to unit length (a row of zeros stays zeros);
    a row whose norm overflows or underflows is divided by its largest magnitude first."""
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    peaks = np.abs(vectors).max(axis=1, keepdims=True) if vectors.size else norms
    awkward = ~np.isfinite(norms) | ((norms == 0) & (peaks > 0))
    if awkward.any():
        vectors = np.divide(vectors, np.where(awkward, peaks, 1.0))
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out: np.ndarray = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return out


def _windows(ranked: list[int], count: int) -> tuple[tuple[int, ...], ...]:
    """Runs of consecutive indices covering each ranked sentence and its neighbours."""
    chosen = sorted(
        {j for i in ranked for j in range(i - NEIGHBOURS, i + NEIGHBOURS + 1) if 0 <= j < count}
    )
    runs: list[list[int]] = []
    for i in chosen:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return tuple(tuple(run) for run in runs)
