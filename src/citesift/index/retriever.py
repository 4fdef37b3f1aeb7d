"""The retriever contract: what searches, how its results are scored, and how an agent's
messages become a query."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from citesift.index.query import bounded_query
from citesift.model import Match
from citesift.numbers import is_finite_number


class Retriever(Protocol):
    """Anything that searches: the RAG facade, a partition, a reranked retriever."""

    def search(
        self, query: str, top_k: int | None = None, filter: dict[str, Any] | None = None
    ) -> list[Any]: ...


def check_scores(hits: Sequence[Match]) -> list[Match]:
    """Apply the scoring contract to ``hits``.

    Unscored results keep their order. When any result has a score, every result must have a
    finite one, and the list comes back sorted by descending score (stable for ties). Mixed
    or non-finite scores raise ``TypeError``: a score is never made up.
    """
    scored = [h.score is not None for h in hits]
    if not any(scored):
        return list(hits)
    if not all(scored):
        raise TypeError("mixed scored and unscored results: every result needs a score")
    for hit in hits:
        if not is_finite_number(hit.score):
            raise TypeError(
                f"result {hit.id!r} has a non-finite or non-numeric score {hit.score!r}"
            )
    return sorted(hits, key=lambda h: -float(h.score or 0.0))


def query_of(query: str | None = None, messages: Sequence[Any] | None = None) -> str:
    """``query`` when given, else the text of the last user message (else the last message)
    cut to ``MAX_QUERY_CHARS`` at a word's end (``bounded_query``): a chat message may be
    long, a query is its first words."""
    if query is not None:
        return str(query)
    items = list(messages or ())
    users = [m for m in items if _role(m) == "user"]
    chosen = (users or items)[-1:]
    return bounded_query(_content(chosen[0])) if chosen else ""


def _role(message: Any) -> str | None:
    """The role of a ``{"role", "content"}`` mapping or an object with ``.role``."""
    return message.get("role") if isinstance(message, Mapping) else getattr(message, "role", None)


def _content(message: Any) -> str:
    """The text of a message: a string, a mapping's ``content`` or an object's ``.content``."""
    if isinstance(message, str):
        return message
    content = (
        message.get("content") if isinstance(message, Mapping) else getattr(message, "content", "")
    )
    return content if isinstance(content, str) else ""
