"""Bytes to text as a browser reads them: BOM, HTTP charset, ``<meta>``, then detection.

The order is the WHATWG encoding sniffing algorithm's: a charset the HTTP header declares is
taken as certain, so UTF-16 bytes a server labels with another charset read as that charset,
as in a browser. Only undeclared bytes are detected, UTF-16 without a BOM first (its
Basic Latin characters leave a NUL in every other byte, which no 8-bit encoding writes).

A leaf module (stdlib and charset-normalizer only) shared by ``net`` (to record the charset
on a snapshot) and ``extract`` (to read files and stored snapshots).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from functools import lru_cache

import charset_normalizer
from charset_normalizer import CharsetMatch

from citesift.checks import text_arg

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Labels browsers read as another encoding (WHATWG Encoding Standard).
_BROWSER_ALIASES = {
    "iso8859-1": "cp1252", "ascii": "cp1252", "latin-1": "cp1252", "tis-620": "cp874",
}  # fmt: skip
_META_SCAN_BYTES = 4096
_DETECT_BYTES = 65_536
_META_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE
)
_HTML_LANG = re.compile(
    rb"""<html\b[^>]*?\slang\s*=\s*["']?\s*([A-Za-z]{2,3}(?:[-_][A-Za-z]{2,4})?)""",
    re.IGNORECASE,
)
# The encodings a browser can decode (WHATWG Encoding Standard): detection picks among these
# only, so that a short sample never comes back as a DOS or Mac code page no site declares.
WEB_CHARSETS = (
    "cp866", "iso8859_2", "iso8859_3", "iso8859_4", "iso8859_5", "iso8859_6", "iso8859_7",
    "iso8859_8", "iso8859_10", "iso8859_13", "iso8859_14", "iso8859_15", "iso8859_16",
    "koi8_r", "koi8_u", "mac_roman", "cp874", "cp1250", "cp1251", "cp1252", "cp1253",
    "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "mac_cyrillic", "gb18030", "big5",
    "euc_jp", "iso2022_jp", "cp932", "cp949",
)  # fmt: skip
_WEB_CODECS = frozenset(
    codecs.lookup(name).name
    for name in (*WEB_CHARSETS, "utf-8", "utf-16-le", "utf-16-be", "iso8859-9", "iso8859-11",
                 "gbk", "gb2312", "big5hkscs", "shift_jis", "euc_kr")
)  # fmt: skip
"""The codecs of the WHATWG Encoding Standard's encodings (its labels as Python names them)."""
# Single-byte Latin code pages: when one of these wins without a clear lead over
# windows-1252, the page is read as windows-1252, the web's commonest legacy encoding.
LATIN_CHARSETS = frozenset(
    {"cp1250", "cp1252", "cp1254", "cp1257", "cp1258", "mac_roman"}
    | {f"iso8859_{n}" for n in (2, 3, 4, 9, 10, 13, 14, 15, 16)}
)
_CYRILLIC = ("cp1251", "koi8_r", "koi8_u", "mac_cyrillic", "iso8859_5", "cp866")
_CENTRAL_EUROPEAN = ("cp1250", "iso8859_2")
_BALTIC = ("cp1257", "iso8859_13", "iso8859_4")
# The legacy encodings pages in a language used, most common first: a page's own
# ``<html lang>`` tips a close call between candidates towards these.
LANGUAGE_CHARSETS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("ru", "uk", "be", "bg", "sr", "mk", "kk", "ky", "tg", "mn"), _CYRILLIC),
    **dict.fromkeys(("pl", "cs", "sk", "hu", "sl", "hr", "bs", "ro", "sq"), _CENTRAL_EUROPEAN),
    **dict.fromkeys(("lt", "lv", "et"), _BALTIC),
    **dict.fromkeys(("tr", "az"), ("cp1254", "iso8859_9")),
    **dict.fromkeys(("ar", "fa", "ur"), ("cp1256", "iso8859_6")),
    **dict.fromkeys(("he", "yi"), ("cp1255", "iso8859_8")),
    **dict.fromkeys(("zh-tw", "zh-hk", "zh-mo", "zh-hant"), ("big5", "gb18030")),
    "el": ("cp1253", "iso8859_7"),
    "ja": ("cp932", "euc_jp", "iso2022_jp"),
    "zh": ("gb18030", "big5"),
    "ko": ("cp949",),
    "th": ("cp874",),
    "vi": ("cp1258",),
}
_TAG = re.compile(rb"<[!/?A-Za-z][^<>]{0,2000}>")
_STRAY = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")
"""Controls no text holds, and what bytes that cannot be decoded become."""
UTF16_NUL_SHARE = 0.1
"""The least share of UTF-16 code units with a NUL high byte (Basic Latin characters: the
markup of a page or the spaces and digits of any text) that tells BOM-less UTF-16."""
STRAY_SHARE = 0.02
"""The most share of code units that may read as controls in text told to be UTF-16."""
NUL_LOW_RATIO = 4
"""How many times more units a NUL high byte than a NUL low byte (U+3000, U+0100 …) text
told to be UTF-16 holds at least: binary data has NULs in both bytes alike."""
CHAOS_LEAD = 0.05  # a detection lead smaller than this is no clear lead
UTF8_MAJORITY = 9  # valid multi-byte characters per invalid byte that still make UTF-8


