"""BM25 scoring of a small list of hits against a query, with no index (the reranker's core)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from citesift.checks import text_arg
from citesift.model import Match
from citesift.numbers import is_finite_number

DEFAULT_K1 = 1.5
DEFAULT_B = 0.75
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9_]+")


def sane_k1(k1: object, default: float = DEFAULT_K1) -> float:
    """``k1`` when it is a finite number ≥ 0, else ``default``."""
    ok = is_finite_number(k1) and k1 >= 0  # type: ignore[operator]
    return float(k1) if ok else default  # type: ignore[arg-type]


def sane_b(b: object, default: float = DEFAULT_B) -> float:
    """``b`` when it is a finite number in [0, 1], else ``default``."""
    ok = is_finite_number(b) and 0 <= b <= 1  # type: ignore[operator]
    return float(b) if ok else default  # type: ignore[arg-type]


def simple_tokens(text: str) -> list[str]:
    """Lower-cased ASCII word tokens (``\\W+`` split), empties dropped."""
    return [t for t in _WORD_SPLIT.split(text.lower()) if t]


def bm25_score(
    query: str, hits: Sequence[Match], k1: float = DEFAULT_K1, b: float = DEFAULT_B
) -> list[Match]:
    """New hits scored by BM25 of ``query`` over the hits themselves, best first.

    Invalid ``k1`` (non-finite or negative) falls back to 1.5, invalid ``b`` (non-finite or
    outside [0, 1]) to 0.75. Query terms are not de-duplicated. With no hits or no query
    terms the hits come back as copies, unscored. Every score is finite.
    """
    terms = simple_tokens(text_arg(query, "query"))
    if not hits or not terms:
        return [replace(h) for h in hits]
    k1, b = sane_k1(k1), sane_b(b)
    docs = [Counter(simple_tokens(text_arg(h.content, "a hit's content"))) for h in hits]
    lengths = np.array([sum(d.values()) for d in docs], dtype=np.float64)
    norm = 1 - b + b * lengths / (lengths.mean() or 1.0)
    scores = np.zeros(len(hits))
    for term in terms:
        scores += _term_scores(term, docs, norm, k1)
    scores = np.where(np.isfinite(scores), scores, 0.0)
    order = np.argsort(-scores, kind="stable")
    return [replace(hits[i], score=float(scores[i])) for i in order]


def _term_scores(
    term: str, docs: Sequence[Counter[str]], norm: np.ndarray, k1: float
) -> np.ndarray:
    """One query term's BM25 contribution to each document (0 where undefined)."""
    freq = np.array([d.get(term, 0) for d in docs], dtype=np.float64)
    n = np.count_nonzero(freq)
    idf = math.log(1 + (len(docs) - n + 0.5) / (n + 0.5))
    denom = freq + k1 * norm
    with np.errstate(divide="ignore", invalid="ignore"):
        part = np.where(denom != 0, idf * freq * (k1 + 1) / denom, 0.0)
    return np.where(np.isfinite(part), part, 0.0)
