"""The ``blocks`` view of a document: its title and address, a line saying how to read what
follows, then each block numbered with its kind (its span in the source) and its section,
and a run of table cells shown as one aligned table when the source tells its rows apart."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from itertools import groupby

from citesift.extract.markdown import table_rows
from citesift.model import Block, SourceDocument

CELL_WIDTH = 32
"""The widest a table column is drawn; a longer cell wraps within its column."""


def block_listing(
    document: SourceDocument, source: str | None = None, *, spans: bool = False
) -> str:
    """The document's heading and legend, then its blocks; ``spans`` adds each block's span
    in ``source`` (the decoded text the blocks were read from, which also lets a table be
    drawn row by row)."""
    span = " start:end (its characters in the decoded source)" if spans else ""
    if document.blocks and document.blocks[0].place is not None:
        span = " (its place in the file)"
    legend = (
        f"Each block: [number] kind{span} § the headings it sits under (- none), then its text."
    )
    head = f"{document.title or '(no title)'}\n{document.url or document.key}\n{legend}\n\n"
    return head + "".join(_entries(document.blocks, source, spans))


def _entries(blocks: Sequence[Block], source: str | None, spans: bool) -> Iterator[str]:
    numbered = list(enumerate(blocks))
    for is_cell, run in groupby(numbered, key=lambda pair: pair[1].kind == "table_cell"):
        items = list(run)
        if is_cell and (source is not None or items[0][1].place is not None):
            yield from _tables(items, source, spans)
        else:
            yield from (_header(i, b.kind, [b], spans) + b.text + "\n\n" for i, b in items)


def _tables(cells: list[tuple[int, Block]], source: str | None, spans: bool) -> Iterator[str]:
    """Each table in a run of cells: its block numbers, span and section, then its rows."""
    at = 0
    for rows in table_rows([block for _, block in cells], source):
        count = sum(len(row) for row in rows)
        mine = cells[at : at + count]
        at += count
        first, last = mine[0][0], mine[-1][0]
        yield _header(f"{first}-{last}", "table", [b for _, b in mine], spans) + _grid(rows) + "\n"


def _header(number: object, kind: str, blocks: list[Block], spans: bool) -> str:
    place = blocks[0].place
    if place is not None:
        where = f" ({place.label()})"
    else:
        where = f" {blocks[0].source_start}:{blocks[-1].source_end}" if spans else ""
    return f"[{number}] {kind}{where} § {' › '.join(blocks[0].section) or '-'}\n"


def _grid(rows: list[list[str]]) -> str:
    """The rows as aligned columns two spaces apart, a long cell wrapped in its column."""
    width = max(len(row) for row in rows)
    padded = [row + [""] * (width - len(row)) for row in rows]
    widths = [min(CELL_WIDTH, max(len(row[c]) for row in padded)) or 1 for c in range(width)]
    lines: list[str] = []
    for row in padded:
        wrapped = [textwrap.wrap(cell, w) or [""] for cell, w in zip(row, widths, strict=True)]
        for depth in range(max(len(cell) for cell in wrapped)):
            parts = [
                (cell[depth] if depth < len(cell) else "").ljust(w)
                for cell, w in zip(wrapped, widths, strict=True)
            ]
            lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"
