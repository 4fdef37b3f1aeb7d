"""How often a text occurs in a page, counted by words from one index of the page."""

from __future__ import annotations

from collections import defaultdict

KEY_WORDS = 3
"""Runs of up to this many words are indexed: a text is only compared where its rarest run
of up to this many words (its last word aside) starts."""
MAX_COMPARED = 32
"""Places a text is compared at before it is taken to repeat: a page of many sentences
that share their words but the last (``Item 1.``, ``Item 2.``…) then costs time linear in
its length, and the answer errs only towards giving a link its context."""


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
        offset, places = self._rarest(needle)
        for compared, at in enumerate(places):
            if compared == MAX_COMPARED:
                return True
            found += self._matches(at - offset, needle)
            if found >= 2:
                return True
        return False

    def _rarest(self, needle: list[str]) -> tuple[int, list[int]]:
        """The indexed run of ``needle`` that starts at the fewest words of the page: its
        offset in ``needle`` and where it starts. The last of two or more words, which may
        match as a prefix, is never part of it."""
        exact = len(needle) - 1 or 1
        runs = (
            (offset, self.starts.get(tuple(needle[offset : offset + size]), []))
            for size in range(1, min(KEY_WORDS, exact) + 1)
            for offset in range(exact - size + 1)
        )
        return min(runs, key=lambda run: len(run[1]))

    def _matches(self, at: int, needle: list[str]) -> bool:
        """Whether ``needle`` occurs at word ``at`` (its last word as a prefix)."""
        last = at + len(needle) - 1
        if at < 0 or last >= len(self.words) or not self.words[last].startswith(needle[-1]):
            return False
        return self.words[at:last] == needle[:-1]
