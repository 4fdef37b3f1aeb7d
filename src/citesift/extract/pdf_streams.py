"""A PDF's encoded streams measured before PDFium reads it: PDFium decodes a stream whole
and parses a page's content all at once, so a few kilobytes that decode to gigabytes of
drawing operators would hold that much memory and take minutes.

``check_streams`` finds each stream by its keyword, reads the filters its dictionary names
(``/Filter``, a name or an array, given there or in objects it refers to, written plainly
or in compressed object streams: ``pdf_objects``) and decodes it through them in steps
(``pdf_filters``: Flate, LZW, RunLength, ASCII85, ASCIIHex), counting every layer's output
no further than the caps; cross-reference streams are streams like the others, and object
streams are decoded whole and the streams they hold measured too (PDFium reads a stream
kept there, though the format forbids it). A stream whose filters cannot be told (an
object referred to found nowhere, or the keyword found in text, not after a dictionary) is
inflated as far as it is zlib data, layer upon layer; one after a dictionary whose object
is not found is refused (a dictionary padded past ``DICT_BYTES`` hid its filters).
Nothing decoded is kept; the whole check stops after ``MAX_SECONDS``.
"""

from __future__ import annotations

import itertools
import re
import time
from array import array
from collections import deque
from collections.abc import Iterator

from citesift.errors import DocumentError
from citesift.extract.pdf_filters import (
    STEP,
    WHITE,
    Decoder,
    ascii85,
    ascii_hex,
    inflate,
    lzw_decoder,
    run_length,
)
from citesift.extract.pdf_objects import (
    NUMBER,
    Key,
    Objects,
    compressed_objects,
    plain_objects,
    stream_integer,
)

MAX_STREAM_BYTES = 64 * 1024 * 1024
"""The most one stream may decode to, in each of its filters (a page of text is tens of
kilobytes; a lossless scan of a page at 300 dpi in colour some 26 MB)."""
MAX_INFLATED_BYTES = 1024 * 1024 * 1024
"""The most all of a PDF's streams may decode to, every filter's output counted."""
MAX_LAYERS = 4
"""Layers of zlib data inflated one inside the other at most, when the filters are unknown."""
MAX_FILTERS = 8
"""The most filters one stream may name (one to three in the files writers make)."""
MAX_SECONDS = 30.0
"""The longest the streams of one PDF are measured (a gigabyte of zlib data inflates in a
few seconds; the filters decoded in Python are slower)."""
FIRST_PIECE = 4096
"""The first piece of a stream read (those after grow up to ``STEP``)."""
DICT_BYTES = 64 * 1024
"""How far before a stream's keyword its dictionary is looked for."""
MAX_DEPTH = 4
"""References followed one through another at most (an object naming filters refers to
another, or an object stream's filters are in another object stream), and object streams
held one in another at most."""
MAX_READINGS = 8
"""The most ways a stream's filters may be read when objects they refer to are defined
more than once (a file updated in place, or one that defines an object both plainly and
in an object stream): each way is measured."""
MAX_REFERRED = 100_000
"""The most objects the filters of a PDF's streams may refer to (most name their filters
in place)."""
_STREAM = re.compile(rb"(?<!end)stream[\x00\t\n\x0c\r ]+")
"""The keyword opening a stream and the white space after it (PDF readers take a lone CR
or spaces too; no white space byte can start zlib data)."""
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


