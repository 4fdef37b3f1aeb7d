"""The BM25 tokenizer: lower-cased Unicode words, English stop words dropped, Snowball stems;
text of the scripts written without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer,
Burmese) as overlapping character pairs. A word keeps its combining marks (the vowel signs
of Devanagari, an accent NFC cannot compose), so a mark never cuts it in two; the optional
vowel marks of Arabic are left out, so vocalised and plain spellings are one term."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache, partial
from itertools import chain
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
    "\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff"
    "\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
"""Han, Kana, Hangul (and their extensions), Thai, Lao, Burmese and Khmer: scripts written
without spaces between words."""
_CJK_CHAR = re.compile(f"[{_CJK}]")
_WORD = re.compile(r"\w{2,}")
"""A word of two or more word characters, in a text with no mark and no CJK character."""
_ARABIC_VOWELS = re.compile("[\u0640\u064b-\u0652]")
"""Tatweel and the Arabic vowel marks (harakat), which most text leaves out."""
_MARK_PLANES = (range(0x10000), range(0x10000, 0x20000), range(0xE0000, 0xE1000))
"""Where the combining marks are: the basic and supplementary multilingual planes, and the
variation selectors of plane 14."""
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
"""A character past the basic plane (a regular expression scans for it faster than ``max``)."""
_TERM_CACHE = 1 << 18
TOKENIZER_VERSION = 2
"""The rules' version, kept by each store beside the terms they made: raised whenever some
text's terms change, so a store holding terms of earlier rules makes them again. 1: before
words kept their combining marks and Thai, Lao, Burmese and Khmer came in pairs; 2: since.
"""
ASCII_SAME_SINCE = 1
"""The earliest version by whose rules a text of ASCII only has the terms it has now: a store
of that version or later makes again the terms of its other text only."""

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
        plain = lowered.isascii() or _plain(lowered)
        if plain:
            found = _WORD.findall(lowered)
        else:
            composed = unicodedata.normalize("NFC", lowered)  # the text itself when it is
            found = _scan(_ARABIC_VOWELS.sub("", composed))
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


def _plain(text: str) -> bool:
    """Whether ``text`` reads as plain words: composed, with no mark, no Arabic vowel or
    tatweel, no unspaced script and nothing past the basic plane (one scan, as most text
    that is not ASCII only holds typographic quotes and dashes)."""
    return unicodedata.is_normalized("NFC", text) and _special().search(text) is None


@cache
def _special() -> re.Pattern[str]:
    """Any character that ``_scan`` treats apart from a plain word character."""
    marks = _patterns(astral=False)[0].pattern[1:-1]
    return re.compile(f"[{marks}\u0640{_CJK}\U00010000-\U0010ffff]")


def _scan(text: str) -> list[str]:
    """The words and unspaced runs of a text that is not all ASCII, by the simplest pattern
    that reads it whole (most text has no mark and no unspaced script)."""
    any_mark, marked, unspaced = _patterns(astral=_ASTRAL.search(text) is not None)
    if _CJK_CHAR.search(text) is not None:
        return unspaced.findall(text)
    return (_WORD if any_mark.search(text) is None else marked).findall(text)


@cache
def _patterns(astral: bool) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The patterns that take combining marks into words, made once they are needed
    (listing the marks takes a few milliseconds): any mark; a word of two or more word
    characters and marks; a run of an unspaced script, or such a word of the others. The
    marks past the basic plane (``astral``) make a scan far slower: only a text holding
    characters there is read with them."""
    chars = map(chr, chain.from_iterable(_MARK_PLANES if astral else _MARK_PLANES[:1]))
    marks = _ranges(c for c in chars if unicodedata.category(c)[0] == "M")
    return (
        re.compile(f"[{marks}]"),
        re.compile(f"\\w(?:\\w|[{marks}])+"),
        re.compile(f"[{_CJK}]+|[^\\W{_CJK}](?:[^\\W{_CJK}]|[{marks}])+"),
    )


def _ranges(chars: Iterable[str]) -> str:
    """A character class body (``a-z…``) for the characters given in ascending order."""
    runs: list[list[int]] = []
    for code in map(ord, chars):
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in runs)


def _bigrams(run: str) -> list[str]:
    """Overlapping pairs of a CJK run (the run itself when it is one character)."""
    return [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]
