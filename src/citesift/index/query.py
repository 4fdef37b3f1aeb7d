"""One search as a chunk store receives it: text, vector, depth, filter and retrieval; and the
check that a query's text has something to look for."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from citesift.errors import InvalidArgument, invalid
from citesift.index.texts import whole_text

Retrieval = Literal["hybrid", "bm25", "dense"]
"""How chunks are scored: by their words (BM25), by their meaning (dense), or both fused."""
RETRIEVALS: tuple[Retrieval, ...] = ("hybrid", "bm25", "dense")
MAX_QUERY_CHARS = 2_000
"""The longest query, on every surface (Python, CLI, HTTP, MCP): a query is a question or a
few words, not a document; a longer one only costs time and memory to score."""
_LAST_WORD_END = re.compile(r"(.*\S)\s", re.DOTALL)
_WORD_END_REACH = 200
"""How far before the bound a cut may fall back to a word's end: farther, the query would
lose too much of its text (one long word), so it is cut at the bound."""


@dataclass(frozen=True, slots=True)
class Query:
    """A search: ``vector`` (from ``embedder``) is None in BM25 retrieval; ``min_similarity``
    (None: none) leaves out of hybrid results each chunk that shares no word with the query
    and whose dense similarity is below it."""

    text: str
    top_k: int
    retrieval: Retrieval = "hybrid"
    vector: np.ndarray | None = None
    embedder: str | None = None
    filter: dict[str, Any] | None = None
    min_similarity: float | None = None


def query_text(query: object) -> str:
    """``query`` as text to search, or ``InvalidArgument`` when it has nothing to look for:
    empty, or only white space and control or format characters (which match nothing, so
    every hit would be made up), said to hold a lone surrogate when it does (a byte of the
    command line that is not UTF-8). Beside words, a lone surrogate is only a character
    that matches nothing. Anything but a ``str`` (None, bytes) is an ``InvalidArgument`` too,
    never searched as its printed form ("None", "b'tides'"). A query longer than
    ``MAX_QUERY_CHARS`` is refused unread."""
    if not isinstance(query, str):
        raise invalid("query", query, "text (a str)")
    text = query
    if len(text) > MAX_QUERY_CHARS:
        error = InvalidArgument(
            f"query must be at most {MAX_QUERY_CHARS:,} characters (a question or a few "
            f"words), not {len(text):,}"
        )
        error.argument = "query"
        raise error
    if not any(char.isprintable() and not char.isspace() for char in text):
        whole_text("query", text)
        raise invalid("query", query, "text with something to look for")
    return text


def bounded_query(text: str) -> str:
    """``text`` cut to at most ``MAX_QUERY_CHARS``, at the end of its last whole word when
    that is within ``_WORD_END_REACH`` characters of the bound, else at the bound: the
    query made of a long task, chat message or model's action is still a question to look
    up (its first words), not a mistake to refuse."""
    if len(text) <= MAX_QUERY_CHARS:
        return text
    head = text[: MAX_QUERY_CHARS + 1]  # one more: a word ending at the bound is whole
    words = _LAST_WORD_END.match(head)
    if words and len(words.group(1)) >= MAX_QUERY_CHARS - _WORD_END_REACH:
        return words.group(1)
    return head[:MAX_QUERY_CHARS]
