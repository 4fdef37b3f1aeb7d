"""Rerankers: the protocol they follow, the BM25 default, and a retriever that reranks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from citesift.index.bm25_score import DEFAULT_B, DEFAULT_K1, bm25_score
from citesift.index.fusion import min_max
from citesift.index.retriever import Retriever, query_of
from citesift.index.scoring import RerankError, check_scores, positive_int
from citesift.model import Match
from citesift.numbers import is_finite_number

DEFAULT_CANDIDATE_POOL = 20
DEFAULT_TOP_K = 5
DEFAULT_RERANK_WEIGHT = 0.5
"""The reranker's share of the final score; the first stage keeps the rest."""


@runtime_checkable
class Reranker(Protocol):
    """Reorders (and rescores) candidate hits for a query, returning at most ``top_k``."""

    def rerank(self, query: str, hits: Sequence[Match], top_k: int) -> list[Match]: ...


@dataclass(frozen=True, slots=True)
class BM25Reranker:
    """Rescores candidates by BM25 over the candidates themselves (no index needed)."""

    k1: float = DEFAULT_K1
    b: float = DEFAULT_B

    def rerank(self, query: str, hits: Sequence[Match], top_k: int) -> list[Match]:
        """The ``top_k`` best candidates by BM25 against ``query``."""
        return bm25_score(query, hits, k1=self.k1, b=self.b)[: positive_int(top_k, len(hits))]


class RerankedRetriever:
    """Takes a candidate pool from ``base``, reranks it and keeps the best ``top_k`` by the
    reranker's scores fused with ``base``'s (``rerank_weight``: see ``rerank_fused``)."""

    def __init__(
        self,
        base: Retriever,
        reranker: Reranker | None = None,
        *,
        candidate_pool: int = DEFAULT_CANDIDATE_POOL,
        top_k: int = DEFAULT_TOP_K,
        rerank_weight: float = DEFAULT_RERANK_WEIGHT,
    ) -> None:
        self.base = base
        self.reranker = reranker if reranker is not None else BM25Reranker()
        self.candidate_pool = positive_int(candidate_pool, DEFAULT_CANDIDATE_POOL)
        self.top_k = positive_int(top_k, DEFAULT_TOP_K)
        self.rerank_weight = rerank_weight

    def search(
        self, query: str, top_k: int | None = None, filter: dict[str, Any] | None = None
    ) -> list[Match]:
        """Base candidates (at least ``top_k`` of them), reranked, fused and cut to ``top_k``."""
        k = positive_int(top_k, self.top_k)
        pool = max(self.candidate_pool, k)
        candidates = [_copy(h) for h in self.base.search(query, top_k=pool, filter=filter)[:pool]]
        return rerank_fused(self.reranker, query, candidates, k, self.rerank_weight)

    def retrieve(
        self, query: str | None = None, messages: Sequence[Any] | None = None
    ) -> list[Match]:
        """The retriever contract of an agent runtime: search the query (or the last message)."""
        return self.search(query_of(query, messages))


def rerank_fused(
    reranker: Reranker,
    query: str,
    hits: list[Match],
    top_k: int,
    weight: float = DEFAULT_RERANK_WEIGHT,
) -> list[Match]:
    """Rerank every candidate, then score each ``weight · minmax(reranker) + (1 - weight) ·
    minmax(first stage)`` (ties in the reranker's order), so a reranker that knows less
    than the first stage cannot throw its signal away. ``weight`` 1 (or an unscored side)
    keeps the reranker's order alone; a weight outside [0, 1] or not finite takes 0.5."""
    reranked = rerank_checked(reranker, query, hits, len(hits))
    share = rerank_weight(weight)
    unscored = any(h.score is None for h in [*reranked[:1], *hits[:1]])
    if share == 1 or unscored:
        return reranked[:top_k]
    ours, theirs = min_max(reranked), min_max(hits)
    fused = {h.id: share * ours[h.id] + (1 - share) * theirs.get(h.id, 0.0) for h in reranked}
    order = sorted(reranked, key=lambda h: -fused[h.id])[:top_k]
    return [replace(h, score=fused[h.id]) for h in order]


def rerank_weight(value: object) -> float:
    """``value`` when it is a finite number in [0, 1], else ``DEFAULT_RERANK_WEIGHT``."""
    ok = is_finite_number(value) and 0 <= value <= 1  # type: ignore[operator]
    return float(value) if ok else DEFAULT_RERANK_WEIGHT  # type: ignore[arg-type]


def rerank_checked(reranker: Reranker, query: str, hits: list[Match], top_k: int) -> list[Match]:
    """Run ``reranker`` and hold its answer to the result contract (else ``RerankError``)."""
    try:
        out = reranker.rerank(query, hits, top_k)
    except RerankError:
        raise
    except Exception as exc:
        raise RerankError(f"rerank failed: {exc}") from exc
    _validate(out)
    try:
        return check_scores(out)[:top_k]
    except TypeError as exc:
        raise RerankError(f"rerank failed: {exc}") from exc


def _validate(out: object) -> None:
    """Raise ``RerankError`` unless ``out`` is a list of hits with string id and content."""
    if not isinstance(out, list):
        raise RerankError(f"rerank failed: expected a list of hits, got {type(out).__name__}")
    for item in out:
        if not (
            isinstance(item, Match) and isinstance(item.id, str) and isinstance(item.content, str)
        ):
            raise RerankError(f"rerank failed: not a hit with a string id and content: {item!r}")


def _copy(hit: Match) -> Match:
    """A hit whose metadata the reranker may change without touching the caller's."""
    return replace(hit, metadata=dict(hit.metadata))
