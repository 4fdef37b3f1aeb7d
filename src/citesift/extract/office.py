"""Word, PowerPoint and Excel files to blocks, through python-docx, python-pptx and openpyxl:
paragraphs, headings with their heading path, tables as cells, with the paragraph, slide,
sheet, row and column on every block, and the title, author and date the file states.

The package is checked first (``sniff``: members, and the size each inflates to, bounded). Only
text and the values cells last held are read: no macro, formula, link or remote part is
run or fetched. A file the library cannot parse is a ``DocumentError``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from citesift.errors import CitesiftError, DocumentError
from citesift.extract import sheets
from citesift.extract.collect import Collector, FileText
from citesift.extract.sniff import DocumentKind, check_inflation, package, streamed_parts
from citesift.model import BlockKind, Place
from citesift.numbers import written_whole

if TYPE_CHECKING:
    from docx.table import Table


def read_office(kind: DocumentKind, body: bytes, budget: int) -> FileText:
    """The text of the Office file ``body`` of ``kind`` within ``budget`` characters."""
    with package(body) as archive:  # its bounds hold before any library inflates a member
        check_inflation(archive, streamed_parts(archive) if kind == "xlsx" else frozenset())
    reader: Callable[[io.BytesIO, Collector], FileText] = _READERS[kind]
    try:
        return reader(io.BytesIO(body), Collector(budget))
    except CitesiftError:
        raise
    except Exception as error:  # any parse failure of a hostile file: say what it was
        raise DocumentError(f"a {kind.upper()} file that cannot be read: {error!r}") from error


def _docx(stream: io.BytesIO, kept: Collector) -> FileText:
    import docx  # the Office readers load only when an Office file is read: start-up stays light
    from docx.table import Table

    document = docx.Document(stream)
    headings = _Headings()
    for index, item in enumerate(document.iter_inner_content(), start=1):
        if kept.full:
            break
        if isinstance(item, Table):
            _docx_table(item, kept, Place(paragraph=index), headings.path)
            continue
        level = _heading_level(item.style.name if item.style is not None else "")
        text = " ".join(item.text.split())
        if level and text:
            kept.add(text, "heading", Place(paragraph=index), headings.enter(level, text))
        else:
            listed = item.style is not None and "List" in item.style.name
            kind: BlockKind = "list_item" if listed else "paragraph"
            kept.add(text, kind, Place(paragraph=index), headings.path)
    return _stated(kept, document.core_properties, "author")


def _docx_table(table: Table, kept: Collector, where: Place, section: tuple[str, ...]) -> None:
    """Each cell of ``table`` once, at the grid column it starts in. The cells are read from
    the rows' XML: python-docx lists a cell once per column it spans and finds the head of a
    vertical merge by walking up row by row, so a stated span of a billion columns, or a
    merge down thousands of rows, would cost that much."""
    from docx.table import _Cell

    for row_number, row in enumerate(table.rows, start=1):
        column = 1
        for cell in row._tr.tc_lst:
            if cell.vMerge != "continue":  # a merge's later rows repeat the cell above
                place = Place(paragraph=where.paragraph, row=row_number, column=column)
                kept.add(_Cell(cell, table).text, "table_cell", place, section)
            column += cell.grid_span


def _heading_level(style: str) -> int:
    """A paragraph style's heading level (``Title`` is 1, ``Heading N`` is N), else 0."""
    if style == "Title":
        return 1
    name, _, number = style.rpartition(" ")
    return written_whole(number, 0) if name == "Heading" else 0


class _Headings:
    """The path of headings above the current block."""

    def __init__(self) -> None:
        self._open: list[tuple[int, str]] = []

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._open)

    def enter(self, level: int, text: str) -> tuple[str, ...]:
        """Open a heading at ``level``; its section is the path of the headings above it."""
        self._open = [(lv, t) for lv, t in self._open if lv < level]
        above = self.path
        self._open.append((level, text))
        return above


