"""A PDF's encoded streams measured before PDFium reads it: PDFium decodes a stream whole
and parses a page's content all at once, so a few kilobytes that decode to gigabytes of
drawing operators would hold that much memory and take minutes.

``check_streams`` finds each stream by its keyword, reads its dictionary as text
(``pdf_dictionaries``) and the filters it names (``pdf_filter_names``: ``/Filter``, a name
or an array, given there or in objects it refers to, written plainly or in compressed
object streams: ``pdf_objects``) and decodes it through them in steps
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
from collections.abc import Iterator

from citesift.errors import DocumentError
from citesift.extract.pdf_dictionaries import DICT_BYTES, after_dictionary, object_text, plain_text
from citesift.extract.pdf_filter_names import (
    MAX_DEPTH,
    Reading,
    filter_readings,
    filter_references,
    value_references,
)
from citesift.extract.pdf_filters import STEP, Decoder, inflate
from citesift.extract.pdf_objects import (
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
MAX_REFERRED = 100_000
"""The most objects the filters of a PDF's streams may refer to (most name their filters
in place)."""
_STREAM = re.compile(rb"(?<!end)stream[\x00\t\n\x0c\r ]+")
"""The keyword opening a stream and the white space after it (PDF readers take a lone CR
or spaces too; no white space byte can start zlib data)."""


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
        dictionary = object_text(body, found.start())
        if dictionary is None and after_dictionary(body, found.start()):
            raise DocumentError("a PDF stream whose dictionary cannot be read: not read")
        referred = filter_references(dictionary)
        _want(wanted, referred)
        if dictionary is not None and _holds_objects(dictionary):
            object_streams.append(found.start())  # measured below, with what it holds
        elif referred:
            held.append(found.start())
        else:
            _measure(body, found.end(), filter_readings(dictionary, {}), meter)
    again = array("q")  # object streams holding streams whose filters refer to objects
    for start in object_streams:
        dictionary = object_text(body, start)
        if filter_references(dictionary) or _unpacked(body, start, dictionary, {}, meter, wanted):
            again.append(start)
    if not held and not again:
        return
    objects = _objects(body, wanted, object_streams, meter)
    for start in held:
        readings = filter_readings(object_text(body, start), objects)
        _measure(body, _data_start(body, start), readings, meter)
    for start in again:
        _unpacked(body, start, object_text(body, start), objects, meter, None)


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
    readings = filter_readings(dictionary, objects)
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
        dictionary = plain_text(bytes(unpacked[max(0, found.start() - DICT_BYTES) : found.start()]))
        if _holds_objects(dictionary):
            if depth + 1 >= MAX_DEPTH:
                raise DocumentError(
                    f"a PDF of object streams held {MAX_DEPTH} deep in each other: not read"
                )
            waiting |= _unpacked(
                unpacked, found.start(), dictionary, objects, meter, wanted, depth + 1
            )
            continue
        readings = filter_readings(dictionary, objects)
        if readings is None and wanted is not None:
            _want(wanted, filter_references(dictionary))
            waiting = True
        else:
            _measure(unpacked, found.end(), readings, meter)
    return waiting


def _measure(
    body: bytes | bytearray,
    start: int,
    readings: list[Reading] | None,
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
        _want(wanted, filter_references(object_text(body, start)))
    objects: Objects = {}
    readable = -1
    for _ in range(MAX_DEPTH):
        asked, was_readable, readable = len(wanted), readable, 0
        for key, texts in plain_objects(body, wanted).items():
            _add(objects, key, texts)
        for start in object_streams:
            dictionary = object_text(body, start)
            assert dictionary is not None  # an object stream is one whose dictionary is read
            readings = filter_readings(dictionary, objects)
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
                _want(wanted, value_references(held))
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
