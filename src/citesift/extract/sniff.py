"""What kind of file a body is, told by its magic bytes (and a zip package's own content
types), never by a name's suffix: a PDF, a Word, PowerPoint or Excel file, or neither.

An Office (OOXML) file is a zip: ``package`` opens one only within bounds (members, the
sizes they declare), so a zip bomb is refused before anything is inflated, and
``check_inflation`` reads each member in small steps, refusing one that inflates past the
size it declares (a reader inflates a member's whole stream in one call, whatever size it
declares) and a package whose XML parts hold more than ``MAX_XML_ELEMENTS`` elements (an
Excel file's sheets and shared strings aside: ``citesift.extract.sheets`` streams those,
within bounds of its own).
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from typing import Literal

from citesift.errors import DocumentError
from citesift.extract.ole import compound_file_refusal, is_compound_file

DocumentKind = Literal["pdf", "docx", "pptx", "xlsx"]

PDF_MAGIC = b"%PDF-"
_SPACE = b"\x00\t\n\x0c\r "
_XML_LEAD = b"\xef\xbb\xbf\xfe\xff" + _SPACE
"""What may come before an XML part's first "<": byte order marks, UTF-16's zero bytes, space."""
ZIP_MAGIC = b"PK\x03\x04"
MAX_ZIP_MEMBERS = 10_000
MAX_UNZIPPED_BYTES = 128 * 1024 * 1024
"""The most an Office file's members may hold, inflated, taken together."""
MAX_TYPES_BYTES = 1024 * 1024
"""The largest ``[Content_Types].xml`` read."""
MAX_XML_ELEMENTS = 1_000_000
"""The most elements an Office file's XML parts parsed whole may hold together. The readers'
memory and time follow the count of elements, not of bytes: python-docx and python-pptx
build a tree of each part, as openpyxl does of a workbook's own part and styles (a few
bytes of ``<x/>`` cost a hundred or more once parsed). A million is some 3,000 pages of
Word. An Excel file's sheets and shared strings are not counted: they are read as
streams, and what is kept of them is bounded instead."""
INFLATE_STEP = 1024 * 1024
_LOCAL_HEADER = struct.Struct("<4s22xHH")
_ENCRYPTED = 0x1
"""The general purpose flag of a zip member that is encrypted."""
_ZIP_ERRORS = (
    zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError, NotImplementedError,
    zlib.error, struct.error,
)  # fmt: skip
"""What the zip module raises on a package broken or odd in any way (a version it does not
know, offsets before the start, data that does not inflate)."""

_OOXML = "application/vnd.openxmlformats-officedocument."
_MAIN_TYPES: dict[str, DocumentKind] = {
    _OOXML + "wordprocessingml.document.main+xml": "docx",
    _OOXML + "presentationml.presentation.main+xml": "pptx",
    _OOXML + "spreadsheetml.sheet.main+xml": "xlsx",
}
_STREAMED_TYPES = {
    _OOXML + "spreadsheetml.worksheet+xml",
    _OOXML + "spreadsheetml.sharedStrings+xml",
}
_PARSED_WHOLE = {
    "[Content_Types].xml", "xl/styles.xml", "docProps/core.xml", "docProps/app.xml",
    "docProps/custom.xml",
}  # fmt: skip
"""The parts openpyxl parses whole by their names (the workbook's it finds in the content
types)."""
_MACRO_TYPES = re.compile(r"application/vnd\.ms-[\w.-]+\.macroenabled\.main\+xml", re.IGNORECASE)
_HEADER_TYPES: dict[str, DocumentKind] = {
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
    _OOXML + "wordprocessingml.document": "docx",
    _OOXML + "presentationml.presentation": "pptx",
    _OOXML + "spreadsheetml.sheet": "xlsx",
}
_MAIN_PARTS: dict[str, DocumentKind] = {
    "word/document.xml": "docx",
    "ppt/presentation.xml": "pptx",
    "xl/workbook.xml": "xlsx",
}


def document_kind(body: bytes, content_type: str | None = None) -> DocumentKind | None:
    """The kind of document ``body`` is, or None for text (HTML, plain text).

    The bytes decide: a PDF header (after white space at most), or a zip whose content
    types (else member names) say which Office file it is. A ``content_type`` naming a PDF
    or Office file, on a body that shows no such sign, still picks that kind, so a broken
    file gives a clear error instead of being read as text. A zip that is no Office file,
    or one with macros, is refused, as is a compound (OLE) file: an Office file saved with
    a password, or one in a format before OOXML.
    """
    if body[:1024].lstrip(_SPACE).startswith(PDF_MAGIC):  # as browsers sniff, space allowed
        return "pdf"
    if body.startswith(ZIP_MAGIC):
        with package(body) as archive:
            return _office_kind(archive)
    if is_compound_file(body):
        raise DocumentError(compound_file_refusal(body))
    declared = (content_type or "").split(";")[0].strip().lower()
    return _HEADER_TYPES.get(declared)


