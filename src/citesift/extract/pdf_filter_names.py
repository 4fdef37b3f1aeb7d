"""The filters a PDF stream's dictionary names (``/Filter``, a name or an array, given
there or in objects it refers to), read as the ways they may be decoded: each filter that
can make more bytes than it reads, with its decoder from ``pdf_filters``."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator

from citesift.errors import DocumentError
from citesift.extract.pdf_filters import (
    Decoder,
    ascii85,
    ascii_hex,
    inflate,
    lzw_decoder,
    run_length,
)
from citesift.extract.pdf_objects import NUMBER, Key, Objects

MAX_DEPTH = 4
"""References followed one through another at most (an object naming filters refers to
another, or an object stream's filters are in another object stream), and object streams
held one in another at most."""
MAX_READINGS = 8
"""The most ways a stream's filters may be read when objects they refer to are defined
more than once (a file updated in place, or one that defines an object both plainly and
in an object stream): each way is measured."""
_FILTER = re.compile(
    rb"/Filter[\x00\t\n\x0c\r ]*(?:(/[^\x00\t\n\x0c\r /\[\]<>()]+)|\[([^\]]*)\]"
    rb"|(\d+)[\x00\t\n\x0c\r ]+(\d+)[\x00\t\n\x0c\r ]+R\b)"
)
_REF = NUMBER + rb"[\x00\t\n\x0c\r ]+" + NUMBER + rb"[\x00\t\n\x0c\r ]+R\b"
_REFERENCE = re.compile(_REF)
_ITEM = re.compile(rb"/([^\x00\t\n\x0c\r /\[\]<>()]+)|" + _REF)
"""A name or a reference, in a filter's value."""
_VALUE = re.compile(
    rb"[\x00\t\n\x0c\r ]*(?:\[[^\]]*\]|/[^\x00\t\n\x0c\r /\[\]<>()]+|" + _REF + rb")"
)
"""What an object referred to for filters holds: an array, a name, or another reference."""
_PARMS = re.compile(rb"/(?:DecodeParms|EarlyChange)[\x00\t\n\x0c\r ]*(?:\[[^\]]*\]|" + _REF + rb")")
"""Filter parameters, or LZW's early change, referred to (or an array that may)."""
_ZERO = re.compile(rb"[\x00\t\n\x0c\r ]*0(?![0-9.])")
_ESCAPED = re.compile(rb"#([0-9A-Fa-f]{2})")
_EARLY_ZERO = re.compile(rb"/EarlyChange[\x00\t\n\x0c\r ]+0\b")
_DECODERS: dict[bytes, Decoder] = {
    b"FlateDecode": inflate,
    b"Fl": inflate,
    b"ASCII85Decode": ascii85,
    b"A85": ascii85,
    b"ASCIIHexDecode": ascii_hex,
    b"AHx": ascii_hex,
    b"RunLengthDecode": run_length,
    b"RL": run_length,
}
_LZW = (b"LZWDecode", b"LZW")
Reading = list[tuple[bytes, Decoder]]
"""One way a stream's filters may be read: each filter's name and decoder, in order."""


def filter_references(dictionary: bytes | None) -> set[Key]:
    """The objects the filters a stream's ``dictionary`` names, or their parameters, refer
    to (its ``/Length`` is not needed: the data is decoded as far as its filters go)."""
    if dictionary is None:
        return set()
    stated = _last(_FILTER.finditer(dictionary))
    keys = set() if stated is None else _keys(stated[0])
    for parms in _PARMS.finditer(dictionary):
        keys |= _keys(parms[0])
    return keys


def _keys(text: bytes) -> set[Key]:
    """The objects ``text`` refers to (``N G R``)."""
    return {(int(m[1]), int(m[2])) for m in _REFERENCE.finditer(text)}


def filter_readings(dictionary: bytes | None, objects: Objects) -> list[Reading] | None:
    """The ways the filters of a stream whose dictionary is ``dictionary`` may be read,
    each as far as they make more bytes than they read (a filter after which the stream is
    an image, or encrypted, ends it; an object defined more than once makes one reading
    for each, and LZW is read with and without its early change when both are said);
    [[]] for none; None when they cannot be told (the object the stream opens, or one its
    filters refer to, is not found)."""
    if dictionary is None:
        return None
    stated = _last(_FILTER.finditer(dictionary))
    if stated is None:
        return [[]]
    choices = _choices(stated[0][len(b"/Filter") :], objects)
    if choices is None:
        return None
    parms = [dictionary] + [
        text
        for found in _PARMS.finditer(dictionary)
        for key in _keys(found[0])
        for text in objects.get(key, [])
    ]
    zero = any(_EARLY_ZERO.search(text) or _ZERO.match(text) for text in parms)
    readings = []
    for names in choices:
        for early in (1, 0) if zero and set(names) & set(_LZW) else (1,):
            named: list[tuple[bytes, Decoder]] = []
            for filter_name in names:
                decoder = lzw_decoder(early) if filter_name in _LZW else _DECODERS.get(filter_name)
                if decoder is None:
                    break
                named.append((filter_name, decoder))
            readings.append(named)
    return readings


def _choices(text: bytes, objects: Objects, depth: int = 0) -> list[tuple[bytes, ...]] | None:
    """The lists of filter names ``text`` (a name, the inside of an array of names, or a
    reference to either, or an array holding references) may stand for, names unescaped;
    None when an object referred to is not found."""
    choices: set[tuple[bytes, ...]] = {()}
    for item in _ITEM.finditer(text):
        if item[1] is not None:
            options: set[tuple[bytes, ...]] = {(_unescaped(item[1]),)}
        else:
            texts = objects.get((int(item[2]), int(item[3])))
            if not texts or depth >= MAX_DEPTH:
                return None
            options = set()
            for held in texts:
                value = _VALUE.match(held)  # anything else names no filter
                inner = _choices(value[0], objects, depth + 1) if value else [(b"",)]
                if inner is None:
                    return None
                options.update(inner)
        choices = {chosen + option for chosen in choices for option in options}
        if len(choices) > MAX_READINGS:
            raise DocumentError(
                f"a PDF stream whose filters are defined in more than {MAX_READINGS} ways: not read"
            )
    return sorted(choices)


def _unescaped(name: bytes) -> bytes:
    """A name with its ``#XX`` escapes read."""
    return _ESCAPED.sub(lambda m: bytes([int(m[1], 16)]), name)


def _last(matches: Iterator[re.Match[bytes]]) -> re.Match[bytes] | None:
    """The last of ``matches``, None when there is none."""
    return next(iter(deque(matches, maxlen=1)), None)


def value_references(text: bytes | memoryview) -> set[Key]:
    """The objects an object referred to for filters refers to in turn, from its ``text``
    (nothing when it holds no array, name or reference)."""
    value = _VALUE.match(text)
    return set() if value is None else _keys(value[0])
