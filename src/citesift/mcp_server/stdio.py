"""Serving over stdio with JSON-RPC 2.0's answer to a line that is no message: the SDK's
transport hands such a line to the session as an error, which answers nothing, so a host
that sent one would wait for a reply for ever. Here each gets an error with id null
(-32700 "Parse error" for text that is not JSON, -32600 "Invalid Request" for JSON that
is no JSON-RPC message) and the lines after it are served; blank lines are passed over."""

from __future__ import annotations

from types import TracebackType

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError
from pydantic import ValidationError

PARSE_ERROR = ErrorData(code=-32700, message="Parse error")
INVALID_REQUEST = ErrorData(code=-32600, message="Invalid Request")


async def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over the process's stdin and stdout until stdin ends."""
    lowlevel = server._lowlevel_server  # what ``MCPServer.run_stdio_async`` runs
    async with stdio_server() as (read_stream, write_stream):
        answered = _Answered(read_stream, write_stream)
        await lowlevel.run(answered, write_stream, lowlevel.create_initialization_options())


def error_reply(error: Exception) -> ErrorData | None:
    """The JSON-RPC error answering a line the transport could not read as a message
    (None for a blank line): a parse error when it is not JSON, else an invalid request."""
    if not isinstance(error, ValidationError):
        return INVALID_REQUEST
    first = error.errors()[0]
    if first["type"] != "json_invalid":
        return INVALID_REQUEST
    blank = isinstance(first.get("input"), str) and not first["input"].strip()
    return None if blank else PARSE_ERROR


class _Answered:
    """The transport's messages; a line it could not read is answered on ``replies`` and
    left out (the session would only log it)."""

    def __init__(
        self,
        messages: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
    ) -> None:
        self._messages, self._replies = messages, replies

    @property
    def last_context(self) -> object:
        """The sender's context of the last message, as the session reads it."""
        return getattr(self._messages, "last_context", None)

    async def receive(self) -> SessionMessage:
        while True:
            item = await self._messages.receive()
            if not isinstance(item, Exception):
                return item
            reply = error_reply(item)
            if reply is not None:
                message = JSONRPCError(jsonrpc="2.0", id=None, error=reply)
                await self._replies.send(SessionMessage(message))

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
