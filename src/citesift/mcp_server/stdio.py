"""Serving over stdio with JSON-RPC 2.0's answer to a line that is no message: the SDK's
transport hands such a line to the session as an error, which answers nothing, so a host
that sent one would wait for a reply for ever. Here each gets an error with id null
(-32700 "Parse error" for text that is not JSON, -32600 "Invalid Request" for JSON that
is no JSON-RPC message, or a line past ``MAX_LINE_BYTES``) and the lines after it are
served; blank lines are passed over. An invalid request answers with the id it holds (a
string, or an integer) when it is a JSON object holding one, as JSON-RPC asks: null is for
an id that cannot be read. Two lines the SDK misreads are answered too: a request whose id
is no string or integer (``NaN``, ``1e400``, ``1.5``), which it takes for a notification
and never answers (-32600, id null), and a message holding a lone surrogate, which its
parser refuses as no JSON, so its id went unanswered (-32602 "Invalid params" with its id,
naming the field, for one in ``params``: a tool's name or argument; else -32600).

The SDK reads a line whole, however long; here stdin is read in pieces (``lines``) and a
line past the bound is dropped as it comes, up to its newline, so memory stays bounded."""

from __future__ import annotations

import io
import json
import sys
from collections import deque
from types import TracebackType
from typing import cast

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import _claim_fd, _open_stdin_diversion, stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError, JSONRPCNotification
from pydantic import ValidationError

from citesift.api.config import DEFAULT_MAX_BODY
from citesift.checks import LONE_SURROGATE, lone_surrogate_at
from citesift.errors import ConfigError
from citesift.mcp_server.lines import TOO_LONG, BoundedLines

PARSE_ERROR = ErrorData(code=-32700, message="Parse error")
INVALID_REQUEST = ErrorData(code=-32600, message="Invalid Request")
MAX_LINE_BYTES = DEFAULT_MAX_BODY
"""The most bytes one line (one message) may hold: the HTTP API's bound on a request body
(a tool call's arguments are addresses, queries and claims; a megabyte is some 200,000
words)."""
NO_ID = ErrorData(code=-32600, message="Invalid Request", data="id must be a string or an integer")
LINE_TOO_LONG = ErrorData(
    code=-32600,
    message="Invalid Request",
    data=f"a line longer than {MAX_LINE_BYTES} bytes: dropped",
)


async def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over the process's stdin and stdout until stdin ends; stdin is held
    as the SDK holds it (file descriptor 0 pointed at the null device meanwhile, so that
    processes started read nothing of the messages) and read in bounded lines."""
    lowlevel = server._lowlevel_server  # what ``MCPServer.run_stdio_async`` runs
    wire, release = _claim_fd(0, sys.stdin, "rb", _open_stdin_diversion)
    try:
        if not isinstance(wire, io.BufferedIOBase):  # a buffered file or bytes, in practice
            raise ConfigError("stdin is no buffered binary stream: it cannot be served")
        lines = _Given(BoundedLines(wire, MAX_LINE_BYTES))
        stdin = cast("anyio.AsyncFile[str]", lines)  # only iterated
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            answered = _Answered(read_stream, write_stream, lines.given)
            await lowlevel.run(answered, write_stream, lowlevel.create_initialization_options())
    finally:
        if release is not None:
            release()


def error_reply(error: Exception) -> ErrorData | None:
    """The JSON-RPC error answering a line the transport could not read as a message
    (None for a blank line): a parse error when it is not JSON, else an invalid request."""
    if not isinstance(error, ValidationError):
        return INVALID_REQUEST
    first = error.errors()[0]
    if first.get("input") == TOO_LONG:
        return LINE_TOO_LONG
    if first["type"] != "json_invalid":
        return INVALID_REQUEST
    blank = isinstance(first.get("input"), str) and not first["input"].strip()
    return None if blank else PARSE_ERROR


def unread_reply(error: Exception, line: str) -> JSONRPCError | None:
    """The answer to ``line``, which the transport could not read as a message (``error``
    says why); None for a blank line."""
    reply = error_reply(error)
    if reply is None:
        return None
    if reply is PARSE_ERROR:
        found = _surrogate_reply(_json(line))
        if found is not None:
            return found
    ident = request_id(line) if reply is INVALID_REQUEST else None
    return JSONRPCError(jsonrpc="2.0", id=ident, error=reply)


def misread_reply(message: SessionMessage, line: str) -> JSONRPCError | None:
    """The answer to a request the transport read as a notification because its id is no
    string or integer (JSON-RPC answers an invalid request, not silence); None for any
    other message."""
    if not isinstance(message.message, JSONRPCNotification):
        return None
    data = _json(line)
    if isinstance(data, dict) and "id" in data:
        return JSONRPCError(jsonrpc="2.0", id=None, error=NO_ID)
    return None


def request_id(line: str) -> str | int | None:
    """The id of the request ``line`` holds: a string, or an integer (not a boolean), when
    ``line`` is a JSON object holding one; else None."""
    return _id_of(_json(line))


def _surrogate_reply(data: object) -> JSONRPCError | None:
    """The answer to a message holding a lone surrogate (the SDK's parser refuses it as no
    JSON): its field named, with the message's id; None when it holds none."""
    where = lone_surrogate_at(data)
    if where is None:
        return None
    field = ".".join(map(str, where)) or "the message"
    said = f"{field} {LONE_SURROGATE}"
    if where[:1] == ["params"]:  # a tool's name or argument
        error = ErrorData(code=-32602, message="Invalid params", data=said)
    else:
        error = INVALID_REQUEST.model_copy(update={"data": said})
    return JSONRPCError(jsonrpc="2.0", id=_id_of(data), error=error)


def _json(line: str) -> object:
    """``line`` read as JSON as Python reads it (a lone surrogate, ``NaN``, ``1e400`` taken),
    or None when it is none."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _id_of(data: object) -> str | int | None:
    """The id a JSON object holds when it is a string UTF-8 can carry, or an integer (not a
    boolean); else None."""
    found = data.get("id") if isinstance(data, dict) else None
    if isinstance(found, str):
        return found if lone_surrogate_at(found) is None else None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


class _Given:
    """``lines`` passed on to the transport, each kept in ``given`` until the message (or
    the error) the transport makes of it is received: it makes one of each line."""

    def __init__(self, lines: BoundedLines) -> None:
        self._lines, self.given = lines, deque[str]()

    def __aiter__(self) -> _Given:
        return self

    async def __anext__(self) -> str:
        line = await anext(self._lines)
        self.given.append(line)
        return line


class _Answered:
    """The transport's messages; a line it could not read, or read as a notification though
    it holds an id, is answered on ``replies`` and left out (the session would only log it,
    or never answer it), with the id it holds when that can be read (``given`` holds the
    lines whose messages are not yet received, in order)."""

    def __init__(
        self,
        messages: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
        given: deque[str],
    ) -> None:
        self._messages, self._replies, self._given = messages, replies, given

    @property
    def last_context(self) -> object:
        """The sender's context of the last message, as the session reads it."""
        return getattr(self._messages, "last_context", None)

    async def receive(self) -> SessionMessage:
        while True:
            item = await self._messages.receive()
            line = self._given.popleft() if self._given else ""
            if isinstance(item, Exception):
                reply = unread_reply(item, line)
            else:
                reply = misread_reply(item, line)
                if reply is None:
                    return item
            if reply is not None:
                await self._replies.send(SessionMessage(reply))

    async def aclose(self) -> None:
        await self._messages.aclose()

    def __aiter__(self) -> _Answered:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _Answered:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()
