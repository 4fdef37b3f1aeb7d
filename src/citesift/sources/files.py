"""Local files read into documents: text and HTML, capped in size, binary files refused."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citesift.encoding import decode_html
from citesift.errors import CitesiftError
from citesift.extract.document import extract_document
from citesift.extract.rules import Mode
from citesift.model import SourceDocument

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")
MAX_FILE_BYTES = 128 * 1024 * 1024
"""The largest file (or standard input) a command reads."""
WIDE_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
"""Byte order marks of the encodings whose text is full of NUL bytes (UTF-32's start alike)."""


class FileRefused(CitesiftError):
    """A file that cannot be read into a document, and why."""


def indexable_files(folder: Path) -> Iterator[Path]:
    """The text and HTML files under ``folder``, in a stable order."""
    kinds = TEXT_SUFFIXES + HTML_SUFFIXES
    return iter(sorted(p for p in folder.rglob("*") if p.suffix.lower() in kinds and p.is_file()))


def file_document(path: Path, mode: Mode = "article") -> dict[str, Any] | SourceDocument:
    """A text file as a document dict, an HTML file read into a ``SourceDocument`` in
    ``mode``; either is named by the file's absolute path, so the same file added from
    anywhere is one document."""
    suffix = path.suffix.lower()
    if suffix not in TEXT_SUFFIXES + HTML_SUFFIXES:
        raise FileRefused(f"only {', '.join(TEXT_SUFFIXES + HTML_SUFFIXES)} files can be indexed")
    text = decode_html(_bytes(path))[0]
    absolute = path.resolve()
    url, key = absolute.as_uri(), str(absolute)
    if suffix in HTML_SUFFIXES:
        return extract_document(text, url=url, site="file", key=key, mode=mode)
    return {
        "id": key,
        "content": text,
        "metadata": {"title": path.name, "url": url, "site": "file"},
    }


def document_ids(names: list[str]) -> list[str]:
    """The ids ``names`` can mean: each as given, and a file path also as its absolute path."""
    return list(dict.fromkeys(i for name in names for i in (name, *_absolute(name))))


def _absolute(name: str) -> tuple[str, ...]:
    """``name`` as an absolute path, when it can be one."""
    try:
        return (str(Path(name).resolve()),)
    except (OSError, ValueError):
        return ()


def _bytes(path: Path) -> bytes:
    """The file's bytes: at most ``MAX_FILE_BYTES``, and no NUL byte (binary data) unless a
    UTF-16 or UTF-32 byte order mark says the text is wide."""
    try:
        with path.open("rb") as handle:
            body = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise FileRefused(f"cannot be read: {error.strerror or error}") from error
    if len(body) > MAX_FILE_BYTES:
        raise FileRefused(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    if b"\x00" in body and not body.startswith(WIDE_BOMS):
        raise FileRefused("holds NUL bytes: binary data, not text")
    return body
