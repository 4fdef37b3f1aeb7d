"""Compound files (OLE 2): how Office saved its files before OOXML, and how it still saves a
Word, Excel or PowerPoint file with a password (the OOXML package encrypted, in a stream
named ``EncryptedPackage``). Neither is read; only the directory's names are looked at,
within bounds, to say which it is."""

from __future__ import annotations

import struct

OLE_MAGIC = bytes.fromhex("D0CF11E0A1B11AE1")
MAX_DIRECTORY_SECTORS = 64
"""The most directory sectors read (each names 4 to 32 streams; Office writes a handful)."""
ENCRYPTED_STREAM = "EncryptedPackage"
_HEADER = struct.Struct("<30xH12xII")
"""Sector shift (at 0x1E), FAT sectors (0x2C) and the first directory sector (0x30)."""
_DIFAT_START, _DIFAT_COUNT = 0x4C, 109
_ENTRY = 128
_LAST = 0xFFFFFFFA
"""Sector numbers above this end a chain (or mark a free or special sector)."""


def is_compound_file(body: bytes) -> bool:
    """Whether ``body`` starts with the compound file signature."""
    return body.startswith(OLE_MAGIC)


def compound_file_refusal(body: bytes) -> str:
    """Why the compound file ``body`` is not read: an encrypted Office file, or a file in a
    format before OOXML (or another compound file)."""
    if ENCRYPTED_STREAM in stream_names(body):
        return "an encrypted Office file that needs a password"
    return "a compound (OLE) file, such as a .doc, .xls or .ppt before Office 2007: not read"


def stream_names(body: bytes) -> set[str]:
    """The names in the compound file's directory, read from at most
    ``MAX_DIRECTORY_SECTORS`` sectors of its chain; none when the header is broken."""
    if len(body) < 512:
        return set()
    shift, _, sector = _HEADER.unpack_from(body)
    if shift not in (9, 12):
        return set()
    size = 1 << shift
    names: set[str] = set()
    seen: set[int] = set()
    while sector <= _LAST and sector not in seen and len(seen) < MAX_DIRECTORY_SECTORS:
        seen.add(sector)
        start = (sector + 1) * size
        for entry in range(start, min(start + size, len(body) - _ENTRY + 1), _ENTRY):
            length = min(struct.unpack_from("<H", body, entry + 64)[0], 64)
            name = body[entry : entry + length].decode("utf-16-le", "replace").rstrip("\x00")
            if name:
                names.add(name)
        sector = _next(body, sector, size)
    return names


def _next(body: bytes, sector: int, size: int) -> int:
    """The sector after ``sector`` in its chain, by the FAT the header's DIFAT names (past
    its first 109 FAT sectors, none: the chain ends)."""
    per_sector = size // 4
    index, slot = divmod(sector, per_sector)
    if index >= _DIFAT_COUNT:
        return _LAST + 1
    fat = struct.unpack_from("<I", body, _DIFAT_START + 4 * index)[0]
    at = (fat + 1) * size + 4 * slot
    if fat > _LAST or at + 4 > len(body):
        return _LAST + 1
    return int(struct.unpack_from("<I", body, at)[0])
