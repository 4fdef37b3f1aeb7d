"""Following a listing's pages: each page names the next (a cursor, a token or a link);
a page that promises more without naming the next, or names one already followed, is an
error, and so is a listing longer than ``MAX_PAGES``: none of them would ever end."""

from __future__ import annotations

from dataclasses import dataclass, field

from citesift.errors import LOAD_FAILED, LoadError

MAX_PAGES = 10_000
"""The most pages of one listing followed."""


@dataclass
class PageTrail:
    """The cursors a listing has followed, to refuse one that comes round again."""

    label: str
    seen: set[str] = field(default_factory=set)

    def next(self, cursor: object) -> str:
        """``cursor`` when it is new text, else ``LoadError`` (incomplete pagination)."""
        if not isinstance(cursor, str) or not cursor or cursor in self.seen:
            raise LoadError(LOAD_FAILED, f"{self.label}: incomplete pagination")
        if len(self.seen) >= MAX_PAGES:
            raise LoadError(
                LOAD_FAILED, f"{self.label}: incomplete pagination after {MAX_PAGES} pages"
            )
        self.seen.add(cursor)
        return cursor
