"""A PDF stream's dictionary read as text before the file is parsed: the object opened
last before the stream's keyword (an ``obj`` keyword in a string, a comment or a word is
passed over), its strings and comments left out, so that a ``/Filter`` in them names
nothing."""

from __future__ import annotations

import re

from citesift.extract.pdf_filters import WHITE

DICT_BYTES = 64 * 1024
"""How far before a stream's keyword its dictionary is looked for."""
MAX_STARTS = 64
"""The most ``obj`` keywords tried, going back from a stream's keyword, for the one opening
its object (those in strings, comments or other words are passed over)."""
_OBJ_END = re.compile(rb"[0-9]+[\x00\t\n\x0c\r ]+[0-9]+[\x00\t\n\x0c\r ]+\Z")
"""The object number and generation just before an ``obj`` keyword (searched up to it)."""
_STRING = re.compile(rb"\((?:[^()\\]|\\.)*\)", re.DOTALL)
"""A literal string holding no other: strings are left out innermost first."""
_COMMENT = re.compile(rb"%[^\r\n]*")
_SYNTAX = re.compile(rb"\\.|[()%]", re.DOTALL)
"""What opens or closes a string or a comment (an escaped byte, in a string)."""
_LINE_END = re.compile(rb"[\r\n]")
MAX_NESTING = 16
"""Strings inside strings left out at most (deeper ones are rare and only hide text)."""


def object_text(body: bytes, end: int) -> bytes | None:
    """What the object opened last before ``end`` (within ``DICT_BYTES``) holds up to it,
    its strings and comments left out (a ``/Filter`` in them names nothing); None when no
    object opens there (an ``endobj`` comes first, or no ``N G obj`` within
    ``MAX_STARTS`` keywords outside strings and comments)."""
    floor, at = max(0, end - DICT_BYTES), end
    for _ in range(MAX_STARTS):
        at = body.rfind(b"obj", floor, at)
        if at < 0 or body[max(0, at - 3) : at] == b"end":
            return None
        if (
            _OBJ_END.search(body, max(0, at - 64), at)
            and b"%" not in body[_line_start(body, floor, at) : at]
            and not _opens_in_string(body[at + 3 : end])
        ):
            return plain_text(body[at + 3 : end])
    return None


def _line_start(body: bytes, floor: int, at: int) -> int:
    """Where the line holding byte ``at`` of ``body`` starts (``floor`` at the earliest)."""
    return max(body.rfind(b"\n", floor, at), body.rfind(b"\r", floor, at)) + 1 or floor


def _opens_in_string(text: bytes) -> bool:
    """Whether ``text`` closes a string it did not open (it starts inside one)."""
    depth, at = 0, 0
    while (found := _SYNTAX.search(text, at)) is not None:
        at = found.end()
        if found[0] == b"(":
            depth += 1
        elif found[0] == b")":
            depth -= 1
            if depth < 0:
                return True
        elif found[0] == b"%" and depth == 0:  # a comment, up to its line's end
            line = _LINE_END.search(text, at)
            if line is None:
                break
            at = line.end()
    return False


def after_dictionary(body: bytes, keyword: int) -> bool:
    """Whether the stream keyword at ``keyword`` may follow a dictionary, as a stream's
    does: after ``>>``, a comment line, or only white space (within ``DICT_BYTES``), not
    after a word, as in ``downstream`` or text that says ``a stream``."""
    text = body[max(0, keyword - DICT_BYTES) : keyword].rstrip(WHITE)
    return not text or text.endswith(b">") or b"%" in text[_line_start(text, 0, len(text)) :]


def plain_text(text: bytes) -> bytes:
    """``text`` with its strings and comments left out."""
    if b"(" in text or b"%" in text:
        for _ in range(MAX_NESTING):
            text, strings = _STRING.subn(b" ", text)
            if not strings:
                break
        text = _COMMENT.sub(b" ", text)
    return text
