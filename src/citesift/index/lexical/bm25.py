"""BM25 (Lucene's idf): an index over sparse arrays, per-term document scores precomputed and
queries summed in C; and the same scoring of a short list of matches, with no index kept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from citesift.checks import text_arg
from citesift.index.lexical.tokens import Tokenize, Tokenizer
from citesift.model import Match
from citesift.numbers import number_in

if TYPE_CHECKING:
    from scipy import sparse

_Terms = tuple[np.ndarray, np.ndarray]  # term ids, term counts
DEFAULT_K1 = 1.5
DEFAULT_B = 0.75


MAX_K1 = 1e6


def bm25_parameters(k1: object, b: object) -> tuple[float, float]:
    """``k1`` (term frequency saturation, 0 to a million) and ``b`` (length normalisation,
    0 to 1) as floats, or ``InvalidArgument`` naming the one out of range."""
    return number_in("k1", k1, 0, MAX_K1), number_in("b", b, 0, 1)


class BM25Index:
    """Okapi BM25 (Lucene's idf) over documents added and removed by id.

    Each document keeps its term counts; the score matrix (documents × terms, one column per
    term, scores precomputed) is rebuilt lazily on the first search after a change, so a
    query costs one sum over its terms' columns and a partial sort.
    """

    def __init__(
        self, k1: float = DEFAULT_K1, b: float = DEFAULT_B, tokenizer: Tokenize | None = None
    ) -> None:
        self.k1, self.b = bm25_parameters(k1, b)
        self.tokenize = tokenizer if tokenizer is not None else Tokenizer()
        self._vocab: dict[str, int] = {}
        self._docs: dict[str, _Terms] = {}
        self._ids: list[str] = []
        self._matrix: sparse.csc_matrix | None = None

    def __len__(self) -> int:
        return len(self._docs)

    @property
    def ids(self) -> list[str]:
        """Document ids in row order (the order of ``allowed`` masks and of ``row_of``)."""
        self._build()
        return self._ids

    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Index (or re-index) each ``texts[i]`` under ``ids[i]``."""
        for doc_id, text in zip(ids, texts, strict=True):
            self._docs[doc_id] = self._terms(text)
        self._matrix = None

    def remove(self, ids: Iterable[str]) -> None:
        """Forget these documents (unknown ids are ignored)."""
        for doc_id in ids:
            self._docs.pop(doc_id, None)
        self._matrix = None

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document (row order of ``ids``) for ``query``.

        Each distinct query term counts once: a claim that repeats a word is not about it twice.
        """
        matrix = self._build()
        terms = {self._vocab[t]: None for t in self.tokenize(query) if t in self._vocab}
        if not terms:
            return np.zeros(len(self._ids))
        spans = [np.arange(matrix.indptr[t], matrix.indptr[t + 1]) for t in terms]
        at = np.concatenate(spans)
        return np.bincount(matrix.indices[at], weights=matrix.data[at], minlength=len(self._ids))

    def search(
        self, query: str, k: int, allowed: np.ndarray | None = None
    ) -> tuple[list[str], np.ndarray]:
        """The ids and scores of the ``k`` best documents with a positive score, best first;
        ``allowed`` (a boolean mask in row order) restricts the candidates."""
        scores = self.scores(query)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        rows = top_rows(scores, k)
        return [self._ids[r] for r in rows], scores[rows]

    def _terms(self, text: str) -> _Terms:
        counts = Counter(self.tokenize(text))
        ids = np.fromiter(
            (self._vocab.setdefault(t, len(self._vocab)) for t in counts), dtype=np.int32
        )
        return ids, np.fromiter(counts.values(), dtype=np.float32, count=len(counts))

    def _build(self) -> sparse.csc_matrix:
        """The (documents × terms) score matrix, rebuilt when documents changed."""
        if self._matrix is None:
            self._ids = list(self._docs)
            self._matrix = score_matrix(
                list(self._docs.values()), len(self._vocab), self.k1, self.b
            )
        return self._matrix


def score_matrix(docs: Sequence[_Terms], n_terms: int, k1: float, b: float) -> sparse.csc_matrix:
    """Per (document, term) BM25 scores as a CSC matrix: one column per term."""
    from scipy import sparse  # only a search needs it, not every command that imports us

    lengths = np.array([counts.sum() for _, counts in docs], dtype=np.float64)
    rows = np.repeat(np.arange(len(docs)), [len(ids) for ids, _ in docs])
    cols = np.concatenate([ids for ids, _ in docs]) if docs else np.zeros(0, np.int32)
    tf = np.concatenate([c for _, c in docs]).astype(np.float64) if docs else np.zeros(0)
    df = np.bincount(cols, minlength=n_terms)
    idf = np.log1p((len(docs) - df + 0.5) / (df + 0.5))
    norm = 1 - b + b * lengths / (lengths.mean() if len(docs) and lengths.mean() > 0 else 1.0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        data = idf[cols] * tf * (k1 + 1) / (tf + k1 * norm[rows])
    data = np.where(np.isfinite(data), data, 0.0)
    return sparse.csc_matrix((data, (rows, cols)), shape=(len(docs), n_terms))


def top_rows(scores: np.ndarray, k: int, tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Rows of the ``k`` highest positive scores, best first; equal scores are ordered by
    ``tiebreak`` (higher first) when given, then by row, so the cut at ``k`` is stable too."""
    live = np.flatnonzero(scores > 0)
    if len(live) > k > 0:
        kth = -np.partition(-scores[live], k - 1)[k - 1]
        live = live[scores[live] >= kth]
    second = -tiebreak[live] if tiebreak is not None else np.zeros(len(live))
    order = np.lexsort((live, second, -scores[live]))
    return live[order][: max(k, 0)]


def bm25_score(
    query: str, hits: Sequence[Match], k1: float = DEFAULT_K1, b: float = DEFAULT_B
) -> list[Match]:
    """New matches scored by BM25 of ``query`` over the matches themselves, best first (ties
    keep their order): the index's tokenizer and formula over a throw-away index.

    ``k1`` and ``b`` are checked by ``bm25_parameters``. With no matches the answer is
    empty; every score is finite.
    """
    text_arg(query, "query")
    index = BM25Index(k1, b)
    rows = [str(i) for i in range(len(hits))]
    index.add(rows, [text_arg(h.content, "a match's content") for h in hits])
    scores = index.scores(query)
    order = np.argsort(-scores, kind="stable")
    return [replace(hits[i], score=float(scores[i])) for i in order]