def package(body: bytes) -> zipfile.ZipFile:
    """``body`` opened as a zip, when its members are few enough and the sizes they declare
    add up to at most ``MAX_UNZIPPED_BYTES``, else ``DocumentError``; nothing is inflated
    (``check_inflation`` holds members to the sizes they declare)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(body))
    except _ZIP_ERRORS as error:
        raise DocumentError(f"not a readable zip package: {error}") from error
    members = archive.infolist()
    if len(members) > MAX_ZIP_MEMBERS:
        archive.close()
        raise DocumentError(f"a zip package of more than {MAX_ZIP_MEMBERS} members")
    if sum(member.file_size for member in members) > MAX_UNZIPPED_BYTES:
        archive.close()
        limit = MAX_UNZIPPED_BYTES // (1024 * 1024)
        raise DocumentError(f"a zip package that inflates past {limit} MiB")
    return archive


def check_inflation(archive: zipfile.ZipFile, streamed: frozenset[str] = frozenset()) -> None:
    """``DocumentError`` unless each member is stored or deflated and inflates to no more
    than the size it declares, and the XML parts but the ``streamed`` ones (read a piece at
    a time, within bounds of their own) hold ``MAX_XML_ELEMENTS`` elements at most; memory
    stays within ``INFLATE_STEP`` or so meanwhile."""
    elements = 0
    for member in archive.infolist():
        if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise DocumentError(f"a zip member compressed in an unusual way: {member.filename}")
        if member.flag_bits & _ENCRYPTED:
            raise DocumentError(f"an encrypted zip member: {member.filename}")
        size, xml = 0, None
        for piece in _pieces(archive, member):
            size += len(piece)
            if size > member.file_size:
                raise DocumentError(
                    f"a zip member inflates past its stated size: {member.filename}"
                )
            if xml is None and piece:
                xml = member.filename not in streamed and piece[:64].lstrip(_XML_LEAD)[:1] == b"<"
            if xml:  # an element starts at each "<" but those of end tags
                elements += piece.count(b"<") - piece.count(b"</")
            if elements > MAX_XML_ELEMENTS:
                raise DocumentError(
                    f"an Office file of more than {MAX_XML_ELEMENTS:,} XML elements: not read"
                )


def streamed_parts(archive: zipfile.ZipFile) -> frozenset[str]:
    """The parts of an Excel package that its content types name as sheets or shared
    strings, and as nothing else: those ``citesift.extract.sheets`` reads as streams. The
    content types are read as openpyxl reads them (its XML parser, which decodes character
    references), and the parts it parses whole are never among them, whatever type they
    claim: the one it takes for the workbook, those it finds by name (styles, properties)
    and relationships. When the content types cannot be read so, or run past
    ``MAX_TYPES_BYTES``, no part is streamed: every one is counted."""
    from openpyxl.packaging.manifest import Manifest
    from openpyxl.reader.excel import _find_workbook_part
    from openpyxl.xml.functions import fromstring

    types = _content_types(archive)
    if len(types) > MAX_TYPES_BYTES:
        return frozenset()
    try:
        manifest = Manifest.from_tree(fromstring(types))
        workbook = _find_workbook_part(manifest).PartName[1:]
    except Exception:  # whatever it is, openpyxl meets it too when it reads the file, and says so
        return frozenset()
    named: dict[str, set[str]] = {}
    for override in manifest.Override:
        named.setdefault(override.PartName.lstrip("/"), set()).add(override.ContentType)
    return frozenset(
        part
        for part, claimed in named.items()
        if claimed <= _STREAMED_TYPES
        and part not in _PARSED_WHOLE
        and part != workbook
        and not part.endswith(".rels")
    )


def _pieces(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> Iterator[bytes]:
    """The bytes ``member`` holds, inflated in pieces of at most ``INFLATE_STEP`` for as long
    as the caller reads (so one that inflates past its stated size is stopped there)."""
    if member.compress_type == zipfile.ZIP_STORED:
        try:
            with archive.open(member) as stored:
                while piece := stored.read(INFLATE_STEP):
                    yield piece
        except _ZIP_ERRORS as error:
            raise DocumentError(f"a zip member that cannot be read: {member.filename}") from error
        return
    source = archive.fp
    if source is None:
        raise DocumentError("a zip package already closed")
    try:
        source.seek(member.header_offset)
        header = source.read(_LOCAL_HEADER.size)
    except _ZIP_ERRORS as error:  # an offset before the start of the file
        raise DocumentError(f"a zip member with a broken header: {member.filename}") from error
    if len(header) < _LOCAL_HEADER.size or not header.startswith(ZIP_MAGIC):
        raise DocumentError(f"a zip member with a broken header: {member.filename}")
    _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    source.seek(name_length + extra_length, io.SEEK_CUR)
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    left = member.compress_size
    try:
        while left > 0 or inflater.unconsumed_tail:
            data = inflater.unconsumed_tail or source.read(min(left, INFLATE_STEP))
            if not inflater.unconsumed_tail:
                if not data:
                    break
                left -= len(data)
            yield inflater.decompress(data, INFLATE_STEP)
    except zlib.error as error:
        raise DocumentError(f"a zip member that does not inflate: {member.filename}") from error


def _office_kind(archive: zipfile.ZipFile) -> DocumentKind:
    """Which Office file the package is, by its content types, else its main part's name."""
    types = _content_types(archive).decode("utf-8", "replace")
    if _MACRO_TYPES.search(types):
        raise DocumentError("an Office file with macros: not read")
    for content_type, kind in _MAIN_TYPES.items():
        if content_type in types:
            return kind
    names = set(archive.namelist())
    for name, kind in _MAIN_PARTS.items():
        if name in names:
            return kind
    raise DocumentError("a zip package that is not a Word, PowerPoint or Excel file")


def _content_types(archive: zipfile.ZipFile) -> bytes:
    """The package's ``[Content_Types].xml`` (its first ``MAX_TYPES_BYTES`` and a byte more,
    which shows a longer one), or nothing."""
    try:
        with archive.open("[Content_Types].xml") as part:
            return part.read(MAX_TYPES_BYTES + 1)
    except KeyError:
        return b""
    except _ZIP_ERRORS as error:
        raise DocumentError(f"an unreadable zip package: {error}") from error
