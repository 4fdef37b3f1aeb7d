"""Routes for the stand-ins of remote services the loaders read: JSON and text answers,
a status with no body, a body slower than any deadline, and one past a byte cap.

    server.route("/v1/x", json_answer({"ok": True}))
    server.route("/raw/big.md", text_answer("x" * 5000))
"""

from __future__ import annotations

import json
from typing import Any

from servers import ROUTES, Query, Request, Route

slow_body: Route = ROUTES["/slowloris"]
"""Headers at once, then a byte every 0.1 s, forever: no deadline is ever met."""


def json_answer(payload: Any, status: int = 200) -> Route:
    """Answer ``payload`` as JSON with ``status``."""

    def route(request: Request, query: Query) -> None:
        body = json.dumps(payload).encode("utf-8")
        request.answer(status, body, {"Content-Type": "application/json"})

    return route


def text_answer(
    text: str, status: int = 200, content_type: str = "text/plain", etag: str | None = None
) -> Route:
    """Answer ``text`` (UTF-8) with ``status`` (and an ``ETag``)."""

    def route(request: Request, query: Query) -> None:
        headers = {"Content-Type": content_type, **({"ETag": f'"{etag}"'} if etag else {})}
        request.answer(status, text.encode("utf-8"), headers)

    return route