class _Meter:
    """What the streams of one PDF decoded to so far, against the caps and the deadline."""

    def __init__(self) -> None:
        self.total = 0
        self.deadline = time.monotonic() + MAX_SECONDS

    def counted(self, pieces: Iterator[bytes]) -> Iterator[bytes]:
        """``pieces`` passed on, their bytes counted against ``MAX_STREAM_BYTES`` (for this
        layer of one stream), ``MAX_INFLATED_BYTES`` and the deadline."""
        size = 0
        for piece in pieces:
            size += len(piece)
            self.total += len(piece)
            if size > MAX_STREAM_BYTES:
                limit = MAX_STREAM_BYTES // (1024 * 1024)
                raise DocumentError(f"a PDF stream that decodes past {limit} MiB: not read")
            if self.total > MAX_INFLATED_BYTES:
                limit = MAX_INFLATED_BYTES // (1024 * 1024)
                raise DocumentError(f"a PDF whose streams decode past {limit} MiB: not read")
            self.check_time()
            yield piece

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise DocumentError(
                f"a PDF whose streams take more than {MAX_SECONDS:g} s to measure: not read"
            )


def check_streams(body: bytes) -> None:
    """``DocumentError`` when a stream of ``body`` decodes past ``MAX_STREAM_BYTES`` in any
    of its filters, names more than ``MAX_FILTERS``, or all of them decode past
    ``MAX_INFLATED_BYTES``, or measuring takes past ``MAX_SECONDS``; memory stays within a
    few ``STEP`` meanwhile, besides an object stream's decoded data (at most
    ``MAX_STREAM_BYTES``) while the streams it holds are measured.

    Streams whose filters refer to other objects are measured last, once the objects they
    refer to are found, plainly written or in object streams (decoded again for that, and
    counted again)."""
    meter = _Meter()
    held, object_streams = array("q"), array("q")  # where their keywords are
    wanted: set[Key] = set()
    for found in _STREAM.finditer(body):
        meter.check_time()
        dictionary = _object_text(body, found.start())
        if dictionary is None and _after_dictionary(body, found.start()):
            raise DocumentError("a PDF stream whose dictionary cannot be read: not read")
        referred = _references(dictionary)
        _want(wanted, referred)
        if dictionary is not None and _holds_objects(dictionary):
            object_streams.append(found.start())  # measured below, with what it holds
        elif referred:
            held.append(found.start())
        else:
            _measure(body, found.end(), _readings(dictionary, {}), meter)
    again = array("q")  # object streams holding streams whose filters refer to objects
    for start in object_streams:
        dictionary = _object_text(body, start)
        if _references(dictionary) or _unpacked(body, start, dictionary, {}, meter, wanted):
            again.append(start)
    if not held and not again:
        return
    objects = _objects(body, wanted, object_streams, meter)
    for start in held:
        readings = _readings(_object_text(body, start), objects)
        _measure(body, _data_start(body, start), readings, meter)
    for start in again:
        _unpacked(body, start, _object_text(body, start), objects, meter, None)


def _unpacked(
    data: bytes | bytearray,
    keyword: int,
    dictionary: bytes | None,
    objects: Objects,
    meter: _Meter,
    wanted: set[Key] | None,
    depth: int = 0,
) -> bool:
    """The object stream whose keyword is at ``keyword`` in ``data`` measured, decoded
    whole in each reading of its filters, and the streams it holds measured in turn (a
    reader takes a stream kept in an object stream, though writers keep none there);
    whether some of these refer to objects not in ``objects``: those are added to
    ``wanted`` and measured once found, or, when ``wanted`` is None, inflated as far as
    they are zlib data."""
    start = _data_start(data, keyword)
    readings = _readings(dictionary, objects)
    if readings is None:  # its own filters not told
        _measure(data, start, None, meter)
        return False
    waiting = False
    for named in readings:
        if named:
            unpacked = bytearray()  # grown piece by piece: held once
            for piece in _decoded(_slices(data, start), named, meter):
                unpacked += piece
        else:  # stored plainly (or in a filter not decoded here): up to its end keyword
            _measure(data, start, [[]], meter)
            end = data.find(b"endstream", start, start + MAX_STREAM_BYTES)
            unpacked = bytearray(data[start : end if end >= 0 else start + MAX_STREAM_BYTES])
        waiting |= _held_streams(unpacked, objects, meter, wanted, depth)
        del unpacked
    return waiting


