"""PDF, Word, PowerPoint and Excel files made for tests: PDFs written by hand (so a test
controls their metadata, page count and encryption), Office files by their own writers."""

from __future__ import annotations

import hashlib
import io
import struct
import zipfile
from collections.abc import Callable, Iterable, Mapping

import docx
import openpyxl
import pptx

PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
"""The padding the PDF standard security handler puts after a password."""
FILE_ID = b"citesift-test-id"
PERMISSIONS = -44


def pdf(
    pages: list[str],
    info: dict[str, str] | None = None,
    password: bytes | None = None,
    copies: int = 1,
) -> bytes:
    """A PDF whose pages show ``pages`` (one line of Helvetica each; a line break starts a
    new line), repeated ``copies`` times (the copies share their content streams), with
    ``info`` as its document information and, given a ``password``, RC4-encrypted (the
    standard security handler, revision 2) so that it opens only with that password."""
    objects: dict[int, bytes] = {}
    first_page = 5
    count = len(pages)
    kids = [first_page + 2 * (i % count) for i in range(count * copies)] if count else []
    kid_refs = b" ".join(b"%d 0 R" % k for k in kids)
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kid_refs, len(kids))
    objects[3] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    entries = b" ".join(b"/%s %s" % (k.encode(), _string(v)) for k, v in (info or {}).items())
    objects[4] = b"<< " + entries + b" >>"
    for i, text in enumerate(pages):
        number = first_page + 2 * i
        objects[number] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (number + 1)
        )
        lines = b" ".join(b"%s Tj T*" % _string(line) for line in text.split("\n"))
        objects[number + 1] = b"BT /F1 12 Tf 14 TL 72 720 Td " + lines + b" ET"
    key, encrypt = _encryption(password) if password is not None else (None, None)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, int] = {}
    for number in sorted(objects):
        body = objects[number]
        offsets[number] = out.tell()
        if number > 4 and number % 2 == 0:  # a content stream
            if key is not None:
                body = _rc4(_object_key(key, number), body)
            out.write(b"%d 0 obj\n<< /Length %d >>\nstream\n" % (number, len(body)))
            out.write(body + b"\nendstream\nendobj\n")
        else:
            out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    extra = b""
    if encrypt is not None:
        number = max(objects) + 1
        offsets[number] = out.tell()
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, encrypt))
        extra = b" /Encrypt %d 0 R" % number
    size = max(offsets) + 1
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % size)
    for number in range(1, size):
        out.write(b"%010d 00000 n \n" % offsets[number])
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R /ID [<%s> <%s>]%s >>\n"
        % (size, FILE_ID.hex().encode(), FILE_ID.hex().encode(), extra)
    )
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def _string(text: str) -> bytes:
    """A PDF literal string (Latin-1 text)."""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("latin-1") + b")"


def _encryption(password: bytes) -> tuple[bytes, bytes]:
    """The file key and the /Encrypt dictionary for user password ``password``."""
    padded = (password + PAD)[:32]
    owner = _rc4(hashlib.md5((b"owner" + PAD)[:32]).digest()[:5], padded)
    key = hashlib.md5(padded + owner + struct.pack("<i", PERMISSIONS) + FILE_ID).digest()[:5]
    user = _rc4(key, PAD)
    encrypt = b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P %d >>" % (
        owner.hex().encode(),
        user.hex().encode(),
        PERMISSIONS,
    )
    return key, encrypt


def _object_key(key: bytes, number: int) -> bytes:
    return hashlib.md5(key + number.to_bytes(3, "little") + b"\x00\x00").digest()[:10]


def _rc4(key: bytes, data: bytes) -> bytes:
    box = list(range(256))
    j = 0
    for i in range(256):
        j = (j + box[i] + key[i % len(key)]) % 256
        box[i], box[j] = box[j], box[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + box[i]) % 256
        box[i], box[j] = box[j], box[i]
        out.append(byte ^ box[(box[i] + box[j]) % 256])
    return bytes(out)