def charset_label(label: str | None) -> str | None:
    """The Python codec name for a charset label, or None unless it names a web encoding: a
    label a browser does not know (``utf-7``, ``idna``, ``zlib``, ``unicode_escape``) is
    ignored as a browser ignores it, never decoded with a codec that fails or rewrites."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None
    chosen = _BROWSER_ALIASES.get(name, name)
    return chosen if chosen in _WEB_CODECS else None


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


def wide_charset(body: bytes) -> str | None:
    """The charset of a body written in 16 or 32 bit units, whose NUL bytes are text and not
    binary data: its BOM's (UTF-16 or UTF-32), else UTF-16 told by its NULs
    (``utf16_order``); None for any other body."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name if bom != codecs.BOM_UTF8 else None
    return utf16_order(body[:_DETECT_BYTES])


def utf16_order(sample: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` when ``sample`` is UTF-16 text without a BOM, told as
    chardet and browsers' sniffers tell it: one byte of each pair is NUL in at least
    ``UTF16_NUL_SHARE`` of the pairs, the other ``NUL_LOW_RATIO`` times less often, and the
    units read as text, not controls; else None."""
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even, odd = sample[0 : 2 * pairs : 2].count(0), sample[1 : 2 * pairs : 2].count(0)
    for order, high, low in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if high >= pairs * UTF16_NUL_SHARE and low * NUL_LOW_RATIO <= high:
            text = sample[: 2 * pairs].decode(order, "replace")
            if len(_STRAY.findall(text)) <= pairs * STRAY_SHARE:
                return order
    return None


def decode_html(body: bytes, http_charset: str | None = None) -> tuple[str, str]:
    """Decode ``body`` with the charset ``sniff_charset`` chooses; bad bytes become U+FFFD.

    Returns the text (BOM removed) and the codec name used.
    """
    if not isinstance(body, bytes | bytearray):
        raise TypeError(f"body must be bytes, not {type(body).__name__}")
    if http_charset is not None:
        text_arg(http_charset, "http_charset")
    charset = sniff_charset(bytes(body), http_charset)
    text = body.decode(charset, errors="replace")
    return text.removeprefix("\ufeff"), charset


def _detect(sample: bytes) -> str:
    """UTF-16 when the bytes are told to be (``utf16_order``); UTF-8 when they are (nearly
    all) UTF-8; else, among charset-normalizer's web
    encodings that read the sample with no more chaos than the best's plus ``CHAOS_LEAD``,
    the one whose text looks least garbled (``_oddity``); the page's language, then
    windows-1252, win what remains a close call."""
    wide = utf16_order(sample)
    if wide:
        return wide
    if _mostly_utf8(sample):
        return "utf-8"
    prose = _prose(sample)
    matches = list(charset_normalizer.from_bytes(prose, cp_isolation=list(WEB_CHARSETS)))
    if not matches:
        return "cp1252"
    bound = matches[0].chaos + CHAOS_LEAD
    oddity = {match.encoding: _oddity(str(match)) for match in matches if match.chaos <= bound}
    least = min(oddity.values())
    best = next(match for match in matches if oddity.get(match.encoding) == least)
    for name in _preferred(sample, best.encoding):
        if oddity.get(name) == least or _reads_alike(prose, name, best):
            return charset_label(name) or name
    return charset_label(best.encoding) or "cp1252"


def _oddity(text: str) -> int:
    """How garbled a reading looks, counted in characters a writer rarely puts there:
    capitals inside a word that also has small letters (a Cyrillic page read in the code
    page that swaps the cases), a letter beside a letter of another script (a Chinese page
    read as Korean mixes Hangul with Han), a combining mark on no letter, a non-ASCII digit
    inside a word, and symbols, controls or unassigned points.

    charset-normalizer scores such readings as clean on short samples, so this settles
    between the readings it finds equally good; every candidate reads the same bytes, so
    the count only has to rank readings of them, not judge a text alone."""
    odd = inner_capitals = 0
    script = ""  # the script of the letter the current word ended on ('' outside words)
    small = wedged = False
    for char in text:
        kind, _, char_script = _kind(char).partition(":")
        if kind in {"L", "Lu"}:
            odd += bool(script) and (char_script != script) + wedged
            inner_capitals += bool(script) and kind == "Lu"
            small = small or (kind == "L" and char.lower() == char != char.upper())
            script, wedged = char_script, False
        elif kind == "M":
            odd += not script
        elif kind == "inner" and script and not wedged:
            wedged = True
        else:
            odd += (kind == "odd") + inner_capitals * small
            script, inner_capitals, small, wedged = "", 0, False, False
    return odd + inner_capitals * small


@lru_cache(maxsize=4096)
def _kind(char: str) -> str:
    """``L:`` or ``Lu:`` and its script for a letter (small or caseless, or capital), ``M``
    for a combining mark, ``inner`` for a non-ASCII digit (no word holds one), ``odd`` for
    a symbol, control or unassigned point, else ''."""
    category = unicodedata.category(char)
    if category[0] == "L":
        script = unicodedata.name(char, "?").split(" ")[0]
        script = "CJK" if script in {"HIRAGANA", "KATAKANA"} else script
        return ("Lu:" if category == "Lu" else "L:") + script
    if category[0] == "M":
        return "M"
    if category in {"So", "Co", "Cn"} or (category == "Cc" and not char.isspace()):
        return "odd"
    return "inner" if category in {"Nd", "No"} and not char.isascii() else ""


def _mostly_utf8(sample: bytes) -> bool:
    """Valid UTF-8, but for a character cut by the sample's end or a few stray bytes among
    many valid multi-byte characters (which legacy encodings almost never form by chance)."""
    try:
        sample.decode("utf-8")
        return True
    except UnicodeDecodeError as error:
        if error.start >= len(sample) - 3:  # the first bad byte ends the sample
            return True
    text = sample.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    good = len(text) - len(text.encode("ascii", errors="ignore")) - bad
    return good >= UTF8_MAJORITY * bad


def _prose(sample: bytes) -> bytes:
    """The sample with its tags blanked, so ASCII markup does not drown the text's own bytes
    (the sample itself when only markup holds non-ASCII bytes)."""
    prose = _TAG.sub(b" ", sample)
    return sample if prose.isascii() else prose


def _preferred(sample: bytes, best: str) -> tuple[str, ...]:
    """The encodings to prefer to ``best`` when they read the sample as well."""
    found = _HTML_LANG.search(sample[:_META_SCAN_BYTES])
    tag = found.group(1).decode("ascii").lower().replace("_", "-") if found else ""
    chosen = LANGUAGE_CHARSETS.get(tag) or LANGUAGE_CHARSETS.get(tag.split("-")[0], ())
    return chosen + (("cp1252",) if best in LATIN_CHARSETS else ())


def _reads_alike(sample: bytes, name: str, best: CharsetMatch) -> bool:
    """``name`` reads ``sample`` as the very same text as ``best`` (detection folds such
    encodings into one match)."""
    try:
        return sample.decode(name) == str(best)
    except UnicodeDecodeError:
        return False
