"""PDF to blocks through PDFium: each page's text as paragraphs, the page on every block,
and the title, author and date the file states.

PDFium reads the bytes in memory (no file, no network, no scripts run); it is not safe to
call from two threads at once, so one PDF is read at a time (``_PDFIUM``). A file with a
password, a broken one, one of more than ``MAX_PAGES`` pages or one whose streams inflate
past their caps (``pdf_streams``, checked before PDFium sees the file) is a
``DocumentError``; pages stop being read once the text budget is spent, or once reading
has taken ``MAX_SECONDS`` (the document is then truncated).
"""

from __future__ import annotations

import re
import threading
import time

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pypdfium2.internal import ErrorToStr

from citesift.errors import DocumentError
from citesift.extract.collect import Collector, FileText
from citesift.extract.dates import parse_date_ms
from citesift.extract.pdf_streams import check_streams
from citesift.model import Place

MAX_PAGES = 5_000
MAX_SECONDS = 30.0
"""Pages stop being read once a PDF has taken this long (pages may share a costly stream)."""
_PDFIUM = threading.Lock()
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_PDF_DATE = re.compile(
    r"D:(\d{4})(\d\d)?(\d\d)?(\d\d)?(\d\d)?(\d\d)?(?:(Z)|([+-])(\d\d)'?(\d\d)?'?)?"
)


def read_pdf(body: bytes, budget: int, seconds: float = MAX_SECONDS) -> FileText:
    """The text of the PDF ``body``, page by page, within ``budget`` characters; no page is
    begun once reading has taken ``seconds``."""
    check_streams(body)
    with _PDFIUM:
        return _read(body, budget, seconds)


def _read(body: bytes, budget: int, seconds: float) -> FileText:
    document = _open(body)
    try:
        pages = len(document)
        if pages > MAX_PAGES:
            raise DocumentError(f"a PDF of {pages} pages: more than {MAX_PAGES} are not read")
        kept = Collector(budget)
        started = time.monotonic()
        for number in range(1, pages + 1):
            kept.cut = kept.cut or time.monotonic() - started > seconds  # no budget lifts it
            if kept.full or kept.cut:
                break
            for index, paragraph in enumerate(_paragraphs(document, number), start=1):
                kept.add(paragraph, "paragraph", Place(page=number, paragraph=index))
        meta = document.get_metadata_dict(skip_empty=True)
    except pdfium.PdfiumError as error:
        raise DocumentError(f"a PDF that cannot be read: {error}") from error
    finally:
        document.close()
    date = pdf_date(meta.get("CreationDate")) or pdf_date(meta.get("ModDate"))
    return kept.result(meta.get("Title"), meta.get("Author"), date)


def _open(body: bytes) -> pdfium.PdfDocument:
    """The PDF opened in memory, or ``DocumentError`` saying why it cannot be. PDFium's last
    error is one for the whole process, and a load that fails for want of pages sets none:
    so it is read right after the load failed, and a PDF that loads is counted for pages
    here, never taken from an error another file left."""
    raw = pdfium_c.FPDF_LoadMemDocument64(body, len(body), None)
    if not raw:
        code = pdfium_c.FPDF_GetLastError()
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            raise DocumentError("an encrypted PDF that needs a password")
        reason = ErrorToStr.get(code, f"error {code}")
        raise DocumentError(f"not a readable PDF (PDFium: {reason})")
    document = pdfium.PdfDocument(raw)  # ``body`` outlives it: ``_read`` holds it throughout
    if len(document) < 1:
        document.close()
        raise DocumentError("a PDF with no pages")
    return document


def _paragraphs(document: pdfium.PdfDocument, number: int) -> list[str]:
    """The text of page ``number`` (from 1), split where a blank line parts it."""
    page = document[number - 1]
    try:
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_bounded()
        finally:
            textpage.close()
    finally:
        page.close()
    return _PARAGRAPH_BREAK.split(text.replace("\r\n", "\n").replace("\r", "\n"))


def pdf_date(value: str | None) -> int | None:
    """A PDF date (``D:YYYYMMDDHHmmSS+HH'mm'``, any tail left out) in epoch ms, or None."""
    found = _PDF_DATE.match(value.strip()) if value else None
    if found is None:
        return None
    year, month, day, hour, minute, second, utc, sign, zone_h, zone_m = found.groups()
    zone = "+00:00" if utc or not sign else f"{sign}{zone_h}:{zone_m or '00'}"
    return parse_date_ms(
        f"{year}-{month or '01'}-{day or '01'}T{hour or '00'}:{minute or '00'}:"
        f"{second or '00'}{zone}"
    )