def word_file() -> bytes:
    """A Word file: a title, headings two deep, prose, a list item and a 2x2 table."""
    document = docx.Document()
    document.core_properties.title = "Annual river survey"
    document.core_properties.author = "Hydrology Team"
    document.add_heading("Findings", 1)
    document.add_paragraph("The Ouse carried record silt in March.")
    document.add_heading("Method", 2)
    document.add_paragraph("Samples were drawn weekly.", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for (r, c), text in {(0, 0): "Site", (0, 1): "Silt", (1, 0): "York", (1, 1): "41"}.items():
        table.cell(r, c).text = text
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def slides_file() -> bytes:
    """A PowerPoint file of two slides, each with a title and points, the second with notes."""
    deck = pptx.Presentation()
    for title, points in (("Budget", "Costs fell by a tenth."), ("Plans", "Hire two rangers.")):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = points
    deck.slides[1].notes_slide.notes_text_frame.text = "Ask about the van."
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def sheets_file() -> bytes:
    """An Excel file of two sheets: a small table, and one value far down and right."""
    book = openpyxl.Workbook()
    sales = book.active
    sales.title = "Sales"
    sales.append(["Region", "Total"])
    sales.append(["North", 42])
    book.create_sheet("Notes")["C7"] = "Audited in May"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def long_sheet(rows: int) -> bytes:
    """An Excel file of one sheet, ``Sales``, of ``rows`` rows of two one-digit numbers: a
    place for every few characters of its text."""
    book = openpyxl.Workbook()
    sales = book.active
    sales.title = "Sales"
    for row in range(rows):
        sales.append([row % 10, row % 7])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def with_member(package: bytes, name: str, size: int, declared: int | None = None) -> bytes:
    """``package`` (a zip) with member ``name`` replaced by ``size`` bytes of one letter,
    compressed; ``declared`` makes the central directory claim that size instead."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(package)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as target,
    ):
        for item in source.infolist():
            if item.filename != name:
                target.writestr(item, source.read(item))
        with target.open(name, "w", force_zip64=size > 0xFFFF_FFFF) as member:
            chunk = b"a" * (1 << 20)
            for start in range(0, size, len(chunk)):
                member.write(chunk[: size - start])
    body = out.getvalue()
    return body if declared is None else _declare(body, name, declared)


def _declare(body: bytes, name: str, size: int) -> bytes:
    """``body`` with the central directory's uncompressed size of ``name`` set to ``size``."""
    raw = bytearray(body)
    at = raw.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46 : at + 46 + length] == name.encode():
            struct.pack_into("<I", raw, at + 24, size)
            return bytes(raw)
        at = raw.find(b"PK\x01\x02", at + 4)
    raise KeyError(name)


