"""Results cut into pages of bounded size, each with an opaque cursor to read on.

A result too long for one answer is held (in memory, the ``held`` most recently read)
under a random token; its cursor names the token and where the next page starts. A cursor
is bound to the tool that made it. Items are JSON objects; a page holds items until the
list of them would pass ``page_chars`` characters of JSON, and always at least one (long
texts are split into pieces of at most ``page_chars`` before they become items).
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from citesift.errors import invalid

Item = dict[str, Any]


@dataclass(frozen=True)
class Cursor:
    """Where a paged result goes on: the tool, the result's token and the next item."""

    tool: str
    token: str
    start: int

    def encode(self) -> str:
        """The cursor as an opaque string."""
        text = json.dumps([self.tool, self.token, self.start], separators=(",", ":"))
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, tool: str) -> Cursor:
    """The cursor ``tool`` gave; ``InvalidArgument`` for anything else."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        named, token, start = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, TypeError, binascii.Error, UnicodeError, RecursionError):
        raise invalid("cursor", cursor, "a cursor a result gave") from None
    if named != tool or not isinstance(token, str) or not isinstance(start, int) or start < 0:
        raise invalid("cursor", cursor, f"a cursor that {tool} gave")
    return Cursor(named, token, start)


def page_of(items: Iterable[Item], start: int, page_chars: int) -> tuple[list[Item], int, bool]:
    """The items from ``start`` that fit in ``page_chars`` (at least one), the index after
    them, and whether any item is left after them."""
    chosen: list[Item] = []
    size = 0
    ahead: Iterator[Item] = iter(items)
    for index, item in enumerate(ahead):
        if index < start:
            continue
        size += len(json.dumps(item, ensure_ascii=False)) + 2  # with its ", " (or brackets)
        if chosen and size > page_chars:
            return chosen, start + len(chosen), True
        chosen.append(item)
    return chosen, start + len(chosen), False


def pieces(text: str, size: int) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, cut after a line where one ends
    in the second half of a piece (so paragraphs stay whole where they can)."""
    found = []
    while len(text) > size:
        cut = text.rfind("\n", size // 2, size)
        cut = size if cut < 0 else cut + 1
        found.append(text[:cut])
        text = text[cut:]
    if text:
        found.append(text)
    return found


class Pager:
    """Pages of held results for the tools of one server."""

    def __init__(self, page_chars: int, held: int) -> None:
        self.page_chars = page_chars
        self.held = held
        self._results: OrderedDict[str, tuple[list[Item], dict[str, Any]]] = OrderedDict()

    def first(self, tool: str, items: list[Item], **head: Any) -> Item:
        """The first page of a new result, with ``head`` (what the result says besides its
        items, repeated on every page); the result is held for its cursor when it does not
        fit."""
        token = secrets.token_urlsafe(12)
        answer = self._page(Cursor(tool, token, 0), items, head)
        if answer["next_cursor"] is not None:
            self._results[token] = (items, head)
            while len(self._results) > self.held:
                self._results.popitem(last=False)
        return answer

    def next(self, tool: str, cursor: str) -> Item:
        """The page a cursor names, of a result still held."""
        at = decode_cursor(cursor, tool)
        held = self._results.get(at.token)
        if held is None:
            raise invalid("cursor", cursor, "a cursor of a result still held: call again")
        self._results.move_to_end(at.token)
        return self._page(at, *held)

    def _page(self, at: Cursor, items: list[Item], head: dict[str, Any]) -> Item:
        chosen, after, more = page_of(items, at.start, self.page_chars)
        following = Cursor(at.tool, at.token, after).encode() if more else None
        return {**head, "items": chosen, "total": len(items), "next_cursor": following}
