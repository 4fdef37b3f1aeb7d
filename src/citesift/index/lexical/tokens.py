"""The BM25 tokenizer: lower-cased Unicode words, English stop words dropped, Snowball stems;
Chinese, Japanese and Korean text, written without spaces, as overlapping character pairs."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from operator import is_not
from typing import cast

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

_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
"""Han, Kana, Hangul (and their extensions): scripts written without spaces between words."""
_TOKEN = re.compile(f"[{_CJK}]+|[^\\W{_CJK}]{{2,}}")
"""A run of CJK characters, or a word of two or more other word characters."""
_CJK_CHAR = re.compile(f"[{_CJK}]")
_WORD = re.compile(r"\w{2,}")
"""``_TOKEN`` in a text with no CJK character (a simpler pattern, so a faster scan)."""
_TERM_CACHE = 1 << 18

Tokenize = Callable[[str], list[str]]


class Tokenizer:
    """Splits text into the terms BM25 indexes: words of two or more characters, lower-cased,
    minus stop words, stemmed (Snowball English by default; ``stem=False`` keeps words)."""

    def __init__(self, *, stem: bool = True, stopwords: frozenset[str] = ENGLISH_STOPWORDS):
        self.stopwords = stopwords
        self._terms = _Terms(stopwords, Stemmer.Stemmer("english").stemWord if stem else None)

    def __call__(self, text: str) -> list[str]:
        """The terms of ``text`` in order (repeats kept); a CJK run gives its character
        bigrams (a lone character itself), so a query finds words inside unspaced text."""
        lowered = text.lower()
        plain = _CJK_CHAR.search(lowered) is None
        found = (_WORD if plain else _TOKEN).findall(lowered)
        words = cast(list[str], list(filter(_NOT_NONE, map(self._terms.of, found))))
        if plain or _CJK_CHAR.search(text) is None:
            return words
        return [t for w in words for t in (_bigrams(w) if _CJK_CHAR.match(w) else (w,))]


class _Terms(dict[str, str | None]):
    """Each word's term, remembered (up to a cap, then forgotten at once): its stem, or None
    for a stop word. One lookup a word, in C, is most of what tokenizing a text costs."""

    def __init__(self, stopwords: frozenset[str], stem: Callable[[str], str] | None) -> None:
        super().__init__(dict.fromkeys(stopwords))
        self.stopwords, self.stem = stopwords, stem
        self.of = self.__getitem__

    def __missing__(self, word: str) -> str:
        if len(self) >= _TERM_CACHE:
            self.clear()
            self.update(dict.fromkeys(self.stopwords))
        term = self[word] = self.stem(word) if self.stem is not None else word
        return term


_NOT_NONE = partial(is_not, None)


def _bigrams(run: str) -> list[str]:
    """Overlapping pairs of a CJK run (the run itself when it is one character)."""
    return [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]
