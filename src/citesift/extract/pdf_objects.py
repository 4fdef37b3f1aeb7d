"""The indirect objects of a PDF that a stream's filters refer to, found as text: those
written plainly (``N G obj``) and those held in compressed object streams (``/Type
/ObjStm``, PDF 1.5), whose decoded data begins with ``/N`` pairs of object number and
offset and holds the objects from byte ``/First`` on. Only the objects asked for are
kept, each no longer than ``OBJECT_BYTES``: a plain one as a view of the file's bytes (not
a copy, as the texts of many objects would overlap), those held at one offset of an
object stream as one copy."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

OBJECT_BYTES = 64 * 1024
"""The most of one object's text kept (a name, an array of names or a small dictionary)."""
MAX_OBJECTS = 100_000
"""The most objects one object stream is read for (writers put a hundred or a few hundred)."""
PAIR_BYTES = 24
"""Bytes of an object stream's header read for each pair it says it holds (two numbers of
up to 10 digits and the white space between them and after)."""
_WHITE = rb"[\x00\t\n\x0c\r ]"
NUMBER = rb"(?<![0-9])([0-9]{1,20})(?![0-9])"
"""An integer as objects, offsets and counts are written (longer ones are none of these)."""
_PLAIN = re.compile(NUMBER + _WHITE + rb"+" + NUMBER + _WHITE + rb"+obj\b")
_PAIR = re.compile(_WHITE + rb"*" + NUMBER + _WHITE + rb"+" + NUMBER)

Key = tuple[int, int]
"""An object's number and generation."""
Objects = dict[Key, list[bytes | memoryview]]
"""The text of each definition found of objects."""


@dataclass(frozen=True)
class _Target:
    """Where an object asked for lies in an object stream's decoded data."""

    start: int
    end: int
    number: int


def plain_objects(body: bytes, wanted: set[Key]) -> Objects:
    """The text of each definition of the ``wanted`` objects written plainly in ``body``,
    from after its ``obj`` keyword (a file updated in place defines an object again)."""
    found: Objects = {}
    view = memoryview(body)
    for match in _PLAIN.finditer(body):
        key = (int(match[1]), int(match[2]))
        if key in wanted:
            found.setdefault(key, []).append(view[match.end() : match.end() + OBJECT_BYTES])
    return found


def stream_integer(dictionary: bytes, key: bytes) -> int | None:
    """The integer ``key`` (``/N``, ``/First``) holds in a stream's ``dictionary``, None
    when it is not given as one there."""
    match = re.search(rb"/" + key + _WHITE + rb"*" + NUMBER + rb"(?!\.)", dictionary)
    return None if match is None else int(match[1])


def compressed_objects(
    decoded: Iterator[bytes], count: int, first: int, wanted: set[Key]
) -> Iterator[tuple[Key, bytes]]:
    """The ``wanted`` objects an object stream holds, as text, from its ``decoded`` data
    with ``count`` pairs (at most ``MAX_OBJECTS`` read) before byte ``first``; objects in
    an object stream are of generation 0. Only the header and the wanted objects are held,
    one at a time."""
    pieces = _Window(decoded)
    header = pieces.take(0, min(first, min(count, MAX_OBJECTS) * PAIR_BYTES))
    pairs = [(int(m[1]), int(m[2])) for m in _pairs(header, count)]
    del header
    ends = sorted({offset for _, offset in pairs})
    targets = []
    for number, offset in pairs:
        if (number, 0) in wanted:
            at = bisect.bisect_right(ends, offset)
            end = min(ends[at] if at < len(ends) else offset + OBJECT_BYTES, offset + OBJECT_BYTES)
            targets.append(_Target(first + offset, first + end, number))
    text, span = b"", (-1, -1)
    for target in sorted(targets, key=lambda t: (t.start, t.end)):
        if (target.start, target.end) != span:  # objects at one offset share their text
            text, span = pieces.take(target.start, target.end), (target.start, target.end)
        yield (target.number, 0), text


def _pairs(header: bytes, count: int) -> Iterator[re.Match[bytes]]:
    """The first ``count`` pairs of ``header`` (fewer when they end there)."""
    at = 0
    for _ in range(min(count, MAX_OBJECTS)):
        match = _PAIR.match(header, at)
        if match is None:
            return
        at = match.end()
        yield match


class _Window:
    """Decoded pieces read forward, the bytes asked for taken from them and those before
    dropped: what is held is never more than the span last asked for and one piece."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        self._pieces, self._data = pieces, bytearray()
        self._at = 0  # where the bytes held start in the data (the next piece, when none)

    def take(self, start: int, end: int) -> bytes:
        """Bytes ``start`` to ``end`` of the data (fewer when it ends before); asked for
        in order of ``start``."""
        drop = max(0, min(start - self._at, len(self._data)))
        del self._data[:drop]
        self._at += drop
        while self._at + len(self._data) < end:
            piece = next(self._pieces, None)
            if piece is None:
                break
            if not self._data:
                skip = max(0, min(start - self._at, len(piece)))
                self._at, piece = self._at + skip, piece[skip:]
            self._data += piece
        return bytes(self._data[max(0, start - self._at) : max(0, end - self._at)])
