"""The MCP server's stdin read in bounded lines: a line up to the bound is given as it is,
one past it (ended by a newline or by the end of the stream) is given as the line that
stands for it, whatever pieces the stream comes in, and the lines after it are read."""

from __future__ import annotations

import io

import anyio

from citesift.mcp_server.lines import TOO_LONG_LINE, BoundedLines

LIMIT = 100


class Trickle(io.RawIOBase):
    """Bytes given ``size`` at a time at most, as a pipe gives what has come so far."""

    def __init__(self, data: bytes, size: int) -> None:
        self._data, self._size = data, size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        piece = self._data[: min(self._size, len(buffer))]
        self._data = self._data[len(piece) :]
        buffer[: len(piece)] = piece
        return len(piece)


def lines_of(data: bytes, size: int) -> list[str]:
    async def read() -> list[str]:
        wire = io.BufferedReader(Trickle(data, size))
        return [line async for line in BoundedLines(wire, LIMIT)]

    return anyio.run(read)


def test_lines_past_the_bound_are_given_as_the_line_standing_for_them() -> None:
    at_bound, past = "é" * (LIMIT // 2), "x" * (LIMIT + 1)
    data = f"{at_bound}\n{past}\r\nnext\n\n{'y' * 10 * LIMIT}\nlast".encode()
    expected = [f"{at_bound}\n", TOO_LONG_LINE, "next\n", "\n", TOO_LONG_LINE, "last"]
    for size in (1, 7, LIMIT, 100_000):
        assert lines_of(data, size) == expected
    assert lines_of(past.encode(), 3) == [TOO_LONG_LINE]  # cut off by the end
    assert lines_of(b"\xff" + b"a" * (LIMIT - 1) + b"\r\n", 9) == ["\ufffd" + "a" * 99 + "\r\n"]