def _pptx(stream: io.BytesIO, kept: Collector) -> FileText:
    import pptx
    from pptx.enum.shapes import PP_PLACEHOLDER

    titles = (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE)
    deck = pptx.Presentation(stream)
    for number, slide in enumerate(deck.slides, start=1):
        if kept.full:
            break
        title = slide.shapes.title
        heading = " ".join(title.text_frame.text.split()) if title is not None else ""
        section = (heading,) if heading else ()
        paragraph = 0
        for shape in _shapes(slide.shapes):
            if shape.has_text_frame:
                is_title = shape.is_placeholder and shape.placeholder_format.type in titles
                for para in shape.text_frame.paragraphs:
                    paragraph += 1
                    where = Place(slide=number, paragraph=paragraph)
                    if is_title:
                        kept.add(para.text, "heading", where)
                    else:
                        kept.add(para.text, "paragraph", where, section)
            elif shape.has_table:
                paragraph += 1
                for r, row in enumerate(shape.table.rows, start=1):
                    for c, cell in enumerate(row.cells, start=1):
                        if not cell.is_spanned:
                            where = Place(slide=number, paragraph=paragraph, row=r, column=c)
                            kept.add(cell.text, "table_cell", where, section)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            text = slide.notes_slide.notes_text_frame.text
            kept.add(text, "note", Place(slide=number, paragraph=paragraph + 1), section)
    return _stated(kept, deck.core_properties, "author")


def _shapes(shapes: Any) -> Iterator[Any]:
    """The shapes of a slide in order, those inside groups included."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes(shape.shapes)
        else:
            yield shape


def _xlsx(stream: io.BytesIO, kept: Collector) -> FileText:
    reader = _workbook(stream)
    try:
        reading = sheets.Reading(kept, sheets.numbers_of(reader.wb))
        if reader.strings_path is not None:
            sheets.read_shared_strings(reader.archive, reader.strings_path, reading)
        for name, path in reader.sheets:
            if kept.full:
                break
            sheets.read_sheet(reader.archive, path, name, reading)
        kept.cut = kept.cut or reading.cut
        return _stated(kept, reader.wb.properties if reader.stated else None, "creator")
    finally:
        reader.archive.close()


def _workbook(stream: io.BytesIO) -> Any:
    """The workbook read by openpyxl but for its sheets, shared strings and defined names
    (the sheets and strings are read after, as streams, by ``sheets``): their parts' paths,
    with the workbook, whether its stated properties could be read (a creation date no
    calendar holds is no reason to lose the sheets: ``openpyxl.load_workbook`` refuses the
    whole book for it), and its styles."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.xml.constants import SHARED_STRINGS

    class Reader(ExcelReader):  # type: ignore[misc]
        stated = True
        strings_path: str | None = None
        sheets: tuple[tuple[str, str], ...] = ()

        def read_properties(self) -> None:
            try:
                super().read_properties()
            except (ValueError, TypeError, OverflowError):
                self.stated = False

        def read_strings(self) -> None:
            found = self.package.find(SHARED_STRINGS)
            self.strings_path = found.PartName[1:] if found is not None else None

        def read_worksheets(self) -> None:
            self.sheets = tuple(
                (str(sheet.name), rel.target)
                for sheet, rel in self.parser.find_sheets()
                if rel.target in self.valid_files and "chartsheet" not in rel.Type
            )
            # openpyxl then binds the defined names (print areas, names of one sheet) to
            # the sheets it read, and warns of each it finds none for: none are read here
            self.parser.assign_names = lambda: None

    reader = Reader(stream, read_only=True, data_only=True, keep_links=False)
    try:
        reader.read()
    except BaseException:
        reader.archive.close()
        raise
    return reader


def _stated(kept: Collector, props: object, author: str) -> FileText:
    """What was kept, with the title, author (``props``' attribute of that name), date and
    language the file states (``props``, None when they could not be read); a value its
    library cannot read (a date out of range) is left out, never the file's text with it."""

    def value(name: str) -> Any:
        try:
            return getattr(props, name, None)
        except (ValueError, OverflowError, TypeError):
            return None

    date = _ms(value("created")) or _ms(value("modified"))
    return kept.result(value("title"), value(author), date, value("language"))


def _ms(moment: object) -> int | None:
    """A file's date (naive ones are UTC) in epoch milliseconds, None when it is none or
    out of range."""
    if not isinstance(moment, datetime):
        return None
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    try:
        return int(aware.timestamp() * 1000)
    except (OverflowError, ValueError, OSError):
        return None


_READERS: dict[DocumentKind, Callable[[io.BytesIO, Collector], FileText]] = {
    "docx": _docx,
    "pptx": _pptx,
    "xlsx": _xlsx,
}
