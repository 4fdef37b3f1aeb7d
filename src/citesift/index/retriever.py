"""The retriever contract: what searches, and how an agent's messages become a query."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class Retriever(Protocol):
    """Anything that searches: the RAG facade, a partition, a reranked retriever."""

    def search(
        self, query: str, top_k: int | None = None, filter: dict[str, Any] | None = None
    ) -> list[Any]: ...


def query_of(query: str | None = None, messages: Sequence[Any] | None = None) -> str:
    """``query`` when given, else the text of the last user message (else the last message)."""
    if query is not None:
        return str(query)
    items = list(messages or ())
    users = [m for m in items if _role(m) == "user"]
    chosen = (users or items)[-1:]
    return _content(chosen[0]) if chosen else ""


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