def _held_streams(
    unpacked: bytes | bytearray,
    objects: Objects,
    meter: _Meter,
    wanted: set[Key] | None,
    depth: int,
) -> bool:
    """The streams in an object stream's ``unpacked`` data measured (object streams among
    them unpacked in turn, at most ``MAX_DEPTH`` deep), each stream's dictionary being
    what comes before its keyword, its last ``/Filter`` its own; whether some refer to
    objects not in ``objects`` (see ``_unpacked``)."""
    waiting = False
    for found in _STREAM.finditer(unpacked):
        meter.check_time()
        dictionary = _plain_text(
            bytes(unpacked[max(0, found.start() - DICT_BYTES) : found.start()])
        )
        if _holds_objects(dictionary):
            if depth + 1 >= MAX_DEPTH:
                raise DocumentError(
                    f"a PDF of object streams held {MAX_DEPTH} deep in each other: not read"
                )
            waiting |= _unpacked(
                unpacked, found.start(), dictionary, objects, meter, wanted, depth + 1
            )
            continue
        readings = _readings(dictionary, objects)
        if readings is None and wanted is not None:
            _want(wanted, _references(dictionary))
            waiting = True
        else:
            _measure(unpacked, found.end(), readings, meter)
    return waiting


def _measure(
    body: bytes | bytearray,
    start: int,
    readings: list[list[tuple[bytes, Decoder]]] | None,
    meter: _Meter,
) -> None:
    """The stream whose data starts at ``start`` decoded in each of its ``readings`` (the
    ways its filters may be read), nothing kept; inflated as far as it is zlib data when
    they cannot be told (None) or name none."""
    for named in readings or [[]]:
        if named:
            decoded = _decoded(_slices(body, start), named, meter)
        elif _zlib_header(body[start : start + 2]):
            decoded = _inflated(_slices(body, start), meter)
        else:
            continue  # stored plainly or in another filter: nothing to inflate
        for _ in decoded:
            pass


def _decoded(
    data: Iterator[bytes], named: list[tuple[bytes, Decoder]], meter: _Meter
) -> Iterator[bytes]:
    """``data`` through each of the filters ``named``, every layer counted by ``meter``."""
    if len(named) > MAX_FILTERS:
        raise DocumentError(f"a PDF stream of more than {MAX_FILTERS} filters: not read")
    for _, decoder in named:
        data = meter.counted(decoder(data))
    return data


def _data_start(body: bytes | bytearray, keyword: int) -> int:
    """Where the data of the stream whose keyword is at ``keyword`` starts."""
    found = _STREAM.match(body, keyword)
    assert found is not None  # found by the same pattern before
    return found.end()


def _objects(body: bytes, wanted: set[Key], object_streams: array[int], meter: _Meter) -> Objects:
    """The text of each definition of the ``wanted`` objects and of those they refer to
    in turn, written plainly or in the object streams whose keywords are at
    ``object_streams`` (each read by itself, so ``/Extends`` is not followed); an object
    stream whose own filters refer to objects in another is read once they are found, at
    most ``MAX_DEPTH`` deep."""
    for start in object_streams:
        _want(wanted, _references(_object_text(body, start)))
    objects: Objects = {}
    readable = -1
    for _ in range(MAX_DEPTH):
        asked, was_readable, readable = len(wanted), readable, 0
        for key, texts in plain_objects(body, wanted).items():
            _add(objects, key, texts)
        for start in object_streams:
            dictionary = _object_text(body, start)
            assert dictionary is not None  # an object stream is one whose dictionary is read
            readings = _readings(dictionary, objects)
            count, first = stream_integer(dictionary, b"N"), stream_integer(dictionary, b"First")
            if readings is None or count is None or first is None:
                continue
            readable += 1
            data = _data_start(body, start)
            for named in readings:
                decoded = _decoded(_slices(body, data), named, meter)
                for key, text in compressed_objects(decoded, count, first, wanted):
                    _add(objects, key, [text])
            meter.check_time()
        for texts in list(objects.values()):
            for held in texts:
                value = _VALUE.match(held)
                if value is not None:
                    _want(wanted, _keys(value[0]))
        if len(wanted) == asked and readable in (len(object_streams), was_readable):
            break
    return objects


