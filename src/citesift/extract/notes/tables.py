"""The first GFM table of a note as rows of named cells: the header row names them, a
``|`` escaped as ``\\|`` or inside a ``[[wikilink|alias]]`` does not part cells."""

from __future__ import annotations

import re

from citesift.extract.notes.fences import lines
from citesift.extract.notes.plain import plain

_DELIMITER_CELL = re.compile(r":?-+:?")
_CELL_BREAK = re.compile(r"\\.|\[\[[^\[\]\r\n]*\]\]|\|")


def parse_table(text: str) -> list[dict[str, str]]:
    """The rows of the first table in ``text`` (a header row, then a delimiter row such as
    ``|---|:--:|``), each a mapping from header to cell. A blank header cell, or a row's
    cell past the header's, is named ``col{i}`` (its index from 0); the table ends at the
    first line that is not a row. No table: an empty list."""
    rows = [line.text for line in lines(text) if not line.fenced] if "|" in text else []
    for i in range(len(rows) - 1):
        if _is_row(rows[i]) and _is_delimiter(rows[i + 1]):
            header = [plain(cell) for cell in split_row(rows[i])]
            body = []
            for line in rows[i + 2 :]:
                if not _is_row(line):
                    break
                body.append(_named(header, split_row(line)))
            return body
    return []


def split_row(line: str) -> list[str]:
    """The cells of a table row, trimmed, with ``\\|`` read as ``|``."""
    cells: list[str] = []
    cut = 0
    for found in _CELL_BREAK.finditer(line):
        if found.group() == "|":
            cells.append(line[cut : found.start()])
            cut = found.end()
    cells.append(line[cut:])
    stripped = line.strip()
    if stripped.startswith("|"):
        cells = cells[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|") and cells:
        cells = cells[:-1]
    return [cell.strip().replace("\\|", "|") for cell in cells]


def _named(header: list[str], cells: list[str]) -> dict[str, str]:
    names = [header[i] if i < len(header) and header[i] else f"col{i}" for i in range(len(cells))]
    return dict(zip(names, cells, strict=True))


def _is_row(line: str) -> bool:
    return bool(line.strip()) and any(m.group() == "|" for m in _CELL_BREAK.finditer(line))


def _is_delimiter(line: str) -> bool:
    cells = split_row(line)
    return bool(cells) and all(_DELIMITER_CELL.fullmatch(cell) for cell in cells)
