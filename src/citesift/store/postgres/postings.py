"""Posting lists in PostgreSQL as packed arrays, read whole by the searcher: a query reads a
few rows a term, not a row a posting, however large the index grows.

Each write adds one block: per term, one row holding its postings as fixed-size big-endian
records (owner number, term count, owner length, key). Blocks of like size merge, a few at a
time, so a term has a few rows per size class (tens of rows at most). A removed owner's
postings are hidden by a tombstone until the merge that drops them; once tombstones are
many, each block that may hold them is rewritten without them, a slice of terms at a time.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

RECORD = np.dtype([("owner", ">i8"), ("tf", ">f4"), ("length", ">i4"), ("key", ">i8")])
"""One posting: its owner's number (a chunk's in ``chunk_owners``, a document text's
version), the term's count in it, the owner's length in terms, and a key (the owner's
document)."""
LISTS = ("chunks", "documents")
"""The posting lists kept, each in its table ``<list>_postings``."""
FANOUT = 8
"""Blocks of one size class merged at once: each posting is rewritten about once per
eightfold growth of the index, and a term has at most seven rows per size class."""
PURGE_AFTER = 4096
"""Tombstones of one list past which the blocks that may hold them are merged."""
SLICE_BYTES = 1 << 24
"""Postings a rewrite dropping tombstones holds here at once (16 MB; one term's rows at the
least), however large the blocks it rewrites."""
COMPACT_LOCK = 0x706F7374
"""The advisory lock of the writer merging a list's blocks (one at a time)."""


@dataclass(frozen=True, slots=True)
class Postings:
    """Live postings of a query's terms: per posting, its term's place in the query, and its
    record's fields in native order."""

    term: np.ndarray
    owner: np.ndarray
    tf: np.ndarray
    length: np.ndarray
    key: np.ndarray


def records_of(owners: Sequence[tuple[int, int, Mapping[str, int]]]) -> tuple[list[str], Any]:
    """The distinct terms of ``owners`` (each ``(number, key, term counts)``), and each
    posting's term (as its place among them) and record."""
    flat = list(chain.from_iterable(held for _, _, held in owners))
    codes = {term: n for n, term in enumerate(dict.fromkeys(flat))}
    sizes = np.fromiter((len(held) for _, _, held in owners), np.int64, len(owners))
    counts = np.fromiter(chain.from_iterable(h.values() for _, _, h in owners), np.float32)
    records = np.empty(len(flat), dtype=RECORD)
    records["owner"] = np.repeat([n for n, _, _ in owners], sizes)
    records["key"] = np.repeat([k for _, k, _ in owners], sizes)
    records["length"] = np.repeat([sum(held.values()) for _, _, held in owners], sizes)
    records["tf"] = counts
    return list(codes), (np.fromiter(map(codes.__getitem__, flat), np.int64, len(flat)), records)


def write_block(cursor: Any, name: str, terms: list[str], coded: Any) -> None:
    """Store postings (``records_of``'s) as one new block of list ``name``: a row per term."""
    codes, records = coded
    if not len(records):
        return
    block = _new_block(cursor, name, len(records), *_range(records["owner"]))
    _copy_rows(cursor, name, block, terms, codes, records)


def _new_block(cursor: Any, name: str, postings: int, low: int, high: int) -> int:
    """A new block of list ``name`` holding ``postings`` of owners ``low`` to ``high``."""
    cursor.execute(
        "INSERT INTO posting_blocks (list, level, postings, low, high)"
        " VALUES (%s, %s, %s, %s, %s) RETURNING block",
        (name, level_of(postings), postings, low, high),
    )
    row = cursor.fetchone()
    return int(row[0])


def _copy_rows(
    cursor: Any, name: str, block: int, terms: list[str], codes: Any, records: Any
) -> None:
    """Write ``records`` (each of the term at its place ``codes`` in ``terms``) into
    ``block``, a row per term, with one binary COPY."""
    order = np.argsort(codes, kind="stable")
    records = records[order]
    ends = np.cumsum(np.bincount(codes, minlength=len(terms))) * RECORD.itemsize
    data = memoryview(records.tobytes())
    packed = struct.pack(">iq", 8, block)
    rows: list[bytes | memoryview] = [_COPY_HEADER]
    start = 0
    for term, end in zip(terms, ends.tolist(), strict=True):
        if end > start:
            name_bytes = term.encode()
            rows += (_FIELDS.pack(3, len(name_bytes)), name_bytes, packed)
            rows += (_LENGTH.pack(end - start), data[start:end])
        start = end
    rows.append(_COPY_TRAILER)
    with cursor.copy(
        f"COPY {name}_postings (term, block, data) FROM STDIN (FORMAT BINARY)"
    ) as copy:
        copy.write(b"".join(rows))


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_COPY_TRAILER = struct.pack(">h", -1)
"""COPY's binary form: its signature, flags and header extension; and its end."""
_FIELDS, _LENGTH = struct.Struct(">hi"), struct.Struct(">i")
"""A row's count of fields with its first field's length; a field's length."""


