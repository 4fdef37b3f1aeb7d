"""Blocks as Markdown for LLM prompts: headings, lists, tables, code, quotes and captions.

``blocks_to_markdown`` writes each block by its kind:

- ``heading``: ATX ``#`` marks. A block has no level field; a heading's ``section`` is the
  path of the headings above it, so its level is ``len(section) + 1``, at most 6: the
  outline's depth, not the source's ``h1``..``h6`` numbers (a page that jumps from ``h2``
  to ``h4`` gives ``#`` then ``##``). Given the document's ``title``, the Markdown opens
  with it as its one ``#`` heading and every other heading sits a level below it (a
  top-level heading with the title's text, as page mode keeps, is that heading: it is
  not written twice, and the headings under it keep their level).
- ``list_item``: ``- item``; consecutive items make one tight list.
- ``table_cell``: a run of cells makes a pipe table whose first row is its header. Rows are
  told apart by the markup between two cells' source spans (a ``<tr`` or ``</tr`` starts a
  new row, a ``<table`` or ``</table`` a new table), so pass the decoded ``source`` the
  blocks were read from; without it each cell stands on a row of its own.
- ``code``: a fenced block whose fence is longer than any run of backticks inside.
- ``quote``: ``> quote``; ``caption``: ``*caption*``; ``paragraph`` and ``note``: plain.

Text is escaped only where a character would change meaning: emphasis, code, link and
HTML openers anywhere, and block markers (``#``, ``>``, ``-``, ``1.``...) at a line start.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import groupby, pairwise

from citesift.model import Block, SourceDocument

MAX_HEADING_LEVEL = 6
_INLINE_ACTIVE = re.compile(
    r"""[\\`*\[\]~]            # escapes, code, emphasis, links, strikethrough
    | _(?!(?<=[^\W_]_)[^\W_])  # underscores, except between two letters or digits
    | <(?=[A-Za-z/!?])         # HTML tags and autolinks
    | &(?=\#?\w+;)             # character references
    """,
    re.VERBOSE,
)
_LINE_START_ACTIVE = re.compile(
    r"""^(?:\#(?=\#*(?:\s|$))     # ATX heading
    | >                       # block quote
    | [-+](?=\s|$)            # bullet list item
    | -(?=[-\s]*$)            # thematic break
    | \d{1,9}(?=[.)](?:\s|$))  # ordered list item: escape the dot, not the digits
    )""",
    re.VERBOSE,
)
_CLOSING_HASHES = re.compile(r"(?<= )(#+)$")  # read as an ATX heading's closing sequence
_BACKTICK_RUN = re.compile(r"`+")
_ROW_BREAK = re.compile(r"</?tr[\s/>]", re.IGNORECASE)
_TABLE_BREAK = re.compile(r"</?table[\s/>]", re.IGNORECASE)


def blocks_to_markdown(
    blocks: Sequence[Block], source: str | None = None, title: str | None = None
) -> str:
    """The blocks as one Markdown document (``source``: the text their spans index), under
    ``title`` as its ``#`` heading when given."""
    if not all(isinstance(block, Block) for block in blocks):
        raise TypeError("blocks_to_markdown takes a sequence of Block")
    parts: list[str] = []
    if title:
        parts.append("# " + _heading_text(title))
        blocks = [block for block in blocks if not _is_title(block, title)]
    for kind, run in groupby(blocks, key=lambda block: block.kind):
        if kind == "table_cell":
            parts.extend(_table(rows) for rows in table_rows(list(run), source))
        elif kind == "list_item":
            parts.append("\n".join("- " + escape(block.text) for block in run))
        else:
            parts.extend(_render(block, title) for block in run)
    text = "\n\n".join(part for part in parts if part)
    return text + "\n" if text else ""


def document_markdown(document: SourceDocument, source: str | None = None) -> str:
    """A read document as Markdown: its title the one ``#`` heading, its blocks below (as
    ``blocks_to_markdown`` writes them), as the reading commands (``page``, ``wiki read``,
    ``extract``) print it. The ``markdown`` of a scrape or crawl result (``scrape.formats``,
    ``scrape.crawl_page``) is the blocks alone, without the title, as Firecrawl's is: the
    title is a field of its own there (a scrape's ``metadata.title``, a crawl's ``title``)."""
    return blocks_to_markdown(document.blocks, source, title=document.title)


def escape(text: str) -> str:
    """``text`` with the characters that would change its meaning as Markdown escaped."""
    text = _INLINE_ACTIVE.sub(lambda match: "\\" + match.group(), text)
    return _LINE_START_ACTIVE.sub(_escape_line_start, text, count=1)


def heading_level(block: Block) -> int:
    """The Markdown level of a heading block: one below the headings in its section path."""
    return min(MAX_HEADING_LEVEL, len(block.section) + 1)


def _escape_line_start(match: re.Match[str]) -> str:
    marker = match.group()
    return marker + "\\" if marker.isdigit() else "\\" + marker


def _heading_text(text: str) -> str:
    """Heading text escaped, a trailing run of ``#`` included."""
    return _CLOSING_HASHES.sub(r"\\\1", escape(text))


def _is_title(block: Block, title: str) -> bool:
    """Whether ``block`` is the page's own heading of its ``title`` (written once, as ``#``)."""
    return block.kind == "heading" and not block.section and block.text == title


def _render(block: Block, title: str | None = None) -> str:
    if block.kind == "heading":
        under_title = bool(block.section) and block.section[0] == title
        below = 1 if title and not under_title else 0
        level = min(MAX_HEADING_LEVEL, heading_level(block) + below)
        return "#" * level + " " + _heading_text(block.text)
    if block.kind == "code":
        return _fenced(block.text)
    if block.kind == "quote":
        return "> " + escape(block.text)
    if block.kind == "caption":
        return "*" + escape(block.text) + "*"
    return escape(block.text)


def _fenced(code: str) -> str:
    longest = max((len(run) for run in _BACKTICK_RUN.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{code}\n{fence}"


def table_rows(cells: list[Block], source: str | None) -> Iterator[list[list[str]]]:
    """Group a run of cells into tables of rows (each row the cells' texts), by the markup
    between their spans in ``source`` or, for cells read from a file, by their ``place``;
    without either each cell is a row of its own. A sheet's cell written under its column's
    header (``Header: value``) is drawn as its value: the header row above names it."""
    rows = [[cells[0]]]
    for previous, cell in pairwise(cells):
        between = _between(previous, cell, source)
        if _TABLE_BREAK.search(between):
            yield _texts(rows)
            rows = [[]]
        elif _ROW_BREAK.search(between):
            rows.append([])
        rows[-1].append(cell)
    yield _texts(rows)


def _texts(rows: list[list[Block]]) -> list[list[str]]:
    """A table's rows as texts, each cell below the first row drawn as its value (a sheet's
    cell without the ``Header: `` its reader wrote it under)."""
    return [[cell.text for cell in rows[0]]] + [
        [cell.text[cell.value_start :] for cell in row] for row in rows[1:]
    ]


def _between(previous: Block, cell: Block, source: str | None) -> str:
    """What parts two neighbouring cells: the markup between them, or markup standing for
    the change of table or row their places show."""
    here, there = previous.place, cell.place
    if here is not None and there is not None and here.row is not None:
        same = (here.page, here.slide, here.sheet, here.paragraph)
        if same != (there.page, there.slide, there.sheet, there.paragraph):
            return "<table>"
        return "<tr>" if here.row != there.row else ""
    return "<tr>" if source is None else source[previous.source_end : cell.source_start]


def _table(rows: list[list[str]]) -> str:
    width = max(len(row) for row in rows)
    lines = [_table_row(row + [""] * (width - len(row))) for row in rows]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)


def _table_row(cells: list[str]) -> str:
    return "| " + " | ".join(escape(cell).replace("|", "\\|") for cell in cells) + " |"
