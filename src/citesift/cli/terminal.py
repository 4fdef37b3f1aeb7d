"""What the command line writes: text from a source made harmless before a terminal sees it.

A page, a title or a file name can hold escape sequences (OSC, CSI) that would retitle,
recolour or rewrite the user's terminal. Every renderer passes what it prints through
``safe`` (or ``safe_json``): control characters other than newline and tab, the controls
that reorder text (a right-to-left override would show ``https://evil.example/\u202eexe.txt``
as ending in ``txt.exe``), and lone surrogates (bytes of a file name that are not UTF-8)
become visible escapes.
"""

from __future__ import annotations

import json
import re

import typer

from citesift.numbers import finite_json

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""C0 controls but tab and newline, DEL, C1 controls (0x9b is CSI), the bidirectional
embeddings, overrides and isolates, and lone surrogates."""
ESCAPED_BYTES = range(0xDC80, 0xDD00)
"""Surrogates that stand for a byte a file name held that was not UTF-8."""


def safe(text: str) -> str:
    """``text`` with each control character written ``\\xNN`` (a byte of a name that was not
    UTF-8 too, as ``ls`` does) and any other lone surrogate ``\\uNNNN``."""
    return UNSAFE.sub(_visible, text)


def safe_json(value: object, indent: int | None = None) -> str:
    """``value`` as strict JSON that keeps non-ASCII text readable but writes every character
    ``safe`` would escape as a JSON escape, so the document still parses to ``value``; a
    NaN or an infinity (a model's answer may hold one) is written null, as JSON has none."""
    try:
        text = json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
    except ValueError:
        text = json.dumps(finite_json(value), ensure_ascii=False, indent=indent, allow_nan=False)
    return UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def say(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Write ``text`` made ``safe`` to standard output (or error)."""
    typer.echo(safe(text), err=err, nl=nl)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code in ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