@dataclass(frozen=True, slots=True)
class Read:
    """What one search reads, in one statement (one snapshot): the corpus totals (chunks,
    their total length, documents, theirs) and each list's live postings of its terms."""

    totals: tuple[float, ...]
    lists: dict[str, Postings]


_READ = (
    " UNION ALL ".join(
        f"SELECT {n}, term, data FROM {name}_postings WHERE term = ANY(%(terms)s)"
        for n, name in enumerate(LISTS)
    )
    + f" UNION ALL SELECT {len(LISTS) - 1} + array_position(%(lists)s, list), NULL,"
    " string_agg(int8send(number), ''::bytea) FROM dead_postings GROUP BY list"
    f" UNION ALL SELECT {2 * len(LISTS)}, NULL, float8send(sum(chunks)::float8)"
    " || float8send(sum(chunk_length)::float8) || float8send(sum(documents)::float8)"
    " || float8send(sum(document_length)::float8) FROM bm25_totals"
)
"""Rows of (what, term, data): 0 and 1, postings of each list; 2 and 3, each list's
tombstones packed; 4, the totals packed (sums of the totals' rows as float8)."""


def read(cursor: Any, terms: Sequence[str]) -> Read:
    """The totals and the live postings of ``terms`` in each list, in one statement."""
    cursor.execute(_READ.encode(), {"terms": list(terms), "lists": list(LISTS)}, binary=True)
    rows = cursor.fetchall()
    totals: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    dead = {name: np.zeros(0, dtype=np.int64) for name in LISTS}
    for what, _, data in rows:
        if what == 2 * len(LISTS) and data is not None:
            totals = tuple(np.frombuffer(data, dtype=">f8").tolist())
        elif what >= len(LISTS) and data is not None:
            dead[LISTS[what - len(LISTS)]] = np.frombuffer(data, dtype=">i8")
    place = {term: n for n, term in enumerate(terms)}
    lists = {}
    for n, name in enumerate(LISTS):
        # Term by term in the query's order: each owner's score is summed in that order.
        mine = sorted(((place[t], d) for w, t, d in rows if w == n), key=lambda r: r[0])
        lists[name] = _postings(mine, dead[name])
    return Read(totals, lists)