def _add(objects: Objects, key: Key, texts: list[bytes | memoryview]) -> None:
    """The definitions ``texts`` of object ``key`` added to ``objects``, each once."""
    held = objects.setdefault(key, [])
    held.extend(text for text in texts if text not in held)


def _want(wanted: set[Key], more: set[Key]) -> None:
    """``more`` added to ``wanted``, which holds at most ``MAX_REFERRED``."""
    wanted |= more
    if len(wanted) > MAX_REFERRED:
        raise DocumentError(
            f"a PDF whose stream filters refer to more than {MAX_REFERRED} objects: not read"
        )


def _holds_objects(dictionary: bytes) -> bool:
    """Whether a stream's ``dictionary`` is that of an object stream (or of a stream that
    may be read as one: ``/N`` and ``/First`` are what a reader goes by)."""
    return (
        stream_integer(dictionary, b"N") is not None
        and stream_integer(dictionary, b"First") is not None
    )


def _references(dictionary: bytes | None) -> set[Key]:
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


def _readings(
    dictionary: bytes | None, objects: Objects
) -> list[list[tuple[bytes, Decoder]]] | None:
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


def _object_text(body: bytes, end: int) -> bytes | None:
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
            return _plain_text(body[at + 3 : end])
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


def _after_dictionary(body: bytes, keyword: int) -> bool:
    """Whether the stream keyword at ``keyword`` may follow a dictionary, as a stream's
    does: after ``>>``, a comment line, or only white space (within ``DICT_BYTES``), not
    after a word, as in ``downstream`` or text that says ``a stream``."""
    text = body[max(0, keyword - DICT_BYTES) : keyword].rstrip(WHITE)
    return not text or text.endswith(b">") or b"%" in text[_line_start(text, 0, len(text)) :]


def _plain_text(text: bytes) -> bytes:
    """``text`` with its strings and comments left out."""
    if b"(" in text or b"%" in text:
        for _ in range(MAX_NESTING):
            text, strings = _STRING.subn(b" ", text)
            if not strings:
                break
        text = _COMMENT.sub(b" ", text)
    return text


def _unescaped(name: bytes) -> bytes:
    """A name with its ``#XX`` escapes read."""
    return _ESCAPED.sub(lambda m: bytes([int(m[1], 16)]), name)


def _last(matches: Iterator[re.Match[bytes]]) -> re.Match[bytes] | None:
    """The last of ``matches``, None when there is none."""
    return next(iter(deque(matches, maxlen=1)), None)


def _slices(body: bytes | bytearray, start: int) -> Iterator[bytes]:
    """``body`` from ``start`` on, in views (not copies) of ``FIRST_PIECE`` bytes, then
    twice as many each time up to ``STEP``: a stream is read as far as its filters go,
    most of them a few kilobytes."""
    view, size = memoryview(body), FIRST_PIECE
    while start < len(body):
        yield view[start : start + size]  # type: ignore[misc]
        start, size = start + size, min(2 * size, STEP)


def _inflated(pieces: Iterator[bytes], meter: _Meter, layers: int = 0) -> Iterator[bytes]:
    """The bytes ``pieces`` hold once each layer of zlib data is inflated (every layer
    counted by ``meter``); nothing when they start with no zlib data."""
    head = b""
    for piece in pieces:
        head += piece
        if len(head) >= 2:
            break
    whole = itertools.chain([head], pieces)
    if layers < MAX_LAYERS and _zlib_header(head):
        yield from _inflated(meter.counted(inflate(whole)), meter, layers + 1)
    elif layers:
        yield from whole


def _zlib_header(head: bytes | bytearray) -> bool:
    """Whether ``head`` starts as zlib data does (deflate, and the header's check holds)."""
    return len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
