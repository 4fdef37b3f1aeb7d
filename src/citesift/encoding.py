"""Bytes to text as a browser reads them: BOM, HTTP charset, ``<meta>``, then detection.

A leaf module (stdlib and charset-normalizer only) shared by ``net`` (to record the charset
on a snapshot) and ``extract`` (to read files and stored snapshots).
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Labels browsers read as another encoding (WHATWG Encoding Standard).
_BROWSER_ALIASES = {"iso8859-1": "cp1252", "ascii": "cp1252", "latin-1": "cp1252"}
_META_SCAN_BYTES = 4096
_DETECT_BYTES = 65_536
_META_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE
)


def charset_label(label: str | None) -> str | None:
    """The Python codec name for a charset label, or None when it names no known text codec."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None
    if name in {"utf-16", "utf-32"} or "rot" in name or "hex" in name or "base64" in name:
        return None
    return _BROWSER_ALIASES.get(name, name)


def sniff_charset(body: bytes, http_charset: str | None = None) -> str:
    """Choose the charset: BOM, then the HTTP charset, then ``<meta charset>``, then detection."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name
    chosen = charset_label(http_charset)
    if chosen:
        return chosen
    meta = _META_CHARSET.search(body[:_META_SCAN_BYTES])
    chosen = charset_label(meta.group(1).decode("ascii")) if meta else None
    if chosen in {"utf-16-le", "utf-16-be"}:
        chosen = "utf-8"  # a <meta> readable as ASCII cannot be UTF-16 (HTML Standard)
    if chosen:
        return chosen
    return _detect(body[:_DETECT_BYTES])


def decode_html(body: bytes, http_charset: str | None = None) -> tuple[str, str]:
    """Decode ``body`` with the charset ``sniff_charset`` chooses; bad bytes become U+FFFD.

    Returns the text (BOM removed) and the codec name used.
    """
    charset = sniff_charset(body, http_charset)
    text = body.decode(charset, errors="replace")
    return text.removeprefix("\ufeff"), charset


def _detect(sample: bytes) -> str:
    try:
        sample.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as error:
        if error.start >= len(sample) - 3:  # a multi-byte character cut by the sample's end
            return "utf-8"
    best = charset_normalizer.from_bytes(sample).best()
    return charset_label(best.encoding if best else None) or "cp1252"
