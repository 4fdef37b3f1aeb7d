"""Tool failures the model reads: a library error or an outcome that gave nothing becomes
the SDK's ``ToolError``, answered as an error result with its reason, never a crash."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from citesift.errors import CitesiftError
from citesift.sources.reasons import describe

P = ParamSpec("P")
T = TypeVar("T")


def anticipated(tool: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """``tool`` with the library's errors answered as tool errors naming what is wrong."""

    @functools.wraps(tool)
    async def answered(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await tool(*args, **kwargs)
        except CitesiftError as error:
            raise ToolError(str(error)) from None

    return answered


def gave_nothing(doing: str, outcome: object) -> ToolError:
    """The error for an outcome that gave nothing: what was done and why it failed."""
    return ToolError(f"{doing}: {describe(outcome)}")
