"""The reranker contract: what a reranker does, how its answer is checked, and how its
scores are fused with the first stage's (the one way every search reranks)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from citesift.errors import CitesiftError, ClientError
from citesift.index.fusion import min_max
from citesift.index.retriever import check_scores
from citesift.model import Match
from citesift.numbers import number_in

DEFAULT_RERANK_WEIGHT = 0.5
"""The reranker's share of the final score; the first stage keeps the rest."""


class RerankError(CitesiftError, RuntimeError):
    """A reranker failed or answered with something that breaks the result contract."""


@runtime_checkable
class Reranker(Protocol):
    """Reorders (and rescores) candidate hits for a query, returning at most ``top_k``."""

    def rerank(self, query: str, hits: Sequence[Match], top_k: int) -> list[Match]: ...


def rerank_fused(
    reranker: Reranker,
    query: str,
    hits: list[Match],
    top_k: int,
    weight: float = DEFAULT_RERANK_WEIGHT,
) -> list[Match]:
    """Rerank every candidate, then score each ``weight · minmax(reranker) + (1 - weight) ·
    minmax(first stage)`` (equal scores ordered by the reranker's raw score, then by the
    first stage's rank), so a reranker that knows less
    than the first stage cannot throw its signal away. ``weight`` 1 (or an unscored side)
    keeps the reranker's order alone; ``weight`` is a number from 0 to 1."""
    share = rerank_weight(weight)
    if not hits:
        return []
    reranked = rerank_checked(reranker, query, hits, len(hits))
    unscored = any(h.score is None for h in [*reranked[:1], *hits[:1]])
    if share == 1 or unscored:
        return reranked[:top_k]
    ours, theirs = min_max(reranked), min_max(hits)
    fused = {h.id: share * ours[h.id] + (1 - share) * theirs.get(h.id, 0.0) for h in reranked}
    rank = {h.id: i for i, h in reversed(list(enumerate(hits)))}
    order = sorted(
        reranked, key=lambda h: (-fused[h.id], -float(h.score or 0), rank.get(h.id, len(hits)))
    )[:top_k]
    return [replace(h, score=fused[h.id]) for h in order]


def rerank_weight(value: object) -> float:
    """``value`` as a float when it is a number from 0 to 1, else ``InvalidArgument``."""
    return number_in("rerank_weight", value, 0, 1)


def rerank_checked(reranker: Reranker, query: str, hits: list[Match], top_k: int) -> list[Match]:
    """Run ``reranker`` on copies of ``hits`` (it may not change the caller's) and hold its
    answer to the result contract (else ``RerankError``; an API's ``ClientError`` passes as
    it is); a match it rebuilt without its provenance gets back the one its id came with."""
    copies = [replace(h, metadata=dict(h.metadata)) for h in hits]
    try:
        out = reranker.rerank(query, copies, top_k)
    except (RerankError, ClientError):  # already says what failed, and where
        raise
    except Exception as exc:
        raise RerankError(f"rerank failed: {exc}") from exc
    _validate(out)
    try:
        ranked = check_scores(out)[:top_k]
    except TypeError as exc:
        raise RerankError(f"rerank failed: {exc}") from exc
    origins = {h.id: h.provenance for h in hits}
    return [h if h.provenance else replace(h, provenance=origins.get(h.id)) for h in ranked]


def _validate(out: object) -> None:
    """Raise ``RerankError`` unless ``out`` is a list of hits with string id and content."""
    if not isinstance(out, list):
        raise RerankError(f"rerank failed: expected a list of hits, got {type(out).__name__}")
    for item in out:
        if not (
            isinstance(item, Match) and isinstance(item.id, str) and isinstance(item.content, str)
        ):
            raise RerankError(f"rerank failed: not a hit with a string id and content: {item!r}")
