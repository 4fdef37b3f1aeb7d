"""An Excel file's sheets read as a stream of rows: each sheet's XML, and its shared strings,
go through expat a piece at a time from the zip member, and only what is kept stays in
memory. A sheet of a hundred thousand rows reads in seconds; what is kept is bounded, not
what is read: the text budget, a cell's text (``MAX_CELL_CHARS``), a row's cells
(``MAX_ROW_CELLS``: a sheet whose row holds more is read no further), a sheet's rows
(``MAX_ROWS``), the shared strings (``MAX_SHARED_STRINGS``, ``MAX_SHARED_CHARS``), nesting
(``MAX_DEPTH``) and the time spent (``MAX_SECONDS``); what a bound cut says so (the
document is truncated). Only the values cells last held are read, never a formula; a DTD
is refused (no entity is expanded).

A sheet whose first row holding values reads as headers (``header_row``), and whose rows
below look unlike it (``names_columns``), has every cell below it written ``Header:
value``, as LangChain's and LlamaIndex's CSV loaders write a row: a passage cut from row 40
then says what its numbers are, to a reader and to a search, and each cell keeps its own
block, place and offsets.
"""

from __future__ import annotations

import contextlib
import functools
import re
import time
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from datetime import time as clock
from typing import Any
from xml.parsers import expat

from citesift.errors import DocumentError
from citesift.extract.collect import Collector, clean
from citesift.model import Place
from citesift.numbers import written_whole

MAX_CELL_CHARS = 32_767
"""The most characters of one cell's text kept: Excel's own limit on a cell."""
MAX_ROW_CELLS = 16_384
"""The most cells of one row read: Excel's columns."""
MAX_ROWS = 1_048_576
"""The most rows of one sheet read: Excel's rows."""
MAX_SHARED_STRINGS = 1_048_576
"""The most shared strings kept (each held in memory while the sheets are read)."""
MAX_SHARED_CHARS = 16 * 1024 * 1024
"""The most characters the shared strings kept may hold together."""
MAX_DEPTH = 64
"""The deepest element nesting read (a sheet's cells sit four or five deep)."""
MAX_SECONDS = 30.0
"""How long a workbook's sheets are read before what was kept is returned, cut short."""
MAX_HEADER_CHARS = 100
"""The longest cell a header row holds: a longer one is prose, not a column's name."""
SNIFF_ROWS = 20
"""The most rows below a would-be header row held back while it is told whether it names
the columns (as ``csv.Sniffer.has_header`` reads 20 rows)."""
TEXT_KINDS = frozenset(("s", "inlineStr", "str"))
"""The cell types that hold text (a shared or inline string, a formula's text)."""
DATA_KINDS = frozenset(("n", "b", "d"))
"""The cell types that hold data no column name is: a number (or a date), a boolean, a date."""
PIECE = 64 * 1024
"""Bytes of a zip member inflated and parsed at a time."""
_REF = re.compile(r"([A-Z]{1,3})([0-9]{1,7})$")


@dataclass(frozen=True)
class Numbers:
    """How the workbook states dates: the cell styles that show numbers as dates or
    durations, and its epoch."""

    dates: frozenset[int] = frozenset()
    durations: frozenset[int] = frozenset()
    epoch: datetime = datetime(1899, 12, 30)
    """The day serial number 0 stands for (openpyxl's epoch of the workbook)."""


@dataclass(frozen=True, slots=True)
class Cell:
    """A cell read and not kept yet: its row, column, type and style, and its text."""

    row: int
    column: int
    kind: str
    style: int
    text: str


@dataclass
class Reading:
    """One workbook's reading: where kept text goes, the shared strings, when to stop, and
    whether a bound cut anything."""

    kept: Collector
    numbers: Numbers = field(default_factory=Numbers)
    strings: list[str] = field(default_factory=list)
    strings_cut: bool = False
    long_strings: set[int] = field(default_factory=set)
    """The shared strings (by index) whose text was cut at ``MAX_CELL_CHARS``."""
    cut: bool = False
    deadline: float = field(default_factory=lambda: time.monotonic() + MAX_SECONDS)


class _Stop(Exception):
    """Ends the parse of one part (a bound is reached or the budget is spent)."""


def read_shared_strings(archive: zipfile.ZipFile, path: str, reading: Reading) -> None:
    """The workbook's shared strings into ``reading.strings``, up to the bounds (the rest
    is noted: a cell naming one of them is read as cut)."""
    strings = _Strings(reading)
    _parse(archive, path, reading, _Text(strings.start, strings.end, strings.chars, strings.wanted))


