"""How often a text occurs in a page, counted by words from one index of the page."""

from __future__ import annotations

from collections import defaultdict

KEY_WORDS = 3
"""Runs of up to this many words are indexed: a text is only compared where its first
words (up to this many) start, so counting stays near-linear in the page's length."""


class WordIndex:
    """Where each run of one to ``KEY_WORDS`` words starts in a page (case-folded words)."""

    def __init__(self, page: str) -> None:
        self.words = page.casefold().split()
        self.starts: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for size in range(1, KEY_WORDS + 1):
            for at in range(len(self.words) - size + 1):
                self.starts[tuple(self.words[at : at + size])].append(at)

    def repeats(self, text: str) -> bool:
        """Whether ``text`` (white space and case ignored) starts at two or more words of
        the page; the last of two or more words may be the start of a longer word there
        (``war`` in ``war.``), as a browser's text search would find it."""
        needle = text.casefold().split()
        if not needle:
            return False
        found = 0
        for at in self.starts.get(_key(needle), ()):
            found += self._matches(at, needle)
            if found >= 2:
                return True
        return False

    def _matches(self, at: int, needle: list[str]) -> bool:
        """Whether ``needle`` occurs at word ``at`` (its last word as a prefix)."""
        last = at + len(needle) - 1
        if last >= len(self.words) or not self.words[last].startswith(needle[-1]):
            return False
        return self.words[at:last] == needle[:-1]


def _key(needle: list[str]) -> tuple[str, ...]:
    """The indexed words a match of ``needle`` starts with: its first ``KEY_WORDS``, but
    never its last word (which may match as a prefix) unless it is the only one."""
    return tuple(needle[: min(KEY_WORDS, len(needle) - 1)] or needle)
