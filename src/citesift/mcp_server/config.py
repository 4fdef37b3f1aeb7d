"""How the MCP server talks and bounds its answers, checked once: over HTTP it listens on
loopback only, since the protocol's transport here has no keys."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from citesift.api.config import is_loopback
from citesift.errors import invalid
from citesift.numbers import number_in
from citesift.sources import DEFAULT_ORIGIN

Transport = Literal["stdio", "http"]
TRANSPORTS = ("stdio", "http")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
PAGE_CHARS = 8000
"""Characters of JSON one tool result holds at most by default; the rest is behind a cursor."""
HELD_RESULTS = 64
"""Results held for their cursors; the least recently read is dropped past this."""


@dataclass(frozen=True)
class McpConfig:
    """The transport (``stdio``, or streamable ``http`` on ``host``:``port`` at ``/mcp``),
    the wiki the Wikipedia tools ask, and the characters a result page holds."""

    transport: Transport = "stdio"
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    wiki_origin: str = DEFAULT_ORIGIN
    page_chars: int = PAGE_CHARS
    held_results: int = HELD_RESULTS

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise invalid("transport", self.transport, "'stdio' or 'http'")
        if not isinstance(self.host, str) or not is_loopback(self.host):
            raise invalid("host", self.host, "a loopback address (the MCP server takes no keys)")
        number_in("port", self.port, 0, 65_535, whole=True)
        number_in("page_chars", self.page_chars, 500, 1_000_000, whole=True)
        number_in("held_results", self.held_results, 1, 10_000, whole=True)
        if not isinstance(self.wiki_origin, str) or not self.wiki_origin.startswith(
            ("http://", "https://")
        ):
            raise invalid("wiki_origin", self.wiki_origin, "an http(s) origin")