class _Strings:
    """The state of the shared strings' parse: the string under way, what all held."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        self.text: list[str] = []
        self.held = self.total = 0
        self.in_text = self.long = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "si":
            self.text.clear()
            self.held = 0
            self.long = False
        self.in_text = name == "t"

    def wanted(self) -> bool:
        return self.in_text

    def chars(self, data: str) -> None:
        room = MAX_CELL_CHARS - self.held
        self.long = self.long or len(data) > room
        if room > 0:
            self.text.append(data[:room])
            self.held += min(len(data), room)

    def end(self, name: str) -> None:
        self.in_text = False
        if name != "si":
            return
        self.total += self.held
        if len(self.reading.strings) >= MAX_SHARED_STRINGS or self.total > MAX_SHARED_CHARS:
            self.reading.strings_cut = True
            raise _Stop
        if self.long:
            self.reading.long_strings.add(len(self.reading.strings))
        self.reading.strings.append("".join(self.text))


def read_sheet(archive: zipfile.ZipFile, path: str, sheet: str, reading: Reading) -> None:
    """Each cell of the sheet at ``path`` that holds a value kept as a block, in order,
    with its sheet, row and column, until the budget is spent or a bound is reached."""
    cells = _Cells(sheet, reading)
    _parse(archive, path, reading, _Text(cells.start, cells.end, cells.chars, cells.wanted))
    cells.finish()


@dataclass
class _Text:
    """Handlers of the elements (by local name) and text of one part; ``wanted`` says
    whether the text met now is kept."""

    start: Callable[[str, dict[str, str]], None]
    end: Callable[[str], None]
    chars: Callable[[str], None]
    wanted: Callable[[], bool] = lambda: True


def _parse(archive: zipfile.ZipFile, path: str, reading: Reading, text: _Text) -> None:
    """Parse the part at ``path`` through ``text``'s handlers, a ``PIECE`` at a time, until
    it ends or a handler stops it; the text of a phonetic run (``rPh``) is not read."""
    parser = expat.ParserCreate()
    parser.buffer_text = True  # a value's text in one call, not one per line or entity
    depth = [0, 0]  # open elements, open phonetic runs

    def start(name: str, attrs: dict[str, str]) -> None:
        depth[0] += 1
        if depth[0] > MAX_DEPTH:
            raise DocumentError(f"a sheet whose XML nests deeper than {MAX_DEPTH}: not read")
        local = name.rpartition(":")[2]
        depth[1] += local == "rPh"
        text.start(local, attrs)

    def end(name: str) -> None:
        depth[0] -= 1
        local = name.rpartition(":")[2]
        depth[1] -= local == "rPh"
        text.end(local)

    def chars(data: str) -> None:
        if not depth[1] and text.wanted():
            text.chars(data)

    def doctype(*_: object) -> None:
        raise DocumentError("a sheet with a document type declaration: not read")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.StartDoctypeDeclHandler = doctype
    try:
        with archive.open(path) as part:
            while piece := part.read(PIECE):
                if time.monotonic() > reading.deadline:
                    reading.cut = True
                    return
                parser.Parse(piece, False)
            parser.Parse(b"", True)
    except _Stop:
        return
    except expat.ExpatError as error:
        raise DocumentError(f"a sheet of broken XML ({path}): {error}") from error


class _Cells:
    """The state of one sheet's parse: the row and cell under way and the value met."""

    def __init__(self, sheet: str, reading: Reading) -> None:
        self.sheet, self.reading = sheet, reading
        self.rows, self.row, self.column, self.in_row = 0, 0, 0, 0
        self.kind, self.style = "n", 0
        self.first_row: list[Cell] | None = []
        """The first row holding values, until it ends."""
        self.named: dict[int, Cell] = {}
        """The first row's cells by column, when it reads as headers (``header_row``)."""
        self.held: list[Cell] | None = None
        """The cells below ``named`` held back until it is told whether it names the
        columns (``names_columns``); None once it is told."""
        self.held_chars = self.held_rows = 0
        self.headers: dict[int, str] = {}
        """Each column's header, once the first row is told to name the columns."""
        self.value: list[str] = []
        self.value_chars = 0
        self.reading_value = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "row":
            self.rows += 1
            if self.rows > MAX_ROWS:
                self.reading.cut = True
                raise _Stop
            self.row = written_whole(attrs.get("r", ""), self.row + 1)
            self.column = self.in_row = 0
        elif name == "c":
            self.in_row += 1
            if self.in_row > MAX_ROW_CELLS:  # no sheet Excel writes has such a row
                self.reading.cut = True
                raise _Stop
            ref = _REF.match(attrs.get("r", ""))
            self.column = _column(ref[1]) if ref else self.column + 1
            self.kind = attrs.get("t", "n")
            self.style = written_whole(attrs.get("s", "0"), 0)
            self.value.clear()
            self.value_chars = 0
        elif name in ("v", "t"):
            self.reading_value = (name == "v") != (self.kind == "inlineStr")

    def wanted(self) -> bool:
        return self.reading_value

    def chars(self, data: str) -> None:
        room = MAX_CELL_CHARS - self.value_chars
        if len(data) > room:
            self.reading.cut = True
            data = data[:room]
        self.value.append(data)
        self.value_chars += len(data)

    def end(self, name: str) -> None:
        if name in ("v", "t"):
            self.reading_value = False
        elif name == "c":
            text = self._text("".join(self.value))
            if text and not text.isspace():
                self._met(text)
        elif name == "row":
            self._row_ended()
            if time.monotonic() > self.reading.deadline:
                self.reading.cut = True
                raise _Stop

    def finish(self) -> None:
        """Keep the cells still held back, bare: their rows never told the first row to
        name the columns."""
        if self.held is not None:
            with contextlib.suppress(_Stop):
                self._tell(False)

    def _met(self, text: str) -> None:
        """Keep a cell read, or hold it back while the first row is told."""
        if self.first_row is None and self.held is None:
            self._keep(self.row, self.column, text)
            return
        cell = Cell(self.row, self.column, self.kind, self.style, text)
        if self.first_row is not None:
            self.first_row.append(cell)
            self._keep(cell.row, cell.column, text)
        elif self.held is not None:
            self.held.append(cell)
            self.held_chars += len(text)
            if names_columns(self.named, [cell]):
                self._tell(True)
            elif self.held_chars > self.reading.kept.budget - self.reading.kept.used:
                self._tell(False)

    def _row_ended(self) -> None:
        """Read the first row as headers or not, or count a row held back below it (the
        first says whether the header is styled apart; after ``SNIFF_ROWS`` it is not one)."""
        if self.first_row:
            if header_row(self.first_row):
                self.named, self.held = {cell.column: cell for cell in self.first_row}, []
            self.first_row = None
        elif self.held and self.held[-1].row == self.row:
            self.held_rows += 1
            if self.held_rows == 1 and names_columns(self.named, self.held, styles=True):
                self._tell(True)
            elif self.held_rows >= SNIFF_ROWS:
                self._tell(False)

    def _tell(self, named: bool) -> None:
        """Keep the cells held back, under their columns' headers when the first row
        ``named`` the columns, as every cell after them."""
        self.headers = header_row(list(self.named.values())) if named else {}
        held, self.held = self.held or [], None
        for cell in held:
            self._keep(cell.row, cell.column, cell.text)

    def _keep(self, row: int, column: int, text: str) -> None:
        """Keep a cell's text as a block, under its column's header when it has one (but
        for the header's own text, as a header row repeated in an export holds)."""
        header = self.headers.get(column, "")
        if header and clean(text) == header:
            header = ""
        place = Place(sheet=self.sheet, row=row, column=column)
        self.reading.kept.add(text, "table_cell", place, (self.sheet,), header)
        if self.reading.kept.full:
            raise _Stop

    def _text(self, raw: str) -> str:
        """A cell's value as text: a shared string looked up, a boolean as True or False,
        a number in a date style as an ISO date, others as written."""
        if self.kind == "s":
            index = written_whole(raw.strip(), -1)
            if 0 <= index < len(self.reading.strings):
                self.reading.cut = self.reading.cut or index in self.reading.long_strings
                return self.reading.strings[index]
            self.reading.cut = self.reading.cut or self.reading.strings_cut
            return ""
        if self.kind == "b":
            return {"1": "True", "0": "False"}.get(raw.strip(), raw)
        if self.kind == "n" and raw and self.style in self.reading.numbers.dates:
            return _date_text(raw, self.style, self.reading.numbers) or raw
        return raw


