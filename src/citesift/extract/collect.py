"""Blocks read from a PDF or Office file, gathered under the text budget, and what the file
says about itself (title, author, date)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citesift.extract.metadata import MAX_TEXT_CHARS, clean_text
from citesift.model import Block, BlockKind, Place

_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class FileText:
    """The blocks read from a file, whether they were cut short (``budget_cut``: by the
    budget), and its metadata (``date`` in epoch milliseconds)."""

    blocks: tuple[Block, ...]
    truncated: bool
    title: str | None = None
    author: str | None = None
    date: int | None = None
    language: str | None = None
    budget_cut: bool = False


@dataclass(slots=True)
class Collector:
    """Blocks kept in reading order while their text fits in ``budget`` characters: the
    block that crosses it keeps its words that fit, and ``full`` then says to stop reading;
    ``cut`` says another bound left something out (the text is truncated all the same)."""

    budget: int
    blocks: list[Block] = field(default_factory=list)
    used: int = 0
    full: bool = False
    cut: bool = False

    def add(
        self,
        text: str,
        kind: BlockKind,
        place: Place,
        section: tuple[str, ...] = (),
        label: str = "",
    ) -> None:
        """Keep ``text`` (``clean``) as a block, unless it is empty or the budget is spent;
        under ``label`` (a sheet cell's column name, clean) it is written ``label: text``,
        and a cut that leaves none of ``text`` after the label keeps nothing."""
        text = clean(text)
        if not text or self.full:
            return
        prefix = f"{label}: " if label else ""
        text = prefix + text
        room = self.budget - self.used
        if len(text) > room:
            self.full = True
            text = words_within(text, room)
            if len(text) <= len(prefix):
                return
        self.used += len(text)
        self.blocks.append(Block(text, kind, section, 0, 0, place=place, value_start=len(prefix)))

    def result(
        self,
        title: str | None = None,
        author: str | None = None,
        date: int | None = None,
        language: str | None = None,
    ) -> FileText:
        """What was kept, with the file's metadata (blank values as None)."""
        return FileText(
            tuple(self.blocks),
            self.full or self.cut,
            _clean(title),
            _clean(author),
            date,
            _clean(language),
            self.full,
        )


def clean(text: str) -> str:
    """``text`` as a block keeps it: control characters dropped, white space collapsed."""
    return " ".join(_UNSAFE.sub("", text).split())


def words_within(text: str, room: int) -> str:
    """The start of ``text`` that fits in ``room`` characters, cut after its last white
    space that fits (a space or a line break), else at ``room``: how the block crossing a
    text budget is cut."""
    cut = max(text.rfind(" ", 0, room + 1), text.rfind("\n", 0, room + 1))
    return text[: cut if cut > 0 else room].rstrip()


def _clean(value: str | None) -> str | None:
    """``value`` as one line of at most ``MAX_TEXT_CHARS``, as a page's metadata is (a file
    may state a title of megabytes, and every chunk of it is scored under its title), None
    when blank."""
    if not isinstance(value, str):
        return None
    return clean_text(_UNSAFE.sub("", value[: MAX_TEXT_CHARS * 4]))
