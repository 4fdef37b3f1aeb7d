"""Heading paths for blocks: scoped to landmarks, and headings with nothing under them."""

from __future__ import annotations

from citesift.model import Block


class Sections:
    """The heading path as the candidates go by, scoped to landmarks.

    A landmark (navigation, sidebar, page header or footer) starts with an empty path and,
    once it closes, the path from before it resumes: its headings never head the page's
    content, and the content's headings never head it.
    """

    def __init__(self, landmarks: list[tuple[int, int]]) -> None:
        self.scopes = sorted(landmarks, key=lambda r: (r[0], -r[1]), reverse=True)
        self.saved: list[tuple[int, list[tuple[int, str]]]] = []  # (end, path outside)
        self.path: list[tuple[int, str]] = []

    def at(self, index: int) -> None:
        """Leave the landmarks that end before candidate ``index``; enter those it opens."""
        while self.saved and self.saved[-1][0] <= index:
            self.path = self.saved.pop()[1]
        while self.scopes and self.scopes[-1][0] <= index:
            _, end = self.scopes.pop()
            if end > index:
                self.saved.append((end, self.path))
                self.path = []

    def heading(self, level: int, text: str) -> tuple[str, ...]:
        """The section of a heading at ``level``, which then heads what follows."""
        self.path = [p for p in self.path if p[0] < level]
        section = self.section()
        self.path.append((level, text))
        return section

    def section(self) -> tuple[str, ...]:
        """The current heading path."""
        return tuple(t for _, t in self.path)


def without_empty_headings(blocks: list[Block], levels: list[int]) -> list[Block]:
    """``blocks`` less the headings with nothing kept under them.

    A heading is empty when no other block follows it before the next heading of its own
    level or above, or the end (a "References" heading whose list was dropped).
    """
    empty: set[int] = set()
    waiting: list[int] = []  # headings that nothing has followed yet
    for i, level in enumerate(levels):
        if not level:
            waiting.clear()
            continue
        while waiting and levels[waiting[-1]] >= level:
            empty.add(waiting.pop())
        waiting.append(i)
    empty.update(waiting)
    return [block for i, block in enumerate(blocks) if i not in empty]
