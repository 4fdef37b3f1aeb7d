"""Local files read into documents: text and HTML, and PDF and Office files told by their
bytes (not their names), capped in size; other binary files refused.

A file's document id is its ``file://`` URI with every byte of the name percent-encoded,
so any name (one that is not UTF-8 included) has one id of its own, the same from
wherever the file is named.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote_from_bytes, urlsplit

from citesift.checks import encodable
from citesift.encoding import decode_html, wide_charset
from citesift.errors import CitesiftError, DocumentError
from citesift.extract.document import extract_document, now_ms
from citesift.extract.html import DEFAULT_BUDGET
from citesift.extract.notes import note_document
from citesift.extract.notes.note import file_title
from citesift.extract.plaintext import text_document
from citesift.extract.rules import Mode
from citesift.extract.sniff import DocumentKind, document_kind
from citesift.model import SourceDocument
from citesift.sources.web import page_address
from citesift.store.location import uri_path

NOTE_SUFFIXES = (".md", ".markdown")
"""Text files read as Markdown notes (front matter, wikilinks, sections)."""
TEXT_SUFFIXES = (".txt", *NOTE_SUFFIXES)
"""Text files: Markdown notes, and plain text (read as it stands, no markup)."""
HTML_SUFFIXES = (".html", ".htm")
DOCUMENT_SUFFIXES = (".pdf", ".docx", ".pptx", ".xlsx")
"""What a folder's files are named to be indexed; each file is read as what its bytes are."""
INDEXABLE_SUFFIXES = TEXT_SUFFIXES + HTML_SUFFIXES + DOCUMENT_SUFFIXES
TEXT_READER = ":text"
"""What a plain text file's revision ends with: the reader that read it (a file indexed when
``.txt`` was read as Markdown has its content hash alone, and is read again)."""
SHEETS_READER = ":headers"
"""What an Excel file's revision ends with: its sheets read with their header rows (a
workbook indexed with its cells bare has its content hash alone, and is read again)."""
NO_TEXT_LAYER = "no text layer (scanned? OCR it first)"
"""Why a PDF whose pages hold no text gave none."""
MAX_FILE_BYTES = 128 * 1024 * 1024
"""The largest file (or standard input) a command reads."""
NOT_REGULAR = "not a regular file (a FIFO, socket or device)"


class FileRefused(CitesiftError):
    """A file that cannot be read into a document, and why."""


def file_document(
    path: Path, mode: Mode = "article", budget: int = DEFAULT_BUDGET
) -> SourceDocument:
    """A file read into a ``SourceDocument``: an HTML file (in ``mode``), a PDF or Office
    file (whatever its name, told by its bytes), a Markdown note and a plain text file (its
    paragraphs as they stand, whole), each named by ``file_uri(path)`` with its revision
    the ``content_revision`` of its bytes, so each of its passages is attributed alike, and
    each held to ``budget`` characters of text (``truncated`` when it cut one short).
    ``FileRefused`` says why a file cannot be one (its kind, its size, binary content, a
    broken or encrypted document, not a regular file, unreadable)."""
    if path.suffix.lower() not in INDEXABLE_SUFFIXES:
        raise FileRefused(only_indexable())
    return body_document(path, file_bytes(path), mode, budget)


def body_document(
    path: Path, body: bytes, mode: Mode = "article", budget: int = DEFAULT_BUDGET
) -> SourceDocument:
    """The bytes ``body`` read from ``path`` as ``file_document`` reads them, by their
    content first (a PDF or Office file), else as text by the file's suffix: HTML, a
    Markdown note, or plain text (any other name; an empty file whatever its name). A
    document that states no title of its own is titled by its file name."""
    suffix = path.suffix.lower()
    uri, name = file_uri(path), readable_name(str(path))
    try:
        kind = document_kind(body)
        revision = _revision(path, body, kind)
        if kind is not None:
            return extracted_file(path, body, revision, mode, budget)
    except DocumentError as error:
        raise FileRefused(str(error)) from error
    if suffix in DOCUMENT_SUFFIXES and body:
        raise FileRefused(f"named {suffix} but not a PDF or Office file")
    text = file_text(body)
    if suffix in HTML_SUFFIXES:
        return extracted_file(path, text, revision, mode, budget)
    if suffix in NOTE_SUFFIXES:
        note = note_document(text, uri, name, now_ms(), budget=budget)
        return replace(note, revision=revision)
    document = text_document(text, uri, name, now_ms(), budget=budget)
    return replace(document, revision=revision)


