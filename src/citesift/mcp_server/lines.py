"""Lines of a binary stream read in pieces, each no longer than a bound: a longer one is
read on up to its newline and dropped as it comes, so that what is held never passes the
bound and one piece, and is given as ``TOO_LONG_LINE`` (JSON that is no message)."""

from __future__ import annotations

import io
import json

import anyio.to_thread

PIECE_BYTES = 64 * 1024
TOO_LONG = {"citesift": "line too long"}
"""What stands for a line past the bound: JSON the reader of messages refuses."""
TOO_LONG_LINE = json.dumps(TOO_LONG) + "\n"


class BoundedLines:
    """The lines of ``wire``, decoded as UTF-8 (bytes that are none replaced), each of at
    most ``limit`` bytes besides its newline; iterated asynchronously, each piece read in a
    worker thread (as the SDK reads its lines)."""

    def __init__(self, wire: io.BufferedIOBase, limit: int) -> None:
        self._wire, self._limit = wire, limit
        self._held = bytearray()
        self._dropping = False  # within a line past the bound

    def __aiter__(self) -> BoundedLines:
        return self

    async def __anext__(self) -> str:
        line = await anyio.to_thread.run_sync(self._next_line)
        if line is None:
            raise StopAsyncIteration
        return line

    def _next_line(self) -> str | None:
        """The next line (the last may end without a newline), None at the end."""
        while True:
            end = self._held.find(b"\n")
            if end >= 0:
                line = bytes(self._held[: end + 1])
                del self._held[: end + 1]
                return self._ended(line)
            if self._dropping or len(self._held) > self._limit:
                self._held.clear()
                self._dropping = True
            piece = self._wire.read1(PIECE_BYTES)
            if not piece:
                rest = bytes(self._held)
                self._held.clear()
                return self._ended(rest) if rest or self._dropping else None
            self._held += piece

    def _ended(self, line: bytes) -> str:
        """``line`` as given: ``TOO_LONG_LINE`` for one past the bound."""
        too_long = self._dropping or len(line.rstrip(b"\r\n")) > self._limit
        self._dropping = False
        return TOO_LONG_LINE if too_long else line.decode("utf-8", "replace")