def edited(
    package: bytes,
    edit: Callable[[str, bytes], bytes | None],
    renamed: Mapping[str, str] | None = None,
) -> bytes:
    """``package`` (a zip) with each member's bytes passed through ``edit(name, data)``;
    a member it answers None for is left out, and one ``renamed`` names is stored under
    its new name."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(package)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            data = edit(item.filename, source.read(item))
            if data is not None:
                item.filename = (renamed or {}).get(item.filename, item.filename)
                target.writestr(item, data)
    return out.getvalue()


SPREADSHEET = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_TYPES = b"application/vnd.openxmlformats-officedocument.spreadsheetml."
_RELATIONS = b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PACKAGE_RELATIONS = b"http://schemas.openxmlformats.org/package/2006/relationships"


def workbook_file(rows: Iterable[bytes], strings: Iterable[bytes] | None = None) -> bytes:
    """An Excel file made by hand, its parts written a piece at a time: one sheet, "Data",
    whose ``<sheetData>`` holds the XML pieces ``rows``, and when ``strings`` are given
    (pieces of ``<si>`` elements) a shared strings part."""
    types = b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    types += b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    types += b'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    parts = {b"xl/workbook.xml": b"sheet.main", b"xl/worksheets/sheet1.xml": b"worksheet"}
    if strings is not None:
        parts[b"xl/sharedStrings.xml"] = b"sharedStrings"
    for name, kind in parts.items():
        types += b'<Override PartName="/%s" ContentType="%s%s+xml"/>' % (name, _TYPES, kind)
    book_rels = b'<Relationship Id="rId1" Type="%s/worksheet" Target="worksheets/sheet1.xml"/>'
    book_rels %= _RELATIONS
    if strings is not None:
        book_rels += (
            b'<Relationship Id="rId2" Type="%s/sharedStrings" Target="sharedStrings.xml"/>'
            % _RELATIONS
        )
    small = {
        "[Content_Types].xml": types + b"</Types>",
        "_rels/.rels": b'<Relationships xmlns="%s"><Relationship Id="rId1" Type="%s/officeDocument"'
        b' Target="xl/workbook.xml"/></Relationships>' % (_PACKAGE_RELATIONS, _RELATIONS),
        "xl/workbook.xml": b'<workbook %s xmlns:r="%s"><sheets><sheet name="Data" sheetId="1"'
        b' r:id="rId1"/></sheets></workbook>' % (SPREADSHEET, _RELATIONS),
        "xl/_rels/workbook.xml.rels": b'<Relationships xmlns="%s">%s</Relationships>'
        % (_PACKAGE_RELATIONS, book_rels),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, data in small.items():
            package.writestr(name, data)
        sheet = b"<worksheet %s><sheetData>" % SPREADSHEET
        _write_part(package, "xl/worksheets/sheet1.xml", sheet, rows, b"</sheetData></worksheet>")
        if strings is not None:
            _write_part(
                package, "xl/sharedStrings.xml", b"<sst %s>" % SPREADSHEET, strings, b"</sst>"
            )
    return out.getvalue()


def _write_part(
    package: zipfile.ZipFile, name: str, head: bytes, pieces: Iterable[bytes], tail: bytes
) -> None:
    with package.open(name, "w", force_zip64=True) as part:
        part.write(head)
        for piece in pieces:
            part.write(piece)
        part.write(tail)


def compound_file(streams: Mapping[str, bytes]) -> bytes:
    """A compound (OLE 2) file of 512-byte sectors holding ``streams`` at the root, as
    Office writes one: a FAT sector, a directory sector (the root and up to 3 streams, each
    the right sibling of the one before) and each stream's sectors (padded to 4,096 bytes
    at least, so that none is held in the mini stream)."""
    assert len(streams) <= 3, "one directory sector holds the root and three streams"
    end, free, fat_mark = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD
    fat, data, entries = [fat_mark, end], b"", []
    for number, (name, content) in enumerate(streams.items(), start=1):
        content = content.ljust(4096, b"\x00")
        padded = content.ljust(-(-len(content) // 512) * 512, b"\x00")
        first = len(fat)
        count = len(padded) // 512
        fat += [first + i + 1 for i in range(count - 1)] + [end]
        data += padded
        right = number + 1 if number < len(streams) else free
        entries.append(_directory_entry(name, 2, free, right, free, first, len(content)))
    root = _directory_entry("Root Entry", 5, free, free, 1 if streams else free, end, 0)
    directory = b"".join([root, *entries]).ljust(512, b"\x00")
    assert len(fat) <= 128, "one FAT sector maps 128 sectors"
    fat_sector = struct.pack("<128I", *(fat + [free] * (128 - len(fat))))
    header = bytes.fromhex("D0CF11E0A1B11AE1") + bytes(16)
    header += struct.pack("<HHHH", 0x3E, 3, 0xFFFE, 9) + struct.pack("<H", 6) + bytes(6)
    header += struct.pack("<IIIIIIIII", 0, 1, 1, 0, 4096, end, 0, end, 0)
    header += struct.pack("<109I", 0, *([free] * 108))
    return header + fat_sector + directory + data


def _directory_entry(
    name: str, kind: int, left: int, right: int, child: int, start: int, size: int
) -> bytes:
    """One 128-byte directory entry of a compound file."""
    encoded = (name + "\x00").encode("utf-16-le")
    return (
        encoded.ljust(64, b"\x00")
        + struct.pack("<HBB", len(encoded), kind, 1)
        + struct.pack("<III", left, right, child)
        + bytes(16 + 4 + 16)
        + struct.pack("<IQ", start, size)
    )
