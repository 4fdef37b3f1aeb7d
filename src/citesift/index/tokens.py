"""The BM25 tokenizer: lower-cased Unicode words, English stop words dropped, Snowball stems."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import Stemmer

ENGLISH_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
"""Lucene's English stop set: short, so that rare phrasings keep their words."""

_WORD = re.compile(r"\w\w+")
_STEM_CACHE = 1 << 18

Tokenize = Callable[[str], list[str]]


class Tokenizer:
    """Splits text into the terms BM25 indexes: words of two or more characters, lower-cased,
    minus stop words, stemmed (Snowball English by default; ``stem=False`` keeps words)."""

    def __init__(self, *, stem: bool = True, stopwords: frozenset[str] = ENGLISH_STOPWORDS):
        self.stopwords = stopwords
        self._stem = _stemmer() if stem else None

    def __call__(self, text: str) -> list[str]:
        """The terms of ``text`` in order (repeats kept)."""
        words = [w for w in _WORD.findall(text.lower()) if w not in self.stopwords]
        if self._stem is None:
            return words
        return [self._stem(w) for w in words]


def _stemmer() -> Callable[[str], str]:
    """A memoised Snowball English stemmer (one per tokenizer: PyStemmer is not thread-safe)."""
    return lru_cache(maxsize=_STEM_CACHE)(Stemmer.Stemmer("english").stemWord)
