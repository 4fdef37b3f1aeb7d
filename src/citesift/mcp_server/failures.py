"""Tool failures the model reads: a library error, an outcome that gave nothing or an
argument out of its bounds becomes the SDK's ``ToolError``, answered as an error result
with its reason in one plain line, never a crash."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from citesift.errors import CitesiftError, written_number
from citesift.numbers import is_finite_number
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
    return ToolError(f"{doing} {describe(outcome)}")


_BOUNDS = {
    "string_too_long": "a string of at most {max_length} characters",
    "string_too_short": "a string of at least {min_length} characters",
    "too_long": "a list of at most {max_length} items",
    "too_short": "a list of at least {min_length} items",
    "less_than_equal": "at most {le}",
    "less_than": "below {lt}",
    "greater_than_equal": "at least {ge}",
    "greater_than": "above {gt}",
    "missing": "given",
}
"""What an argument takes, by the kind of bound it broke (pydantic's error type)."""


def refused_arguments(tool: str, error: ValidationError) -> ToolError:
    """The error for arguments ``tool`` does not take, in one line: the first argument
    wrong and the bound it breaks (with its value's length or value), not the validator's
    own text of several lines and links."""
    errors = error.errors(include_url=False)
    first = errors[0]
    name = ".".join(str(part) for part in first["loc"]) or "arguments"
    bound = _BOUNDS.get(first["type"])
    if bound is None:
        said = f"{name}: {first['msg']}"
    else:
        said = f"{name} must be {bound.format(**_written(first.get('ctx', {})))}"
        given = first["input"]
        if isinstance(given, str | list):
            said += f" (given {len(given):,})"
        elif first["type"] != "missing":
            said += f" (given {given!r:.40})"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return ToolError(" ".join(f"{tool}: {said}{more}".split()))


def boolean_for_number(
    tool: str, parameters: Mapping[str, Any], arguments: Mapping[str, Any]
) -> ToolError | None:
    """The error for a ``true`` or ``false`` given for a number argument of ``tool`` (its
    JSON schema ``parameters``), which pydantic's lax mode would read as 1 or 0 (the HTTP
    API refuses it too); None when there is none."""
    properties = parameters.get("properties", {})
    for name, value in arguments.items():
        if isinstance(value, bool) and _numeric(properties.get(name, {})):
            return ToolError(f"{tool}: {name} must be a number, not {str(value).lower()}")
    return None


def _numeric(schema: Mapping[str, Any]) -> bool:
    """Whether an argument's JSON schema takes a number (alone, or among ``anyOf``)."""
    if schema.get("type") in ("integer", "number"):
        return True
    return any(_numeric(option) for option in schema.get("anyOf", ()))


def _written(bounds: dict[str, Any]) -> dict[str, Any]:
    """``bounds`` with each number as people write it, so that 3600.0 reads 3,600."""
    return {k: written_number(v) if is_finite_number(v) else v for k, v in bounds.items()}