def _postings(rows: list[tuple[int, bytes]], dead: np.ndarray) -> Postings:
    """The postings packed in ``rows`` (each its term's place and data), less ``dead``."""
    records = _records([data for _, data in rows])
    term = np.repeat([t for t, _ in rows], [len(d) // RECORD.itemsize for _, d in rows])
    if len(dead) and len(records):
        keep = ~np.isin(records["owner"], dead)
        records, term = records[keep], term[keep]
    return Postings(
        term.astype(np.intp),
        records["owner"].astype(np.int64),
        records["tf"].astype(np.float64),
        records["length"].astype(np.float64),
        records["key"].astype(np.int64),
    )


def compact(
    cursor: Any, name: str, *, purge_after: int = PURGE_AFTER, slice_bytes: int = SLICE_BYTES
) -> None:
    """Merge the blocks of list ``name`` while a size class holds ``FANOUT`` of them, and
    rewrite each block that may hold its tombstones once they are more than ``purge_after``
    (by one writer at a time; the others go on writing blocks meanwhile). A rewrite here
    holds about ``slice_bytes`` of postings at once."""
    cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", (COMPACT_LOCK + LISTS.index(name),))
    locked = cursor.fetchone()
    if not (locked and locked[0]):
        return
    while True:
        cursor.execute(
            "SELECT array_agg(block ORDER BY block) FROM posting_blocks WHERE list = %s"
            " GROUP BY level HAVING count(*) >= %s ORDER BY level LIMIT 1",
            (name, FANOUT),
        )
        row = cursor.fetchone()
        if row is None:
            break
        _merge(cursor, name, row[0], slice_bytes)
    cursor.execute("SELECT count(*) FROM dead_postings WHERE list = %s", (name,))
    row = cursor.fetchone()
    if row is not None and row[0] > purge_after:
        cursor.execute(
            "SELECT array_agg(DISTINCT b.block) FROM posting_blocks b JOIN dead_postings d"
            " ON d.list = b.list AND d.number BETWEEN b.low AND b.high WHERE b.list = %s",
            (name,),
        )
        row = cursor.fetchone()
        for block in sorted(row[0] or []) if row is not None else []:
            _merge(cursor, name, [block], slice_bytes)


def _merge(cursor: Any, name: str, blocks: list[int], slice_bytes: int) -> None:
    """Rewrite ``blocks`` as one: in the server, each term's rows joined, when no tombstone
    falls in their owners' ranges; else here, without the postings of owners that have a
    tombstone."""
    cursor.execute(
        "SELECT sum(postings), min(low), max(high), EXISTS (SELECT 1 FROM dead_postings d"
        " JOIN posting_blocks b ON d.number BETWEEN b.low AND b.high"
        " WHERE d.list = %(list)s AND b.block = ANY(%(blocks)s))"
        " FROM posting_blocks WHERE block = ANY(%(blocks)s)",
        {"list": name, "blocks": blocks},
    )
    row = cursor.fetchone()
    if row is not None and not row[3]:
        _join(cursor, name, blocks, int(row[0]), int(row[1]), int(row[2]))
    else:
        _purge(cursor, name, blocks, slice_bytes)


def _purge(cursor: Any, name: str, blocks: list[int], slice_bytes: int) -> None:
    """Rewrite ``blocks`` as one here without the postings of owners that have a tombstone
    (and those tombstones dropped: nothing holds their postings any more), a slice of terms
    of about ``slice_bytes`` at a time, so a large block is never held whole."""
    cursor.execute(
        f"SELECT term, sum(octet_length(data)) FROM {name}_postings WHERE block = ANY(%s)"
        " GROUP BY term ORDER BY term".encode(),
        (blocks,),
    )
    sizes = [(str(term), int(size)) for term, size in cursor.fetchall()]
    dead = _dead(cursor, name)
    block = _new_block(cursor, name, 0, 0, 0)
    kept, lows, highs, purged = 0, [], [], set()
    for terms in _slices(sizes, slice_bytes):
        cursor.execute(
            f"DELETE FROM {name}_postings WHERE block = ANY(%s) AND term = ANY(%s)"
            " RETURNING term, data".encode(),
            (blocks, terms),
            binary=True,
        )
        rows = cursor.fetchall()
        codes: dict[str, int] = {}
        places = [codes.setdefault(term, len(codes)) for term, _ in rows]
        records = _records([data for _, data in rows])
        term = np.repeat(places, [len(d) // RECORD.itemsize for _, d in rows]).astype(np.int64)
        gone = np.isin(records["owner"], dead)
        purged.update(records["owner"][gone].tolist())
        records, term = records[~gone], term[~gone]
        if len(records):
            _copy_rows(cursor, name, block, list(codes), term, records)
            first, last = _range(records["owner"])
            lows.append(first)
            highs.append(last)
            kept += len(records)
    cursor.execute("DELETE FROM posting_blocks WHERE block = ANY(%s)", (blocks,))
    if kept:
        cursor.execute(
            "UPDATE posting_blocks SET level = %s, postings = %s, low = %s, high = %s"
            " WHERE block = %s",
            (level_of(kept), kept, min(lows), max(highs), block),
        )
    else:
        cursor.execute("DELETE FROM posting_blocks WHERE block = %s", (block,))
    cursor.execute(
        "DELETE FROM dead_postings WHERE list = %s AND number = ANY(%s)", (name, sorted(purged))
    )


def _slices(sizes: list[tuple[str, int]], limit: int) -> Iterator[list[str]]:
    """The terms of ``sizes`` (each with its bytes), in runs of at most ``limit`` bytes (a
    term larger than that alone)."""
    run: list[str] = []
    held = 0
    for term, size in sizes:
        if run and held + size > limit:
            yield run
            run, held = [], 0
        run.append(term)
        held += size
    if run:
        yield run


def _join(cursor: Any, name: str, blocks: list[int], postings: int, low: int, high: int) -> None:
    """Rewrite ``blocks`` as one in the server: each term's data, block after block."""
    block = _new_block(cursor, name, postings, low, high)
    cursor.execute(
        f"INSERT INTO {name}_postings (term, block, data) SELECT term, %s,"
        f" string_agg(data, ''::bytea ORDER BY block) FROM {name}_postings"
        " WHERE block = ANY(%s) GROUP BY term".encode(),
        (block, blocks),
    )
    cursor.execute(f"DELETE FROM {name}_postings WHERE block = ANY(%s)".encode(), (blocks,))
    cursor.execute("DELETE FROM posting_blocks WHERE block = ANY(%s)", (blocks,))


def _records(chunks: list[bytes]) -> np.ndarray:
    """The records packed in ``chunks``, concatenated."""
    return np.frombuffer(b"".join(chunks), dtype=RECORD)


def _dead(cursor: Any, name: str) -> np.ndarray:
    """The owner numbers of list ``name`` that have a tombstone."""
    cursor.execute("SELECT number FROM dead_postings WHERE list = %s", (name,))
    return np.fromiter((n for (n,) in cursor.fetchall()), np.int64)


def _range(owners: np.ndarray) -> tuple[int, int]:
    return int(owners.min()), int(owners.max())


def level_of(postings: int) -> int:
    """A block's size class: blocks of 8^n to 8^(n+1) postings are of class n."""
    return (max(postings, 1).bit_length() - 1) // 3