def extracted_file(
    path: Path,
    source: str | bytes,
    revision: str,
    mode: Mode = "article",
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """``source`` read from the file at ``path`` (an HTML file's decoded text, or a PDF or
    Office file's bytes) by ``extract_document``, as a document of site ``file`` named by
    its ``file_uri`` (its id in an index) at ``revision``, titled by its file name when it
    states no title: how ``index add`` and ``extract`` name a file they read."""
    uri = file_uri(path)
    document = extract_document(source, url=uri, site="file", key=uri, mode=mode, budget=budget)
    if document.title == uri:
        document = replace(document, title=file_title(readable_name(str(path))))
    return replace(document, revision=revision)


def why_empty(body: bytes) -> str:
    """Why a file holding ``body`` gave no text: it is empty, a PDF whose pages hold no
    text (a scan without a text layer), or its text is blank."""
    if not body:
        return "empty file"
    try:
        scanned = document_kind(body) == "pdf"
    except DocumentError:
        scanned = False
    return NO_TEXT_LAYER if scanned else "no text"


def only_indexable() -> str:
    """Why a file not named as an indexable one is refused."""
    return f"only {', '.join(INDEXABLE_SUFFIXES)} files can be indexed"


def content_revision(body: bytes) -> str:
    """A file's revision: the sha256 of its bytes, so an unchanged file is known as such."""
    return "sha256:" + hashlib.sha256(body).hexdigest()


def file_revision(path: Path, body: bytes) -> str:
    """The revision ``body_document`` gives the file at ``path`` holding ``body``: its
    ``content_revision``, tagged ``TEXT_READER`` when it is read as plain text and
    ``SHEETS_READER`` when it is an Excel file, so a file indexed before that reader
    existed is read again."""
    try:
        kind = document_kind(body)
    except DocumentError:  # refused when read, whatever its revision
        return content_revision(body)
    return _revision(path, body, kind)


def _revision(path: Path, body: bytes, kind: DocumentKind | None) -> str:
    """``file_revision`` of ``body``, a file of ``kind`` (None: read as text by its name)."""
    revision = content_revision(body)
    if kind is not None:
        return revision + SHEETS_READER if kind == "xlsx" else revision
    if path.suffix.lower() in (*NOTE_SUFFIXES, *HTML_SUFFIXES, *DOCUMENT_SUFFIXES):
        return revision
    return revision + TEXT_READER


def file_uri(path: Path) -> str:
    """The ``file://`` URI of ``path`` made absolute (symbolic links resolved), each byte of
    the name outside the unreserved set percent-encoded: lossless for any file name."""
    return "file://" + quote_from_bytes(os.fsencode(path.resolve()), safe="/")


def document_ids(names: list[str]) -> list[str]:
    """The ids ``names`` can mean: each as given (a URL or an id; not a file name that is
    not UTF-8, which no id is), a page's URL without its ``#fragment`` (as its document is
    kept), and each that can name a file (a path, or a ``file:`` URI written another way)
    as its ``file_uri``."""
    given = (i for name in names for i in (name, *_as_id(name)))
    return list(dict.fromkeys(i for i in given if encodable(i)))


def _as_id(name: str) -> tuple[str, ...]:
    """``name`` as the id of the page or file it can name."""
    try:
        parts = urlsplit(name)
        if parts.scheme == "file":
            return (file_uri(Path(uri_path(name))),)
        if parts.scheme in ("http", "https"):
            return (page_address(name),)
        return (file_uri(Path(name)),)
    except (OSError, ValueError):
        return ()


def readable_name(name: str) -> str:
    """A file name as text: a byte that is not UTF-8 written as ``%NN``, as in its ``file:``
    URI (never with a backslash, which a note's title rule reads as a separator)."""
    raw, parts = os.fsencode(name), []
    while raw:
        try:
            parts.append(raw.decode("utf-8"))
            break
        except UnicodeDecodeError as error:
            parts.append(raw[: error.start].decode("utf-8"))
            parts.append("".join(f"%{byte:02X}" for byte in raw[error.start : error.end]))
            raw = raw[error.end :]
    return "".join(parts)


def file_bytes(path: Path) -> bytes:
    """The bytes of the regular file at ``path``: ``FileRefused`` when there are more than
    ``MAX_FILE_BYTES``. A FIFO, socket or device is refused without
    being read (a FIFO never blocks)."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise FileRefused(f"cannot be read: {error.strerror or error}") from error
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            folder = stat.S_ISDIR(status.st_mode)
            raise FileRefused("a folder, not a file" if folder else NOT_REGULAR)
        with open(handle, "rb", closefd=False) as file:
            # a buffer of the file's size, not of the cap; the rest of a file that grew
            body = file.read(min(status.st_size, MAX_FILE_BYTES) + 1)
            if len(body) > status.st_size:
                body += file.read(MAX_FILE_BYTES + 1 - len(body))
    except OSError as error:
        raise FileRefused(f"cannot be read: {error.strerror or error}") from error
    finally:
        os.close(handle)
    if len(body) > MAX_FILE_BYTES:
        raise FileRefused(too_large())
    return body


def checked_text(body: bytes) -> bytes:
    """``body`` when it can be text: ``FileRefused`` when larger than ``MAX_FILE_BYTES`` or
    holding NUL bytes and not written in 16 or 32 bit units (``wide_charset``: a BOM, or
    the NULs of BOM-less UTF-16)."""
    if len(body) > MAX_FILE_BYTES:
        raise FileRefused(too_large())
    if b"\x00" in body and wide_charset(body) is None:
        raise FileRefused("holds NUL bytes: binary data, not text")
    return body


def file_text(body: bytes) -> str:
    """The text of a file's bytes, checked as ``checked_text`` does and decoded by its byte
    order mark, ``<meta charset>`` or the charset its bytes read best in (not UTF-8 alone:
    a UTF-16 file read as UTF-8 would be text of NULs and lose every word)."""
    return decode_html(checked_text(body))[0]


def too_large() -> str:
    """Why a file past ``MAX_FILE_BYTES`` is refused."""
    return f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB"