def header_row(cells: list[Cell]) -> dict[int, str]:
    """Each column's header when a row's cells can name columns: at least two, all text,
    each its own and none longer than ``MAX_HEADER_CHARS``; else none (a lone cell is a
    title, and a row holding a number or a date is data, as an export's first row so often
    is)."""
    names = {cell.column: clean(cell.text) for cell in cells}
    if len(names) < 2 or any(cell.kind not in TEXT_KINDS for cell in cells):
        return {}
    if len(set(names.values())) < len(names) or not all(
        0 < len(name) <= MAX_HEADER_CHARS for name in names.values()
    ):
        return {}
    return names


def names_columns(header: Mapping[int, Cell], below: list[Cell], styles: bool = False) -> bool:
    """Whether ``header`` (a row ``header_row`` reads as headers, its cells by column)
    names the columns of the cells ``below`` it, as ``csv.Sniffer.has_header`` reasons:
    one of its columns holds a number, a date or a boolean below its text; or, with
    ``styles`` (``below`` the row under it), each cell of that row is styled otherwise than
    its header (a bold header row). Text alike above and below (names and addresses) names
    nothing."""
    if any(cell.kind in DATA_KINDS and cell.column in header for cell in below):
        return True
    shared = [cell for cell in below if cell.column in header]
    return styles and bool(shared) and all(c.style != header[c.column].style for c in shared)


@functools.lru_cache(maxsize=MAX_ROW_CELLS)
def _column(letters: str) -> int:
    """A column's number from its letters (A is 1, AA is 27)."""
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def _date_text(raw: str, style: int, numbers: Numbers) -> str | None:
    """The ISO form of the date, time or duration a serial number in a date style stands
    for (as openpyxl reads it), None when it is no number or out of range."""
    from openpyxl.utils.datetime import from_excel

    try:
        value = from_excel(float(raw), numbers.epoch, timedelta=style in numbers.durations)
    except (ValueError, OverflowError):
        return None
    return value.isoformat() if isinstance(value, date | clock) else str(value)


def numbers_of(book: Any) -> Numbers:
    """How ``book`` (an openpyxl workbook) states dates."""
    return Numbers(frozenset(book._date_formats), frozenset(book._timedelta_formats), book.epoch)
