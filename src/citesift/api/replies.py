"""Error answers in Firecrawl's shape, ``{success: false, error, code?, details?}``, so its
clients raise the exception they would for Firecrawl itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from citesift.errors import (
    CitesiftError,
    InvalidArgument,
    NotFound,
    StoreBusy,
    StoreUnreachable,
    shown,
)

NOT_SUPPORTED = "not supported by citesift"


class Unsupported(InvalidArgument):
    """A request field, or a value of one, that citesift cannot honour: a 400 naming it,
    never silently ignored. ``value`` is shown (its URLs' secrets masked) unless it is
    ``UNSHOWN``: a field not honoured at all may hold a key (a webhook's, headers)."""

    def __init__(self, path: Sequence[str | int], value: object, why: str = "") -> None:
        self.path = [str(part) if isinstance(part, str) else part for part in path]
        given = "" if value is UNSHOWN else f" = {shown(value)}"
        super().__init__(
            f"{'.'.join(map(str, self.path))}{given} is {NOT_SUPPORTED}"
            + (f": {why}" if why else "")
        )


UNSHOWN = object()
"""The value of an ``Unsupported`` field, left out of its message."""


def failure(
    status: int,
    error: str,
    code: str | None = None,
    details: object = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """An error answer: ``error`` in words, a ``code`` a program can branch on."""
    body: dict[str, Any] = {"success": False, "error": error}
    if code is not None:
        body["code"] = code
    if details is not None:
        body["details"] = details
    return JSONResponse(body, status_code=status, headers=headers)


def bad_request(details: list[dict[str, Any]]) -> JSONResponse:
    """A 400 as Firecrawl answers an invalid body: each detail names its field's path."""
    return failure(400, "Bad Request", "BAD_REQUEST", details)


def install(app: FastAPI) -> None:
    """Answer invalid bodies, unhonoured fields and unknown routes in Firecrawl's shape."""
    app.add_exception_handler(RequestValidationError, _invalid_body)  # type: ignore[arg-type]
    app.add_exception_handler(InvalidArgument, _invalid_argument)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(CitesiftError, _citesift_error)  # type: ignore[arg-type]


async def _invalid_body(_: Request, error: RequestValidationError) -> JSONResponse:
    details = []
    for item in error.errors():
        path = [part for part in item.get("loc", ()) if part != "body"]
        message = str(item.get("msg", "invalid"))
        if item.get("type") == "extra_forbidden":
            message = f"Unrecognized key in body: {NOT_SUPPORTED}"
        details.append({"path": path, "message": message, "code": item.get("type")})
    return bad_request(details)


async def _invalid_argument(_: Request, error: InvalidArgument) -> JSONResponse:
    if isinstance(error, NotFound):
        return failure(404, str(error), "NOT_FOUND")
    named = [error.argument] if error.argument else []  # the argument ``invalid`` names
    path = error.path if isinstance(error, Unsupported) else named
    return bad_request([{"path": path, "message": str(error)}])


async def _http_error(_: Request, error: HTTPException) -> JSONResponse:
    headers = dict(error.headers) if error.headers else None
    return failure(error.status_code, str(error.detail), headers=headers)


async def _citesift_error(_: Request, error: CitesiftError) -> JSONResponse:
    """An error of the library's own (a busy store, a model that cannot run) as Firecrawl's
    error shape: 503 with Retry-After for a busy store or a store's server that cannot be
    reached, else 500."""
    if isinstance(error, StoreBusy):
        return failure(503, str(error), "STORE_BUSY", headers={"Retry-After": "5"})
    if isinstance(error, StoreUnreachable):
        return failure(503, str(error), "STORE_UNREACHABLE", headers={"Retry-After": "30"})
    return failure(500, str(error), type(error).__name__)
